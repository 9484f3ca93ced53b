package runner

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
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
