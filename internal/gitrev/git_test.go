package gitrev

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testenv"

	"github.com/google/go-cmp/cmp"
)

// The tests run real git on throwaway repositories (internal/testenv): HOME
// is an empty directory, the system and global config are ignored, and
// authors and dates are fixed.

func testEnv(t *testing.T) []string { return testenv.Env(t, "HOME="+testenv.TempDir(t)) }

var (
	git     = testenv.Git
	gitErr  = testenv.GitErr
	tempDir = testenv.TempDir
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// origin is a repository with this history on main, a branch feat and an
// annotated tag v1:
//
//	c1 (v1) - c2 - c3 - c4 - m (main)
//	                \        /
//	                 f1 (feat)
type origin struct {
	env                []string
	dir                string
	c1, c2, c3, c4, f1 string
	m                  string
}

func makeOrigin(t *testing.T) *origin {
	t.Helper()
	env := testEnv(t)
	dir := filepath.Join(tempDir(t), "origin")
	git(t, env, "", "init", "--quiet", "--initial-branch=main", dir)
	commit := func(file, content string) string {
		writeFile(t, filepath.Join(dir, file), content)
		git(t, env, dir, "add", "-A")
		git(t, env, dir, "commit", "--quiet", "-m", file+" "+content)
		return git(t, env, dir, "rev-parse", "HEAD")
	}
	o := &origin{env: env, dir: dir}
	o.c1 = commit("sub/mod/x.txt", "c1")
	git(t, env, dir, "tag", "-a", "-m", "version 1", "v1")
	o.c2 = commit("f.txt", "c2")
	o.c3 = commit("f.txt", "c3")
	git(t, env, dir, "checkout", "--quiet", "-b", "feat")
	o.f1 = commit("g.txt", "f1")
	git(t, env, dir, "checkout", "--quiet", "main")
	o.c4 = commit("f.txt", "c4")
	git(t, env, dir, "merge", "--quiet", "--no-ff", "-m", "merge feat", "feat")
	o.m = git(t, env, dir, "rev-parse", "HEAD")
	return o
}

// clone clones the origin into a new directory (extra arguments such as
// --depth=1 go to git clone) and returns its path.
func (o *origin) clone(t *testing.T, args ...string) string {
	t.Helper()
	dir := filepath.Join(tempDir(t), "clone")
	git(t, o.env, "", append(append([]string{"clone", "--quiet"}, args...), "file://"+o.dir, dir)...)
	return dir
}

// state is what the package must never change in the user's checkout.
type state struct {
	Status, Head, Branch, Refs, Worktrees, Index, Config string
}

func snapshot(t *testing.T, env []string, dir string) state {
	t.Helper()
	env = append(slices.Clip(env), "GIT_OPTIONAL_LOCKS=0") // git status must not refresh the index
	branch, _ := gitErr(env, dir, "symbolic-ref", "-q", "HEAD")
	gitDir := git(t, env, dir, "rev-parse", "--absolute-git-dir")
	index, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	config, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil {
		t.Fatal(err)
	}
	return state{
		Status:    git(t, env, dir, "status", "--porcelain", "--ignored", "--untracked-files=all"),
		Head:      git(t, env, dir, "rev-parse", "HEAD"),
		Branch:    branch,
		Refs:      git(t, env, dir, "for-each-ref"),
		Worktrees: git(t, env, dir, "worktree", "list", "--porcelain"),
		Index:     fmt.Sprintf("%x", sha256.Sum256(index)),
		Config:    string(config),
	}
}

func checkUnchanged(t *testing.T, before state, env []string, dir string) {
	t.Helper()
	if diff := cmp.Diff(before, snapshot(t, env, dir)); diff != "" {
		t.Errorf("the checkout changed (-before +after):\n%s", diff)
	}
}

// recorder is a Runner that runs git for real and records every command.
type recorder struct {
	mu   sync.Mutex
	cmds []Command
}

func (r *recorder) run(ctx context.Context, c Command) ([]byte, []byte, error) {
	r.mu.Lock()
	r.cmds = append(r.cmds, c)
	r.mu.Unlock()
	return ExecRunner(ctx, c)
}

func (r *recorder) fetches() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var fetches []string
	for _, c := range r.cmds {
		if len(c.Args) > 0 && c.Args[0] == "fetch" {
			fetches = append(fetches, strings.Join(c.Args, " "))
		}
	}
	return fetches
}

func open(t *testing.T, env []string, dir string, opts ...Option) *Repo {
	t.Helper()
	opts = append([]Option{WithEnv(env), WithLogf(t.Logf)}, opts...)
	r, err := Open(context.Background(), dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Cleanup(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return r
}

func TestOpen(t *testing.T) {
	o := makeOrigin(t)
	ctx := context.Background()

	r := open(t, o.env, o.dir)
	if r.Root() != o.dir || r.Subdir() != "." || r.GitDir() != filepath.Join(o.dir, ".git") {
		t.Errorf("Open(top): Root %q, Subdir %q, GitDir %q", r.Root(), r.Subdir(), r.GitDir())
	}
	r = open(t, o.env, filepath.Join(o.dir, "sub", "mod"))
	if r.Root() != o.dir || r.Subdir() != filepath.Join("sub", "mod") {
		t.Errorf("Open(sub/mod): Root %q, Subdir %q", r.Root(), r.Subdir())
	}

	notRepo := tempDir(t)
	_, err := Open(ctx, notRepo, WithEnv(o.env))
	if !errors.Is(err, ErrNotRepository) || !strings.Contains(err.Error(), notRepo) ||
		!strings.Contains(err.Error(), "git rev-parse") || !strings.Contains(err.Error(), "fatal: not a git repository") {
		t.Errorf("Open(not a repository) = %v; want ErrNotRepository naming the directory and git's message", err)
	}
	missing := filepath.Join(notRepo, "missing")
	if _, err := Open(ctx, missing, WithEnv(o.env)); !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotRepository) {
		t.Errorf("Open(missing directory) = %v; want a not-exist error", err)
	}
	// GIT_DIR pointing elsewhere (as inside a git hook) must not win over dir.
	r = open(t, append(slices.Clip(o.env), "GIT_DIR="+filepath.Join(notRepo, ".git")), o.dir)
	if r.Root() != o.dir {
		t.Errorf("Open with GIT_DIR set: Root %q, want %q", r.Root(), o.dir)
	}
}

func TestResolve(t *testing.T) {
	o := makeOrigin(t)
	ctx := context.Background()
	before := snapshot(t, o.env, o.dir)
	rec := &recorder{}
	r := open(t, o.env, o.dir, WithRunner(rec.run))

	for rev, want := range map[string]string{
		"HEAD":                 o.m,
		"HEAD~1":               o.c4,
		"HEAD^2":               o.f1,
		"main":                 o.m,
		"feat":                 o.f1,
		"v1":                   o.c1, // annotated tag, peeled to its commit
		"refs/tags/v1":         o.c1,
		o.c2:                   o.c2,
		o.c2[:7]:               o.c2,
		strings.ToUpper(o.c3):  o.c3,
		"main^2~1":             o.c3,
		"refs/heads/feat~1^{}": o.c3,
		"main^{/c2}":           o.c2,
		"main^{tree}":          "", // not a commit
		o.c1[:20] + "0000":     "", // not an object
	} {
		got, err := r.Resolve(ctx, rev)
		if want == "" {
			if err == nil {
				t.Errorf("Resolve(%q) = %s, want an error", rev, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", rev, got, err, want)
		}
	}

	_, err := r.Resolve(ctx, "nope")
	var nf *RefNotFoundError
	if !errors.As(err, &nf) || nf.Ref != "nope" {
		t.Fatalf("Resolve(nope) = %v, want a *RefNotFoundError", err)
	}
	if want := `ref "nope" not found (not a commit in this repository)`; err.Error() != want {
		t.Errorf("Resolve(nope):\n got %s\nwant %s", err, want)
	}
	_, err = r.Resolve(ctx, "cafe1234")
	if want := `ref "cafe1234" not found (not a commit in this repository; an abbreviated SHA cannot be fetched: give the full SHA)`; err == nil || err.Error() != want {
		t.Errorf("Resolve(abbreviated unknown SHA):\n got %v\nwant %s", err, want)
	}
	if _, err := r.Resolve(ctx, "--output=/tmp/x"); err == nil || !strings.Contains(err.Error(), `must not start with "-"`) {
		t.Errorf("Resolve(option-like) = %v, want a refusal", err)
	}
	// A complete repository without a remote: nothing to fetch, so nothing is fetched.
	if f := rec.fetches(); len(f) != 0 {
		t.Errorf("fetched in a complete repository: %q", f)
	}
	checkUnchanged(t, before, o.env, o.dir)
}

func TestResolveRemoteTrackingBranch(t *testing.T) {
	o := makeOrigin(t)
	clone := o.clone(t) // complete clone: local main, origin/feat but no local feat
	before := snapshot(t, o.env, clone)
	rec := &recorder{}
	r := open(t, o.env, clone, WithRunner(rec.run))
	got, err := r.Resolve(context.Background(), "feat")
	if err != nil || got != o.f1 {
		t.Errorf("Resolve(feat) = %s, %v; want origin/feat = %s", got, err, o.f1)
	}
	if f := rec.fetches(); len(f) != 0 {
		t.Errorf("fetched although origin/feat is here: %q", f)
	}
	checkUnchanged(t, before, o.env, clone)
}

func TestParentOf(t *testing.T) {
	o := makeOrigin(t)
	ctx := context.Background()
	r := open(t, o.env, o.dir)
	for _, tt := range []struct {
		rev  string
		n    int
		want string
	}{
		{"HEAD", 1, o.c4},
		{"main", 2, o.f1},
		{o.m, 1, o.c4},
		{o.c2, 1, o.c1},
	} {
		if got, err := r.ParentOf(ctx, tt.rev, tt.n); err != nil || got != tt.want {
			t.Errorf("ParentOf(%s, %d) = %s, %v; want %s", tt.rev, tt.n, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		rev  string
		n    int
		want string
	}{
		{"HEAD", 3, fmt.Sprintf("commit %s (HEAD) has 2 parent(s), so it has no parent 3", o.m[:12])},
		{"v1", 1, fmt.Sprintf("commit %s (v1) has 0 parent(s), so it has no parent 1", o.c1[:12])},
		{"HEAD", 0, `parent 0 of "HEAD": parents are numbered from 1`},
		{"nope", 1, `ref "nope" not found (not a commit in this repository)`},
	} {
		if _, err := r.ParentOf(ctx, tt.rev, tt.n); err == nil || err.Error() != tt.want {
			t.Errorf("ParentOf(%s, %d) error:\n got %v\nwant %s", tt.rev, tt.n, err, tt.want)
		}
	}
}

// TestShallowClone is the pull_request case: actions/checkout fetched only
// the merge commit.
func TestShallowClone(t *testing.T) {
	testenv.Heavy(t)
	o := makeOrigin(t)
	ctx := context.Background()
	clone := o.clone(t, "--depth=1")
	before := snapshot(t, o.env, clone)
	rec := &recorder{}
	r := open(t, o.env, clone, WithRunner(rec.run))
	if shallow, err := r.IsShallow(ctx); err != nil || !shallow {
		t.Fatalf("IsShallow = %v, %v; want true", shallow, err)
	}
	if _, err := gitErr(o.env, clone, "cat-file", "-e", o.c4); err == nil {
		t.Fatal("the base parent is already in the clone; the test proves nothing")
	}

	_, err := r.Resolve(ctx, "HEAD^1")
	if want := `ref "HEAD^1" not found (not a commit in this repository; this is a shallow clone, so history may be missing: fetch more of it (fetch-depth: 0) or give a full SHA)`; err == nil || err.Error() != want {
		t.Errorf("Resolve(HEAD^1):\n got %v\nwant %s", err, want)
	}

	head, err := r.Resolve(ctx, "HEAD")
	if err != nil || head != o.m {
		t.Fatalf("Resolve(HEAD) = %s, %v; want %s", head, err, o.m)
	}
	base, err := r.ParentOf(ctx, head, 1)
	if err != nil || base != o.c4 {
		t.Fatalf("ParentOf(merge, 1) = %s, %v; want %s", base, err, o.c4)
	}
	if got, err := r.ParentOf(ctx, head, 2); err != nil || got != o.f1 {
		t.Errorf("ParentOf(merge, 2) = %s, %v; want %s", got, err, o.f1)
	}
	if got, err := r.Resolve(ctx, o.c2); err != nil || got != o.c2 {
		t.Errorf("Resolve(full SHA not in the clone) = %s, %v; want %s", got, err, o.c2)
	}
	if got, err := r.Resolve(ctx, "v1"); err != nil || got != o.c1 {
		t.Errorf("Resolve(tag not in the clone) = %s, %v; want %s", got, err, o.c1)
	}
	if got, err := r.Resolve(ctx, "origin/feat"); err != nil || got != o.f1 {
		t.Errorf("Resolve(origin/feat) = %s, %v; want %s", got, err, o.f1)
	}
	wantFetches := []string{
		"fetch --no-tags --no-recurse-submodules --no-auto-gc --no-write-fetch-head --depth=1 origin " + o.c4,
		"fetch --no-tags --no-recurse-submodules --no-auto-gc --no-write-fetch-head --depth=1 origin " + o.f1,
		"fetch --no-tags --no-recurse-submodules --no-auto-gc --no-write-fetch-head --depth=1 origin " + o.c2,
		"fetch --no-tags --no-recurse-submodules --no-auto-gc --refmap= --depth=1 origin refs/heads/v1",
		"fetch --no-tags --no-recurse-submodules --no-auto-gc --refmap= --depth=1 origin refs/tags/v1",
		"fetch --no-tags --no-recurse-submodules --no-auto-gc --refmap= --depth=1 origin refs/heads/feat",
	}
	if diff := cmp.Diff(wantFetches, rec.fetches()); diff != "" {
		t.Errorf("fetches (-want +got):\n%s", diff)
	}

	_, err = r.Resolve(ctx, "nope")
	var nf *RefNotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("Resolve(nope) = %v, want a *RefNotFoundError", err)
	}
	want := `ref "nope" not found (not a commit in this repository, and fetching from origin failed: ` +
		`git fetch --no-tags --no-recurse-submodules --no-auto-gc --refmap= --depth=1 origin refs/heads/nope: ` +
		`fatal: couldn't find remote ref refs/heads/nope)`
	if err.Error() != want {
		t.Errorf("Resolve(nope):\n got %s\nwant %s", err, want)
	}
	missing := strings.Repeat("0", 40)
	_, err = r.Resolve(ctx, missing)
	if !errors.As(err, &nf) || !strings.HasPrefix(err.Error(), `ref "`+missing+`" not found (not a commit in this repository, and fetching from origin failed: git fetch `) {
		t.Errorf("Resolve(unknown full SHA) = %v", err)
	}

	// The fetched parent can be checked out.
	wt, err := r.AddWorktree(ctx, base, tempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(wt.Path(), "f.txt")); err != nil || string(b) != "c4" {
		t.Errorf("f.txt in the base worktree = %q, %v; want c4", b, err)
	}
	if err := wt.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	checkUnchanged(t, before, o.env, clone) // refs included: fetching wrote none
	if shallow, _ := r.IsShallow(ctx); !shallow {
		t.Error("the clone is no longer shallow")
	}
}

// TestFetchKeepsCompleteRepoComplete: fetching a missing SHA into a complete
// clone must not use --depth, which would make the clone shallow.
func TestFetchKeepsCompleteRepoComplete(t *testing.T) {
	testenv.Heavy(t)
	o := makeOrigin(t)
	clone := o.clone(t)
	writeFile(t, filepath.Join(o.dir, "late.txt"), "late")
	git(t, o.env, o.dir, "add", "-A")
	git(t, o.env, o.dir, "commit", "--quiet", "-m", "late")
	late := git(t, o.env, o.dir, "rev-parse", "HEAD")

	before := snapshot(t, o.env, clone)
	rec := &recorder{}
	r := open(t, o.env, clone, WithRunner(rec.run))
	ctx := context.Background()
	if got, err := r.Resolve(ctx, late); err != nil || got != late {
		t.Fatalf("Resolve(new commit on origin) = %s, %v; want %s", got, err, late)
	}
	want := []string{"fetch --no-tags --no-recurse-submodules --no-auto-gc --no-write-fetch-head origin " + late}
	if diff := cmp.Diff(want, rec.fetches()); diff != "" {
		t.Errorf("fetches (-want +got):\n%s", diff)
	}
	if shallow, err := r.IsShallow(ctx); err != nil || shallow {
		t.Errorf("IsShallow after fetch = %v, %v; want false", shallow, err)
	}
	// A missing branch in a complete clone is not fetched.
	if _, err := r.Resolve(ctx, "nope"); err == nil || err.Error() != `ref "nope" not found (not a commit in this repository)` {
		t.Errorf("Resolve(nope) = %v", err)
	}
	if len(rec.fetches()) != 1 {
		t.Errorf("fetches = %q, want only the SHA", rec.fetches())
	}
	checkUnchanged(t, before, o.env, clone)
}

func TestWorktree(t *testing.T) {
	o := makeOrigin(t)
	ctx := context.Background()
	before := snapshot(t, o.env, o.dir)
	r := open(t, o.env, filepath.Join(o.dir, "sub", "mod"))
	parent := tempDir(t)

	wt, err := r.AddWorktree(ctx, o.c1, parent)
	if err != nil {
		t.Fatal(err)
	}
	if wt.sha != o.c1 {
		t.Errorf("sha = %s, want %s", wt.sha, o.c1)
	}
	tmp := filepath.Dir(wt.Path())
	if filepath.Dir(tmp) != parent {
		t.Errorf("worktree %s is not in a new directory under %s", wt.Path(), parent)
	}
	if fi, err := os.Stat(tmp); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("worktree's directory: %v, %v; want mode 0700", fi.Mode(), err)
	}
	if want := filepath.Join(wt.Path(), "sub", "mod"); wt.Dir() != want {
		t.Errorf("Dir = %s, want %s", wt.Dir(), want)
	}
	if b, err := os.ReadFile(filepath.Join(wt.Dir(), "x.txt")); err != nil || string(b) != "c1" {
		t.Errorf("x.txt = %q, %v; want c1", b, err)
	}
	if _, err := os.Stat(filepath.Join(wt.Path(), "f.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("f.txt exists in a checkout of c1: %v", err)
	}
	if got := git(t, o.env, wt.Path(), "rev-parse", "HEAD"); got != o.c1 {
		t.Errorf("worktree HEAD = %s, want %s", got, o.c1)
	}
	if _, err := gitErr(o.env, wt.Path(), "symbolic-ref", "-q", "HEAD"); err == nil {
		t.Error("worktree HEAD is on a branch, want detached")
	}
	if list := git(t, o.env, o.dir, "worktree", "list", "--porcelain"); !strings.Contains(list, "worktree "+wt.Path()+"\n") {
		t.Errorf("worktree not registered:\n%s", list)
	}
	// The user's checkout is as it was while the worktree exists, apart from
	// the registration.
	during := snapshot(t, o.env, o.dir)
	during.Worktrees = before.Worktrees
	if diff := cmp.Diff(before, during); diff != "" {
		t.Errorf("the checkout changed (-before +during):\n%s", diff)
	}

	// Two worktrees of the same commit (an A/A comparison) can coexist.
	wt2, err := r.AddWorktree(ctx, o.c1, parent)
	if err != nil {
		t.Fatal(err)
	}

	if err := wt.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if err := wt.Remove(ctx); err != nil {
		t.Errorf("second Remove: %v", err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("worktree directory still there after Remove: %v", err)
	}
	if err := wt2.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left in the parent directory: %v", entries)
	}
	checkUnchanged(t, before, o.env, o.dir)
}

func TestAddWorktreeFailureLeavesNothing(t *testing.T) {
	o := makeOrigin(t)
	before := snapshot(t, o.env, o.dir)
	r := open(t, o.env, o.dir)
	parent := tempDir(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name   string
		ctx    context.Context
		sha    string
		parent string
		check  func(error) bool
	}{
		{"unknown commit", context.Background(), strings.Repeat("0", 40), parent, func(err error) bool {
			var ce *CommandError
			return errors.As(err, &ce) && strings.HasPrefix(err.Error(), "git worktree add --detach --quiet ")
		}},
		{"cancelled", cancelled, o.c1, parent, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"inside the checkout", context.Background(), o.c1, filepath.Join(o.dir, "sub"), func(err error) bool {
			return strings.Contains(err.Error(), "is inside the checkout")
		}},
		{"the checkout itself", context.Background(), o.c1, o.dir, func(err error) bool {
			return strings.Contains(err.Error(), "is inside the checkout")
		}},
		{"option-like", context.Background(), "--force", parent, func(err error) bool {
			return strings.Contains(err.Error(), `must not start with "-"`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wt, err := r.AddWorktree(tt.ctx, tt.sha, tt.parent)
			if err == nil {
				wt.Remove(context.Background())
				t.Fatal("AddWorktree succeeded")
			}
			if !tt.check(err) {
				t.Errorf("unexpected error: %v", err)
			}
			if entries, _ := os.ReadDir(parent); len(entries) != 0 {
				t.Errorf("left in the parent directory: %v", entries)
			}
			checkUnchanged(t, before, o.env, o.dir)
		})
	}
}

// TestCleanupAfterCancel is the SIGINT/SIGTERM path: the run's context is
// cancelled, and the deferred cleanup gets that cancelled context.
func TestCleanupAfterCancel(t *testing.T) {
	testenv.Heavy(t)
	o := makeOrigin(t)
	before := snapshot(t, o.env, o.dir)
	r := open(t, o.env, o.dir)
	ctx, cancel := context.WithCancel(context.Background())
	parent := tempDir(t)
	var wts []*Worktree
	for _, sha := range []string{o.c1, o.c4, o.m} {
		wt, err := r.AddWorktree(ctx, sha, parent)
		if err != nil {
			t.Fatal(err)
		}
		wts = append(wts, wt)
	}
	cancel()

	if err := wts[0].Remove(ctx); err != nil {
		t.Errorf("Remove after cancel: %v", err)
	}
	if err := r.Cleanup(ctx); err != nil {
		t.Errorf("Cleanup after cancel: %v", err)
	}
	for _, wt := range wts {
		if _, err := os.Stat(wt.Path()); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there: %v", wt.Path(), err)
		}
		if err := wt.Remove(ctx); err != nil {
			t.Errorf("Remove after Cleanup: %v", err)
		}
	}
	if err := r.Cleanup(ctx); err != nil {
		t.Errorf("second Cleanup: %v", err)
	}
	if _, err := r.AddWorktree(context.Background(), o.c1, parent); err == nil || !strings.Contains(err.Error(), "cleaned up") {
		t.Errorf("AddWorktree after Cleanup = %v, want an error", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left in the parent directory: %v", entries)
	}
	checkUnchanged(t, before, o.env, o.dir)
}

// TestRemoveInterruptedAdd: "git worktree add" killed half-way leaves a
// worktree that is locked and has no .git file yet.
func TestRemoveInterruptedAdd(t *testing.T) {
	o := makeOrigin(t)
	before := snapshot(t, o.env, o.dir)
	r := open(t, o.env, o.dir)
	ctx := context.Background()
	wt, err := r.AddWorktree(ctx, o.c1, tempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	git(t, o.env, o.dir, "worktree", "lock", "--reason", "initializing", wt.Path())
	if err := os.Remove(filepath.Join(wt.Path(), ".git")); err != nil {
		t.Fatal(err)
	}
	if err := wt.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(wt.Path())); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("worktree directory still there: %v", err)
	}
	checkUnchanged(t, before, o.env, o.dir)
}

// TestRemoveKeepsUsersStaleWorktree: prune must not run when it is not
// needed, since it would also drop the user's own worktrees whose
// directories are missing (e.g. on an unmounted disk).
func TestRemoveKeepsUsersStaleWorktree(t *testing.T) {
	o := makeOrigin(t)
	userWT := filepath.Join(tempDir(t), "user-worktree")
	git(t, o.env, o.dir, "worktree", "add", "--quiet", "--detach", userWT, o.c2)
	if err := os.RemoveAll(userWT); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, o.env, o.dir)
	r := open(t, o.env, o.dir)
	ctx := context.Background()
	wt, err := r.AddWorktree(ctx, o.c1, tempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	checkUnchanged(t, before, o.env, o.dir)
}

// TestEnvironmentReachesGit checks, on every command the package runs, the
// environment it sets, and that git sees it.
func TestEnvironmentReachesGit(t *testing.T) {
	o := makeOrigin(t)
	env := append(slices.Clip(o.env), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=benchgate.test", "GIT_CONFIG_VALUE_0=kept",
		"GIT_TERMINAL_PROMPT=1", "KEEP_ME=1")
	rec := &recorder{}
	r := open(t, env, o.dir, WithRunner(rec.run))
	ctx := context.Background()
	if _, err := r.ParentOf(ctx, "HEAD", 1); err != nil {
		t.Fatal(err)
	}
	wt, err := r.AddWorktree(ctx, o.c1, tempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	out, err := r.git(ctx, "config", "--get", "benchgate.test")
	if err != nil || strings.TrimSpace(out) != "kept" {
		t.Errorf("git config benchgate.test = %q, %v; want kept", out, err)
	}
	out, err = r.git(ctx, "config", "--get-all", "safe.directory")
	if err != nil || strings.TrimSpace(out) != "*" {
		t.Errorf("git config safe.directory = %q, %v; want *", out, err)
	}
	want := []string{"KEEP_ME=1", "GIT_CONFIG_KEY_0=benchgate.test", "GIT_CONFIG_VALUE_0=kept", "GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_1=safe.directory", "GIT_CONFIG_VALUE_1=*"}
	rec.mu.Lock()
	cmds := rec.cmds
	rec.mu.Unlock()
	if len(cmds) < 5 {
		t.Fatalf("only %d commands recorded", len(cmds))
	}
	for _, c := range cmds {
		for _, kv := range want {
			if !slices.Contains(c.Env, kv) {
				t.Errorf("git %s: environment lacks %s", strings.Join(c.Args, " "), kv)
			}
		}
		if slices.Contains(c.Env, "GIT_TERMINAL_PROMPT=1") {
			t.Errorf("git %s: GIT_TERMINAL_PROMPT=1 kept", strings.Join(c.Args, " "))
		}
	}
}

// TestCancelDuringAdd cancels "git worktree add" at different moments:
// whether it fails or succeeds, nothing may be left behind.
func TestCancelDuringAdd(t *testing.T) {
	testenv.Heavy(t)
	o := makeOrigin(t)
	for i := range 100 {
		writeFile(t, filepath.Join(o.dir, "many", fmt.Sprint(i)), fmt.Sprint(i))
	}
	git(t, o.env, o.dir, "add", "-A")
	git(t, o.env, o.dir, "commit", "--quiet", "-m", "many files")
	head := git(t, o.env, o.dir, "rev-parse", "HEAD")
	before := snapshot(t, o.env, o.dir)
	r := open(t, o.env, o.dir)
	parent := tempDir(t)
	for _, d := range []time.Duration{0, 1, 2, 4, 8, 16, 32, 64} {
		ctx, cancel := context.WithTimeout(context.Background(), d*time.Millisecond)
		wt, err := r.AddWorktree(ctx, head, parent)
		cancel()
		if err == nil {
			if err := wt.Remove(ctx); err != nil {
				t.Fatal(err)
			}
		} else if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("after %v: %v; want a deadline error", d, err)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 0 {
			t.Fatalf("after %v: left in the parent directory: %v", d, entries)
		}
		checkUnchanged(t, before, o.env, o.dir)
	}
}
