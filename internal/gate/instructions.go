package gate

import (
	"math"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/stats"
)

// # Instructions
//
// The instruction lane (benchgate run --measure instructions) counts each
// benchmark's instructions per op under Valgrind's callgrind, a few repeats
// per side: rows of unit "instructions/op" ([InstructionsUnit], kind
// [Instructions]), named like the benchmark at GOMAXPROCS 1 (no "-N"
// suffix). A count repeats to the instruction without allocation and
// within a few tenths of a percent with it, so the rule is nearly exact,
// like the allocation checks, with no test and no correction. With Delta
// the change of the medians (head/base − 1) and T =
// Policy.InstructionThreshold:
//
//   - |Delta| ≥ T and the sides' ranges (min to max of the repeats) do not
//     overlap: a regression (or an improvement), [ReasonRangesSeparated];
//   - |Delta| ≥ T and the ranges overlap: unstable, never gated
//     ([ReasonRangesOverlap]): the repeats vary as much as the change;
//   - |Delta| < T: unchanged ([ReasonBelowThreshold]).
//
// A judged row is gated when Policy.FailOn has [Instructions]. A
// [Failure] whose Unit is InstructionsUnit (the lane could not count the
// benchmark: valgrind missing or aborting, a timeout, a loop callgrind
// could not follow) gives that benchmark's row the status [Unavailable]
// with the failure's message ([ReasonUnavailable]); it is never gated, and
// the failure stays in Verdict.Failures (so that judging the verdict's
// rows again finds it) but is none of Verdict.HeadFailures, which fail the
// gate. Instruction rows are placed right after
// the other rows of their benchmark (the same package and name, with the
// time rows' "-N" suffix ignored).

// InstructionsUnit is the unit of the instruction lane's rows.
const InstructionsUnit = "instructions/op"

// Instructions is the kind of instructions/op rows.
const Instructions Kind = "instructions"

// Unavailable is the status of an instruction row the lane could not
// measure on a side.
const Unavailable Status = "unavailable"

// The reasons of instruction rows.
const (
	// ReasonRangesSeparated: |Delta| ≥ Threshold and the ranges Base and
	// Head do not overlap (a regression or an improvement). With Delta nil
	// (a zero base) the ranges alone decide.
	ReasonRangesSeparated ReasonCode = "ranges-separated"
	// ReasonRangesOverlap: |Delta| ≥ Threshold but the ranges Base and
	// Head overlap (status unstable).
	ReasonRangesOverlap ReasonCode = "ranges-overlap"
	// ReasonBelowThreshold: |Delta| < Threshold (Base, Head: the ranges).
	ReasonBelowThreshold ReasonCode = "below-threshold"
	// ReasonUnavailable: the lane has no count on Side ("" for both);
	// Detail is its account (the failure's message).
	ReasonUnavailable ReasonCode = "unavailable"
)

// The warnings of instruction rows.
const (
	// WarnInstructionsVary: the instructions/op of Benchmarks vary as
	// much as their change (unstable rows).
	WarnInstructionsVary WarningCode = "instructions-vary"
	// WarnUnavailable: the instruction lane could not count Benchmarks.
	WarnUnavailable WarningCode = "unavailable"
)

// isLane reports whether a failure is the instruction lane's.
func (f Failure) isLane() bool { return f.Unit == InstructionsUnit }

// splitLane separates the instruction lane's failures from the others.
func splitLane(failures []Failure) (rest, lane []Failure) {
	for _, f := range failures {
		if f.isLane() {
			lane = append(lane, f)
		} else {
			rest = append(rest, f)
		}
	}
	return rest, lane
}

// laneFailure returns the lane's failure of the row key, if any.
func laneFailure(lane []Failure, key stats.Key) (Failure, bool) {
	if key.Unit != InstructionsUnit {
		return Failure{}, false
	}
	for _, f := range lane {
		if f.Package == key.Package && strings.TrimPrefix(f.Name, "Benchmark") == key.Name {
			return f, true
		}
	}
	return Failure{}, false
}

// unavailableRow is the row of a benchmark the lane could not count.
func unavailableRow(c stats.Comparison, f Failure) Result {
	detail, _ := strings.CutPrefix(f.Message, "unavailable: ")
	return Result{Comparison: c, Kind: Instructions, Status: Unavailable, Delta: nil,
		Reason: Reason{Code: ReasonUnavailable, Side: f.Side, Detail: detail, Better: -1}}
}

// judgeInstructions applies the rule to a row with both sides; gated says
// whether its kind is in Policy.FailOn.
func judgeInstructions(r *Result, p Policy, gated bool, w *warnings) {
	b, h := r.Base, r.Head
	br, hr := rangeOf(b), rangeOf(h)
	r.P = nil
	r.Delta = nil
	if b.Center != 0 {
		r.Delta = ptr(h.Center/b.Center - 1)
	}
	rs := Reason{Delta: r.Delta, Threshold: p.InstructionThreshold, Better: -1, BaseN: b.N, HeadN: h.N, Base: &br, Head: &hr}
	separated := hr.Min > br.Max || hr.Max < br.Min
	large := separated // a change from a zero base: no relative change
	if r.Delta != nil {
		large = math.Abs(*r.Delta) >= p.InstructionThreshold-thresholdSlack
	}
	switch {
	case !large:
		r.Status, rs.Code = Unchanged, ReasonBelowThreshold
	case separated:
		r.Status, rs.Code = Regression, ReasonRangesSeparated
		if hr.Max < br.Min {
			r.Status = Improvement
		}
	default:
		r.Status, rs.Code = Unstable, ReasonRangesOverlap
		w.unstable[InstructionsUnit] = append(w.unstable[InstructionsUnit], Bench{r.Package, r.Name})
	}
	r.Reason = rs
	r.Gated = gated && r.Status != Unstable
}

// finishInstructions adds an unavailable row for every lane failure that
// has none, places the instruction rows after their benchmarks' other rows
// and adds the instruction warnings.
func finishInstructions(v *Verdict, lane []Failure, w *warnings) {
	have := map[stats.Key]bool{}
	for _, r := range v.Results {
		have[r.Key] = true
	}
	var unavailable []Bench
	for _, f := range lane {
		key := stats.Key{Package: f.Package, Name: strings.TrimPrefix(f.Name, "Benchmark"), Unit: InstructionsUnit}
		if !have[key] {
			have[key] = true
			v.Results = append(v.Results, unavailableRow(stats.Comparison{Key: key}, f))
		}
	}
	v.Results = joinInstructions(v.Results)
	for _, r := range v.Results {
		if r.Status == Unavailable {
			unavailable = append(unavailable, Bench{r.Package, r.Name})
		}
	}
	if vary := w.unstable[InstructionsUnit]; len(vary) > 0 {
		v.Warnings = append(v.Warnings, Warning{Code: WarnInstructionsVary, Unit: InstructionsUnit, Benchmarks: uniq(vary)})
	}
	if len(unavailable) > 0 {
		v.Warnings = append(v.Warnings, Warning{Code: WarnUnavailable, Unit: InstructionsUnit, Benchmarks: uniq(unavailable)})
	}
}

// joinInstructions moves each instruction row right after the last other
// row of its benchmark: the same package and the same name, or the name
// with a "-N" suffix. Rows without such a benchmark stay at the end, in
// order.
func joinInstructions(results []Result) []Result {
	if !slices.ContainsFunc(results, func(r Result) bool { return r.Kind == Instructions }) {
		return results
	}
	last := map[benchKey]int{}
	var others []Result
	for _, r := range results {
		if r.Kind == Instructions {
			continue
		}
		last[benchKey{r.Package, r.Name}] = len(others)
		if base, _, ok := policy.SplitProcs(r.Name); ok {
			last[benchKey{r.Package, base}] = len(others)
		}
		others = append(others, r)
	}
	after := map[int][]Result{}
	var rest []Result
	for _, r := range results {
		if r.Kind != Instructions {
			continue
		}
		if i, ok := last[benchKey{r.Package, r.Name}]; ok {
			after[i] = append(after[i], r)
		} else {
			rest = append(rest, r)
		}
	}
	out := make([]Result, 0, len(results))
	for i, r := range others {
		out = append(out, r)
		out = append(out, after[i]...)
	}
	return append(out, rest...)
}
