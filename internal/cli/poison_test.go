package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/sandbox"
	"github.com/benchgate/benchgate/internal/testenv"
)

// poisonBench is head's benchmark: it reports the dependency's value, then
// tries to plant in the sandbox home what a later build of base would read:
// a changed dependency in the module cache, a go env file with build tags,
// rewritten build cache entries.
const poisonBench = `package m

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"example.com/dep"
)

func BenchmarkValue(b *testing.B) {
	for b.Loop() {
		sink = dep.Value()
	}
	b.ReportMetric(float64(dep.Value()+tagged), "value")
	poison()
}

var sink int

func poison() {
	home, _ := os.UserHomeDir()
	src := filepath.Join(os.Getenv("GOMODCACHE"), "example.com", "dep@v1.0.0", "dep.go")
	os.Chmod(filepath.Dir(src), 0o755)
	os.Chmod(src, 0o644)
	os.WriteFile(src, []byte("package dep\n\nfunc Value() int { return 666 }\n"), 0o644)
	os.WriteFile(filepath.Join(os.Getenv("GOMODCACHE"), "poison"), nil, 0o644)
	for _, p := range []string{os.Getenv("GOENV"), filepath.Join(home, ".config", "go", "env")} {
		if filepath.IsAbs(p) {
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("GOFLAGS=-tags=poisoned\n"), 0o644)
		}
	}
	cache := os.Getenv("GOCACHE")
	filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			os.Chmod(p, 0o644)
			os.WriteFile(p, []byte("poison"), 0o644)
		}
		return nil
	})
	os.WriteFile(filepath.Join(cache, "poison"), nil, 0o644)
}
`

// baseBench is base's: the same value, no poison.
const baseBench = `package m

import (
	"testing"

	"example.com/dep"
)

func BenchmarkValue(b *testing.B) {
	for b.Loop() {
		sink = dep.Value()
	}
	b.ReportMetric(float64(dep.Value()+tagged), "value")
}

var sink int
`

// moduleProxy writes a GOPROXY directory serving example.com/dep v1.0.0,
// whose Value is 1.
func moduleProxy(t *testing.T, dir string) {
	t.Helper()
	v := filepath.Join(dir, "example.com", "dep", "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	for name, data := range map[string]string{
		"go.mod": "module example.com/dep\n\ngo 1.22\n",
		"dep.go": "package dep\n\nfunc Value() int { return 1 }\n",
	} {
		w, err := zw.Create("example.com/dep@v1.0.0/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(data))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFiles(t, v, map[string]string{
		"list":        "v1.0.0\n",
		"v1.0.0.info": `{"Version":"v1.0.0","Time":"2026-01-01T00:00:00Z"}`,
		"v1.0.0.mod":  "module example.com/dep\n\ngo 1.22\n",
		"v1.0.0.zip":  z.String(),
	})
}

var valueMetric = regexp.MustCompile(`(?m)^BenchmarkValue\S*\s.*\s(\S+) value`)

// A head benchmark that writes into the Go caches and a go env file (the
// sandbox home, shared by every benchgate step of a job and saved by a
// cache step) cannot change a build of base that follows: here the next
// run's, with the same home, as a later step would have it. Real builds,
// real test binaries, as the sandbox user. A go env file planted by some
// other way is not read either (GOENV=off).
func TestHeadCannotPoisonLaterBuilds(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds the standard library and real test binaries as the sandbox user")
	}
	root := openTempDir(t)
	env := testenv.Env(t)
	proxy := filepath.Join(root, "proxy")
	moduleProxy(t, proxy)
	env = append(env, "GOPROXY=file://"+proxy, "GOSUMDB=off", "GOFLAGS=-mod=readonly")

	base := filepath.Join(root, "trees", "base")
	testenv.WriteFiles(t, base, map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.24\n\nrequire example.com/dep v1.0.0\n",
		"m_test.go":       baseBench,
		"tag_plain.go":    "//go:build !poisoned\n\npackage m\n\nconst tagged = 0\n",
		"tag_poisoned.go": "//go:build poisoned\n\npackage m\n\nconst tagged = 1000\n",
		"doc.go":          "// Package m is measured.\npackage m\n",
	})
	// go.sum, written by go as root with caches of its own.
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = base
	tidy.Env = append(env, "GOMODCACHE="+filepath.Join(root, "rootmod"), "GOFLAGS=-mod=mod", "GOCACHE="+filepath.Join(root, "rootcache"))
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	head := testenv.CopyTree(t, base, filepath.Join(root, "trees", "head"))
	testenv.WriteFiles(t, head, map[string]string{"m_test.go": poisonBench})
	for _, d := range []string{base, head} {
		if err := sandbox.Readable(d); err != nil {
			t.Fatal(err)
		}
	}

	u := sandbox.User{UID: sandbox.FallbackID + 11, GID: sandbox.FallbackID + 11}
	home := filepath.Join(root, "home")
	measure := func(run string, sides [2]runner.Side) {
		t.Helper()
		sb, err := sandbox.New(sandbox.Options{Environ: env, User: &u, Home: home})
		if err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(root, "bin-"+run)
		os.Mkdir(bin, 0o711)
		var out [2]bytes.Buffer
		var progress bytes.Buffer
		err = sealedRun(t.Context(), sides, runner.Options{
			Count: 1, Benchtime: "1x", Runs: 1, CPU: []int{1},
			BinDir: bin, Env: sb.Env(), Credential: sb.Credential(), Progress: &progress,
		}, sb, &out[0], &out[1])
		if _, kerr := sb.KillAll(); kerr != nil {
			t.Error(kerr)
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", run, err, progress.String())
		}
		for i, o := range out {
			if m := valueMetric.FindStringSubmatch(o.String()); m == nil || m[1] != "1" {
				t.Errorf("%s, %s: value %v, want 1 (the dependency as published, no poisoned tag)\n%s", run, sides[i].Name, m, o.String())
			}
		}
	}
	measure("first", [2]runner.Side{{Name: "base", Dir: base}, {Name: "head", Dir: head}})
	for _, p := range []string{filepath.Join(home, "go", "pkg", "mod", "poison"), filepath.Join(home, ".cache", "go-build", "poison"), filepath.Join(home, ".config", "go", "env")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("head's benchmark wrote %s", p)
		}
	}
	// A go env file from elsewhere (an old cache): not read.
	testenv.WriteFiles(t, filepath.Join(home, ".config", "go"), map[string]string{"env": "GOFLAGS=-tags=poisoned\n"})
	measure("second", [2]runner.Side{{Name: "base", Dir: base}, {Name: "head", Dir: base}})
}

// sealedRun is the session as the run makes it: build, seal the sandbox,
// discover, prepare, measure.
func sealedRun(ctx context.Context, sides [2]runner.Side, o runner.Options, sb *sandbox.Sandbox, base, head io.Writer) error {
	s, err := runner.Build(ctx, sides[0], sides[1], o)
	if err != nil {
		return err
	}
	if err := sb.Seal(); err != nil {
		return err
	}
	units, err := s.Discover(ctx)
	if err != nil {
		return err
	}
	if err := s.Prepare(ctx, units); err != nil {
		return err
	}
	return s.Measure(ctx, units, 1, o.Count, base, head)
}
