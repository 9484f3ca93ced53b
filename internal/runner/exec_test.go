package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/sandbox"
)

// seal takes a binary directory the sandbox user built into back: nothing in
// it stays theirs or writable by anyone but benchgate.
func TestSeal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: only root gives files to another user")
	}
	dir := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "0.test")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o777); err != nil {
		t.Fatal(err)
	}
	const other = 65530
	for _, p := range []string{dir, bin} {
		if err := os.Chown(p, other, other); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o777)
	}
	if err := seal(dir); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o755, bin: 0o755} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if int(st.Uid) != os.Geteuid() || fi.Mode().Perm() != want {
			t.Errorf("%s: uid %d mode %v, want uid %d mode %v", p, st.Uid, fi.Mode().Perm(), os.Geteuid(), want)
		}
	}
}

// parseResults reads a result line split by the benchmark's own output
// (benchout.Rejoin) under the run's GOMAXPROCS suffix.
func TestParseResultsSplit(t *testing.T) {
	out := "pkg: example.com/m\n" +
		"BenchmarkChat-4 \tprogress: 50%\n" +
		"  200\t  9.0 ns/op\n" +
		"BenchmarkChat-2 \tprogress: 50%\n" +
		"progress: 100%\n" +
		"  400\t  7.5 ns/op\t  16 B/op\n" +
		"ok\n"
	got := parseResults([]byte(out), 2)
	if len(got) != 1 || got[0].leaf != "BenchmarkChat" {
		t.Fatalf("parsed %+v, want Chat at GOMAXPROCS 2 alone", got)
	}
	if r := got[0].result; r.Iters != 400 || r.Values[0].OrigValue != 7.5 || len(r.Values) != 2 {
		t.Errorf("Chat result %+v", r)
	}
}

// A child that prints without end is stopped at sandbox.MaxOutput, with an error
// that says so, not at its timeout or benchgate's memory.
func TestRunOutputBounded(t *testing.T) {
	for _, stream := range []string{"standard output", "standard error"} {
		script := "yes 0123456789"
		if stream == "standard error" {
			script += " >&2"
		}
		c := command{Name: "sh", Args: []string{"-c", script}, Timeout: 20 * time.Second}
		out, err := c.run(context.Background())
		want := fmt.Sprintf("sh -c '%s': its %s was larger than %d bytes (64 MiB): stopped", script, stream, sandbox.MaxOutput)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", stream, err, want)
		}
		if out.TimedOut || len(out.Stdout) > sandbox.MaxOutput || len(out.Stderr) > sandbox.MaxOutput {
			t.Errorf("%s: timed out %v, kept %d and %d bytes", stream, out.TimedOut, len(out.Stdout), len(out.Stderr))
		}
	}
	out, err := command{Name: "sh", Args: []string{"-c", "echo ok"}}.run(context.Background())
	if err != nil || string(out.Stdout) != "ok\n" {
		t.Errorf("echo ok: %q, %v", out.Stdout, err)
	}
}

// envSealDir makes the test binary, started again as another user, seal
// that directory (TestSealTakesBeforeListing).
const envSealDir = "BENCHGATE_TEST_SEAL_DIR"

// seal takes each directory (chown, chmod) before it lists it (see seal).
// Seen by a user other than root, who cannot list a directory without read
// permission: seal lists sub only because it made it 0755 first. Run as
// root, the test starts itself again as such a user.
func TestSealTakesBeforeListing(t *testing.T) {
	if dir := os.Getenv(envSealDir); dir != "" {
		if err := seal(dir); err != nil {
			t.Fatalf("seal: %v", err)
		}
		return
	}
	// Not t.TempDir: its parent is closed to other users.
	dir, err := os.MkdirTemp("", "seal-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sub := filepath.Join(dir, "bin", "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "0.test"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sub, 0o300); err != nil { // writable, searchable, not listable
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if err := seal(filepath.Join(dir, "bin")); err != nil {
			t.Fatalf("seal lists a directory before taking it: %v", err)
		}
		return
	}
	// As root: the test binary, copied where another user can run it,
	// seals a directory of that user's.
	const uid = 65529
	os.Chmod(dir, 0o755)
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "runner.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "bin"), sub, filepath.Join(sub, "0.test")} {
		if err := os.Lchown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-test.run=^TestSealTakesBeforeListing$", "-test.count=1")
	cmd.Env = append(os.Environ(), envSealDir+"="+filepath.Join(dir, "bin"))
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("seal as uid %d lists a directory before taking it: %v\n%s", uid, err, out)
	}
	if fi, err := os.Stat(sub); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("sub: %v, %v; want mode 0755", fi.Mode(), err)
	}
}
