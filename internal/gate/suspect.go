package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/internal/stats"
	"golang.org/x/perf/benchunit"
)

// A Suspicion is a reason to distrust what a benchmark reports: warnings
// as data, attached to the row they concern and summarized in
// Verdict.Warnings.
type Suspicion struct {
	// Code is one of the Suspect* constants.
	Code string
	// Message is one sentence for people.
	Message string
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
		allocNote := "with 0 allocs/op"
		if !hasAllocs {
			allocNote = "(no allocation figures)"
		}
		out = append(out, Suspicion{SuspectOptimizedAway, fmt.Sprintf(
			"%s ns/op %s on %s: almost certainly optimized away; use the result (a sink) so the work cannot be removed",
			trimFloat(s.Center*1e9), allocNote, strings.Join(fast, " and "))})
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
		out = append(out, Suspicion{SuspectShortRuns, fmt.Sprintf(
			"a run timed only %s of work on %s (b.N × time/op): too short to time reliably; use a longer --benchtime",
			benchunit.Scale(shortest, benchunit.Decimal)+"s", strings.Join(short, " and "))})
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
	var parts []string
	if r.Base != nil && !r.Base.Constant {
		parts = append(parts, "base "+exactRange(r.Base))
	}
	if r.Head != nil && !r.Head.Constant {
		parts = append(parts, "head "+exactRange(r.Head))
	}
	return []Suspicion{{SuspectAllocsVary, fmt.Sprintf(
		"%s varies between rounds (%s): something allocates outside the benchmark loop or in the background, so the exact check cannot apply",
		r.Unit, strings.Join(parts, ", "))}}
}

// trimFloat formats v with 3 significant digits ("0.25").
func trimFloat(v float64) string { return fmt.Sprintf("%.3g", v) }
