package ledger

import (
	"math"
	"slices"

	"github.com/benchgate/benchgate/internal/machine"
)

// RecentNoise is how many of a series' last paired entries [Noise] reads.
const RecentNoise = 10

// Noise returns the per-round noise the ledger recorded for each time/op
// series on machines like here (machine.Same), by package + "." + name as
// the entries name it: the median over its last RecentNoise paired
// entries (n ≥ 6 rounds) of the log-ratios' standard deviation that each
// entry's standard error implies (se·√(3n/π), the Hodges–Lehmann
// estimator's under normal noise). Entries of other machines, of other
// tests and of fewer rounds are not read. It is a plan's input only
// (gate.PlanScreen): what it says moves rounds between benchmarks, never
// what a verdict decides.
func Noise(entries []Entry, here machine.Info) map[string]float64 {
	by := map[string][]float64{}
	for _, e := range entries {
		if e.Unit != "sec/op" || e.Test != "paired" || e.N < 6 || !(e.SE > 0) || !finite(e.SE) || !machine.Same(e.Machine, here) {
			continue
		}
		k := e.Package + "." + e.Name
		by[k] = append(by[k], e.SE*math.Sqrt(3*float64(e.N)/math.Pi))
	}
	out := map[string]float64{}
	for k, s := range by {
		s = s[max(0, len(s)-RecentNoise):]
		out[k] = medianOfCopy(s)
	}
	return out
}

func medianOfCopy(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
