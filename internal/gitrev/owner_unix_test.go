//go:build unix

package gitrev

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOtherOwner is the GitHub Actions container case: the process is root,
// the shallow checkout belongs to uid 1001, and git must work without
// "dubious ownership" and without any config file being written; afterwards
// nothing under .git may be left owned by root.
func TestOtherOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the checkout to another user")
	}
	const uid, gid = 1001, 1001
	o := makeOrigin(t)
	clone := o.clone(t, "--depth=1")
	chownAll(t, clone, uid, gid)
	if _, err := gitErr(o.env, clone, "rev-parse", "HEAD"); err == nil || !strings.Contains(err.Error(), "dubious ownership") {
		t.Fatalf("plain git in the chowned clone: %v; want a dubious-ownership refusal, or the test proves nothing", err)
	}

	home := envValue(o.env, "HOME")
	realHome, _ := os.UserHomeDir()
	realConfig := filepath.Join(realHome, ".gitconfig")
	realBefore, realErr := os.ReadFile(realConfig)
	safeEnv, err := gitEnv(o.env) // for the test's own checks
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, safeEnv, clone)

	ctx := context.Background()
	r, err := Open(ctx, clone, WithEnv(o.env), WithLogf(t.Logf))
	if err != nil {
		t.Fatal(err)
	}
	base, err := r.ParentOf(ctx, "HEAD", 1) // fetches as root
	if err != nil || base != o.c4 {
		t.Fatalf("ParentOf(HEAD, 1) = %s, %v; want %s", base, err, o.c4)
	}
	wt, err := r.AddWorktree(ctx, base, tempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(wt.Path(), "f.txt")); err != nil || string(b) != "c4" {
		t.Errorf("f.txt in the base worktree = %q, %v; want c4", b, err)
	}
	if len(rootOwned(t, r.GitDir())) == 0 {
		t.Fatal("nothing under .git is owned by root after a fetch; the ownership check proves nothing")
	}

	if err := r.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if left := rootOwned(t, r.GitDir()); len(left) != 0 {
		t.Errorf("still owned by root after Cleanup: %q", left)
	}
	if err := filepath.WalkDir(r.GitDir(), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st := info.Sys().(*syscall.Stat_t); st.Uid != uid || st.Gid != gid {
			t.Errorf("%s is owned by %d:%d, want %d:%d", path, st.Uid, st.Gid, uid, gid)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	checkUnchanged(t, before, safeEnv, clone) // includes .git/config
	for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git")} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s was written: %v", p, err)
		}
	}
	realAfter, err := os.ReadFile(realConfig)
	if !bytes.Equal(realBefore, realAfter) || (realErr == nil) != (err == nil) {
		t.Errorf("%s changed", realConfig)
	}
	if _, err := gitErr(o.env, clone, "rev-parse", "HEAD"); err == nil || !strings.Contains(err.Error(), "dubious ownership") {
		t.Errorf("plain git in the clone after the run: %v; want it still refused (no safe.directory was saved)", err)
	}
}

func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

func chownAll(t *testing.T, dir string, uid, gid int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func rootOwned(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Sys().(*syscall.Stat_t).Uid == 0 {
			rel, _ := filepath.Rel(dir, path)
			paths = append(paths, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}
