package gate

import (
	"slices"

	"github.com/benchgate/benchgate/internal/stats"
)

// A Suspicion is a reason to distrust what a benchmark reports: warnings
// as data, attached to the row they concern and summarized in
// Verdict.Warnings.
type Suspicion struct {
	// Code is one of the Suspect* constants.
	Code string
	// Sides are the sides it was seen on (SideBase, SideHead).
	Sides []string
	// Value is, for SuspectOptimizedAway, the median time/op of the first
	// of Sides, and for SuspectShortRuns the shortest typical run, in
	// seconds.
	Value float64
	// NoAllocs: SuspectOptimizedAway without allocs/op figures to show
	// that nothing is allocated.
	NoAllocs bool
	// Base and Head are, for SuspectAllocsVary, the ranges of the sides
	// that vary (nil for a constant side).
	Base, Head *Range
}

// The codes of a Suspicion.
const (
	// SuspectOptimizedAway: a median time/op below MinTimePerOp on a side
	// that allocates nothing. Nothing real runs in under a nanosecond: the
	// compiler has almost certainly removed the work because its result is
	// unused (no sink).
	SuspectOptimizedAway = "optimized-away"
	// SuspectAllocsVary: allocs/op or B/op differ between rounds on a side
	// (an unstable row): something allocates in the background or outside
	// the loop, so the exact check cannot apply.
	SuspectAllocsVary = "allocs-vary"
	// SuspectShortRuns: a side's typical run timed less than MinRunTime of
	// work (b.N × time/op, median over its runs): timer granularity, the
	// scheduler and one-off costs inside the loop dominate such runs.
	SuspectShortRuns = "short-runs"
)

// The limits of the suspicions.
const (
	// MinTimePerOp is the time/op below which a benchmark that allocates
	// nothing is suspected of being optimized away: 1 ns.
	MinTimePerOp = 1e-9
	// MinRunTime is the timed work per run below which a run is too short
	// to time reliably: 1 ms (go test's default is 1 s; benchgate's
	// --benchtime defaults to 100 ms).
	MinRunTime = 1e-3
)

// benchKey identifies a benchmark across its units.
type benchKey struct{ pkg, name string }

// suspectTime returns the suspicions of a time row. allocs maps benchmarks
// to their allocs/op comparison.
func suspectTime(c stats.Comparison, allocs map[benchKey]stats.Comparison) []Suspicion {
	var out []Suspicion
	ac, hasAllocs := allocs[benchKey{c.Package, c.Name}]
	var fast []string
	for _, sd := range []struct {
		name     string
		sum      *stats.Summary
		allocSum *stats.Summary
	}{{SideBase, c.Base, ac.Base}, {SideHead, c.Head, ac.Head}} {
		if sd.sum == nil || sd.sum.Center >= MinTimePerOp {
			continue
		}
		if hasAllocs && (sd.allocSum == nil || sd.allocSum.Max != 0) {
			continue // it allocates: not empty work, however odd
		}
		fast = append(fast, sd.name)
	}
	if len(fast) > 0 {
		s := c.Head
		if fast[0] == SideBase {
			s = c.Base
		}
		out = append(out, Suspicion{Code: SuspectOptimizedAway, Sides: fast, Value: s.Center, NoAllocs: !hasAllocs})
	}
	var short []string
	shortest := 0.0
	for _, sd := range []struct {
		name string
		sum  *stats.Summary
	}{{SideBase, c.Base}, {SideHead, c.Head}} {
		if sd.sum == nil || len(sd.sum.Values) == 0 {
			continue
		}
		run := runTime(sd.sum.Values)
		if run < MinRunTime {
			short = append(short, sd.name)
			if shortest == 0 || run < shortest {
				shortest = run
			}
		}
	}
	if len(short) > 0 {
		out = append(out, Suspicion{Code: SuspectShortRuns, Sides: short, Value: shortest})
	}
	return out
}

// runTime returns the median over obs of Iters × Value: the time a run
// spent in the timed loop.
func runTime(obs []stats.Obs) float64 {
	t := make([]float64, len(obs))
	for i, o := range obs {
		t[i] = float64(o.Iters) * o.Value
	}
	slices.Sort(t)
	n := len(t)
	if n%2 == 1 {
		return t[n/2]
	}
	return (t[n/2-1] + t[n/2]) / 2
}

// suspectAllocs returns the suspicion of an unstable allocation row.
func suspectAllocs(r Result) []Suspicion {
	sp := Suspicion{Code: SuspectAllocsVary}
	if r.Base != nil && !r.Base.Constant {
		sp.Sides, sp.Base = append(sp.Sides, SideBase), ptr(rangeOf(r.Base))
	}
	if r.Head != nil && !r.Head.Constant {
		sp.Sides, sp.Head = append(sp.Sides, SideHead), ptr(rangeOf(r.Head))
	}
	return []Suspicion{sp}
}
