// Package cli is benchgate's command line: it wires configuration, git,
// the runner, statistics, the gate and the reports, and maps every outcome to
// the documented exit status. It is the only package that sees the process
// environment, and it receives it injected (Env), so tests run it in-process.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/stats"
)

// Exit statuses.
const (
	ExitPass  = 0 // the gate passed
	ExitFail  = 1 // the gate failed: a regression
	ExitUsage = 2 // usage or input error
	ExitTool  = 3 // benchgate could not finish
)

// Version is set at build time (-ldflags "-X ...cli.Version=v1.2.3").
var Version = "dev"

// Env is the outside world of one invocation.
type Env struct {
	Getenv         func(string) string
	Stdout, Stderr io.Writer
	Dir            string   // working directory; "" for the process's
	Environ        []string // environment of child processes; nil for the process's
}

type app struct {
	env  Env
	cfg  *config.Config
	meta report.Meta // of the last judgement, for publishing
}

// Run executes benchgate with args (without the program name) and returns the
// exit status. Everything it creates is removed before it returns, also when
// ctx is cancelled (SIGINT, SIGTERM).
func Run(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Dir == "" {
		env.Dir, _ = os.Getwd()
	}
	cfg, err := config.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, config.Usage)
		return ExitPass
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "benchgate: %v\n", err)
		return ExitUsage
	}
	a := &app{env: env, cfg: cfg}
	switch cfg.Command {
	case "compare":
		return a.compare()
	case "demo":
		return a.demo(ctx)
	case "action":
		return a.action(ctx)
	default:
		code, _ := a.run(ctx)
		return code
	}
}

func (a *app) errorf(code int, format string, args ...any) int {
	fmt.Fprintf(a.env.Stderr, "benchgate: "+format+"\n", args...)
	return code
}

func (a *app) progress() io.Writer {
	if a.cfg.Quiet {
		return nil
	}
	return a.env.Stderr
}

func (a *app) dir() string {
	if a.cfg.Dir == "" {
		return a.env.Dir
	}
	if filepath.IsAbs(a.cfg.Dir) {
		return a.cfg.Dir
	}
	return filepath.Join(a.env.Dir, a.cfg.Dir)
}

// compare judges two existing benchfmt files.
func (a *app) compare() int {
	var in [2]stats.Input
	for i, name := range a.cfg.Files {
		f, err := os.Open(name)
		if err != nil {
			return a.errorf(ExitUsage, "compare: cannot read %s: %v", name, errors.Unwrap(err))
		}
		defer f.Close()
		in[i] = stats.Input{Name: name, R: f}
	}
	meta := report.Meta{RawBase: a.cfg.Files[0], RawHead: a.cfg.Files[1], BaseRef: a.cfg.Files[0], HeadRef: a.cfg.Files[1]}
	code, _ := a.judge(in, nil, meta)
	return code
}

// judge runs statistics, the gate and the reports on two benchfmt inputs.
func (a *app) judge(in [2]stats.Input, failures []gate.Failure, meta report.Meta) (int, *gate.Verdict) {
	set, err := stats.Load(in[0], in[1])
	if err != nil {
		return a.errorf(ExitUsage, "%v", oneLine(err)), nil
	}
	meta.Tool = "benchgate " + Version
	p := a.policy()
	v := gate.Judge(stats.CompareAlpha(set, 0.95, p.Alpha), failures, p)
	v.Warnings = append(v.Warnings, set.Warnings...)
	a.meta = meta
	if err := a.write(v, meta); err != nil {
		return a.errorf(ExitTool, "%v", err), &v
	}
	if meta.Partial {
		return ExitTool, &v
	}
	if !v.Pass {
		return ExitFail, &v
	}
	return ExitPass, &v
}

func (a *app) policy() gate.Policy {
	p := gate.DefaultPolicy()
	p.Threshold, p.Alpha = a.cfg.Threshold, a.cfg.Alpha
	p.FailOn = map[gate.Kind]bool{}
	p.FailOnFailure, p.FailOnRemoved = false, false
	for _, k := range a.cfg.FailOn {
		switch k {
		case "time":
			p.FailOn[gate.Time] = true
		case "allocs":
			p.FailOn[gate.Allocs] = true
		case "bytes":
			p.FailOn[gate.Bytes] = true
		case "failure":
			p.FailOnFailure = true
		case "removed":
			p.FailOnRemoved = true
		}
	}
	return p
}

// write renders the reports: Markdown to stdout and --markdown, JSON to --json.
func (a *app) write(v gate.Verdict, meta report.Meta) error {
	md := report.Markdown(v, meta, report.Options{})
	fmt.Fprint(a.env.Stdout, md)
	if a.cfg.Markdown != "" {
		if err := os.WriteFile(a.cfg.Markdown, []byte(md), 0o644); err != nil {
			return fmt.Errorf("--markdown: %w", err)
		}
	}
	if a.cfg.JSON != "" {
		b, err := report.JSON(v, meta)
		if err != nil {
			return fmt.Errorf("json report: %w", err)
		}
		if err := os.WriteFile(a.cfg.JSON, b, 0o644); err != nil {
			return fmt.Errorf("--json: %w", err)
		}
	}
	return nil
}

// run measures base against head in the repository around the working
// directory and judges the result.
func (a *app) run(ctx context.Context) (int, *gate.Verdict) {
	dir := a.dir()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return a.errorf(ExitUsage, "-C %s: not a directory", dir), nil
	}
	if err := goModule(ctx, dir); err != nil {
		return a.errorf(ExitUsage, "%v", err), nil
	}
	var gitOpts []gitrev.Option
	if a.env.Environ != nil {
		gitOpts = append(gitOpts, gitrev.WithEnv(a.env.Environ))
	}
	repo, err := gitrev.Open(ctx, dir, gitOpts...)
	if err != nil {
		return a.errorf(ExitUsage, "%s is not in a git repository: %v", dir, oneLine(err)), nil
	}
	baseSHA, err := repo.Resolve(ctx, a.cfg.Base)
	if err != nil {
		return a.errorf(ExitUsage, "--base %s: %v", a.cfg.Base, oneLine(err)), nil
	}
	headSHA, err := repo.Resolve(ctx, a.cfg.Head)
	if err != nil {
		return a.errorf(ExitUsage, "--head %s: %v", a.cfg.Head, oneLine(err)), nil
	}
	if baseSHA == headSHA && !a.cfg.AllowSame {
		return a.errorf(ExitUsage, "--base %s and --head %s are the same commit %s: nothing to compare (use --allow-same for an A/A run of a commit against itself)", a.cfg.Base, a.cfg.Head, short(baseSHA)), nil
	}
	return a.measure(ctx, repo, baseSHA, headSHA)
}

// measure checks base and head out into temporary worktrees, runs the
// benchmarks and judges them. The worktrees are removed on every path.
func (a *app) measure(ctx context.Context, repo *gitrev.Repo, baseSHA, headSHA string) (int, *gate.Verdict) {
	tmp, err := os.MkdirTemp("", "benchgate-")
	if err != nil {
		return a.errorf(ExitTool, "temporary directory: %v", err), nil
	}
	defer os.RemoveAll(tmp)
	var trees [2]*gitrev.Worktree
	defer func() {
		// Removes the worktrees (also after cancellation) and gives files
		// git created under .git back to the checkout's owner.
		if err := repo.Cleanup(context.Background()); err != nil {
			fmt.Fprintf(a.env.Stderr, "benchgate: warning: cleaning up: %v\n", oneLine(err))
		}
	}()
	for i, sha := range []string{baseSHA, headSHA} {
		trees[i], err = repo.AddWorktree(ctx, sha, tmp)
		if err != nil {
			return a.errorf(ExitTool, "%v", oneLine(err)), nil
		}
	}

	out := a.cfg.Out
	if out == "" {
		out = filepath.Join(tmp, "raw")
	} else if !filepath.IsAbs(out) {
		out = filepath.Join(a.env.Dir, out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return a.errorf(ExitUsage, "--out %s: %v", a.cfg.Out, err), nil
	}
	rawBase, rawHead := filepath.Join(out, "base.txt"), filepath.Join(out, "head.txt")
	bf, err := os.Create(rawBase)
	if err != nil {
		return a.errorf(ExitUsage, "--out: %v", err), nil
	}
	hf, err := os.Create(rawHead)
	if err != nil {
		bf.Close()
		return a.errorf(ExitUsage, "--out: %v", err), nil
	}
	seed := a.cfg.Seed
	if !a.cfg.SeedSet {
		seed = rand.Int64N(1 << 31)
	}
	logDir := ""
	if a.cfg.Out != "" {
		logDir = out
	}
	if !a.cfg.Quiet {
		fmt.Fprintf(a.env.Stderr, "benchgate: base %s (%s), head %s (%s), seed %d\n", a.cfg.Base, short(baseSHA), a.cfg.Head, short(headSHA), seed)
	}
	res, runErr := runner.Run(ctx,
		runner.Side{Name: "base", Dir: trees[0].Dir()},
		runner.Side{Name: "head", Dir: trees[1].Dir()},
		runner.Options{
			Packages:  a.cfg.Packages,
			Bench:     a.cfg.Bench,
			Count:     a.cfg.Count,
			Benchtime: a.cfg.Benchtime,
			CPU:       a.cfg.CPU,
			Timeout:   a.cfg.Timeout,
			Seed:      seed,
			BinDir:    filepath.Join(tmp, "bin"),
			Env:       a.env.Environ,
			LogDir:    logDir,
			Progress:  a.progress(),
		}, bf, hf)
	bf.Close()
	hf.Close()

	meta := report.Meta{
		BaseRef: a.cfg.Base, HeadRef: a.cfg.Head, BaseSHA: baseSHA, HeadSHA: headSHA,
		Count: a.cfg.Count, Benchtime: a.cfg.Benchtime, Seed: seed,
	}
	if a.cfg.Out != "" {
		meta.RawBase, meta.RawHead = rawBase, rawHead
	}
	var be *runner.BuildError
	switch {
	case runErr == nil:
	case errors.As(runErr, &be):
		fmt.Fprintf(a.env.Stderr, "%s\n", be.Output)
		if a.cfg.Out != "" {
			fmt.Fprintf(a.env.Stderr, "benchgate: build logs kept in %s\n", out)
		}
		return a.errorf(ExitTool, "%s side does not build: package %s (compiler output above)", be.Side, be.Package), nil
	case errors.Is(runErr, runner.ErrNoBenchmarks):
		return a.errorf(ExitUsage, "--bench %q matched no benchmarks in %s on either side", a.cfg.Bench, strings.Join(a.cfg.Packages, " ")), nil
	case ctx.Err() != nil && res != nil && res.Rounds > 0:
		meta.Partial = true
		meta.Notes = append(meta.Notes, fmt.Sprintf("cancelled after %d of %d rounds: this report is partial", res.Rounds, a.cfg.Count))
		fmt.Fprintf(a.env.Stderr, "benchgate: cancelled after %d of %d rounds; writing a partial report\n", res.Rounds, a.cfg.Count)
	case ctx.Err() != nil:
		return a.errorf(ExitTool, "cancelled before the first round completed; nothing to report"), nil
	default:
		return a.errorf(ExitTool, "%v", runErr), nil
	}
	if res != nil {
		for _, s := range res.Skipped {
			meta.Notes = append(meta.Notes, "skipped "+s)
		}
		meta.Notes = append(meta.Notes, timingNote(res))
	}
	var failures []gate.Failure
	if res != nil {
		for _, f := range res.Failures {
			failures = append(failures, gate.Failure{Package: f.Package, Name: f.Name, Side: f.Side, Message: f.Message})
		}
	}
	var in [2]stats.Input
	for i, p := range []string{rawBase, rawHead} {
		f, err := os.Open(p)
		if err != nil {
			return a.errorf(ExitTool, "%v", err), nil
		}
		defer f.Close()
		in[i] = stats.Input{Name: filepath.Base(p), R: f}
	}
	return a.judge(in, failures, meta)
}

// timingNote says where the time went: builds, benchmark processes, and
// benchgate's own overhead (everything else).
func timingNote(res *runner.Result) string {
	over := res.Elapsed - res.BuildTime - res.ProcessTime
	pct := 0.0
	if res.Elapsed > 0 {
		pct = 100 * float64(over) / float64(res.Elapsed)
	}
	return fmt.Sprintf("time: %s in all: building %s, %d benchmark processes %s (counted runs %s), benchgate itself %s (%.1f%%)",
		res.Elapsed.Round(time.Millisecond), res.BuildTime.Round(time.Millisecond), res.Processes,
		res.ProcessTime.Round(time.Millisecond), res.RunTime.Round(time.Millisecond), over.Round(time.Millisecond), pct)
}

// goModule checks that dir is inside a Go module.
func goModule(ctx context.Context, dir string) error {
	cmd := exec.CommandContext(ctx, "go", "env", "GOMOD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD in %s: %v", dir, err)
	}
	if mod := strings.TrimSpace(string(out)); mod == "" || mod == os.DevNull {
		return fmt.Errorf("%s is not in a Go module (no go.mod): run benchgate in the module's directory or pass -C DIR", dir)
	}
	return nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// oneLine keeps error messages to one line, as documented.
func oneLine(err error) string {
	s := strings.TrimSpace(err.Error())
	lines := strings.Split(s, "\n")
	if len(lines) <= 1 {
		return s
	}
	return lines[0] + " (" + strings.Join(lines[1:min(len(lines), 4)], "; ") + ")"
}
