package gate

import (
	"math"
	"slices"

	"github.com/benchgate/benchgate/internal/stats"
)

// looksAt returns K(p): the number of planned looks at which a p-value as
// small as p was attainable with the test whose floor at n rounds is
// floor(n); at least 1 (the look that produced p).
func looksAt(p float64, looks []int, floor func(int) float64) int {
	k := 0
	for _, n := range looks {
		if floor(n) <= p {
			k++
		}
	}
	return max(k, 1)
}

// sequentialP returns the p-value of a comparison valid across all planned
// looks: p·K(p), capped at 1 (see "Sequential looks" in the package
// documentation). Without looks it is p.
func sequentialP(p float64, looks []int, floor func(int) float64) float64 {
	if len(looks) == 0 {
		return p
	}
	return math.Min(1, p*float64(looksAt(p, looks, floor)))
}

func pairedFloor(n int) float64 { return stats.SignedRankMinP(n) }
func uFloor(n int) float64      { return MinP(n, n) }

// LookThreshold returns the per-look significance threshold of a
// sequential design that looks after each of the given rounds (ascending
// or not): a raw paired p-value below it, at any planned look, is
// significant for the most significant of m benchmarks under the
// correction, and the chance that any look of any unchanged benchmark
// crosses it stays below alpha. It is the same at every look (a constant,
// Pocock-style boundary) and comes from a Bonferroni split of alpha over
// the looks at which such a p-value is attainable at all (2/2^n ≤ p): at
// α = 0.01 with looks after rounds 5, 10, 15 and 20 the round-5 look cannot
// reach anything and costs nothing, so the threshold is 0.01/3 = 0.0033.
// Without looks it is alpha divided by the correction's factor. It is the
// paired test's; [lookThresholdFor] gives each test's.
func LookThreshold(alpha float64, m int, correction Correction, looks []int) float64 {
	return lookThreshold(alpha, m, correction, looks, pairedFloor)
}

// lookThresholdFor is [LookThreshold] for a row judged by test: the looks
// that count are those at which that test can attain the p-value, the
// same floors sequentialP charges the row's p-value with (floorFn). The U
// test (TestUTest), with as many values a side as rounds, can reach far
// lower p-values than the paired test at the same look (2/C(2n, n)
// against 2/2^n: 0.0022 against 0.031 at 6 rounds), so more of the looks
// count and its threshold is lower: at α = 0.01 with looks after rounds 6,
// 8 and 10 the paired test can reach p < 0.0078 at the round-10 look only
// (threshold 0.0078), the U test at all three (0.01/3). Any other test
// (TestPaired, "") gets the paired floors, as LookThreshold.
func lookThresholdFor(test Test, alpha float64, m int, correction Correction, looks []int) float64 {
	floor := pairedFloor
	if test == TestUTest {
		floor = uFloor
	}
	return lookThreshold(alpha, m, correction, looks, floor)
}

// lookThreshold is the largest raw p-value t such that every p < t at or
// above the lowest floor is significant after the looks' penalty:
// p·K(p) < alpha/factor, K(p) = looksAt(p, looks, floor). 0 when no
// attainable p is.
func lookThreshold(alpha float64, m int, correction Correction, looks []int, floor func(int) float64) float64 {
	return lookLevel(alpha/factor(m, correction), looks, floor)
}

// lookLevel is lookThreshold for a level a already divided by the
// correction's factor.
func lookLevel(a float64, looks []int, floor func(int) float64) float64 {
	if len(looks) == 0 {
		return a
	}
	floors := make([]float64, len(looks))
	for i, n := range looks {
		floors[i] = floor(n)
	}
	slices.Sort(floors)
	// For p in [floors[j-1], floors[j]) exactly j looks count: p·j < a.
	best := 0.0
	for j := 1; j <= len(floors); j++ {
		t := a / float64(j)
		if t <= floors[j-1] {
			continue // p < t cannot be attained at j looks
		}
		if j < len(floors) {
			t = math.Min(t, floors[j])
		}
		best = math.Max(best, t)
	}
	return best
}

// PlanAdaptive plans the looks of a run with a time budget (--max-time)
// of at most maxRounds rounds over m time/op benchmarks: the first look
// where the paired test can reach alpha for m benchmarks under p's
// correction (with two rounds of room for the looks' own cost) and at
// least 5, then doubling, at most five looks, the last at maxRounds
// (m=20 at α=0.01, 200 rounds: [14 28 56 112 200]). Only the looks' count
// and floors enter the p-values ([LookThreshold]), so where they fall
// costs no error control.
func PlanAdaptive(maxRounds, m int, p Policy) []int {
	if maxRounds < 1 {
		return nil
	}
	first := max(MinRounds(p.Alpha, max(m, 1), p.Correction)+2, 5)
	var looks []int
	for n := first; n < maxRounds && len(looks) < 4; n *= 2 {
		looks = append(looks, n)
	}
	return append(looks, maxRounds)
}

// A Decision is what a sequential look decided for one time/op
// benchmark: the benchmark needs no more rounds.
type Decision struct {
	// Status is Regression or Improvement (significant and beyond the
	// threshold at a planned look), or Unchanged (shown to be within
	// ±Threshold: futility).
	Status Status
	// Reason is why, like Result.Reason; ReasonEquivalent for futility.
	Reason Reason
	// Rounds is the number of pairs the decision rests on.
	Rounds int
}

// Look is the interim analysis of a sequential run with an adaptive time
// budget, called after a round with the comparisons of every benchmark
// so far (those already decided included, their data frozen). It returns
// the time/op benchmarks that need no more rounds, at a planned look only
// (Policy.Looks contains the number of pairs):
//
//   - a regression or an improvement: the paired test is significant
//     after the correction over all time comparisons and the looks, and
//     the change is beyond the threshold — exactly what [Judge] would say;
//   - within the threshold (Status Unchanged): the 1−2α/K confidence
//     interval of the ratio, K the number of planned looks, lies strictly
//     inside (1/(1+Threshold), 1+Threshold). These are the two one-sided
//     tests (TOST) of equivalence at level α/K: a benchmark that really
//     changed by the threshold or more is stopped this way with
//     probability at most α/K at each look, α over the whole run.
//     Stopping for futility never adds false regressions; it can lose
//     findings, and this bounds how many. (It used to be checked at every
//     round at level α each, which stopped 3.4 % of true +5 % changes in
//     20 rounds against the documented α.)
//
// A significant change needs a planned look because every planned look
// is paid for in the p-values (see "Sequential looks" in the package
// documentation); the rows judged by the U test for want of rounds are
// decided the same way. "Within the threshold" needs a paired analysis
// (its interval). The final verdict comes from Judge with the same Policy
// (Looks included) on the final data, at the last planned look or, when
// the budget runs out first, at the round reached.
func Look(cmps []stats.Comparison, p Policy) map[stats.Key]Decision {
	v := Judge(cmps, nil, p)
	out := map[stats.Key]Decision{}
	for _, r := range v.Results {
		if r.Kind != Time || r.Base == nil || r.Head == nil {
			continue
		}
		n := min(r.Base.N, r.Head.N)
		if r.Paired != nil {
			n = r.Paired.N
		}
		if !slices.Contains(p.Looks, n) {
			continue
		}
		if r.Status == Regression || r.Status == Improvement {
			out[r.Key] = Decision{Status: r.Status, Reason: r.Reason, Rounds: n}
			continue
		}
		if p.Threshold <= 0 || r.Paired == nil {
			continue
		}
		conf := 1 - 2*p.Alpha/float64(len(p.Looks))
		lo, hi, _ := r.Paired.Interval(conf)
		if lo-1 > ImprovementThreshold(p.Threshold)+thresholdSlack && hi-1 < p.Threshold-thresholdSlack {
			out[r.Key] = Decision{
				Status: Unchanged,
				Reason: Reason{Code: ReasonEquivalent, Threshold: p.Threshold, Alpha: p.Alpha, Rounds: n,
					Interval: &Interval{Confidence: conf, Estimate: r.Paired.Ratio - 1, Low: lo - 1, High: hi - 1}},
				Rounds: n,
			}
		}
	}
	return out
}
