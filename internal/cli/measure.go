package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runner"
)

// measure runs job j through the pipeline and concludes: the plan, the
// workspace (worktrees and rules: pipeline.Prepare), the sandbox the
// change's code runs in (which only cli can make: it reads the
// environment), the stages (pipeline.Run), then the reports. Everything
// made is removed on every path.
func (a *app) measure(ctx context.Context, repo *gitrev.Repo, j job) outcome {
	if err := a.preflight(ctx, repo, j); err != nil {
		return a.failf(ExitUsage, "%v", err)
	}
	p, err := a.plan(j)
	if err != nil {
		return a.failf(ExitUsage, "%v", err)
	}
	env := pipeline.Env{Progress: a.progress(), Steps: a.step, Stderr: a.env.Stderr, Environ: a.environ(), GitEnv: a.gitEnv()}
	ws, err := pipeline.Prepare(ctx, p, repo, env)
	if ws != nil {
		defer ws.Close()
	}
	if err != nil {
		return a.stageFailed(err)
	}
	for _, n := range ws.Rules.Notes() {
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: %s\n", report.PolicyNoteText(n))
	}
	sb, err := a.sandbox(ws.Tmp, ws.Paths())
	if sb != nil {
		defer sb.release()
	}
	if err != nil {
		o := a.failf(ExitTool, "sandbox for the benchmarks: %v", err)
		var r *refusal
		if errors.As(err, &r) {
			o.summary = r.summary()
		}
		return o
	}
	res, err := pipeline.Run(ctx, p, ws, pipeline.Sandbox{Sandbox: sb.Sandbox, Unclosed: sb.open}, env)
	runner.Stage(env.Progress, "") // the last stage's group ends
	d := j.dest
	d.raw, d.rawKept = res.Raw, res.Kept
	var be *runner.BuildError
	switch {
	case errors.As(err, &be):
		fmt.Fprintf(a.env.Stderr, "%s\n", be.Output)
		if res.Kept {
			fmt.Fprintf(a.env.Stderr, "benchgate: build logs kept in %s\n", res.Raw)
		}
		return a.failf(ExitTool, "%s side does not build: package %s (compiler output above)", be.Side, be.Package)
	case err != nil:
		return a.stageFailed(err)
	}
	return a.conclude(res.Verdict, res.Record, d)
}

// stageFailed is the outcome of a stage's error: exit status 2 for the
// user's input, 3 otherwise.
func (a *app) stageFailed(err error) outcome {
	if pipeline.IsInput(err) {
		return a.failf(ExitUsage, "%v", err)
	}
	return a.failf(ExitTool, "%v", err)
}
