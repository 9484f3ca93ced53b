package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/affected"
	"github.com/benchgate/benchgate/internal/callgrind"
	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/safefile"
	"github.com/benchgate/benchgate/internal/sandbox"
	"github.com/benchgate/benchgate/internal/shard"
)

// A Workspace is a run's checkouts: a temporary directory with base's and
// head's worktrees, and the rules read from them. Close removes it.
type Workspace struct {
	repo  *gitrev.Repo
	Tmp   string
	Trees [2]*gitrev.Worktree
	// Rules are the policy in force and what accepts regressions, read
	// once (readRules).
	Rules *Rules
	env   Env
}

// Prepare checks base and head out into worktrees of a new temporary
// directory and reads the rules (the policy file of base's tree or of
// p.Policy.At, the acceptances): the policy is the user's input, read
// (and refused, with an *inputError) before the long work starts; what
// did not apply as written is in its Notes. The Workspace is returned for
// Close also with an error.
func Prepare(ctx context.Context, p Plan, repo *gitrev.Repo, env Env) (*Workspace, error) {
	tmp, err := os.MkdirTemp("", "benchgate-")
	if err != nil {
		return nil, fmt.Errorf("temporary directory: %v", err)
	}
	ws := &Workspace{repo: repo, Tmp: tmp, env: env}
	for i, sha := range []string{p.Base.SHA, p.Head.SHA} {
		if ws.Trees[i], err = repo.AddWorktree(ctx, sha, tmp); err != nil {
			return ws, errors.New(OneLine(err))
		}
	}
	if ws.Rules, err = readRules(ctx, repo, ws.Trees, p.Base, p.Policy); err != nil {
		return ws, inputErr(err)
	}
	return ws, nil
}

// Close removes the worktrees (also after cancellation), gives files git
// created under .git back to the checkout's owner, and removes the
// temporary directory.
func (ws *Workspace) Close() {
	if err := ws.repo.Cleanup(context.Background()); err != nil {
		fmt.Fprintf(ws.env.Stderr, "benchgate: warning: cleaning up: %v\n", OneLine(err))
	}
	os.RemoveAll(ws.Tmp)
}

// Paths are the worktrees' top directories.
func (ws *Workspace) Paths() []string { return []string{ws.Trees[0].Path(), ws.Trees[1].Path()} }

// Sandbox is where the change's code runs: the sandbox (its environment
// and user; sealed once the builds are done) and what it could not close
// to that code.
type Sandbox struct {
	*sandbox.Sandbox
	Unclosed []sandbox.Open
}

// Run measures the workspace's two sides in the sandbox sb and judges
// them: the stages in order, each a method of the run's state that
// returns what it learned, and record, which alone makes the report's
// input of those values.
//
//	packages (--packages affected) -> openRaw -> measure: session
//	(build, seal, discover, shard, count advice, warm-up), timeLane
//	(fixed rounds or Adaptive), Instructions -> judge: Judge.Raw,
//	Confirm, Explain -> record
//
// A cancellation after the first round gives a partial Outcome; other
// errors are the run's (an *inputError for the user's input, a
// *runner.BuildError for a side that does not build).
func Run(ctx context.Context, p Plan, ws *Workspace, sb Sandbox, env Env) (Outcome, error) {
	if p.Instructions {
		// valgrind must be on the benchmarks' PATH before anything is
		// measured.
		e := sb.Env()
		if e == nil {
			e = env.Environ
		}
		if err := callgrind.Available(callgrind.Options{Env: e}); err != nil {
			return Outcome{}, inputErr(err)
		}
	}
	r := &run{p: p, ws: ws, sb: sb, env: env, rules: ws.Rules}
	f := facts{unclosed: sb.Unclosed}
	changed, diffErr := r.changed(ctx)
	f.pgo = pgoFiles(changed) // a failed diff gives none, not an error
	packages := p.Runner.Packages
	if p.Affected {
		var err error
		if f.sel, err = r.affected(ctx, changed, diffErr); err != nil {
			return Outcome{}, err
		}
		if !f.sel.All && len(f.sel.Packages) == 0 {
			// No package affected: nothing to measure, an empty verdict.
			return r.outcome(f, gate.Judge(nil, nil, p.Flags.Judge(ws.Rules).Policy)), nil
		}
		if !f.sel.All {
			packages = f.sel.Packages
		}
	}
	raw, err := r.openRaw()
	if err != nil {
		return Outcome{}, err
	}
	defer raw[0].Close()
	defer raw[1].Close()
	if p.Out != "" {
		f.raw = [3]string{raw[0].Name(), raw[1].Name(), r.out}
	}
	o := Outcome{Raw: r.out, Kept: p.Out != ""}
	f.measured, err = r.measure(ctx, packages, changed, diffErr, raw)
	if err != nil {
		return o, err
	}
	if m := f.manifest; m != nil && len(m.Assigned) == 0 {
		// A shard with nothing of the suite to measure.
		return r.outcome(f, gate.Judge(nil, nil, r.jd.Policy)), nil
	}
	f.judged, err = r.judge(ctx, f.measured)
	if err != nil {
		return o, err
	}
	return r.outcome(f, f.verdict), nil
}

// session is what the stages after the runner's preparation ask of it
// (runner.Session): its result so far, its units, rounds of some of them
// into two writers, the instruction lane and the profiles. Tests give
// the stages a session that plays recorded raw files back.
type session interface {
	measurer
	MeasureInstructions(ctx context.Context, units []runner.Unit, o runner.InstructionOptions, base, head io.Writer) (*runner.InstructionResult, error)
	KeepBinaries(u runner.Unit, dir string) ([2]string, error)
	ProfileAllocs(ctx context.Context, u runner.Unit, n int, dir string) (*runner.ProfileSet, error)
	ProfileCPU(ctx context.Context, u runner.Unit, n, runs int, dir string) (*runner.ProfileSet, error)
}

// run is one run's state: what every stage reads (the plan, the
// workspace, the sandbox, the writers) and what the stages before it set
// up (the raw files' directory, the session, the rules with the
// benchmarks the runner ignored and the judgement they give, resolved
// once). Its methods are the stages; each returns what it learned.
type run struct {
	p     Plan
	ws    *Workspace
	sb    Sandbox
	env   Env
	out   string // the raw files' directory
	sess  session
	rules *Rules
	jd    Judge
}

// outcome is the Outcome of the run's facts and verdict v.
func (r *run) outcome(f facts, v gate.Verdict) Outcome {
	var res *runner.Result
	if r.sess != nil {
		res = r.sess.Result()
	}
	f.rules = r.rules
	return Outcome{Verdict: v, Record: record(r.p, res, v, f), Raw: r.out, Kept: r.out != "" && r.p.Out != ""}
}

// changed lists the files the change edits (one git diff, for the PGO
// profiles and the affected packages); none for an A/A run.
func (r *run) changed(ctx context.Context) ([]string, error) {
	p := r.p
	if p.Base.SHA == p.Head.SHA {
		return nil, nil
	}
	return affected.Changed(ctx, r.ws.repo.Root(), p.Base.SHA, p.Head.SHA, affected.ExecGit(r.env.GitEnv))
}

// affected selects, from the plan's packages, those whose code or
// dependencies the changed files touch (--packages affected).
func (r *run) affected(ctx context.Context, changed []string, diffErr error) (*affected.Selection, error) {
	if diffErr != nil {
		return nil, fmt.Errorf("--packages affected: %v", OneLine(diffErr))
	}
	ws := r.ws
	sel, err := affected.Select(ctx,
		affected.Tree{Root: ws.Trees[0].Path(), Dir: ws.Trees[0].Dir()},
		affected.Tree{Root: ws.Trees[1].Path(), Dir: ws.Trees[1].Dir()},
		changed, affected.Options{Patterns: r.p.Runner.Packages, Go: affected.ExecGo(r.sb.Env(), r.sb.Credential())})
	if err != nil {
		return nil, fmt.Errorf("--packages affected: %v", OneLine(err))
	}
	r.env.step(StepAffected{sel})
	return sel, nil
}

// openRaw makes the raw files' directory (the plan's --out, or one in
// the workspace) and creates base.txt and head.txt in it. The parent
// exists (the command checked its outputs; in the action, the
// workspace); the directory itself may not be a symbolic link, nor may
// any file written in it (safefile).
func (r *run) openRaw() (Files, error) {
	out := r.p.OutPath
	if out == "" {
		out = filepath.Join(r.ws.Tmp, "raw")
	}
	if err := safefile.MkdirAll(filepath.Dir(out), out, 0o755); err != nil {
		return Files{}, inputErr(fmt.Errorf("--out %s: %v", r.p.Out, err))
	}
	var raw Files
	for i, name := range []string{shard.BaseFile, shard.HeadFile} {
		f, err := safefile.Create(filepath.Join(out, name), 0o644)
		if err != nil {
			if i == 1 {
				raw[0].Close()
			}
			return Files{}, inputErr(fmt.Errorf("--out: %v", err))
		}
		raw[i] = f
	}
	r.out = out
	return raw, nil
}

// measured is what the measuring stages learned.
type measured struct {
	manifest *shard.Manifest // a shard's; nil when not sharded
	machine  *machine.Info
	// toolchains are the Go toolchains that built base and head.
	toolchains [2]string
	advice     *gate.Warning // --count cannot reach alpha
	adaptive   *Adaptive
	budget     *Budget // the screen's rounds planned from a ledger's noise
	lane       *Lane
	rounds     int           // the time lane's rounds
	screen     time.Duration // the runner's measuring time after the lanes
	cancelled  *Cancelled    // a cancellation after the first round
}

// measure runs the session (session), the time lane (timeLane) and the
// instruction lane (Instructions) into the raw files, and closes them; a
// shard's manifest is written also when that failed. A cancellation after
// the first round leaves a partial run (measured.cancelled); any other
// error ends the run.
func (r *run) measure(ctx context.Context, packages []string, changed []string, diffErr error, raw Files) (measured, error) {
	p, env := r.p, r.env
	env.step(StepStart{p.Base, p.Head, p.Seed})
	var m measured
	if !p.Shard.IsZero() {
		m.manifest = &shard.Manifest{Shard: p.Shard, BaseSHA: p.Base.SHA, HeadSHA: p.Head.SHA, PRHeadSHA: p.PRHead, Tool: p.Tool, Settings: p.Settings}
	}
	var runErr error
	m.advice, runErr = r.session(ctx, packages, m.manifest, changed, diffErr)
	if r.sess != nil {
		m.toolchains = goVersions(r.sess.Result())
		env.step(StepToolchains{m.toolchains[0], m.toolchains[1]})
		if runErr == nil {
			m.machine, runErr = noteMachine(m.toolchains[1], r.sb.Env(), raw[0], raw[1])
		}
	}
	if runErr == nil && p.Time {
		m.adaptive, m.budget, runErr = r.timeLane(ctx, raw)
		m.rounds = p.Runner.Count
		if m.adaptive != nil {
			m.rounds = r.sess.Result().Rounds
		}
	}
	if runErr == nil && r.sess != nil {
		m.lane, runErr = instructionLane(ctx, r.sess, p, raw[0], raw[1])
	}
	var res *runner.Result
	if r.sess != nil {
		res = r.sess.Result()
		m.screen = res.MeasureTime
		if err := writeSame(r.out, res.Same, p.Time, p.Instructions); err != nil && runErr == nil {
			runErr = err
		}
	}
	raw[0].Close()
	raw[1].Close()
	if m.manifest != nil {
		if err := writeShard(r.out, m.manifest, res, runErr); err != nil {
			return m, err
		}
	}
	var be *runner.BuildError
	switch {
	case runErr == nil:
	case errors.As(runErr, &be):
		return m, runErr
	case errors.Is(runErr, runner.ErrNoBenchmarks):
		return m, inputErr(fmt.Errorf("--bench %q matched no benchmarks in %s on either side", p.Runner.Bench, strings.Join(packages, " ")))
	case ctx.Err() != nil && res != nil && res.Rounds > 0:
		m.cancelled = &Cancelled{Rounds: res.Rounds, Of: p.Runner.Count}
		env.step(StepCancelled{*m.cancelled})
	case ctx.Err() != nil:
		return m, errors.New("cancelled before the first round completed; nothing to report")
	default:
		return m, runErr
	}
	return m, nil
}

// judged is what the judgement learned: the verdict, its confirmation and
// the explanations.
type judged struct {
	verdict   gate.Verdict
	confirmed Confirmed
	whys      []explain.Why
	explained *Explained
}

// judge judges the run's raw files, confirms and explains: what the
// verdict reads is kept beside the raw files first (the failures, which
// a shard's manifest has written, and the rules), so that `benchgate
// compare DIR` judges them as this run does.
func (r *run) judge(ctx context.Context, m measured) (judged, error) {
	p, out, sharded := r.p, r.out, m.manifest != nil
	var j judged
	if !sharded {
		if err := WriteJSON(filepath.Join(out, shard.FailuresFile), NonNil(GateFailures(r.sess.Result().Failures))); err != nil {
			return j, err
		}
	}
	if err := writeJudgeFile(out, r.rules); err != nil {
		return j, err
	}
	in, err := ReadDir(out, out)
	if err != nil {
		return j, errors.New(OneLine(err))
	}
	jd := r.jd
	if sharded {
		// A shard's rows are judged, and confirmed, in the suite's family.
		jd.Policy.Family = m.manifest.Family
	}
	// Confirmation re-runs time rows: a run without timed rounds has none.
	confirming := p.Confirm && p.Time && m.cancelled == nil && r.sess.Result().Rounds > 0
	screened := 0
	if confirming {
		// An adaptive run's rounds follow its budget, a ledger's plan
		// gives a noisy benchmark more: --count sets the confirmation's.
		screened = min(r.sess.Result().Rounds, p.Runner.Count)
	}
	v, err := jd.Screen(in, screened)
	if err != nil {
		return j, errors.New(OneLine(err))
	}
	j.verdict = *v
	if confirming {
		j.confirmed, err = Confirm(ctx, r.sess, *v, screened, out, p.Seed, jd, r.env)
		j.verdict = j.confirmed.Verdict
		if err != nil {
			return j, fmt.Errorf("confirmation: %v", OneLine(err))
		}
	}
	r.sess.Expect(0)
	if p.Explain && !p.Calibrate && m.cancelled == nil && j.confirmed.Cancelled == nil {
		// A shard explains the rows its own verdict flags; merge shows
		// those its verdict flags too.
		j.whys, j.explained = r.explain(ctx, j.verdict, m.lane)
	}
	if sharded {
		if err := writeExplain(out, j.whys); err != nil {
			return j, fmt.Errorf("writing the shard's explanations: %v", err)
		}
	}
	return j, nil
}

// session is the runner's session in its steps: build both sides, seal
// the sandbox (the caches become read-only before the change's code runs),
// discover and calibrate, pick a shard's part (manifest, when sharded),
// advise on the count, and warm the chosen units up. The rules then know
// the benchmarks the runner ignored, and the judgement is resolved.
func (r *run) session(ctx context.Context, packages []string, manifest *shard.Manifest, changed []string, diffErr error) (*gate.Warning, error) {
	p, ws, env := r.p, r.ws, r.env
	opts := p.Runner
	opts.Packages, opts.Seed = packages, p.Seed
	opts.BinDir, opts.Env, opts.Credential = filepath.Join(ws.Tmp, "bin"), r.sb.Env(), r.sb.Credential()
	opts.Progress, opts.Ignore = env.Progress, ws.Rules.ignore()
	if p.Out != "" {
		opts.LogDir = r.out
	}
	opts.SkipIdentical = r.skipIdentical(changed, diffErr)
	sess, err := runner.Build(ctx,
		runner.Side{Name: "base", Dir: ws.Trees[0].Dir()},
		runner.Side{Name: "head", Dir: ws.Trees[1].Dir()}, opts)
	if sess != nil {
		r.sess = sess
	}
	if err != nil {
		return nil, err
	}
	if err := r.sb.Seal(); err != nil {
		return nil, err
	}
	units, err := sess.Discover(ctx)
	if err != nil {
		return nil, err
	}
	r.rules = ws.Rules.withIgnored(sess.Result().Ignored)
	r.jd = p.Flags.Judge(r.rules)
	if manifest != nil {
		units = assign(units, p.Shard, manifest, env)
	}
	var advice *gate.Warning
	if p.Time {
		// Only timed rounds need advice on their count.
		if w, ok := gate.CountAdvice(p.Runner.Count, BothSides(units), r.jd.Policy); ok {
			advice = &w
			env.step(StepCountAdvice{w})
		}
	}
	return advice, sess.Prepare(ctx, units)
}

// timeLane runs the time lane's rounds: the screen (a fixed count, or
// with a ledger's noise each benchmark's own: its budget), or adaptive
// rounds within p.MaxTime (their facts).
func (r *run) timeLane(ctx context.Context, raw Files) (*Adaptive, *Budget, error) {
	p, sess := r.p, r.sess
	if p.MaxTime <= 0 {
		if p.Confirm {
			sess.Expect(expectedFresh(len(sess.Units()), p.Runner.Count))
		}
		budget, err := measureScreen(ctx, p, sess, raw, r.jd.Policy, r.env)
		return nil, budget, err
	}
	plan := PlanAdaptive(sess, p.MaxTime, r.jd.Policy)
	r.env.step(StepAdaptive{plan})
	ad, err := adaptive(ctx, sess, plan, raw, r.jd)
	return ad, nil, err
}

// expectedFresh is the confirmation's unit-rounds a run of units × count
// rounds expects before its screen is judged, for the progress's time
// left: an unchanged suite's confirmation adds about 15 % of the screen's
// rounds at the default threshold (docs/dev/evidence-log.md, "The confirmation's
// cost"). The plan replaces it once the screen is judged.
func expectedFresh(units, count int) int {
	return (units*count*15 + 50) / 100
}

// assign picks a shard's part of the units (deterministic: every shard
// discovers the same units) and records both in its manifest.
func assign(units []runner.Unit, s shard.Spec, manifest *shard.Manifest, env Env) []runner.Unit {
	for _, u := range units {
		manifest.All = append(manifest.All, u.ID())
	}
	manifest.Family = BothSides(units)
	mine := shard.Assign(units, s)
	for _, u := range mine {
		manifest.Assigned = append(manifest.Assigned, u.ID())
	}
	env.step(StepShard{s, len(mine), len(units)})
	return mine
}

// writeShard records a shard's manifest and failures next to its raw files,
// also when the run failed, so that the merge can say what is missing.
func writeShard(dir string, m *shard.Manifest, res *runner.Result, runErr error) error {
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
		failures = GateFailures(res.Failures)
	}
	return WriteJSON(filepath.Join(dir, shard.FailuresFile), NonNil(failures))
}

// skipIdentical is the runner's same-binary check (runner.Options.SkipIdentical):
// a package whose test binaries run the same code is not measured when
// no file its binary does not hold changed in its directory
// (affected.DataChanged). Off for one commit against itself (calibrate,
// --allow-same: an A/A measurement asked for), and when the changed files
// could not be listed.
func (r *run) skipIdentical(changed []string, diffErr error) func(baseDir, headDir string) bool {
	if r.p.Calibrate || r.p.Base.SHA == r.p.Head.SHA || diffErr != nil {
		return nil
	}
	roots := [2]string{r.ws.Trees[0].Path(), r.ws.Trees[1].Path()}
	return func(baseDir, headDir string) bool {
		return !affected.DataChanged(changed, roots[0], baseDir) && !affected.DataChanged(changed, roots[1], headDir)
	}
}

// writeSame records the rows of the benchmarks not measured for their
// identical binaries (SameFile), beside the raw files, so that whoever
// judges the directory gives them their rows: the units their listing
// reported when the run measures time, and instructions/op when it
// counts instructions (once per benchmark: the lane runs at GOMAXPROCS 1).
func writeSame(dir string, same []runner.SameUnit, time, instructions bool) error {
	rows := []sameRow{}
	counted := map[string]bool{}
	for _, s := range same {
		if time {
			for _, u := range s.Units {
				rows = append(rows, sameRow{Package: s.Package, Name: s.Name, Unit: u})
			}
		}
		if instructions && !counted[s.Package+"."+s.Bare] {
			counted[s.Package+"."+s.Bare] = true
			rows = append(rows, sameRow{Package: s.Package, Name: s.Bare, Unit: gate.InstructionsUnit})
		}
	}
	return WriteJSON(filepath.Join(dir, SameFile), rows)
}

// pgoFiles are the changed files that are PGO profiles.
func pgoFiles(changed []string) []string {
	var pgo []string
	for _, f := range changed {
		if path.Base(f) == "default.pgo" {
			pgo = append(pgo, f)
		}
	}
	return pgo
}

// noteMachine is the machine the benchmarks run on, also written as the
// first lines of both raw files (machine.Config), so that whoever judges
// the files later (compare, merge) knows it too. env is the benchmarks'
// build environment (its GOAMD64 and kin), goVersion head's toolchain.
func noteMachine(goVersion string, env []string, raw ...io.Writer) (*machine.Info, error) {
	m := machine.Here(goVersion, env)
	for _, w := range raw {
		if _, err := io.WriteString(w, m.Config()); err != nil {
			return nil, fmt.Errorf("--out: %w", err)
		}
	}
	return &m, nil
}

// goVersions are the Go toolchains that built base and head ("go1.26.8").
func goVersions(res *runner.Result) [2]string {
	return [2]string{runner.CleanGoVersion(res.GoVersion[0]), runner.CleanGoVersion(res.GoVersion[1])}
}
