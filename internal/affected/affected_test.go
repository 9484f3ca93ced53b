package affected

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testenv"

	"github.com/google/go-cmp/cmp"
)

// The tests run real git and the real go command on a small repository:
//
//	README.md, docs/guide.md        outside the Go module
//	other/go.mod, other/x.go        another module, not used
//	lib/go.mod, lib/lib.go          example.com/lib, replaced by ../lib
//	mod/go.mod                      example.com/m
//	mod/a -> mod/b -> mod/c         a imports b imports c; c embeds table.txt
//	mod/b/testdata/input.txt        read by b's benchmark
//	mod/d -> example.com/lib        unrelated to a, b, c; d/NOTES.md is no source
//	mod/internal/fixture            imported by d's tests only; has no tests itself
var baseFiles = map[string]string{
	"README.md":     "# repo\n",
	"docs/guide.md": "guide\n",
	"other/go.mod":  "module example.com/other\n\ngo 1.26\n",
	"other/x.go":    "package other\n\nfunc X() int { return 1 }\n",
	"lib/go.mod":    "module example.com/lib\n\ngo 1.26\n",
	"lib/lib.go":    "package lib\n\nfunc L() int { return 7 }\n",
	"mod/go.mod": "module example.com/m\n\ngo 1.26\n\nrequire example.com/lib v0.0.0\n\n" +
		"replace example.com/lib => ../lib\n",
	"mod/a/a.go":      "package a\n\nimport \"example.com/m/b\"\n\nfunc A() int { return b.B() + 1 }\n",
	"mod/a/a_test.go": benchFile("a", "A"),
	"mod/b/b.go":      "package b\n\nimport \"example.com/m/c\"\n\nfunc B() int { return c.C() + 1 }\n",
	"mod/b/b_test.go": "package b\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\n" +
		"func BenchmarkB(b *testing.B) {\n\tif _, err := os.ReadFile(\"testdata/input.txt\"); err != nil {\n\t\tb.Fatal(err)\n\t}\n\tfor range b.N {\n\t\tB()\n\t}\n}\n",
	"mod/b/testdata/input.txt": "input\n",
	"mod/c/c.go":               "package c\n\nimport _ \"embed\"\n\n//go:embed table.txt\nvar table string\n\nfunc C() int { return len(table) + extra() }\n",
	"mod/c/extra.go":           "package c\n\nfunc extra() int { return 0 }\n",
	"mod/c/table.txt":          "1 2 3\n",
	"mod/c/unused.go":          "package c\n\nfunc unused() {}\n",
	"mod/c/c_test.go":          benchFile("c", "C"),
	"mod/d/d.go":               "package d\n\nimport \"example.com/lib\"\n\nfunc D() int { return lib.L() }\n",
	"mod/d/d_test.go": "package d\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/internal/fixture\"\n)\n\n" +
		"func BenchmarkD(b *testing.B) {\n\tfor range b.N {\n\t\tD()\n\t}\n\t_ = fixture.Size\n}\n",
	"mod/internal/fixture/fixture.go": "package fixture\n\nconst Size = 10\n",
	"mod/d/NOTES.md":                  "notes\n",
}

func benchFile(pkg, fn string) string {
	return fmt.Sprintf("package %s\n\nimport \"testing\"\n\nfunc Benchmark%s(b *testing.B) {\n\tfor range b.N {\n\t\t%s()\n\t}\n}\n", pkg, fn, fn)
}

// The tests run real git and go (internal/testenv): git isolated from the
// machine's configuration, go offline.
var (
	testEnv    = func(t *testing.T) []string { return testenv.Env(t) }
	git        = testenv.Git
	writeFiles = testenv.WriteFiles
	tempDir    = testenv.TempDir
)

// newRepo makes the repository with one commit, the base, and returns its
// directory and the commit.
func newRepo(t *testing.T, env []string) (string, string) {
	t.Helper()
	dir := tempDir(t)
	git(t, env, dir, "init", "-q", "-b", "main")
	writeFiles(t, dir, baseFiles)
	git(t, env, dir, "add", "-A")
	git(t, env, dir, "commit", "-q", "-m", "base")
	return dir, git(t, env, dir, "rev-parse", "HEAD")
}

// headCommit checks base out into a new worktree, applies change there, and
// commits: the worktree is the head tree.
func headCommit(t *testing.T, env []string, repo, base string, change func(dir string)) (string, string) {
	t.Helper()
	dir := filepath.Join(tempDir(t), "head")
	git(t, env, repo, "worktree", "add", "-q", "--detach", dir, base)
	change(dir)
	git(t, env, dir, "add", "-A")
	git(t, env, dir, "commit", "-q", "--allow-empty", "-m", "head")
	return dir, git(t, env, dir, "rev-parse", "HEAD")
}

func write(files map[string]string) func(string) {
	return func(dir string) {
		for name, content := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				panic(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				panic(err)
			}
		}
	}
}

func remove(names ...string) func(string) {
	return func(dir string) {
		for _, n := range names {
			if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(n))); err != nil {
				panic(err)
			}
		}
	}
}

const (
	pa = "example.com/m/a"
	pb = "example.com/m/b"
	pc = "example.com/m/c"
	pd = "example.com/m/d"
	pe = "example.com/m/e"
)

func TestSelect(t *testing.T) {
	testenv.Heavy(t)
	env := testEnv(t)
	repo, base := newRepo(t, env)
	baseTree := tempDir(t)
	baseTree = filepath.Join(baseTree, "base")
	git(t, env, repo, "worktree", "add", "-q", "--detach", baseTree, base)

	tests := []struct {
		name    string
		change  func(dir string)
		changed []string // what Changed must return
		want    []string // Selection.Packages
		all     bool
		full    *Selection // when set, the whole Selection
	}{
		{
			name:    "source of the end of a dependency chain",
			change:  write(map[string]string{"mod/c/c.go": strings.Replace(baseFiles["mod/c/c.go"], "extra()", "extra() + 1", 1)}),
			changed: []string{"mod/c/c.go"},
			want:    []string{pa, pb, pc},
			full: &Selection{
				Packages: []string{pa, pb, pc},
				Affected: []Entry{
					{pa, "depends on example.com/m/c (changed: mod/c/c.go)"},
					{pb, "depends on example.com/m/c (changed: mod/c/c.go)"},
					{pc, "changed: mod/c/c.go"},
				},
				Skipped: []Entry{{pd, "no changed file in the package or its 2 dependencies in this repository"}},
				Summary: "3 of 4 packages affected by 1 changed file",
			},
		},
		{
			name:    "middle of the chain",
			change:  write(map[string]string{"mod/b/b.go": strings.Replace(baseFiles["mod/b/b.go"], "+ 1", "+ 2", 1)}),
			changed: []string{"mod/b/b.go"},
			want:    []string{pa, pb},
		},
		{
			// head's go list no longer mentions unused.go: only base's
			// list ties it to c (and so to a and b).
			name:    "file deleted from a dependency",
			change:  remove("mod/c/unused.go"),
			changed: []string{"mod/c/unused.go"},
			want:    []string{pa, pb, pc},
		},
		{
			name:    "testdata",
			change:  write(map[string]string{"mod/b/testdata/input.txt": "other input\n"}),
			changed: []string{"mod/b/testdata/input.txt"},
			want:    []string{pb},
			full: &Selection{
				Packages: []string{pb},
				Affected: []Entry{{pb, "changed: mod/b/testdata/input.txt"}},
				Skipped: []Entry{
					{pa, "no changed file in the package or its 2 dependencies in this repository"},
					{pc, "no changed file in the package or its dependencies (none) in this repository"},
					{pd, "no changed file in the package or its 2 dependencies in this repository"},
				},
				Summary: "1 of 4 packages affected by 1 changed file",
			},
		},
		{
			name:    "testdata at the module root",
			change:  write(map[string]string{"mod/testdata/shared.json": "{}\n"}),
			changed: []string{"mod/testdata/shared.json"},
			want:    []string{pa, pb, pc, pd},
		},
		{
			name:    "embedded file",
			change:  write(map[string]string{"mod/c/table.txt": "1 2 3 4\n"}),
			changed: []string{"mod/c/table.txt"},
			want:    []string{pa, pb, pc},
		},
		{
			name:    "test file only",
			change:  write(map[string]string{"mod/a/a_test.go": baseFiles["mod/a/a_test.go"] + "\nfunc BenchmarkA2(b *testing.B) {}\n"}),
			changed: []string{"mod/a/a_test.go"},
			want:    []string{pa},
		},
		{
			name:    "test file of a dependency",
			change:  write(map[string]string{"mod/b/b_test.go": baseFiles["mod/b/b_test.go"] + "\nfunc helper() {}\n"}),
			changed: []string{"mod/b/b_test.go"},
			want:    []string{pb},
		},
		{
			name:    "test-only dependency",
			change:  write(map[string]string{"mod/internal/fixture/fixture.go": "package fixture\n\nconst Size = 20\n"}),
			changed: []string{"mod/internal/fixture/fixture.go"},
			want:    []string{pd},
		},
		{
			name:    "file excluded by build constraints",
			change:  write(map[string]string{"mod/c/c_plan9.go": "package c\n\nfunc plan9() {}\n"}),
			changed: []string{"mod/c/c_plan9.go"},
			want:    []string{pa, pb, pc},
		},
		{
			name:    "unrelated package",
			change:  write(map[string]string{"mod/d/d.go": strings.Replace(baseFiles["mod/d/d.go"], "lib.L()", "lib.L() + 1", 1)}),
			changed: []string{"mod/d/d.go"},
			want:    []string{pd},
		},
		{
			name:    "module replaced by a local directory",
			change:  write(map[string]string{"lib/lib.go": "package lib\n\nfunc L() int { return 8 }\n"}),
			changed: []string{"lib/lib.go"},
			want:    []string{pd},
			full: &Selection{
				Packages: []string{pd},
				Affected: []Entry{{pd, "depends on example.com/lib (changed: lib/lib.go)"}},
				Skipped: []Entry{
					{pa, "no changed file in the package or its 2 dependencies in this repository"},
					{pb, "no changed file in the package or its 1 dependency in this repository"},
					{pc, "no changed file in the package or its dependencies (none) in this repository"},
				},
				Summary: "1 of 4 packages affected by 1 changed file",
			},
		},
		{
			name:    "go.mod",
			change:  write(map[string]string{"mod/go.mod": baseFiles["mod/go.mod"] + "\n// comment\n"}),
			changed: []string{"mod/go.mod"},
			want:    []string{pa, pb, pc, pd},
			all:     true,
			full: &Selection{
				All:      true,
				Packages: []string{pa, pb, pc, pd},
				Affected: []Entry{{pa, "mod/go.mod changed"}, {pb, "mod/go.mod changed"}, {pc, "mod/go.mod changed"}, {pd, "mod/go.mod changed"}},
				Summary:  "all 4 packages affected: mod/go.mod changed",
			},
		},
		{
			name:    "go.sum added",
			change:  write(map[string]string{"mod/go.sum": ""}),
			changed: []string{"mod/go.sum"},
			want:    []string{pa, pb, pc, pd},
			all:     true,
		},
		{
			name:    "go.mod of the replaced module",
			change:  write(map[string]string{"lib/go.mod": baseFiles["lib/go.mod"] + "\n// comment\n"}),
			changed: []string{"lib/go.mod"},
			want:    []string{pa, pb, pc, pd},
			all:     true,
		},
		{
			name:    "go.work above the module",
			change:  write(map[string]string{"go.work": "go 1.26\n\nuse ./mod\n"}),
			changed: []string{"go.work"},
			want:    []string{pa, pb, pc, pd},
			all:     true,
		},
		{
			name:    "README only",
			change:  write(map[string]string{"README.md": "# repo, documented\n", "docs/guide.md": "more guide\n"}),
			changed: []string{"README.md", "docs/guide.md"},
			full: &Selection{
				Skipped: []Entry{
					{pa, "no changed file in the package or its 2 dependencies in this repository"},
					{pb, "no changed file in the package or its 1 dependency in this repository"},
					{pc, "no changed file in the package or its dependencies (none) in this repository"},
					{pd, "no changed file in the package or its 2 dependencies in this repository"},
				},
				Ignored: []Entry{{"README.md", "outside the Go module"}, {"docs/guide.md", "outside the Go module"}},
				Summary: "0 of 4 packages affected by 2 changed files; ignored: 2 outside the Go module",
			},
		},
		{
			name:    "notes in a package directory and another module",
			change:  write(map[string]string{"mod/d/NOTES.md": "more notes\n", "other/x.go": "package other\n\nfunc X() int { return 2 }\n"}),
			changed: []string{"mod/d/NOTES.md", "other/x.go"},
		},
		{
			name:    "no change",
			change:  func(string) {},
			changed: nil,
		},
		{
			name: "new package",
			change: write(map[string]string{
				"mod/e/e.go":      "package e\n\nimport \"example.com/m/c\"\n\nfunc E() int { return c.C() }\n",
				"mod/e/e_test.go": benchFile("e", "E"),
			}),
			changed: []string{"mod/e/e.go", "mod/e/e_test.go"},
			want:    []string{pe},
			full: &Selection{
				Packages: []string{pe},
				Affected: []Entry{{pe, "new in head; changed: mod/e/e.go, mod/e/e_test.go"}},
				Skipped: []Entry{
					{pa, "no changed file in the package or its 2 dependencies in this repository"},
					{pb, "no changed file in the package or its 1 dependency in this repository"},
					{pc, "no changed file in the package or its dependencies (none) in this repository"},
					{pd, "no changed file in the package or its 2 dependencies in this repository"},
				},
				Summary: "1 of 5 packages affected by 2 changed files",
			},
		},
		{
			name:    "removed package",
			change:  remove("mod/d"),
			changed: []string{"mod/d/NOTES.md", "mod/d/d.go", "mod/d/d_test.go"},
			full: &Selection{
				Packages: []string{pd},
				Affected: []Entry{{pd, "removed in head; changed: mod/d/d.go, mod/d/d_test.go"}},
				Skipped: []Entry{
					{pa, "no changed file in the package or its 2 dependencies in this repository"},
					{pb, "no changed file in the package or its 1 dependency in this repository"},
					{pc, "no changed file in the package or its dependencies (none) in this repository"},
				},
				Ignored: []Entry{{"mod/d/NOTES.md", "not used by any package (not a source, test, embedded or testdata file)"}},
				Summary: "1 of 4 packages affected by 3 changed files; ignored: 1 used by no package",
			},
			want: []string{pd},
		},
		{
			name:    "tests added to a package without",
			change:  write(map[string]string{"mod/internal/fixture/fixture_test.go": benchFile("fixture", "Fixture") + "\nfunc Fixture() {}\n"}),
			changed: []string{"mod/internal/fixture/fixture_test.go"},
			want:    []string{"example.com/m/internal/fixture"},
			full: &Selection{
				Packages: []string{"example.com/m/internal/fixture"},
				Affected: []Entry{{"example.com/m/internal/fixture", "tests new in head; changed: mod/internal/fixture/fixture_test.go"}},
				Skipped: []Entry{
					{pa, "no changed file in the package or its 2 dependencies in this repository"},
					{pb, "no changed file in the package or its 1 dependency in this repository"},
					{pc, "no changed file in the package or its dependencies (none) in this repository"},
					{pd, "no changed file in the package or its 2 dependencies in this repository"},
				},
				Summary: "1 of 5 packages affected by 1 changed file",
			},
		},
		{
			name:    "nested module carved out of the main module",
			change:  write(map[string]string{"mod/d/go.mod": "module example.com/d\n\ngo 1.26\n"}),
			changed: []string{"mod/d/go.mod"},
			want:    []string{pd},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			head, headSHA := headCommit(t, env, repo, base, tt.change)
			changed, err := Changed(ctx, repo, base, headSHA, ExecGit(env))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.changed, changed); diff != "" {
				t.Fatalf("Changed (-want +got):\n%s", diff)
			}
			sel, err := Select(ctx,
				Tree{Root: baseTree, Dir: filepath.Join(baseTree, "mod")},
				Tree{Root: head, Dir: filepath.Join(head, "mod")},
				changed, Options{Go: ExecGo(env, nil)})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, sel.Packages); diff != "" {
				t.Errorf("Packages (-want +got):\n%s\nsummary: %s\naffected: %v\nignored: %v", diff, sel.Summary, sel.Affected, sel.Ignored)
			}
			if sel.All != tt.all {
				t.Errorf("All = %v, want %v", sel.All, tt.all)
			}
			var names []string
			for _, e := range sel.Affected {
				names = append(names, e.Name)
			}
			if !slices.Equal(names, sel.Packages) {
				t.Errorf("Affected %v does not match Packages %v", sel.Affected, sel.Packages)
			}
			if tt.full != nil {
				if diff := cmp.Diff(tt.full, sel); diff != "" {
					t.Errorf("Selection (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestSelectIgnoredReasons checks the reasons for files that affect nothing.
func TestSelectIgnoredReasons(t *testing.T) {
	env := testEnv(t)
	repo, base := newRepo(t, env)
	head, headSHA := headCommit(t, env, repo, base, write(map[string]string{
		"mod/d/NOTES.md":           "more notes\n",
		"other/x.go":               "package other\n",
		"mod/tools/testdata/x.in":  "x\n", // testdata where no package is
		".github/workflows/ci.yml": "on: push\n",
	}))
	ctx := context.Background()
	changed, err := Changed(ctx, repo, base, headSHA, nil)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(ctx, Tree{}, Tree{Root: head, Dir: filepath.Join(head, "mod")}, changed, Options{Go: ExecGo(env, nil)})
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{".github/workflows/ci.yml", "outside the Go module"},
		{"mod/d/NOTES.md", "not used by any package (not a source, test, embedded or testdata file)"},
		{"mod/tools/testdata/x.in", "testdata with no package at or below mod/tools"},
		{"other/x.go", "outside the Go module"},
	}
	if diff := cmp.Diff(want, sel.Ignored); diff != "" {
		t.Errorf("Ignored (-want +got):\n%s", diff)
	}
	if want := "0 of 4 packages affected by 4 changed files; ignored: 2 outside the Go module, 2 used by no package"; sel.Summary != want {
		t.Errorf("Summary = %q, want %q", sel.Summary, want)
	}
}

// TestSelectPatterns checks that only the packages the patterns match are
// candidates, while dependencies outside the patterns still count.
func TestSelectPatterns(t *testing.T) {
	env := testEnv(t)
	repo, base := newRepo(t, env)
	head, headSHA := headCommit(t, env, repo, base, write(map[string]string{"mod/c/table.txt": "9\n"}))
	ctx := context.Background()
	changed, err := Changed(ctx, repo, base, headSHA, ExecGit(env))
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(ctx, Tree{}, Tree{Root: head, Dir: filepath.Join(head, "mod")}, changed,
		Options{Patterns: []string{"./a", "./d"}, Go: ExecGo(env, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{pa}, sel.Packages); diff != "" {
		t.Errorf("Packages (-want +got):\n%s", diff)
	}
	if want := "1 of 2 packages affected by 1 changed file"; sel.Summary != want {
		t.Errorf("Summary = %q, want %q", sel.Summary, want)
	}
}

// TestChangedShallow runs Changed in a depth-1 clone of head to which only
// the base commit was fetched, as gitrev does in a pull request's checkout.
func TestChangedShallow(t *testing.T) {
	env := testEnv(t)
	repo, base := newRepo(t, env)
	git(t, env, repo, "config", "uploadpack.allowAnySHA1InWant", "true")
	_, headSHA := headCommit(t, env, repo, base, func(dir string) {
		remove("mod/c/extra.go")(dir)
		// A rename is reported as the old path and the new one.
		if err := os.Rename(filepath.Join(dir, "docs/guide.md"), filepath.Join(dir, "docs/manual.md")); err != nil {
			panic(err)
		}
		write(map[string]string{"mod/a/a.go": baseFiles["mod/a/a.go"] + "\n// more\n", "new file.txt": "spaces\n"})(dir)
	})
	git(t, env, repo, "branch", "-f", "pr", headSHA)
	clone := filepath.Join(tempDir(t), "clone")
	git(t, env, tempDir(t), "clone", "-q", "--depth=1", "--branch", "pr", "file://"+repo, clone)
	if got := git(t, env, clone, "rev-parse", "--is-shallow-repository"); got != "true" {
		t.Fatalf("clone is not shallow: %s", got)
	}
	ctx := context.Background()
	if _, err := Changed(ctx, clone, base, headSHA, ExecGit(env)); err == nil {
		t.Fatal("Changed succeeded without the base commit")
	} else if !strings.Contains(err.Error(), "git diff --name-only -z --no-renames "+base+" "+headSHA+" --: ") {
		t.Errorf("error does not name the command: %v", err)
	}
	git(t, env, clone, "fetch", "-q", "--depth=1", "origin", base)
	got, err := Changed(ctx, clone, base, headSHA, ExecGit(env))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"docs/guide.md", "docs/manual.md", "mod/a/a.go", "mod/c/extra.go", "new file.txt"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Changed (-want +got):\n%s", diff)
	}
}

func TestChangedErrors(t *testing.T) {
	ctx := context.Background()
	called := false
	fake := func(context.Context, string, ...string) ([]byte, error) {
		called = true
		return nil, errors.New("boom")
	}
	for _, rev := range []string{"", "-p", "a\nb"} {
		if _, err := Changed(ctx, "/repo", rev, "abc", fake); err == nil || !strings.Contains(err.Error(), "invalid commit") {
			t.Errorf("Changed(%q) = %v, want invalid commit", rev, err)
		}
	}
	if called {
		t.Error("git ran for an invalid commit")
	}
	_, err := Changed(ctx, "/repo", "0123456789abcdef0123", "fedcba9876543210fedc", fake)
	if want := "changed files between 0123456789ab and fedcba987654: boom"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// TestSelectGoListFails checks that a go list failure is an error naming
// the side, never an empty selection.
func TestSelectGoListFails(t *testing.T) {
	env := testEnv(t)
	dir := tempDir(t)
	writeFiles(t, dir, map[string]string{"go.mod": "module broken\n\ngo 1.26\n\nrequire (\n"})
	_, err := Select(context.Background(), Tree{}, Tree{Root: dir, Dir: dir}, []string{"x.go"}, Options{Go: ExecGo(env, nil)})
	if err == nil || !strings.HasPrefix(err.Error(), "affected packages: head side: go list -e -deps -test") {
		t.Errorf("err = %v, want a go list failure on the head side", err)
	}
}

func TestTestdataDir(t *testing.T) {
	tests := []struct {
		file, dir string
		ok        bool
	}{
		{"testdata/x", ".", true},
		{"a/testdata/x", "a", true},
		{"a/b/testdata/c/testdata/x", "a/b", true},
		{"a/testdata", "", false}, // a file named testdata
		{"a/mytestdata/x", "", false},
		{"a/b.go", "", false},
	}
	for _, tt := range tests {
		dir, ok := testdataDir(tt.file)
		if dir != tt.dir || ok != tt.ok {
			t.Errorf("testdataDir(%q) = %q, %v; want %q, %v", tt.file, dir, ok, tt.dir, tt.ok)
		}
	}
}

// TestSelectNeedsBase shows why both trees are listed: a file deleted from
// a dependency is in base's lists only.
func TestSelectNeedsBase(t *testing.T) {
	env := testEnv(t)
	repo, base := newRepo(t, env)
	baseTree := filepath.Join(tempDir(t), "base")
	git(t, env, repo, "worktree", "add", "-q", "--detach", baseTree, base)
	head, headSHA := headCommit(t, env, repo, base, remove("mod/c/unused.go"))
	ctx := context.Background()
	changed, err := Changed(ctx, repo, base, headSHA, ExecGit(env))
	if err != nil {
		t.Fatal(err)
	}
	headTree := Tree{Root: head, Dir: filepath.Join(head, "mod")}
	for _, tt := range []struct {
		base Tree
		want []string
	}{
		{Tree{}, nil},
		{Tree{Root: baseTree, Dir: filepath.Join(baseTree, "mod")}, []string{pa, pb, pc}},
	} {
		sel, err := Select(ctx, tt.base, headTree, changed, Options{Go: ExecGo(env, nil)})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, sel.Packages); diff != "" {
			t.Errorf("base %q: Packages (-want +got):\n%s", tt.base.Dir, diff)
		}
	}
}
