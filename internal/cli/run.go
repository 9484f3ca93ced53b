package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/pipeline"
)

// run measures base against head in the repository around dir (the
// working directory when "") and judges the result.
func (a *app) run(ctx context.Context, dir string) outcome {
	dir = a.resolve(dir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return a.failf(ExitUsage, "-C %s: not a directory", dir)
	}
	repo, shas, err := a.openRepo(ctx, dir, "", flagRef{"--base", a.cfg.Base}, flagRef{"--head", a.cfg.Head})
	if err != nil {
		return a.failf(ExitUsage, "%v", err)
	}
	baseSHA, headSHA := shas[0], shas[1]
	if baseSHA == headSHA && !a.cfg.AllowSame {
		return a.failf(ExitUsage, "--base %s and --head %s are the same commit %s: nothing to compare (use --allow-same for an A/A run of a commit against itself)", a.cfg.Base, a.cfg.Head, gitrev.Short(baseSHA))
	}
	a.warnUncommitted(ctx, repo, dir, headSHA)
	return a.measure(ctx, repo, job{
		base: pipeline.Rev{SHA: baseSHA, Label: a.cfg.Base}, head: pipeline.Rev{SHA: headSHA, Label: a.cfg.Head},
		dir: dir, out: a.cfg.Out, confirm: a.cfg.Confirm,
		dest:   dest{json: a.cfg.JSON, markdown: a.cfg.Markdown},
		accept: localAcceptance(a.cfg.AcceptTrailers, headSHA),
	})
}

// flagRef is a revision as given, and the flag or input that gave it.
type flagRef struct{ flag, ref string }

// openRepo opens the repository around the Go module in dir and resolves
// refs to commits. Every error is the user's input: it names dir (where,
// the flag or input that gave it, first when set) or the ref's flag.
func (a *app) openRepo(ctx context.Context, dir, where string, refs ...flagRef) (*gitrev.Repo, []string, error) {
	if where != "" {
		where += ": "
	}
	if err := goModule(dir); err != nil {
		return nil, nil, fmt.Errorf("%s%v", where, err)
	}
	repo, err := gitrev.Open(ctx, dir, a.gitOptions()...)
	if errors.Is(err, gitrev.ErrNotRepository) {
		return nil, nil, fmt.Errorf("%s%s is not in a git repository: benchgate measures two commits; run it in a clone, or judge benchmark output you have with benchgate compare BASE.txt HEAD.txt", where, dir)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s%s: git: %v", where, dir, pipeline.OneLine(err))
	}
	shas := make([]string, len(refs))
	for i, r := range refs {
		if shas[i], err = repo.Resolve(ctx, r.ref); err != nil {
			return nil, nil, fmt.Errorf("%s %s: %v", r.flag, r.ref, pipeline.OneLine(err))
		}
	}
	return repo, shas, nil
}

// goModule checks that dir is inside a Go module: that it or a directory
// above it holds a go.mod file, as go finds the main module. go itself is
// not run: in the change's checkout, as root, its go line could make go
// download a toolchain (GOTOOLCHAIN=auto) into the shared module cache.
func goModule(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(abs); err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	for d := abs; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && fi.Mode().IsRegular() {
			return nil
		}
		if filepath.Dir(d) == d {
			return fmt.Errorf("%s is not in a Go module (no go.mod): run benchgate in the module's directory or pass -C DIR", dir)
		}
	}
}
