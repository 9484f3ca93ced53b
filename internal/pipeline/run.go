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
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/report"
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
// (and refused, with an *InputError) before the long work starts. The
// rules' notes are warned about on env.Stderr. The Workspace is returned
// for Close also with an error.
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
	for _, n := range ws.Rules.notes {
		fmt.Fprintf(env.Stderr, "benchgate: warning: %s\n", report.PolicyNoteText(n))
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

// An Outcome is what a run gives for the report: the verdict and the
// metadata (the run's facts, the explanations, the policy in force), and
// where the raw files are.
type Outcome struct {
	Verdict gate.Verdict
	Meta    report.Meta
	// Raw is the directory of the raw files ("" when none were
	// written); Kept says it is the user's --out, kept anyway.
	Raw  string
	Kept bool
}

// Sandbox is where the change's code runs: the sandbox (its environment
// and user; sealed once the builds are done) and what it could not close
// to that code.
type Sandbox struct {
	*sandbox.Sandbox
	Unclosed []sandbox.Open
}

// Run measures the workspace's two sides in the sandbox sb and judges
// them: the stages in order, each a function of the plan and the values
// before it.
//
//	packagesOf (--packages affected) -> openRaw -> measure: session
//	(build, seal, discover, shard, count advice, warm-up), timeLane
//	(fixed rounds or Adaptive), Instructions -> judgeRun: Judge.Raw,
//	Confirm, Explain
//
// A cancellation after the first round gives a partial Outcome; other
// errors are the run's (an *InputError for the user's input, a
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
	jd := p.Flags.Judge(ws.Rules)
	o := Outcome{Meta: report.Meta{
		BaseRef: p.Base.Label, HeadRef: p.Head.Label, BaseSHA: p.Base.SHA, HeadSHA: p.Head.SHA,
		Count: p.Runner.Count, Benchtime: p.Runner.Benchtime, Seed: p.Seed,
	}}
	meta := &o.Meta
	meta.Run.PGO = pgoChanged(ctx, ws.repo, p, env)
	meta.Run.Policy = ws.Rules.Notes()
	for _, u := range sb.Unclosed {
		meta.Run.Unclosed = append(meta.Run.Unclosed, report.Named{Name: u.Path, Reason: u.Reason})
	}
	packages, none, err := packagesOf(ctx, p, ws, sb, meta, env)
	if err != nil {
		return o, err
	}
	if none {
		// No package affected: nothing to measure.
		o.Verdict = gate.Judge(nil, nil, jd.Policy)
		return o, nil
	}
	raw, err := openRaw(p, ws, meta)
	if err != nil {
		return o, err
	}
	defer raw[0].Close()
	defer raw[1].Close()
	o.Raw, o.Kept = filepath.Dir(raw[0].Name()), p.Out != ""
	m, err := measure(ctx, p, ws, sb, packages, raw, jd, meta, env)
	if err != nil {
		return o, err
	}
	if m.manifest != nil {
		if p.Shard.Count > 1 {
			meta.Run.Shard = &report.ShardPart{Shard: p.Shard.String(), Assigned: len(m.manifest.Assigned), All: len(m.manifest.All)}
		}
		if len(m.manifest.Assigned) == 0 {
			o.Verdict = gate.Judge(nil, nil, jd.Policy)
			return o, nil
		}
	}
	res := m.sess.Result()
	meta.Run.Skipped = res.Skipped
	screen := res.MeasureTime
	o, err = judgeRun(ctx, p, ws, m.sess, ws.Rules.withIgnored(res.Ignored), o.Raw, m.manifest, m.lane, o, env)
	// The time the run took, taken last: the confirmation's fresh rounds
	// and the explain pass's processes are part of what it cost.
	res = m.sess.Result()
	t := &report.Timing{Elapsed: res.Elapsed, Build: res.BuildTime, Processes: res.ProcessTime, Counted: res.RunTime, Count: res.Processes,
		Calibrate: res.DiscoverTime, Warmup: res.WarmupTime, Screen: screen, Confirm: res.MeasureTime - screen, Work: res.Work}
	if e := o.Meta.Run.Explain; e != nil {
		t.Explain = e.Elapsed
	}
	o.Meta.Run.Timing = t
	return o, err
}

// packagesOf is the packages to measure: the plan's, or with
// --packages affected those the change affects (none: the change
// affects no package).
func packagesOf(ctx context.Context, p Plan, ws *Workspace, sb Sandbox, meta *report.Meta, env Env) (pkgs []string, none bool, err error) {
	if !p.Affected {
		return p.Runner.Packages, false, nil
	}
	sel, err := selectAffected(ctx, sb.Sandbox, ws, p, env)
	if err != nil {
		return nil, false, fmt.Errorf("--packages affected: %v", OneLine(err))
	}
	meta.Run.Affected = affectedFacts(sel)
	if env.Progress != nil {
		fmt.Fprintf(env.Progress, "benchgate: --packages affected: %s\n", sel.Summary)
	}
	if sel.All {
		return p.Runner.Packages, false, nil
	}
	return sel.Packages, len(sel.Packages) == 0, nil
}

// openRaw makes the raw files' directory (the plan's --out, or one in
// the workspace) and creates base.txt and head.txt in it. The parent
// exists (the command checked its outputs; in the action, the
// workspace); the directory itself may not be a symbolic link, nor may
// any file written in it (safefile).
func openRaw(p Plan, ws *Workspace, meta *report.Meta) (Files, error) {
	out := p.OutPath
	if out == "" {
		out = filepath.Join(ws.Tmp, "raw")
	}
	if err := safefile.MkdirAll(filepath.Dir(out), out, 0o755); err != nil {
		return Files{}, inputErr(fmt.Errorf("--out %s: %v", p.Out, err))
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
	if p.Out != "" {
		meta.RawBase, meta.RawHead, meta.RawDir = raw[0].Name(), raw[1].Name(), out
	}
	return raw, nil
}

// measured is what the measuring stages leave for the judgement.
type measured struct {
	sess     *runner.Session
	lane     Lane
	manifest *shard.Manifest // a shard's; nil when not sharded
}

// measure runs the session (session), the time lane (timeLane) and the
// instruction lane (Instructions) into the raw files, and closes them; a
// shard's manifest is written also when that failed. A cancellation after
// the first round leaves a partial run (meta.Partial); any other error
// ends the run.
func measure(ctx context.Context, p Plan, ws *Workspace, sb Sandbox, packages []string, raw Files, jd Judge, meta *report.Meta, env Env) (measured, error) {
	out := filepath.Dir(raw[0].Name())
	if env.Progress != nil {
		fmt.Fprintf(env.Progress, "benchgate: base %s (%s), head %s (%s), seed %d\n", p.Base.Label, gitrev.Short(p.Base.SHA), p.Head.Label, gitrev.Short(p.Head.SHA), p.Seed)
	}
	opts := p.Runner
	opts.Packages, opts.Seed = packages, p.Seed
	opts.BinDir, opts.Env, opts.Credential = filepath.Join(ws.Tmp, "bin"), sb.Env(), sb.Credential()
	opts.Progress, opts.Ignore = env.Progress, ws.Rules.ignore()
	if p.Out != "" {
		opts.LogDir = out
	}
	opts.SkipIdentical = skipIdentical(ctx, p, ws, env)
	var m measured
	if !p.Shard.IsZero() {
		m.manifest = &shard.Manifest{Shard: p.Shard, BaseSHA: p.Base.SHA, HeadSHA: p.Head.SHA, PRHeadSHA: p.PRHead, Tool: p.Tool, Settings: p.Settings}
	}
	var runErr error
	m.sess, runErr = session(ctx, p, ws, opts, sb, m.manifest, jd.Policy, meta, env)
	if m.sess != nil {
		NoteToolchains(meta, m.sess.Result().GoVersion, env.Stderr)
		if runErr == nil {
			runErr = noteMachine(meta, sb.Env(), raw[0], raw[1])
		}
	}
	runErr = timeLane(ctx, p, m.sess, runErr, raw, jd, meta, env)
	if !p.Time {
		meta.Count = 0 // no timed rounds
	}
	if runErr == nil && m.sess != nil {
		m.lane, runErr = Instructions(ctx, m.sess, p, raw[0], raw[1])
		meta.Run.Lane = m.lane.Facts
	}
	var res *runner.Result
	if m.sess != nil {
		res = m.sess.Result()
		meta.Run.SameBinary = res.SamePackages
		if err := writeSame(out, res.Same, p.Time, p.Instructions); err != nil && runErr == nil {
			runErr = err
		}
	}
	raw[0].Close()
	raw[1].Close()
	if m.manifest != nil {
		if err := writeShard(out, m.manifest, res, runErr); err != nil {
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
		meta.Partial = true
		meta.Run.Cancelled = &report.Cancelled{Rounds: res.Rounds, Of: p.Runner.Count}
		fmt.Fprintf(env.Stderr, "benchgate: cancelled after %d of %d rounds; writing a partial report\n", res.Rounds, p.Runner.Count)
	case ctx.Err() != nil:
		return m, errors.New("cancelled before the first round completed; nothing to report")
	default:
		return m, runErr
	}
	return m, nil
}

// judgeRun judges the run's raw files, confirms and explains: what the
// verdict reads is kept beside the raw files first (the failures, which
// a shard's manifest has written, and the rules), so that `benchgate
// compare DIR` judges them as this run does.
func judgeRun(ctx context.Context, p Plan, ws *Workspace, sess *runner.Session, rl *Rules, out string, manifest *shard.Manifest, lane Lane, o Outcome, env Env) (Outcome, error) {
	meta := &o.Meta
	jd := p.Flags.Judge(rl)
	sharded := manifest != nil
	if sharded {
		// A shard's rows are judged, and confirmed, in the suite's family.
		jd.Policy.Family = manifest.Family
	}
	if !sharded {
		if err := WriteJSON(filepath.Join(out, shard.FailuresFile), NonNil(GateFailures(sess.Result().Failures))); err != nil {
			return o, err
		}
	}
	if err := writeRecord(out, rl); err != nil {
		return o, err
	}
	in, err := ReadDir(out, out)
	if err != nil {
		return o, errors.New(OneLine(err))
	}
	// Confirmation re-runs time rows: a run without timed rounds has none.
	confirming := p.Confirm && p.Time && !meta.Partial && sess.Result().Rounds > 0
	screened := 0
	if confirming {
		// An adaptive run's rounds follow its budget, a ledger's plan
		// gives a noisy benchmark more: --count sets the confirmation's.
		screened = min(sess.Result().Rounds, p.Runner.Count)
	}
	v, err := jd.Screen(in, screened)
	if err != nil {
		return o, errors.New(OneLine(err))
	}
	if confirming {
		if rows, most := gate.NewConfirmation(*v).Planned(); len(rows) > 0 {
			// At most: rows that stop early take fewer.
			sess.Expect(len(rows) * most)
			runner.Stage(env.Progress, "Re-measuring the rows that may have changed")
		}
		c, err := Confirm(ctx, sess, *v, screened, out, p.Seed, jd, env.Progress)
		*v = c.Verdict
		meta.Run.Confirmation, meta.Run.Cancelled = c.Confirmation, c.Cancelled
		meta.Partial = meta.Partial || c.Cancelled != nil
		if err != nil {
			return o, fmt.Errorf("confirmation: %v", OneLine(err))
		}
	}
	sess.Expect(0)
	if p.Explain && !p.Calibrate && !meta.Partial {
		// A shard explains the rows its own verdict flags; merge shows
		// those its verdict flags too.
		meta.Explain, meta.Run.Explain = Explain(ctx, sess, *v, lane.Result, [2]string{ws.Trees[0].Dir(), ws.Trees[1].Dir()}, out, p.Out != "", env)
	}
	if sharded {
		if err := writeExplain(out, meta.Explain); err != nil {
			return o, fmt.Errorf("writing the shard's explanations: %v", err)
		}
	}
	meta.Policy = rl.Info(*v)
	o.Verdict = *v
	return o, nil
}

// session is the runner's session in its steps: build both sides, seal
// the sandbox (the caches become read-only before the change's code runs),
// discover and calibrate, pick a shard's part (manifest, when sharded),
// advise on the count, and warm the chosen units up.
func session(ctx context.Context, p Plan, ws *Workspace, opts runner.Options, sb Sandbox, manifest *shard.Manifest, pol gate.Policy, meta *report.Meta, env Env) (*runner.Session, error) {
	sess, err := runner.Build(ctx,
		runner.Side{Name: "base", Dir: ws.Trees[0].Dir()},
		runner.Side{Name: "head", Dir: ws.Trees[1].Dir()}, opts)
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
		units = assign(units, p.Shard, manifest, env)
	}
	if p.Time {
		// Only timed rounds need advice on their count.
		if w, ok := gate.CountAdvice(p.Runner.Count, BothSides(units), pol); ok {
			meta.Run.CountAdvice = &w
			if env.Progress != nil {
				fmt.Fprintf(env.Progress, "benchgate: note: %s\n", report.WarningText(w))
			}
		}
	}
	return sess, sess.Prepare(ctx, units)
}

// timeLane runs the time lane's rounds when the session is ready (runErr
// nil) and the plan measures time: a fixed count, or adaptive rounds
// within p.MaxTime.
func timeLane(ctx context.Context, p Plan, sess *runner.Session, runErr error, raw Files, jd Judge, meta *report.Meta, env Env) error {
	switch {
	case runErr != nil || !p.Time:
		return runErr
	case p.MaxTime > 0:
		plan := PlanAdaptive(sess, p.MaxTime, jd.Policy)
		if env.Progress != nil {
			fmt.Fprintf(env.Progress, "benchgate: --max-time %s: one round takes about %s; up to %d rounds, checked after rounds %v\n",
				p.MaxTime, plan.Round.Round(time.Millisecond), plan.MaxRounds, plan.Looks)
		}
		var err error
		meta.Run.Adaptive, err = Adaptive(ctx, sess, plan, raw, jd)
		meta.Count = sess.Result().Rounds
		return err
	default:
		if p.Confirm {
			sess.Expect(expectedFresh(len(sess.Units()), p.Runner.Count))
		}
		var err error
		meta.Run.Budget, err = measureScreen(ctx, p, sess, raw, jd.Policy, env)
		return err
	}
}

// expectedFresh is the confirmation's unit-rounds a run of units × count
// rounds expects before its screen is judged, for the progress's time
// left: an unchanged suite's confirmation adds about 15 % of the screen's
// rounds at the default threshold (docs/evidence.md, "The confirmation's
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
	if env.Progress != nil {
		fmt.Fprintf(env.Progress, "benchgate: shard %s: %d of %d benchmarks\n", s, len(mine), len(units))
	}
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
// a package whose test binaries are byte-identical is not measured when
// no file its binary does not hold changed in its directory
// (affected.DataChanged). Off for a calibration (one commit against
// itself), and when the changed files cannot be listed.
func skipIdentical(ctx context.Context, p Plan, ws *Workspace, env Env) func(baseDir, headDir string) bool {
	if p.Calibrate || p.Base.SHA == p.Head.SHA {
		// One commit against itself (calibrate, --allow-same): an A/A
		// measurement asked for.
		return nil
	}
	changed, err := affected.Changed(ctx, ws.repo.Root(), p.Base.SHA, p.Head.SHA, affected.ExecGit(env.GitEnv))
	if err != nil {
		return nil
	}
	roots := [2]string{ws.Trees[0].Path(), ws.Trees[1].Path()}
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

// selectAffected selects the packages whose code or dependencies changed.
func selectAffected(ctx context.Context, sb *sandbox.Sandbox, ws *Workspace, p Plan, env Env) (*affected.Selection, error) {
	changed, err := affected.Changed(ctx, ws.repo.Root(), p.Base.SHA, p.Head.SHA, affected.ExecGit(env.GitEnv))
	if err != nil {
		return nil, err
	}
	return affected.Select(ctx,
		affected.Tree{Root: ws.Trees[0].Path(), Dir: ws.Trees[0].Dir()},
		affected.Tree{Root: ws.Trees[1].Path(), Dir: ws.Trees[1].Dir()},
		changed, affected.Options{Patterns: p.Runner.Packages, Go: affected.ExecGo(sb.Env(), sb.Credential())})
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

// pgoChanged lists the profile-guided optimization profiles
// (default.pgo, which go test -c's -pgo=auto applies to both sides alike,
// each with its own file) that the change edits: the comparison then
// measures the new profile too. A failure to list the changed files
// gives none, not an error.
func pgoChanged(ctx context.Context, repo *gitrev.Repo, p Plan, env Env) []string {
	if p.Base.SHA == p.Head.SHA {
		return nil
	}
	changed, err := affected.Changed(ctx, repo.Root(), p.Base.SHA, p.Head.SHA, affected.ExecGit(env.GitEnv))
	if err != nil {
		return nil
	}
	return PGOFiles(changed)
}

// PGOFiles are the changed files that are PGO profiles.
func PGOFiles(changed []string) []string {
	var pgo []string
	for _, f := range changed {
		if path.Base(f) == "default.pgo" {
			pgo = append(pgo, f)
		}
	}
	return pgo
}

// noteMachine records the machine the benchmarks run on: in the report's
// run facts and as the first lines of both raw files (machine.Config), so
// that whoever judges the files later (compare, merge) knows it too. env
// is the benchmarks' build environment (its GOAMD64 and kin).
func noteMachine(meta *report.Meta, env []string, raw ...io.Writer) error {
	m := machine.Here(meta.HeadGo, env)
	meta.Run.Machine = &m
	for _, w := range raw {
		if _, err := io.WriteString(w, m.Config()); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	return nil
}

// NoteToolchains records the Go toolchains that built base and head in
// the report's metadata, and warns on stderr, early, when they differ: the
// comparison then measures the compiler and the runtime too.
func NoteToolchains(meta *report.Meta, v [2]string, stderr io.Writer) {
	meta.BaseGo, meta.HeadGo = runner.CleanGoVersion(v[0]), runner.CleanGoVersion(v[1])
	if w := meta.GoWarning(); w != "" {
		fmt.Fprintf(stderr, "benchgate: warning: %s\n", w)
	}
}
