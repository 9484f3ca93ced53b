package gate

// Budgets from memory: the screen's rounds of each benchmark planned from
// the noise a ledger recorded (PlanScreen), on the exact code path
// (screen at those counts, judged with Policy.Screened at the run's count
// → Confirmation), against a screen of the count for every benchmark; and
// with a stale or forged record (every benchmark recorded as quiet, or
// the quiet and the noisy ones swapped), which may cost power but not
// error control nor more rounds.
//
//	BENCHGATE_SIM=1 go test -run TestScreenBudget -v ./internal/gate/

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
)

// budgetRun is what the suites of a cell gave.
type budgetRun struct {
	found, falseSuites, screen, fresh int
}

// budgetSuite runs one suite of m rows, noise per round spread from 1 %
// to 12 % over the rows (row j's is noises[j]), the first changed of
// them by effect, screened at each row's planned rounds; record gives the
// noise the ledger says a row has (nil: no ledger).
func budgetSuite(rng *rand.Rand, noises []float64, changed int, effect, threshold float64, count int, record func(j int) float64) budgetRun {
	p := DefaultPolicy()
	p.Threshold = threshold
	mc := machine{fixedPerRound: 0.01}
	m := len(noises)
	bs := mc.benches(rng, m, changed, effect)
	rows := make([]Recorded, m)
	for j := range bs {
		bs[j].s = noises[j] / math.Sqrt2
		rows[j] = Recorded{Package: "sim", Name: fmt.Sprintf("B%03d", j)}
		if record != nil {
			rows[j].Noise = record(j)
		}
	}
	plan := PlanScreen(count, rows, p)
	var out budgetRun
	set := &stats.Set{Base: map[stats.Key][]stats.Obs{}, Head: map[stats.Key][]stats.Obs{}, Estimator: stats.Median}
	for j, b := range bs {
		k := stats.Key{Package: "sim", Name: rows[j].Name, Unit: "sec/op"}
		set.Keys = append(set.Keys, k)
		set.Base[k], set.Head[k] = mc.rounds(rng, b, 1, plan.Rounds[j])
		out.screen += plan.Rounds[j]
	}
	sp := p
	sp.Screened = count
	screen := Judge(stats.CompareAlpha(set, 0.95, p.Alpha), nil, sp)
	v, ran := stagedConfirmBy(screen, slices.Max(plan.Rounds), func(k stats.Key, first, n int) (base, head []stats.Obs) {
		var j int
		fmt.Sscanf(k.Name, "B%03d", &j)
		return mc.rounds(rng, bs[j], first, n)
	})
	for j, r := range v.Results {
		out.fresh += ran[r.Key]
		if j < changed && r.Status == Regression {
			out.found++
		}
		if j >= changed && (r.Status == Regression || r.Status == Improvement) {
			out.falseSuites = 1
		}
	}
	return out
}

// TestScreenBudget: with an honest record the screen costs less and finds
// as much; with a forged one it costs no more and keeps the false-change
// rate at α. Suites of 20 at the defaults, most benchmarks quiet (0.5–3 %
// a round) and one in five noisy (6–12 %), 3 of them +10 % (at 1 %, 3 %
// and 8 %).
func TestScreenBudget(t *testing.T) {
	t.Parallel()
	const m, count = 20, 10
	noises := make([]float64, m)
	for j := range noises {
		// Most benchmarks quiet (0.5–3 % a round), one in five noisy
		// (6–12 %); the changed rows 0, 1, 2 at 1 %, 3 % and 8 %.
		noises[j] = 0.005 + 0.025*float64((j*7)%m)/float64(m-1)
		if j%5 == 4 {
			noises[j] = 0.06 + 0.06*float64(j)/float64(m)
		}
	}
	noises[0], noises[1], noises[2] = 0.01, 0.03, 0.08
	quietest, noisiest := slices.Min(noises), slices.Max(noises)
	records := []struct {
		name   string
		record func(int) float64
	}{
		{"no ledger", nil},
		{"honest ledger", func(j int) float64 { return noises[j] }},
		{"forged: all quiet", func(int) float64 { return 0.001 }},
		{"forged: quiet and noisy swapped", func(j int) float64 { return quietest + noisiest - noises[j] }},
	}
	reps := simReps(t, 25)
	var base budgetRun
	for ri, rec := range records {
		var sum budgetRun
		for i := range reps {
			rng := rand.New(rand.NewPCG(0xb06e7, uint64(i)))
			o := budgetSuite(rng, noises, 3, 0.10, 0.05, count, rec.record)
			sum.found += o.found
			sum.falseSuites += o.falseSuites
			sum.screen += o.screen
			sum.fresh += o.fresh
		}
		power := float64(sum.found) / float64(3*reps)
		rounds := float64(sum.screen+sum.fresh) / float64(reps)
		t.Logf("%s: found %.3f of the +10 %% rows, suites with a false change %d of %d, rounds a suite %.0f (screen %.0f, fresh %.0f)",
			rec.name, power, sum.falseSuites, reps, rounds, float64(sum.screen)/float64(reps), float64(sum.fresh)/float64(reps))
		checkFPR(t, rec.name+": any false change", sum.falseSuites, reps, 0.01)
		if sum.screen > reps*m*count {
			t.Errorf("%s: the screen ran %d unit-rounds, more than the count's %d", rec.name, sum.screen, reps*m*count)
		}
		switch ri {
		case 0:
			base = sum
		case 1:
			if !(sum.screen+sum.fresh < (base.screen+base.fresh)*19/20) {
				t.Errorf("honest ledger: %d unit-rounds, without a ledger %d: want at most 95 %%", sum.screen+sum.fresh, base.screen+base.fresh)
			}
			if tol := binomTol(0.9, 3*reps) * float64(3*reps); float64(sum.found) < float64(base.found)-tol {
				t.Errorf("honest ledger: found %d, without a ledger %d", sum.found, base.found)
			}
		}
		simOut.add("| budgets from the ledger: 20 benchmarks, 0.5–3 %% noise a round (one in five 6–12 %%), defaults | %s | 3 × +10%% | %.4f (suites with any false change) | found %.3f; rounds a suite %.0f (screen %.0f + fresh %.0f) | %d |",
			rec.name, float64(sum.falseSuites)/float64(reps), power, rounds, float64(sum.screen)/float64(reps), float64(sum.fresh)/float64(reps), reps)
	}
}

// TestPlanScreen: the rounds at the figures PlanScreen's doc gives.
func TestPlanScreen(t *testing.T) {
	p := DefaultPolicy()
	rows := []Recorded{{Package: "p", Name: "Quiet-2", Noise: 0.005}, {Package: "p", Name: "Noisy-2", Noise: 0.08},
		{Package: "p", Name: "Unknown-2"}, {Package: "p", Name: "Hopeless-2", Noise: 0.5}}
	for range 16 {
		rows = append(rows, Recorded{Package: "p", Name: "Other-2"})
	}
	plan := PlanScreen(10, rows, p)
	if plan.Rounds[0] != 5 || plan.Rounds[2] != 10 || plan.Rounds[3] != 10 {
		t.Errorf("rounds %v: want 5 for the quiet one, 10 without a record and for the hopeless one", plan.Rounds[:4])
	}
	if plan.Rounds[1] <= 10 || plan.Rounds[1] > 20 {
		t.Errorf("the noisy one: %d rounds, want more than 10 and at most 20", plan.Rounds[1])
	}
	if len(plan.CannotSee) != 1 || plan.CannotSee[0].Name != "Hopeless-2" || !(plan.CannotSee[0].MDE > 0.05) {
		t.Errorf("cannot see %+v, want Hopeless-2 with an MDE beyond 5 %%", plan.CannotSee)
	}
	total := 0
	for _, n := range plan.Rounds {
		total += n
	}
	if total > 10*len(rows) {
		t.Errorf("%d unit-rounds, more than the budget %d", total, 10*len(rows))
	}
	// All noisy: the extra rounds are cut back to the budget.
	for i := range rows {
		rows[i].Noise = 0.08
	}
	plan = PlanScreen(10, rows, p)
	total = 0
	for _, n := range plan.Rounds {
		total += n
	}
	if total > 10*len(rows) {
		t.Errorf("all noisy: %d unit-rounds, more than the budget %d (rounds %v)", total, 10*len(rows), plan.Rounds)
	}
}
