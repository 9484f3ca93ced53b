// Package testenv is the test environment of benchgate's packages: real git
// and go on throw-away repositories, isolated from the machine's
// configuration. It is imported by tests only.
package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Env returns an environment in which git ignores the system's and the
// user's configuration and records fixed authors and dates, and go runs
// offline (no proxy, workspace or toolchain switch, no VCS stamping). HOME is
// kept: the build and module caches live under it. The test is skipped when
// git or go is missing. extra entries come last (they win).
func Env(t testing.TB, extra ...string) []string {
	t.Helper()
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GIT_"),
			k == "GOFLAGS", k == "GOWORK", k == "GOPROXY", k == "GOTOOLCHAIN", k == "CGO_ENABLED":
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		// GIT_CONFIG_GLOBAL replaces ~/.gitconfig and $XDG_CONFIG_HOME/git/config.
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=A U Thor", "GIT_AUTHOR_EMAIL=author@example.com", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z",
		"GIT_COMMITTER_NAME=C O Mitter", "GIT_COMMITTER_EMAIL=committer@example.com", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z",
		"GOFLAGS=-buildvcs=false", "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0",
	)
	return append(env, extra...)
}

// Git runs git with env in dir and returns its trimmed standard output; a
// failure ends the test.
func Git(t testing.TB, env []string, dir string, args ...string) string {
	t.Helper()
	out, err := GitErr(env, dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// GitErr is Git returning the error, which names the command and carries
// git's standard error.
func GitErr(env []string, dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(stdout.String()), nil
}

// TempDir is t.TempDir with symbolic links resolved (macOS's /var is one),
// as git reports paths.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// WriteFiles writes files (slash-separated names relative to dir, and their
// contents), making directories as needed.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// CopyTree copies the files below src into dst (made as needed), readable
// by every user, and returns dst.
func CopyTree(t testing.TB, src, dst string) string {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// EnvWith is this process's environment with the given NAME=value
// settings replacing any of the same name.
func EnvWith(kv ...string) []string {
	var env []string
	for _, e := range os.Environ() {
		name, _, _ := strings.Cut(e, "=")
		keep := true
		for _, s := range kv {
			if strings.HasPrefix(s, name+"=") {
				keep = false
			}
		}
		if keep {
			env = append(env, e)
		}
	}
	return append(env, kv...)
}

// Running reports whether pid is a live process (not a zombie), by its
// /proc status (Linux).
func Running(pid int) bool {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "State:"); ok {
			v = strings.TrimSpace(v)
			return !strings.HasPrefix(v, "Z") && !strings.HasPrefix(v, "X")
		}
	}
	return false
}

// HeavyVar is the variable that runs the heavy tests: .ci/run sets it.
const HeavyVar = "BENCHGATE_HEAVY"

// Heavy skips a test that builds and runs real programs for many seconds
// (a whole `benchgate run`, several go builds, a real module measured)
// unless BENCHGATE_HEAVY=1, so that `go test ./...`, the command people
// run often, stays within two minutes on a 2-core machine; .ci/run runs
// them all. Tests under Valgrind are not heavy in this sense: they run
// wherever Valgrind is installed.
func Heavy(t testing.TB) {
	t.Helper()
	if os.Getenv(HeavyVar) != "1" {
		t.Skipf("a heavy real-process test: runs with %s=1 (.ci/run)", HeavyVar)
	}
}

// Within runs f and fails t when it has not returned after limit: a fuzz
// target's bound on the time one input may take (f's goroutine is left
// behind, as a hang leaves it; a panic in f crashes the test with its
// stack, which the fuzzer records as a failing input).
func Within(t testing.TB, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("not done after %v", limit)
	}
}
