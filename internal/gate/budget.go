package gate

import (
	"math"

	"github.com/benchgate/benchgate/internal/stats"
)

// A Recorded benchmark is a time row of a run to be screened, with the
// per-round noise a ledger recorded for it on this kind of machine (0:
// none recorded).
type Recorded struct {
	Package, Name string // as the row's key names it
	Noise         float64
}

// A ScreenPlan is the screen's rounds of each benchmark, planned from
// recorded noise ([PlanScreen]).
type ScreenPlan struct {
	// Rounds are the screen's rounds of each benchmark, in the order
	// given.
	Rounds []int
	// Fewer and More count the benchmarks planned for fewer rounds than
	// the run's count and for more.
	Fewer, More int
	// CannotSee are the benchmarks whose recorded noise leaves a change
	// of their threshold unseen even with the most screen and fresh
	// rounds they could get: said before anything is measured, and
	// screened at the count (a larger change they may still see).
	CannotSee []Unseen
}

// Unseen is a benchmark that cannot see its threshold here: its recorded
// noise per round, and the smallest change it could see with the most
// rounds.
type Unseen struct {
	Package, Name         string
	Noise, MDE, Threshold float64
}

// PlanScreen plans the screen's rounds of each benchmark of a run of
// count rounds from its recorded noise ([Recorded]; a ledger's): a
// benchmark gets the rounds at which a change of its threshold reaches
// the promising zone ([Promising]) 4 times in 5 at a change of two thirds
// of it (its noise planned with [noiseMargin]), at least half the count
// (and 5), at most twice it; a benchmark that could not see its threshold
// even with twice the count and the most fresh rounds after them is said
// to be so up front and gets the count, as does a benchmark without a
// record. The rounds above the count are paid for by the rounds
// below it: the screen never runs more unit-rounds than count times the
// benchmarks (a noisy benchmark's extra rounds are cut back in
// proportion when the quiet ones did not free enough).
//
// What the ledger says can move rounds between benchmarks and lower the
// screen's cost, nothing more: every count is fixed before anything is
// measured, so each row's p-values are what they would be at any other
// fixed count, and the verdict's error rate is the procedure's whatever
// the record (a stale or a forged ledger included); the fresh rounds of
// a promising row are planned from this run's own rounds
// ([FreshRounds]); no benchmark is left unmeasured, and none is screened
// with fewer than half the count. A forged record can cost a benchmark
// half its screen (power, not error control) and cannot raise the
// screen's cost.
func PlanScreen(count int, rows []Recorded, p Policy) ScreenPlan {
	plan := ScreenPlan{Rounds: make([]int, len(rows))}
	lo, hi := min(count, max((count+1)/2, 5)), 2*count
	m := max(len(rows), p.Family, 1)
	cut := PromisingLevel(m, p.Alpha)
	_, a2 := efficacyLevels(p)
	final := lookThresholdFor(TestPaired, a2, m, p.Correction, nil)
	budget := count * len(rows)
	used, extra := 0, 0
	for i, r := range rows {
		rp, _ := p.row(r.Package, r.Name)
		n := count
		switch {
		case r.Noise <= 0 || rp.Threshold <= 0:
		case stats.MDE(hi+freshCap*hi/10, r.Noise, final) > rp.Threshold+thresholdSlack:
			// Said up front, and screened as without a record: it may
			// still see a change twice its threshold.
			plan.CannotSee = append(plan.CannotSee, Unseen{Package: r.Package, Name: r.Name, Noise: r.Noise,
				MDE: stats.MDE(hi+freshCap*hi/10, r.Noise, final), Threshold: rp.Threshold})
		default:
			n = lo
			for n < hi && stats.MDE(n, noiseMargin*r.Noise, cut) > rp.Threshold*2/3 {
				n++
			}
		}
		plan.Rounds[i] = n
		used += min(n, count)
		extra += max(n-count, 0)
	}
	if room := budget - used; extra > 0 && room < extra {
		// Cut the extra rounds back to what the quiet benchmarks freed.
		for i, n := range plan.Rounds {
			if n > count {
				plan.Rounds[i] = count + int(math.Floor(float64(n-count)*float64(max(room, 0))/float64(extra)))
			}
		}
	}
	for _, n := range plan.Rounds {
		switch {
		case n < count:
			plan.Fewer++
		case n > count:
			plan.More++
		}
	}
	return plan
}
