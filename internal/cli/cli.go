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
	"os"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/pipeline"
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
	// MountInfo is the mount table the action's sandbox closes the
	// runner's mounts from; "" for /proc/self/mountinfo.
	MountInfo string
}

type app struct {
	env Env
	cfg *config.Config // as the user gave it: never edited
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
	if cfg.Command != "action" {
		// Nothing measured is lost to a typo in an output path.
		if err := a.checkOutputs(); err != nil {
			return a.errorf(ExitUsage, "%v", err)
		}
	}
	switch cfg.Command {
	case "compare":
		return a.compare()
	case "merge":
		return a.merge()
	case "demo":
		return a.demo(ctx)
	case "action":
		return a.action(ctx)
	case "calibrate":
		return a.calibrate(ctx)
	default:
		return a.run(ctx, a.cfg.Dir).code
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

// resolve makes a -C directory absolute ("" is the working directory).
func (a *app) resolve(dir string) string {
	if dir == "" {
		return a.env.Dir
	}
	if filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(a.env.Dir, dir)
}

// path resolves a user-given path against the working directory.
func (a *app) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(a.env.Dir, p)
}

// compare judges two existing benchfmt files, or a run's --out directory.
func (a *app) compare() int {
	if a.cfg.CompareDir != "" {
		return a.compareDir(a.cfg.CompareDir)
	}
	var in [2]stats.Input
	for i, name := range a.cfg.Files {
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(a.env.Dir, path)
		}
		f, err := os.Open(path)
		if err != nil {
			return a.errorf(ExitUsage, "compare: cannot read %s: %v", name, errors.Unwrap(err))
		}
		defer f.Close()
		in[i] = stats.Input{Name: name, R: f}
	}
	meta := report.Meta{RawBase: a.cfg.Files[0], RawHead: a.cfg.Files[1], BaseRef: a.cfg.Files[0], HeadRef: a.cfg.Files[1]}
	r, err := a.fileRules()
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	v, err := a.judging(r).Verdict(in, nil)
	if err != nil {
		return a.errorf(ExitUsage, "%v", oneLine(err))
	}
	meta.Policy = policyMeta(r, *v)
	return a.conclude(*v, meta, dest{json: a.cfg.JSON, markdown: a.cfg.Markdown}).code
}

// compareDir judges the raw files a run kept in dir (--out) as the run
// judged them: the screen, the confirmation's files and failures, and the
// rules it kept in judge.json (the policy file in force and the
// acceptances), unless --policy or --accept are given.
func (a *app) compareDir(dir string) int {
	path := a.path(dir)
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		return a.errorf(ExitUsage, "compare: %s is not a directory: give two files, BASE.txt and HEAD.txt, or a run's --out directory", dir)
	}
	in, err := pipeline.ReadDir(path, dir)
	if err != nil {
		return a.errorf(ExitUsage, "compare: %v", oneLine(err))
	}
	r, err := a.fileRules()
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	if !a.cfg.Given["policy"] && !a.cfg.Given["accept"] {
		rec := filepath.Join(path, judgeFile)
		data, err := pipeline.ReadKept(rec)
		if err != nil {
			return a.errorf(ExitUsage, "compare: %v", err)
		}
		if data != nil {
			if r, err = recordRules(filepath.Join(dir, judgeFile), data); err != nil {
				return a.errorf(ExitUsage, "compare: %v", oneLine(err))
			}
		}
	}
	v, err := a.judging(r).Raw(in)
	if err != nil {
		return a.errorf(ExitUsage, "%v", oneLine(err))
	}
	meta := report.Meta{RawDir: dir, BaseRef: in.Screen[0].Name, HeadRef: in.Screen[1].Name}
	meta.Policy = policyMeta(r, *v)
	return a.conclude(*v, meta, dest{json: a.cfg.JSON, markdown: a.cfg.Markdown}).code
}

// conclude writes the reports to d and maps the verdict to the exit status.
func (a *app) conclude(v gate.Verdict, meta report.Meta, d dest) outcome {
	meta.Tool = "benchgate " + Version
	if d.calibrate {
		return a.calibrationReport(v, meta, d)
	}
	o := outcome{verdict: &v, meta: meta}
	if err := a.write(v, meta, d); err != nil {
		o.code = a.errorf(ExitTool, "%v", err)
		return o
	}
	if errs := a.exports(v); len(errs) > 0 {
		o.code = a.errorf(ExitTool, "%v", a.reportLost(errs, d))
		return o
	}
	switch {
	case meta.Partial:
		o.code = ExitTool
	case a.cfg.Shard.Count > 1:
		// A shard's verdict is the merge's to give (1/1 is the whole
		// suite: its verdict is final).
		o.code = ExitPass
	case !v.Pass:
		o.code = ExitFail
	default:
		o.code = ExitPass
	}
	return o
}

// policy is the gate's policy: the flags, then the rules (nil: none).
func (a *app) policy(r *rules) gate.Policy {
	p := gate.DefaultPolicy()
	p.Threshold, p.Alpha, p.Correction = a.cfg.Threshold, a.cfg.Alpha, a.cfg.Correction
	p.InstructionThreshold = a.cfg.InstructionsThreshold
	p.Test = a.cfg.Test
	p.SetFailOn(failOnWords(a.cfg.FailOn))
	a.laneDefault(&p, nil)
	a.apply(&p, r)
	p.Selective = a.selective()
	return p
}

// selective reports whether the run measures part of the suite: one shard
// of several, a --bench other than every benchmark, or packages other than
// the module's all (compare and merge judge whole files: never).
func (a *app) selective() bool {
	switch a.cfg.Command {
	case "compare", "merge":
		return false
	}
	all := len(a.cfg.Packages) == 1 && a.cfg.Packages[0] == "./..."
	return a.cfg.Shard.Count > 1 || (a.cfg.Bench != "." && a.cfg.Bench != "") || !all
}

// write renders the reports: the --format one to stdout, Markdown to
// --markdown, JSON to --json, never through a symbolic link at those
// paths. When a file cannot be written, the error says that the report is
// above (on stdout) and where the raw results are kept.
func (a *app) write(v gate.Verdict, meta report.Meta, d dest) error {
	doc := report.Build(v, meta)
	js := func() ([]byte, error) { return report.JSON(v, meta) }
	return a.publishReport(doc, js, d)
}

// publishReport writes doc (and the JSON that jsonOf makes) to stdout in
// the --format chosen, and to the --markdown and --json files.
func (a *app) publishReport(doc *report.Document, jsonOf func() ([]byte, error), d dest) error {
	var md strings.Builder
	if err := report.WriteMarkdown(&md, doc, report.Options{}); err != nil {
		return err
	}
	var js []byte
	if d.json != "" || a.cfg.Format == "json" {
		var err error
		if js, err = jsonOf(); err != nil {
			return fmt.Errorf("json report: %w", err)
		}
	}
	switch a.cfg.Format {
	case "markdown":
		fmt.Fprint(a.env.Stdout, md.String())
	case "json":
		_, _ = a.env.Stdout.Write(js)
	default:
		opt := terminal(a.env.Stdout, a.env.Getenv)
		opt.Brief = opt.Brief && !a.cfg.Verbose
		_ = report.WriteText(a.env.Stdout, doc, opt)
	}
	var errs []error
	if d.markdown != "" {
		if err := a.writeOutput("--markdown", d.markdown, []byte(md.String())); err != nil {
			errs = append(errs, err)
		}
	}
	if d.json != "" {
		if err := a.writeOutput("--json", d.json, js); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return a.reportLost(errs, d)
	}
	return nil
}

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
	return a.measure(ctx, repo, job{
		base: rev{baseSHA, a.cfg.Base}, head: rev{headSHA, a.cfg.Head},
		dir: dir, out: a.cfg.Out, confirm: a.cfg.Confirm,
		dest:   dest{json: a.cfg.JSON, markdown: a.cfg.Markdown},
		accept: localAcceptance(a.cfg.AcceptTrailers, headSHA),
	})
}

// timing says where the time went: builds, benchmark processes, and
// benchgate itself.
func timing(res *runner.Result) *report.Timing {
	return &report.Timing{Elapsed: res.Elapsed, Build: res.BuildTime, Processes: res.ProcessTime, Counted: res.RunTime, Count: res.Processes}
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
	if err != nil {
		return nil, nil, fmt.Errorf("%s%s is not in a git repository: %v", where, dir, oneLine(err))
	}
	shas := make([]string, len(refs))
	for i, r := range refs {
		if shas[i], err = repo.Resolve(ctx, r.ref); err != nil {
			return nil, nil, fmt.Errorf("%s %s: %v", r.flag, r.ref, oneLine(err))
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

// oneLine keeps error messages to one line, as documented.
func oneLine(err error) string {
	s := strings.TrimSpace(err.Error())
	lines := strings.Split(s, "\n")
	if len(lines) <= 1 {
		return s
	}
	return lines[0] + " (" + strings.Join(lines[1:min(len(lines), 4)], "; ") + ")"
}
