// Package cli is benchgate's command line: it wires configuration, git,
// the runner, statistics, the gate and the reports, and maps every outcome to
// the documented exit status. It is the only package that sees the process
// environment, and it receives it injected (Env), so tests run it in-process.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runner"
)

// Exit statuses.
const (
	ExitPass  = 0 // the gate passed
	ExitFail  = 1 // the gate failed: a regression
	ExitUsage = 2 // usage or input error
	ExitTool  = 3 // benchgate could not finish
)

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
	gh  *config.GitHub // the action's GitHub context, read once; nil outside the action
	// commands, under GitHub Actions, is the writer of benchgate's own
	// workflow commands (github.Log.Commands): progress folds the run's
	// stages into groups of the log with it. nil elsewhere.
	commands io.Writer
	folded   *foldedProgress // the progress writer over commands, made once
	// host is the CI job of a command other than the action (gitlab),
	// for the sandbox; nil otherwise.
	host *ciHost
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
	var help *config.HelpError
	if errors.As(err, &help) {
		fmt.Fprint(env.Stdout, config.UsageOf(help.Command))
		return ExitPass
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "benchgate: %v\n", err)
		return ExitUsage
	}
	a := &app{env: env, cfg: cfg}
	if cfg.Command != "action" && cfg.Command != "version" {
		// Nothing measured is lost to a typo in an output path.
		if err := a.checkOutputs(); err != nil {
			return a.errorf(ExitUsage, "%v", err)
		}
	}
	switch cfg.Command {
	case "version":
		fmt.Fprint(env.Stdout, versionLine())
		return ExitPass
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
	case "bisect":
		return a.bisect(ctx)
	case "history":
		return a.history(ctx)
	case "gitlab":
		return a.gitlab(ctx)
	default:
		return a.run(ctx, a.cfg.Dir).code
	}
}

// githubContext is the action's GitHub context, the zero one outside it.
func (a *app) githubContext() config.GitHub {
	if a.gh == nil {
		return config.GitHub{}
	}
	return *a.gh
}

func (a *app) errorf(code int, format string, args ...any) int {
	fmt.Fprintf(a.env.Stderr, "benchgate: "+format+"\n", args...)
	return code
}

func (a *app) progress() io.Writer {
	if a.cfg.Quiet {
		return nil
	}
	if a.commands != nil {
		if a.folded == nil {
			a.folded = &foldedProgress{w: a.env.Stderr, commands: a.commands}
		}
		return a.folded
	}
	return a.env.Stderr
}

// step prints a run's step as report words it: a warning always, progress
// unless --quiet.
func (a *app) step(s pipeline.Step) {
	if title := report.StageTitle(s); title != "" {
		runner.Stage(a.progress(), title)
	}
	lines, warn := report.StepLines(s)
	for _, l := range lines {
		if warn || !a.cfg.Quiet {
			fmt.Fprintf(a.env.Stderr, "benchgate: %s\n", l)
		}
	}
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

// conclude writes the reports of v and its record to d and maps the
// verdict to the exit status.
func (a *app) conclude(v gate.Verdict, rec pipeline.Record, d dest) outcome {
	meta := report.Meta{Record: rec, Tool: a.tool(), Request: d.request}
	if d.calibrate {
		return a.calibrationReport(v, meta, d)
	}
	meta.Trends = a.trends(v)
	o := outcome{verdict: &v, meta: meta}
	if err := a.write(v, meta, d); err != nil {
		o.code = a.errorf(ExitTool, "%v", err)
		return o
	}
	if errs := a.exports(v, meta.Run.Machine); len(errs) > 0 {
		o.code = a.errorf(ExitTool, "%v", a.reportLost(errs, d))
		return o
	}
	if err := a.record(v, meta); err != nil {
		o.code = a.errorf(ExitTool, "%v", a.reportLost([]error{err}, d))
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
