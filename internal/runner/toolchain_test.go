package runner

import (
	"context"
	"debug/buildinfo"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testenv"
)

func TestCleanGoVersion(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"go1.26.8\n", "go1.26.8"},
		{"  go1.27rc1 X:nodwarf5\r\n", "go1.27rc1 X:nodwarf5"},
		{"devel go1.27-abcdef Tue Jan 6 10:00:00 2026 +0000\n", "devel go1.27-abcdef Tue Jan 6 10:00:00 2026 +0000"},
		{"go1.26.8\n::set-output name=x::y\n", "go1.26.8"},
		{"go1.26 ##[error]<b>@x</b>`|", "go1.26 ___error__b__x_/b___"},
		{strings.Repeat("9", 300), strings.Repeat("9", maxGoVersion)},
		{"", ""},
	} {
		if got := CleanGoVersion(tc.in); got != tc.want {
			t.Errorf("CleanGoVersion(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func setGoLine(t *testing.T, dir, line string) {
	t.Helper()
	mod := "module example.com/mod\n\n" + line + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGoVersionsSameToolchain: with GOTOOLCHAIN=local both sides report
// the local toolchain, whatever go.mod asks for below it.
func TestGoVersionsSameToolchain(t *testing.T) {
	base := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	head := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	setGoLine(t, head, "go 1.26.0\n\ntoolchain go1.26.0")
	got, err := goVersions(context.Background(), [2]Side{{"base", base}, {"head", head}}, &Options{Env: testenv.EnvWith("GOTOOLCHAIN=local")})
	if err != nil {
		t.Fatal(err)
	}
	if want := runtime.Version(); got != [2]string{want, want} {
		t.Errorf("goVersions = %q, want %q on both sides", got, want)
	}
}

var releaseVersion = regexp.MustCompile(`^go1\.(\d+)\.(\d+)$`)

// TestPrepareDifferentToolchains builds base and head with two real
// toolchains, the way GOTOOLCHAIN=auto does when a PR raises go.mod's go
// line: the default is go1.26.0 (GOTOOLCHAIN=go1.26.0+auto, downloaded
// from the module proxy), base's go.mod asks for no more, head's asks for
// the local toolchain. The recorded versions must be the ones that
// actually compiled each side's test binaries.
func TestPrepareDifferentToolchains(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("downloads a Go toolchain and builds real test binaries")
	}
	const old = "go1.26.0"
	local := runtime.Version()
	if !releaseVersion.MatchString(local) || local == old {
		t.Skipf("local toolchain %s: need a release newer than %s", local, old)
	}
	env := testenv.EnvWith("GOTOOLCHAIN=" + old + "+auto")
	probe := exec.Command("go", "version")
	probe.Env, probe.Dir = env, t.TempDir()
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("%s is not available here: %v\n%s", old, err, out)
	}
	base := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	head := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	setGoLine(t, base, "go 1.26")
	setGoLine(t, head, "go "+strings.TrimPrefix(local, "go"))
	bin := t.TempDir()
	s, err := Prepare(context.Background(), Side{"base", base}, Side{"head", head},
		Options{Bench: "Sum", Packages: []string{"."}, Count: 1, Benchtime: "1x", BinDir: bin, Env: env})
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	want := [2]string{old, local}
	if got := s.Result().GoVersion; got != want {
		t.Errorf("GoVersion = %q, want %q", got, want)
	}
	for i, side := range []string{"base", "head"} {
		bins, _ := filepath.Glob(filepath.Join(bin, side, "*.test"))
		if len(bins) == 0 {
			t.Fatalf("%s: no test binary in %s", side, filepath.Join(bin, side))
		}
		for _, b := range bins {
			info, err := buildinfo.ReadFile(b)
			if err != nil {
				t.Fatal(err)
			}
			if info.GoVersion != want[i] {
				t.Errorf("%s binary %s was built by %s, GoVersion says %s", side, filepath.Base(b), info.GoVersion, want[i])
			}
		}
	}
}

// TestPrepareToolchainErrors: a go line the toolchain cannot satisfy stops
// Prepare with an error naming the side and the version (when the probe
// fails, before anything is built).
func TestPrepareToolchainErrors(t *testing.T) {
	testenv.Heavy(t)
	for _, tc := range []struct {
		name, toolchain, want string
		probe                 bool // the probe fails, not the build
	}{
		// The toolchain cannot be downloaded.
		{"auto", "auto", "go1.99", true},
		// The probe reports the local toolchain; listing fails.
		{"local", "local", "requires go >= 1.99", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := testenv.CopyTree(t, "testdata/mod", t.TempDir())
			head := testenv.CopyTree(t, "testdata/mod", t.TempDir())
			setGoLine(t, head, "go 1.99.0")
			bin := t.TempDir()
			_, err := Prepare(context.Background(), Side{"base", base}, Side{"head", head},
				Options{Count: 1, BinDir: bin, Env: testenv.EnvWith("GOTOOLCHAIN="+tc.toolchain, "GOPROXY=off")})
			var be *BuildError
			if err == nil || errors.As(err, &be) || !strings.Contains(err.Error(), "head side") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming the head side and %q", err, tc.want)
			}
			if bins, _ := filepath.Glob(filepath.Join(bin, "*", "*.test")); tc.probe && len(bins) > 0 {
				t.Errorf("built %v despite the error", bins)
			}
		})
	}
}
