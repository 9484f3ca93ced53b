package gitrev

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeBaseShallow: in a depth-1 clone neither commit nor their
// history is there; MergeBase fetches until git finds the merge base.
func TestMergeBaseShallow(t *testing.T) {
	o := makeOrigin(t)
	ctx := context.Background()
	clone := o.clone(t, "--depth=1")
	if _, err := gitErr(o.env, clone, "cat-file", "-e", o.c3); err == nil {
		t.Fatal("the merge base is already in the clone; the test proves nothing")
	}
	r := open(t, o.env, clone)
	got, err := r.MergeBase(ctx, o.f1, o.c4)
	if err != nil || got != o.c3 {
		t.Fatalf("MergeBase(f1, c4) = %s, %v; want c3 %s", got, err, o.c3)
	}
	// In a complete repository nothing is fetched.
	full := open(t, o.env, o.clone(t))
	if got, err := full.MergeBase(ctx, o.f1, o.c4); err != nil || got != o.c3 {
		t.Errorf("complete clone: %s, %v", got, err)
	}
	if _, err := full.MergeBase(ctx, "main", o.c4); err == nil {
		t.Error("a branch name was taken for a commit name")
	}
}

// TestReadFile reads a file of a commit without checking it out, and
// refuses links, directories and files above the size limit.
func TestReadFile(t *testing.T) {
	env := testEnv(t)
	dir := tempDir(t)
	git(t, env, dir, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "mod/.benchgate.yml"), "threshold: 7%\n")
	writeFile(t, filepath.Join(dir, "secret.txt"), "password: hunter2\n")
	if err := os.Symlink("../secret.txt", filepath.Join(dir, "mod/link.yml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("mod", filepath.Join(dir, "via")); err != nil {
		t.Fatal(err)
	}
	git(t, env, dir, "add", "-A")
	git(t, env, dir, "commit", "-q", "-m", "files")
	// The work tree changes after the commit: ReadFile reads the commit.
	writeFile(t, filepath.Join(dir, "mod/.benchgate.yml"), "threshold: 99%\n")
	ctx := context.Background()
	r := open(t, env, dir)
	data, err := r.ReadFile(ctx, "HEAD", "mod/.benchgate.yml", 1<<20)
	if err != nil || string(data) != "threshold: 7%\n" {
		t.Errorf("file: %q, %v", data, err)
	}
	for _, c := range []struct {
		path string
		want error
	}{
		{"mod/link.yml", ErrNotRegular},
		{"mod", ErrNotRegular},
		{"via/.benchgate.yml", fs.ErrNotExist},
		{"missing.yml", fs.ErrNotExist},
		{"mod/.benchgate", fs.ErrNotExist},
	} {
		data, err := r.ReadFile(ctx, "HEAD", c.path, 1<<20)
		if !errors.Is(err, c.want) || data != nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %q, %v; want %v", c.path, data, err, c.want)
		}
	}
	if _, err := r.ReadFile(ctx, "HEAD", "mod/.benchgate.yml", 5); err == nil || !strings.Contains(err.Error(), "larger than 5 bytes") {
		t.Errorf("too large: %v", err)
	}
}
