package cli

import (
	"context"
	"io"
	"time"

	"github.com/benchgate/benchgate/internal/callgrind"
	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/stats"
)

// The instruction lane (--measure instructions): after the time lane's
// rounds, or instead of them, every benchmark runs under Valgrind's
// callgrind (runner.MeasureInstructions), as the sandbox's user like every
// other benchmark process, and its instructions/op rows go to the same raw
// files after a "lane: instructions" line.

// laneRepeats is the number of instruction counts per side and benchmark.
const laneRepeats = 3

// instructionsLane reports whether measuring job j runs the instruction
// lane (a calibration measures the time lane only).
func (a *app) instructionsLane(j job) bool {
	return a.cfg.Measures(config.LaneInstructions) && !j.dest.calibrate
}

// timeLane reports whether measuring job j runs the time lane's rounds.
func (a *app) timeLane(j job) bool {
	return a.cfg.Measures(config.LaneTime) || j.dest.calibrate
}

// laneAvailable checks, before anything is measured, that valgrind can be
// found in the PATH the benchmarks get (env): its error is one line that
// names --measure instructions and how to install valgrind.
func (a *app) laneAvailable(j job, env []string) error {
	if !a.instructionsLane(j) {
		return nil
	}
	if env == nil {
		env = a.environ()
	}
	return callgrind.Available(callgrind.Options{Env: env})
}

// laneResult is what the instruction lane did in a measurement.
type laneResult struct {
	ran  bool
	res  *runner.InstructionResult
	only bool // no time lane: the raw files hold nothing else
}

// instructionLane runs the lane on the session's units when job j asks for
// it and the time lane (if any) finished, appending to the raw files, and
// notes its cost in meta. It returns the measurement's error: runErr, or
// the lane's (cancellation, a raw file that cannot be written).
func (a *app) instructionLane(ctx context.Context, sess *runner.Session, j job, runErr error, base, head io.Writer, meta *report.Meta) (laneResult, error) {
	l := laneResult{only: !a.timeLane(j)}
	if l.only {
		meta.Count = 0 // no timed rounds
	}
	if runErr != nil || sess == nil || !a.instructionsLane(j) {
		return l, runErr
	}
	before := sess.Result().Elapsed
	res, err := sess.MeasureInstructions(ctx, sess.Units(), runner.InstructionOptions{Repeats: laneRepeats}, base, head)
	l.ran, l.res = true, res
	if res != nil {
		meta.Run.Lane = laneFacts(res, before, l.only)
	}
	return l, err
}

// laneFacts is what the lane measured and what it cost, beside what
// came before it.
func laneFacts(res *runner.InstructionResult, before time.Duration, only bool) *report.Lane {
	return &report.Lane{Benchmarks: res.Benchmarks, Repeats: laneRepeats, Processes: res.Processes, Elapsed: res.Elapsed, Before: before, Only: only, Unavailable: len(res.Failures)}
}

// laneDefault puts instructions into the gated kinds when --fail-on was
// not given and the instruction lane is measured (or, for compare and
// merge, when the results hold its rows): a --fail-on list without it
// only reports them.
func (a *app) laneDefault(p *gate.Policy, cmps []stats.Comparison) {
	if a.cfg.FailOnSet || p.File != nil && p.File.FailOn.Set {
		return
	}
	measured := a.cfg.Measures(config.LaneInstructions)
	for _, c := range cmps {
		measured = measured || c.Unit == gate.InstructionsUnit
	}
	if measured {
		p.FailOn[gate.Instructions] = true
	}
}
