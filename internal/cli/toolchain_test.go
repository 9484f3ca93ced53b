package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/shard"
	"github.com/benchgate/benchgate/internal/testenv"
)

type toolchainReport struct {
	Go       map[string]string             `json:"go"`
	Warnings []struct{ Code, Text string } `json:"warnings"`
}

func readToolchainReport(t *testing.T, path string) toolchainReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r toolchainReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRunDifferentToolchains measures a change that raises go.mod's go
// line, the way the action image runs it (GOTOOLCHAIN=auto), with real
// toolchains: the default is go1.26.0 (GOTOOLCHAIN=go1.26.0+auto,
// downloaded from the module proxy), so base builds with go1.26.0 and head
// with the local toolchain its go line asks for. The report, the JSON and
// stderr must all say so.
func TestRunDifferentToolchains(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("downloads a Go toolchain, builds and runs real benchmarks")
	}
	const old = "go1.26.0"
	local := runtime.Version()
	if !regexp.MustCompile(`^go1\.\d+\.\d+$`).MatchString(local) || local == old {
		t.Skipf("local toolchain %s: need a release newer than %s", local, old)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	// HOME stays: the build and module caches (and the downloaded
	// toolchain) live under it.
	home := t.TempDir()
	env := testenv.EnvWith("GOTOOLCHAIN="+old+"+auto", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com")
	probe := exec.Command("go", "version")
	probe.Env, probe.Dir = env, home
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("%s is not available here: %v\n%s", old, err, out)
	}

	repo := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(repo, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write("go.mod", "module example.com/tc\n\ngo 1.26\n")
	write("tc.go", "package tc\n\nfunc Work(n int) (t int) {\n\tfor i := range n {\n\t\tt += i % 7\n\t}\n\treturn t\n}\n")
	write("tc_test.go", "package tc\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkWork(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink += Work(100)\n\t}\n}\n")
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	write("go.mod", "module example.com/tc\n\ngo "+strings.TrimPrefix(local, "go")+"\n")
	git("commit", "-q", "-am", "raise the go line")

	jsonOut := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), []string{"run", "--base", "HEAD~1", "--count", "3", "--benchtime", "1ms", "--quiet", "--json", jsonOut},
		Env{Stdout: &stdout, Stderr: &stderr, Dir: repo, Environ: env})
	if code != ExitPass && code != ExitFail {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	warning := "different Go toolchains (base " + old + ", head " + local + ")"
	if !strings.Contains(stderr.String(), "benchgate: warning: base and head were built with "+warning) {
		t.Errorf("stderr lacks the toolchain warning:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), "! Different Go toolchains: base was built with "+old+" and head with "+local) ||
		!strings.Contains(stdout.String(), "Go: base "+old+", head "+local) {
		t.Errorf("report lacks the toolchains:\n%s", stdout.String())
	}
	r := readToolchainReport(t, jsonOut)
	if r.Go["base"] != old || r.Go["head"] != local {
		t.Errorf(`JSON "go" = %v, want base %s, head %s`, r.Go, old, local)
	}
	if len(r.Warnings) == 0 || r.Warnings[0].Code != "go-toolchains" || !strings.Contains(r.Warnings[0].Text, warning) {
		t.Errorf("JSON warnings = %q, want the toolchain warning first", r.Warnings)
	}
}

// TestMergeToolchains: the toolchains recorded by the shards reach the
// merged report, cleaned: a manifest is read from an artifact and must
// not put a workflow command on stderr.
func TestMergeToolchains(t *testing.T) {
	dir := t.TempDir()
	for i := range 2 {
		sdir := filepath.Join(dir, "s"+strconv.Itoa(i+1))
		// Incomplete shards without raw files: the merge fails the
		// verdict, and still writes the reports.
		m := shard.Manifest{Shard: shard.Spec{Index: i + 1, Count: 2}, BaseSHA: "b", HeadSHA: "h",
			BaseGo: "go1.26.8", HeadGo: "go1.27.0\n::error::forged"}
		if err := m.Write(sdir); err != nil {
			t.Fatal(err)
		}
	}
	jsonOut := filepath.Join(dir, "out.json")
	var stdout, stderr bytes.Buffer
	Run(context.Background(), []string{"merge", "s1", "s2", "--json", jsonOut}, Env{Stdout: &stdout, Stderr: &stderr, Dir: dir})
	if !strings.Contains(stderr.String(), "benchgate: warning: base and head were built with different Go toolchains (base go1.26.8, head go1.27.0)") {
		t.Errorf("stderr lacks the toolchain warning:\n%s", stderr.String())
	}
	for _, out := range []string{stdout.String(), stderr.String()} {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "::") {
				t.Errorf("workflow command in the output: %q", l)
			}
		}
	}
	r := readToolchainReport(t, jsonOut)
	if r.Go["base"] != "go1.26.8" || r.Go["head"] != "go1.27.0" {
		t.Errorf(`JSON "go" = %v`, r.Go)
	}
}
