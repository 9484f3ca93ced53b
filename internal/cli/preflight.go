package cli

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/pipeline"
)

// preflight checks, before any worktree is made, what git can tell about
// job j: that both commits have the directory benchgate runs in, and that
// the package patterns relative to it can match a package on some side.
// Each error names the directory or pattern, the commit and what to do:
// without it a missing directory surfaces as go failing to start in it,
// and a pattern matching nothing as --bench matching no benchmark.
func (a *app) preflight(ctx context.Context, repo *gitrev.Repo, j job) error {
	sub := filepath.ToSlash(repo.Subdir())
	sides := []struct {
		name string
		rev  pipeline.Rev
	}{{"base", j.base}, {"head", j.head}}
	if j.base.SHA == j.head.SHA {
		sides = sides[1:]
	}
	for _, s := range sides {
		ok, err := repo.HasDir(ctx, s.rev.SHA, sub)
		if err != nil {
			return fmt.Errorf("git: %v", pipeline.OneLine(err))
		}
		if ok {
			continue
		}
		where, fix := "", "run benchgate in the module root"
		if a.cfg.Command == "action" {
			where, fix = "input working-directory: ", "set working-directory to a module directory both commits have"
		}
		commit := fmt.Sprintf("the %s commit %s", s.name, gitrev.Short(s.rev.SHA))
		if s.rev.Label != "" && s.rev.Label != gitrev.Short(s.rev.SHA) {
			commit += " (" + s.rev.Label + ")"
		}
		root := moduleRoot(j.dir)
		if root == "" || root == filepath.Clean(j.dir) {
			return fmt.Errorf("%s%s has no directory %s: the module there is new, and there is nothing to compare it with", where, commit, sub)
		}
		if a.cfg.Command != "action" {
			fix += " " + root + " (or pass -C " + root + ")"
		}
		return fmt.Errorf("%s%s has no directory %s, where benchgate runs: %s", where, commit, sub, fix)
	}
	if a.cfg.Affected {
		return nil
	}
	for _, p := range a.cfg.Packages {
		rel, below, ok := patternDir(sub, p)
		if !ok {
			continue // an import path, or above the top level: go list decides
		}
		found := false
		for _, s := range sides {
			has, err := repo.HasGoFiles(ctx, s.rev.SHA, rel, below)
			if err != nil {
				return fmt.Errorf("git: %v", pipeline.OneLine(err))
			}
			found = found || has
		}
		if found {
			continue
		}
		what := "no Go file in " + rel
		if below {
			what += " or below it"
		}
		if ok, _ := repo.HasDir(ctx, j.head.SHA, rel); !ok {
			if ok, _ := repo.HasDir(ctx, j.base.SHA, rel); !ok {
				what = "no directory " + rel
			}
		}
		rel2 := "patterns are relative to " + j.dir
		if root := moduleRoot(j.dir); root != "" && root != filepath.Clean(j.dir) && a.cfg.Command != "action" {
			rel2 += "; the module root is " + root
		}
		return fmt.Errorf("%s %s: matches no package: %s on either side (%s)", a.packagesName(), p, what, rel2)
	}
	return nil
}

// packagesName is how the user gave the package patterns.
func (a *app) packagesName() string {
	switch {
	case a.cfg.Command == "action":
		return "input packages"
	case a.cfg.Given["packages"]:
		return "--packages"
	}
	return "package pattern"
}

// patternDir is the directory, relative to the top level, that a relative
// package pattern p names from sub ("./x/..." from "a" is "a/x", below),
// and whether p is one ("example.com/m/x", "all" and patterns leaving the
// top level are not).
func patternDir(sub, p string) (string, bool, bool) {
	below := p == "..." || strings.HasSuffix(p, "/...")
	d := strings.TrimSuffix(strings.TrimSuffix(p, "..."), "/")
	if d == "" {
		d = "."
	}
	if d != "." && d != ".." && !strings.HasPrefix(d, "./") && !strings.HasPrefix(d, "../") {
		return "", false, false
	}
	if strings.ContainsAny(d, "*?[") {
		return "", false, false
	}
	rel := path.Join(sub, d)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false, false
	}
	return rel, below, true
}

// moduleRoot is the directory of the go.mod that governs dir, "" if none.
func moduleRoot(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && fi.Mode().IsRegular() {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// warnUncommitted says, for a run whose head is the checkout's HEAD, that
// uncommitted changes are not measured.
func (a *app) warnUncommitted(ctx context.Context, repo *gitrev.Repo, dir, headSHA string) {
	sha, err := repo.Resolve(ctx, "HEAD")
	if err != nil || sha != headSHA {
		return
	}
	n, err := repo.Changes(ctx, dir)
	if err != nil || n == 0 {
		return
	}
	them, are := "them", "uncommitted changes in "+dir+" are"
	if n == 1 {
		them, are = "it", "uncommitted change in "+dir+" is"
	}
	fmt.Fprintf(a.env.Stderr, "benchgate: warning: %d %s not measured: benchgate measures commits, and head is HEAD (%s); commit %s (git commit -a) to measure %s\n",
		n, are, gitrev.Short(headSHA), them, them)
}
