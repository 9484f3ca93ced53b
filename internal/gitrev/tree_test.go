package gitrev

import (
	"context"
	"path/filepath"
	"testing"
)

func TestTreeQueries(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t)
	dir := filepath.Join(tempDir(t), "repo")
	g := func(args ...string) { t.Helper(); git(t, env, dir, args...) }
	write := func(name, body string) { t.Helper(); writeFile(t, filepath.Join(dir, name), body) }
	write("go.mod", "module m\n")
	g("init", "-q", "-b", "main")
	write("a/b/x.go", "package b\n")
	write("docs/README", "x\n")
	g("add", "-A")
	g("commit", "-q", "-m", "one")
	r := open(t, env, dir)
	sha, err := r.Resolve(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	for d, want := range map[string]bool{".": true, "a": true, "a/b": true, "docs": true, "nope": false, "a/b/x.go": false, "go.mod": false, "a/c": false} {
		if got, err := r.HasDir(ctx, sha, d); err != nil || got != want {
			t.Errorf("HasDir(%s) = %v, %v; want %v", d, got, err, want)
		}
	}
	for _, tc := range []struct {
		dir   string
		below bool
		want  bool
	}{{".", true, true}, {".", false, false}, {"a", true, true}, {"a", false, false}, {"a/b", false, true}, {"docs", true, false}, {"nope", true, false}} {
		if got, err := r.HasGoFiles(ctx, sha, tc.dir, tc.below); err != nil || got != tc.want {
			t.Errorf("HasGoFiles(%s, %v) = %v, %v; want %v", tc.dir, tc.below, got, err, tc.want)
		}
	}
	count := func() int {
		t.Helper()
		n, err := r.Changes(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 0 {
		t.Errorf("clean checkout: %d changes", n)
	}
	write("a/b/x.go", "package b\n\nvar X = 1\n")
	write("notes.txt", "untracked, not Go\n")
	write("a/new.go", "package a\n")
	if n := count(); n != 2 {
		t.Errorf("one edit and one new .go file: %d changes, want 2", n)
	}
}
