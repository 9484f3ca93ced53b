package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/affected"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/safefile"
	"github.com/benchgate/benchgate/internal/sandbox"
	"github.com/benchgate/benchgate/internal/shard"
)

// measure checks base and head out into temporary worktrees, runs the
// benchmarks and judges them. The worktrees are removed on every path.
func (a *app) measure(ctx context.Context, repo *gitrev.Repo, j job) outcome {
	baseSHA, headSHA := j.base.SHA, j.head.SHA
	tmp, err := os.MkdirTemp("", "benchgate-")
	if err != nil {
		return a.failf(ExitTool, "temporary directory: %v", err)
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
			return a.failf(ExitTool, "%v", oneLine(err))
		}
	}

	// The policy is the user's input: read (and refused) before the long
	// work starts.
	rl, err := a.runRules(ctx, repo, trees, j)
	if err != nil {
		return a.failf(ExitUsage, "%v", err)
	}
	j.rules = rl
	// The policy, resolved once: flags, the policy file, the acceptances.
	// After the runs, the benchmarks the rules kept from running join it.
	jd := a.judging(rl)
	for _, n := range rl.notes {
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: %s\n", n)
	}

	sb, err := a.sandbox(tmp, []string{trees[0].Path(), trees[1].Path()})
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
	if err := a.laneAvailable(j, sb.Env()); err != nil {
		return a.failf(ExitUsage, "%v", err)
	}

	seed := a.cfg.Seed
	if !a.cfg.SeedSet {
		seed = rand.Int64N(1 << 31)
	}
	meta := report.Meta{
		BaseRef: j.base.Label, HeadRef: j.head.Label, BaseSHA: baseSHA, HeadSHA: headSHA,
		Count: a.cfg.Count, Benchtime: a.cfg.Benchtime, Seed: seed,
	}
	meta.Notes = append(meta.Notes, a.buildNotes(ctx, repo, baseSHA, headSHA)...)
	meta.Notes = append(meta.Notes, rl.notes...)
	meta.Notes = append(meta.Notes, sb.notes()...)
	packages := a.cfg.Packages
	if a.cfg.Affected {
		sel, err := a.affected(ctx, sb.Sandbox, repo, trees, baseSHA, headSHA)
		if err != nil {
			return a.failf(ExitTool, "--packages affected: %v", oneLine(err))
		}
		meta.Run.Affected = affectedFacts(sel)
		if !a.cfg.Quiet {
			fmt.Fprintf(a.env.Stderr, "benchgate: --packages affected: %s\n", sel.Summary)
		}
		if !sel.All {
			if len(sel.Packages) == 0 {
				v := gate.Judge(nil, nil, jd.Policy)
				return a.conclude(v, meta, j.dest)
			}
			packages = sel.Packages
		}
	}

	out := j.out
	if out == "" {
		out = filepath.Join(tmp, "raw")
	} else if !filepath.IsAbs(out) {
		out = filepath.Join(a.env.Dir, out)
	}
	// The parent exists (checkOutputs; in the action, the workspace);
	// out itself may not be a symbolic link, nor may any file written in
	// it (safefile).
	if err := safefile.MkdirAll(filepath.Dir(out), out, 0o755); err != nil {
		return a.failf(ExitUsage, "--out %s: %v", j.out, err)
	}
	j.dest.raw, j.dest.rawKept = out, j.out != ""
	rawBase, rawHead := filepath.Join(out, "base.txt"), filepath.Join(out, "head.txt")
	bf, err := safefile.Create(rawBase, 0o644)
	if err != nil {
		return a.failf(ExitUsage, "--out: %v", err)
	}
	defer bf.Close()
	hf, err := safefile.Create(rawHead, 0o644)
	if err != nil {
		return a.failf(ExitUsage, "--out: %v", err)
	}
	defer hf.Close()
	logDir := ""
	if j.out != "" {
		logDir = out
		meta.RawBase, meta.RawHead, meta.RawDir = rawBase, rawHead, out
	}
	if !a.cfg.Quiet {
		fmt.Fprintf(a.env.Stderr, "benchgate: base %s (%s), head %s (%s), seed %d\n", j.base.Label, gitrev.Short(baseSHA), j.head.Label, gitrev.Short(headSHA), seed)
	}
	opts := runner.Options{
		Packages:   packages,
		Bench:      a.cfg.Bench,
		Count:      a.cfg.Count,
		Benchtime:  a.cfg.Benchtime,
		Runs:       a.cfg.Runs,
		CPU:        a.cfg.CPU,
		Timeout:    a.cfg.Timeout,
		Seed:       seed,
		Pin:        a.cfg.Pin,
		BinDir:     filepath.Join(tmp, "bin"),
		Env:        sb.Env(),
		Credential: sb.Credential(),
		LogDir:     logDir,
		Progress:   a.progress(),
		Ignore:     j.rules.ignore(),
		NoWarmUp:   !a.timeLane(j),
	}
	var manifest *shard.Manifest
	if !a.cfg.Shard.IsZero() {
		manifest = &shard.Manifest{Shard: a.cfg.Shard, BaseSHA: baseSHA, HeadSHA: headSHA, PRHeadSHA: j.prHead, Tool: "benchgate " + Version, Settings: a.settings()}
	}
	sess, runErr := a.prepare(ctx, trees, opts, sb, manifest, j, jd.Policy, &meta)
	if sess != nil {
		a.noteToolchains(&meta, sess.Result().GoVersion)
		if runErr == nil {
			runErr = a.noteMachine(&meta, sb.Env(), bf, hf)
		}
	}
	var res *runner.Result
	if runErr == nil && a.cfg.MaxTime > 0 {
		plan := pipeline.PlanAdaptive(sess, a.cfg.MaxTime, jd.Policy)
		if !a.cfg.Quiet {
			fmt.Fprintf(a.env.Stderr, "benchgate: --max-time %s: one round takes about %s; up to %d rounds, looks after rounds %v\n",
				a.cfg.MaxTime, plan.Round.Round(time.Millisecond), plan.MaxRounds, plan.Looks)
		}
		meta.Run.Adaptive, runErr = pipeline.Adaptive(ctx, sess, plan, pipeline.Files{bf, hf}, jd)
		meta.Count = sess.Result().Rounds
	} else if runErr == nil && a.timeLane(j) {
		runErr = sess.Measure(ctx, sess.Units(), 1, a.cfg.Count, bf, hf)
	}
	lane, runErr := a.instructionLane(ctx, sess, j, runErr, bf, hf, &meta)
	if sess != nil {
		res = sess.Result()
	}
	bf.Close()
	hf.Close()
	if manifest != nil {
		if err := a.writeShard(out, manifest, res, runErr); err != nil {
			return a.failf(ExitTool, "%v", err)
		}
	}

	var be *runner.BuildError
	switch {
	case runErr == nil:
	case errors.As(runErr, &be):
		fmt.Fprintf(a.env.Stderr, "%s\n", be.Output)
		if j.out != "" {
			fmt.Fprintf(a.env.Stderr, "benchgate: build logs kept in %s\n", out)
		}
		return a.failf(ExitTool, "%s side does not build: package %s (compiler output above)", be.Side, be.Package)
	case errors.Is(runErr, runner.ErrNoBenchmarks):
		return a.failf(ExitUsage, "--bench %q matched no benchmarks in %s on either side", a.cfg.Bench, strings.Join(packages, " "))
	case ctx.Err() != nil && res != nil && res.Rounds > 0:
		meta.Partial = true
		meta.Run.Cancelled = &report.Cancelled{Rounds: res.Rounds, Of: a.cfg.Count}
		fmt.Fprintf(a.env.Stderr, "benchgate: cancelled after %d of %d rounds; writing a partial report\n", res.Rounds, a.cfg.Count)
	case ctx.Err() != nil:
		return a.failf(ExitTool, "cancelled before the first round completed; nothing to report")
	default:
		return a.failf(ExitTool, "%v", runErr)
	}
	if manifest != nil {
		if a.cfg.Shard.Count > 1 {
			meta.Run.Shard = &report.ShardPart{Shard: a.cfg.Shard.String(), Assigned: len(manifest.Assigned), All: len(manifest.All)}
		}
		if len(manifest.Assigned) == 0 {
			return a.conclude(gate.Judge(nil, nil, jd.Policy), meta, j.dest)
		}
	}
	meta.Run.Skipped = res.Skipped
	meta.Run.Timing = timing(res)
	rl = j.rules.withIgnored(res.Ignored)
	jd = a.judging(rl)
	// What the verdict reads is kept beside the raw files: the failures
	// (a shard's manifest has written them) and the rules, so that
	// `benchgate compare DIR` judges them as this run does.
	if manifest == nil {
		if err := pipeline.WriteJSON(filepath.Join(out, shard.FailuresFile), pipeline.NonNil(pipeline.GateFailures(res.Failures))); err != nil {
			return a.failf(ExitTool, "%v", err)
		}
	}
	if err := writeJudgeRecord(out, rl); err != nil {
		return a.failf(ExitTool, "%v", err)
	}
	v, err := judgeKept(out, jd)
	if err != nil {
		return a.failf(ExitTool, "%v", oneLine(err))
	}
	// Confirmation re-runs time rows: a run without timed rounds has none.
	if j.confirm && a.timeLane(j) && (manifest == nil || a.cfg.Shard.Count == 1) && !meta.Partial {
		if err := a.confirm(ctx, sess, v, out, seed, &meta, jd); err != nil {
			return a.failf(ExitTool, "confirmation: %v", oneLine(err))
		}
	}
	if a.cfg.Explain && !j.dest.calibrate && !meta.Partial {
		// A shard explains the rows its own verdict flags; merge shows
		// those its verdict flags too.
		a.explainPass(ctx, sess, *v, lane.res, [2]string{trees[0].Dir(), trees[1].Dir()}, out, j.out != "", &meta)
	}
	if manifest != nil {
		if err := writeExplain(out, meta.Explain); err != nil {
			return a.failf(ExitTool, "writing the shard's explanations: %v", err)
		}
	}
	meta.Policy = policyMeta(rl, *v)
	return a.conclude(*v, meta, j.dest)
}

// prepare is the runner's session in its steps: build both sides, seal
// the sandbox (the caches become read-only before the change's code runs),
// discover and calibrate, pick a shard's part (manifest, when sharded),
// advise on the count, and warm the chosen units up.
func (a *app) prepare(ctx context.Context, trees [2]*gitrev.Worktree, opts runner.Options, sb *prison, manifest *shard.Manifest, j job, p gate.Policy, meta *report.Meta) (*runner.Session, error) {
	sess, err := runner.Build(ctx,
		runner.Side{Name: "base", Dir: trees[0].Dir()},
		runner.Side{Name: "head", Dir: trees[1].Dir()}, opts)
	if err != nil {
		return sess, err
	}
	if err := sb.Seal(); err != nil {
		return sess, err
	}
	units, err := sess.Discover(ctx)
	if err != nil {
		return sess, err
	}
	if manifest != nil {
		units = a.assign(units, manifest)
	}
	if a.timeLane(j) {
		// Only timed rounds need advice on their count.
		if w, ok := gate.CountAdvice(a.cfg.Count, pipeline.BothSides(units), p); ok {
			meta.Run.CountAdvice = &w
			if !a.cfg.Quiet {
				fmt.Fprintf(a.env.Stderr, "benchgate: note: %s\n", report.WarningText(w))
			}
		}
	}
	return sess, sess.Prepare(ctx, units)
}

// assign picks a shard's part of the units (deterministic: every shard
// discovers the same units) and records both in its manifest.
func (a *app) assign(units []runner.Unit, manifest *shard.Manifest) []runner.Unit {
	for _, u := range units {
		manifest.All = append(manifest.All, u.ID())
	}
	mine := shard.Assign(units, a.cfg.Shard)
	for _, u := range mine {
		manifest.Assigned = append(manifest.Assigned, u.ID())
	}
	if !a.cfg.Quiet {
		fmt.Fprintf(a.env.Stderr, "benchgate: shard %s: %d of %d benchmarks\n", a.cfg.Shard, len(mine), len(units))
	}
	return mine
}

// confirm is the confirmation stage (pipeline.PlanConfirm,
// pipeline.Confirm): the screen v is judged again knowing that promising
// time rows get fresh rounds, those rows are re-run alone, and each is
// decided on the screen's and the fresh rounds pooled. The screen never
// fails the gate alone.
func (a *app) confirm(ctx context.Context, sess *runner.Session, v *gate.Verdict, out string, seed int64, meta *report.Meta, jd pipeline.Judge) error {
	screened := sess.Result().Rounds
	if a.cfg.MaxTime > 0 {
		// An adaptive run's rounds follow its budget; --count sets the
		// confirmation's, as it did before.
		screened = min(screened, a.cfg.Count)
	}
	plan := pipeline.PlanConfirm(sess, *v, screened)
	if len(plan.Units) > 0 && !a.cfg.Quiet {
		fmt.Fprintf(a.env.Stderr, "benchgate: confirming %d promising time row(s) with %d fresh interleaved rounds\n", len(plan.Units), plan.Fresh)
	}
	c, err := pipeline.Confirm(ctx, sess, plan, out, seed, jd)
	*v = c.Verdict
	meta.Run.Confirmation, meta.Run.Cancelled = c.Confirmation, c.Cancelled
	meta.Partial = meta.Partial || c.Cancelled != nil
	return err
}

// judgeKept judges the raw files of the directory out as they stand
// (pipeline.Judge.Raw).
func judgeKept(out string, jd pipeline.Judge) (*gate.Verdict, error) {
	in, err := pipeline.ReadDir(out, out)
	if err != nil {
		return nil, err
	}
	return jd.Raw(in)
}

// settings are the measurement settings shards must agree on to be merged.
func (a *app) settings() string {
	return fmt.Sprintf("bench=%q count=%d benchtime=%s runs=%d cpu=%v packages=%q affected=%v measure=%v", a.cfg.Bench, a.cfg.Count, a.cfg.Benchtime, a.cfg.Runs, a.cfg.CPU, a.cfg.Packages, a.cfg.Affected, a.cfg.Measure)
}

// writeShard records a shard's manifest and failures next to its raw files,
// also when the run failed, so that the merge can say what is missing.
func (a *app) writeShard(dir string, m *shard.Manifest, res *runner.Result, runErr error) error {
	m.Complete = runErr == nil
	if res != nil {
		m.Rounds, m.Failures = res.Rounds, len(res.Failures)
		m.BaseGo, m.HeadGo = res.GoVersion[0], res.GoVersion[1]
	}
	if err := m.Write(dir); err != nil {
		return fmt.Errorf("writing the shard manifest: %w", err)
	}
	var failures []gate.Failure
	if res != nil {
		failures = pipeline.GateFailures(res.Failures)
	}
	if failures == nil {
		failures = []gate.Failure{}
	}
	return pipeline.WriteJSON(filepath.Join(dir, shard.FailuresFile), failures)
}

// affected selects the packages whose code or dependencies changed.
func (a *app) affected(ctx context.Context, sb *sandbox.Sandbox, repo *gitrev.Repo, trees [2]*gitrev.Worktree, baseSHA, headSHA string) (*affected.Selection, error) {
	changed, err := affected.Changed(ctx, repo.Root(), baseSHA, headSHA, affected.ExecGit(a.gitEnv()))
	if err != nil {
		return nil, err
	}
	return affected.Select(ctx,
		affected.Tree{Root: trees[0].Path(), Dir: trees[0].Dir()},
		affected.Tree{Root: trees[1].Path(), Dir: trees[1].Dir()},
		changed, affected.Options{Patterns: a.cfg.Packages, Go: affected.ExecGo(sb.Env(), sb.Credential())})
}

// affectedFacts is the selection for the report.
func affectedFacts(sel *affected.Selection) *report.Affected {
	a := &report.Affected{Summary: sel.Summary}
	for _, e := range sel.Skipped {
		a.Skipped = append(a.Skipped, report.Named{Name: e.Name, Reason: e.Reason})
	}
	for _, e := range sel.Ignored {
		a.Ignored = append(a.Ignored, report.Named{Name: e.Name, Reason: e.Reason})
	}
	return a
}

// noteMachine records the machine the benchmarks run on: in the report's
// run facts and as the first lines of both raw files (machine.Config), so
// that whoever judges the files later (compare, merge) knows it too. env
// is the benchmarks' build environment (its GOAMD64 and kin).
func (a *app) noteMachine(meta *report.Meta, env []string, raw ...io.Writer) error {
	m := machine.Here(meta.HeadGo, env)
	meta.Run.Machine = &m
	for _, w := range raw {
		if _, err := io.WriteString(w, m.Config()); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	return nil
}

// noteToolchains records the Go toolchains that built base and head in the
// report's metadata, and warns on stderr, early, when they differ: the
// comparison then measures the compiler and the runtime too.
func (a *app) noteToolchains(meta *report.Meta, v [2]string) {
	meta.BaseGo, meta.HeadGo = runner.CleanGoVersion(v[0]), runner.CleanGoVersion(v[1])
	if w := meta.GoWarning(); w != "" {
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: %s\n", w)
	}
}
