package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/sandbox"
	"github.com/benchgate/benchgate/internal/testenv"
)

// goModule finds the go.mod without running go: in the change's checkout,
// as root, go could download the toolchain its go line asks for.
func TestGoModule(t *testing.T) {
	// A go that must not run.
	bin := t.TempDir()
	ran := filepath.Join(bin, "ran")
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\ntouch "+ran+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)

	root := t.TempDir()
	mod := filepath.Join(root, "mod")
	sub := filepath.Join(mod, "a", "b")
	// A directory named go.mod is not a module's.
	plain := filepath.Join(root, "plain")
	for _, d := range []string{sub, filepath.Join(plain, "go.mod")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n\ngo 9.99\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{mod, sub} {
		if err := goModule(dir); err != nil {
			t.Errorf("goModule(%s) = %v, want nil", dir, err)
		}
	}
	want := plain + " is not in a Go module (no go.mod): run benchgate in the module's directory or pass -C DIR"
	if err := goModule(plain); err == nil || err.Error() != want {
		t.Errorf("goModule(%s) = %v, want %q", plain, err, want)
	}
	for _, bad := range []string{filepath.Join(mod, "go.mod"), filepath.Join(root, "missing")} {
		if err := goModule(bad); err == nil {
			t.Errorf("goModule(%s) = nil, want an error", bad)
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("goModule ran go")
	}
}

// What the change's code leaves running in the background (here in a
// session of its own, out of reach of the process group kill) is killed
// before the workspace reopens.
func TestReleaseKillsLeftovers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the sandbox user is only used when benchgate runs as root (the action's container)")
	}
	dir, err := os.MkdirTemp("", "release-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A user of its own: no other test's processes are this user's.
	u := sandbox.User{UID: sandbox.FallbackID + 9, GID: sandbox.FallbackID + 9}
	sb, err := sandbox.New(sandbox.Options{User: &u, Home: filepath.Join(dir, "home")})
	if err != nil {
		t.Fatal(err)
	}
	daemon := exec.Command("sleep", "300")
	daemon.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Credential: sb.Credential()}
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { daemon.Process.Kill(); daemon.Wait() })

	var stderr bytes.Buffer
	reopened, aliveThen := false, false
	p := &prison{Sandbox: sb, stderr: &stderr, reopen: func() {
		reopened, aliveThen = true, testenv.Running(daemon.Process.Pid)
	}}
	p.release()
	if !reopened || aliveThen || stderr.Len() > 0 {
		t.Errorf("workspace reopened %v, the sandbox user's process running then %v, want true, false\n%s", reopened, aliveThen, stderr.String())
	}
	waited := make(chan error, 1)
	go func() { waited <- daemon.Wait() }()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Errorf("the sandbox user's process %d is still running", daemon.Process.Pid)
	}
}
