// Package demo builds the example repository of `benchgate demo`: a git
// repository with two commits of a small Go module whose benchmark
// differences are planted and known (Expectations). The example lives in
// example.txtar, embedded in the binary, so the demo needs nothing but git
// and the go command.
package demo

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

//go:embed example.txtar
var example []byte

// Expectation is one finding the demo must produce.
type Expectation struct {
	Name   string // benchfmt name without GOMAXPROCS suffix, e.g. "Parse"
	Unit   string // "sec/op", "allocs/op", or "" for new/removed
	Status string // "regression", "improvement", "unchanged", "new", "removed"
}

// Expectations are the planted differences between the two commits.
var Expectations = []Expectation{
	{"Parse", "sec/op", "regression"},
	{"Encode", "allocs/op", "regression"},
	{"Hash", "sec/op", "improvement"},
	{"Words", "sec/op", "unchanged"},
	{"Words", "allocs/op", "unchanged"},
	{"Legacy", "", "removed"},
	{"Stream", "", "new"},
}

// Write creates the example repository in dir (which must be empty or not
// exist): commit 1 holds the base version, commit 2 (HEAD, on branch main)
// the head version.
func Write(ctx context.Context, dir string) error {
	ar := txtar.Parse(example)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	git := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "git", append([]string{
			"-c", "user.name=benchgate demo", "-c", "user.email=demo@benchgate.invalid",
			"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main",
		}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(out.String()))
		}
		return nil
	}
	if err := git("init", "-q"); err != nil {
		return err
	}
	for i, version := range []string{"v1/", "v2/"} {
		if i > 0 {
			if err := git("rm", "-q", "-r", "."); err != nil {
				return err
			}
		}
		for _, f := range ar.Files {
			name, ok := strings.CutPrefix(f.Name, version)
			if !ok {
				continue
			}
			path := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(path, f.Data, 0o644); err != nil {
				return err
			}
		}
		if err := git("add", "-A"); err != nil {
			return err
		}
		msg := []string{"base: the example shop module", "head: validation in Parse, defensive copy in Encode, single-pass Hash, Stream replaces Legacy"}[i]
		if err := git("commit", "-q", "-m", msg); err != nil {
			return err
		}
	}
	return nil
}
