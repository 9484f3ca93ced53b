package gate

import (
	"cmp"
	"math"
	"slices"

	"github.com/benchgate/benchgate/internal/stats"
)

// Correction is a multiple-testing correction over a suite's time rows.
type Correction string

// The multiple-testing corrections of Policy.Correction.
const (
	// Holm's step-down procedure: controls the family-wise error rate
	// (the chance of any false regression in the suite) at α. The default.
	Holm Correction = "holm"
	// Benjamini–Hochberg's step-up procedure: controls the false
	// discovery rate (the expected share of false findings among the
	// findings) at α; more findings when many benchmarks really change.
	BH Correction = "bh"
	// No correction: every comparison at α on its own.
	NoCorrection Correction = "none"
)

// Corrections lists the valid values of Policy.Correction.
var Corrections = []Correction{Holm, BH, NoCorrection}

// correctionOf returns the correction in force ("" is Holm).
func correctionOf(c Correction) Correction {
	if c == "" {
		return Holm
	}
	return c
}

// padded returns m p-values, the last m − n of them 1: the rows of a
// family of m that are not judged here (Policy.Family) enter a
// correction with the one p-value every row has.
func padded(n, m int) []float64 {
	ps := make([]float64, max(n, m))
	for i := n; i < len(ps); i++ {
		ps[i] = 1
	}
	return ps
}

// factor is the multiplier that the correction applies to the smallest
// p-value of m comparisons when only one benchmark changes: m for Holm and
// BH (both start from α/m), 1 without correction.
func factor(m int, correction Correction) float64 {
	if correctionOf(correction) == NoCorrection || m < 1 {
		return 1
	}
	return float64(m)
}

// adjust returns the adjusted p-values of ps under correction, in the
// order of ps. Holm: p_(i)·(m−i+1), made monotone upward; BH: p_(i)·m/i,
// made monotone downward from the largest; capped at 1.
func adjust(ps []float64, correction Correction) []float64 {
	m := len(ps)
	out := make([]float64, m)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	switch correctionOf(correction) {
	case NoCorrection:
		copy(out, ps)
	case BH:
		prev := 1.0
		for rank := m; rank >= 1; rank-- {
			i := idx[rank-1]
			v := math.Min(prev, ps[i]*float64(m)/float64(rank))
			out[i], prev = v, v
		}
	default: // Holm
		prev := 0.0
		for rank := 1; rank <= m; rank++ {
			i := idx[rank-1]
			v := math.Max(prev, math.Min(1, ps[i]*float64(m-rank+1)))
			out[i], prev = v, v
		}
	}
	for i := range out {
		out[i] = math.Min(1, out[i])
	}
	return out
}

// stepFactors returns, for each of ps, the divisor of alpha at the step of
// the correction that decides it (alpha/factor is the level its raw
// p-value is held to), so that an interval at 1 − alpha/factor excludes
// no change exactly when the row is significant: Holm, a row rejected at
// rank r: m − r + 1; a row not rejected: m − k, k the rejections (every
// such row's p is at least alpha/(m − k)); BH: m/k for rejected rows,
// m/(k + 1) for the others; no correction: 1.
func stepFactors(ps []float64, correction Correction, alpha float64) []float64 {
	m := len(ps)
	out := make([]float64, m)
	adj := adjust(ps, correction)
	k := 0
	for _, a := range adj {
		if a < alpha {
			k++
		}
	}
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	for rank, i := range idx {
		rejected := adj[i] < alpha
		switch correctionOf(correction) {
		case NoCorrection:
			out[i] = 1
		case BH:
			if rejected {
				out[i] = float64(m) / float64(k)
			} else {
				out[i] = float64(m) / float64(k+1)
			}
		default:
			if rejected {
				out[i] = float64(m - rank)
			} else {
				out[i] = float64(m - k)
			}
		}
		out[i] = math.Max(out[i], 1)
	}
	return out
}

// Feasible reports whether a suite of m gated time/op comparisons, each
// measured in the given number of interleaved rounds, can find anything at
// level alpha with the paired signed-rank test: whether the smallest
// p-value it can give, 2/2^rounds ([stats.SignedRankMinP]), times the
// correction's factor for one changed benchmark among m (m for Holm and BH,
// 1 for none), is below alpha. (Under BH several benchmarks changing
// together can reach α at fewer rounds; a gate must not count on that.)
func Feasible(rounds int, alpha float64, m int, correction Correction) bool {
	return stats.SignedRankMinP(rounds)*factor(m, correction) < alpha
}

// MinRounds returns the smallest number of interleaved rounds with which m
// gated time/op comparisons are [Feasible] at alpha under the correction:
// 8 for one benchmark at α = 0.01, 15 for 120 benchmarks with Holm. The CLI
// calls it before measuring to warn about a count that cannot work. It
// returns at most 1100.
func MinRounds(alpha float64, m int, correction Correction) int {
	n := 2
	for n < 1100 && !Feasible(n, alpha, m, correction) {
		n++
	}
	return n
}

// feasibleU reports whether benchstat's U test with n1 and n2 samples can
// reach alpha for m comparisons under the correction.
func feasibleU(n1, n2 int, alpha float64, m int, correction Correction) bool {
	return MinP(n1, n2)*factor(m, correction) < alpha
}

// MinCountU is [MinRounds] for benchstat's unpaired U test (input without
// rounds): the smallest number of samples per side whose smallest p-value,
// 2/C(2n, n), times the correction's factor is below alpha (at most 1000).
func MinCountU(alpha float64, m int, correction Correction) int {
	n := 1
	for n < 1000 && !feasibleU(n, n, alpha, m, correction) {
		n++
	}
	return n
}

// CountAdvice reports, before measuring, whether count interleaved rounds
// are too few for the paired test to judge m time/op benchmarks under p:
// if so, it returns a [WarnCountTooLow] warning with the smallest possible
// adjusted p, whether benchstat's U test can judge instead, and the number
// of rounds that would work (10 rounds and 120 benchmarks at α = 0.01
// with Holm: 0.234, the U test judges, 15 rounds).
func CountAdvice(count, m int, p Policy) (Warning, bool) {
	corr := correctionOf(p.Correction)
	if m < 1 || Feasible(count, p.Alpha, m, corr) {
		return Warning{}, false
	}
	return Warning{
		Code: WarnCountTooLow, Count: count, Family: m, Alpha: p.Alpha, Correction: corr,
		MinP:     math.Min(1, stats.SignedRankMinP(count)*factor(m, corr)),
		Adjusted: corr != NoCorrection,
		UTest:    feasibleU(count, count, p.Alpha, m, corr),
		MinCount: MinRounds(p.Alpha, m, corr),
	}, true
}
