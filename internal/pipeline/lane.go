package pipeline

import (
	"context"
	"io"
	"time"

	"github.com/benchgate/benchgate/internal/runner"
)

// The instruction lane (--measure instructions): after the time lane's
// rounds, or instead of them, every benchmark runs under Valgrind's
// callgrind (runner.MeasureInstructions), as the sandbox's user like every
// other benchmark process, and its instructions/op rows go to the same raw
// files after a "lane: instructions" line.

// laneRepeats is the number of instruction counts per side and benchmark.
const laneRepeats = 3

// Lane is what the instruction lane measured: its result (the counts,
// the per-function profiles the explain pass reads, the processes and
// their time), the counts per side and benchmark, and what came before
// it: the time of the builds and calibration (and the time lane, unless
// Only) before it; nil when it did not run.
type Lane struct {
	Result  *runner.InstructionResult
	Repeats int
	Before  time.Duration
	Only    bool // no time lane
}

// Instructions is the instruction lane: it counts the session's units
// under callgrind, appending to the raw files base and head, when the plan
// measures it (nil when it does not, or nothing was counted).
func instructionLane(ctx context.Context, sess session, p Plan, base, head io.Writer) (*Lane, error) {
	if !p.Instructions {
		return nil, nil
	}
	before := sess.Result().Elapsed
	res, err := sess.MeasureInstructions(ctx, sess.Units(), runner.InstructionOptions{Repeats: laneRepeats}, base, head)
	if res == nil {
		return nil, err
	}
	return &Lane{Result: res, Repeats: laneRepeats, Before: before, Only: !p.Time}, err
}
