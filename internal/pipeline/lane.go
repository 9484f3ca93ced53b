package pipeline

import (
	"context"
	"io"

	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runner"
)

// The instruction lane (--measure instructions): after the time lane's
// rounds, or instead of them, every benchmark runs under Valgrind's
// callgrind (runner.MeasureInstructions), as the sandbox's user like every
// other benchmark process, and its instructions/op rows go to the same raw
// files after a "lane: instructions" line.

// LaneRepeats is the number of instruction counts per side and benchmark.
const LaneRepeats = 3

// Lane is what the instruction lane measured: the per-function counts
// the explain pass reads, and its cost for the report (nil when it did
// not run).
type Lane struct {
	Result *runner.InstructionResult
	Facts  *report.Lane
}

// Instructions is the instruction lane: it counts the session's units
// under callgrind, appending to the raw files base and head, when the plan
// measures it.
func Instructions(ctx context.Context, sess session, p Plan, base, head io.Writer) (Lane, error) {
	if !p.Instructions {
		return Lane{}, nil
	}
	before := sess.Result().Elapsed
	res, err := sess.MeasureInstructions(ctx, sess.Units(), runner.InstructionOptions{Repeats: LaneRepeats}, base, head)
	l := Lane{Result: res}
	if res != nil {
		l.Facts = &report.Lane{Benchmarks: res.Benchmarks, Repeats: LaneRepeats, Processes: res.Processes, Elapsed: res.Elapsed, Before: before, Only: !p.Time, Unavailable: len(res.Failures)}
	}
	return l, err
}
