package gate

// The confirmation under a switching CPU hog, on the exact code path
// (Judge with Policy.Screened → Confirmation: Next, Observe, Verdict): the
// machine of scripts/evidence.sh's campaign (hogged: 0.5–3 % noise per
// process, rounds that burst about one time in eight when the hog starts
// or stops between base's and head's runs), the settings, and the
// design before the bursts were planned for (burstAware off, α/20 at the
// first look, no too-noisy stop) beside it with BENCHGATE_SIM=1. An A/A
// suite on the hogged machine and on one with an order effect holds the
// false-change rate to α.
//
//	BENCHGATE_SIM=1 go test -run TestConfirmHog -v ./internal/gate/

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
)

// hogRun is what suites of a cell gave: rows found per planted effect,
// suites with a false change, and the fresh unit-rounds of the changed
// rows and of all.
type hogRun struct {
	found             []int
	falseSuites       int
	freshChanged, all int
	screen            int
}

// hogCell runs reps suites of m rows on mc, the first rows changed by
// effects (a negative one found when called an improvement), n screen
// rounds, at the threshold.
func hogCell(mc machine, m int, effects []float64, n int, threshold float64, reps int, seed uint64) hogRun {
	p := DefaultPolicy()
	p.Threshold = threshold
	out := hogRun{found: make([]int, len(effects))}
	for i := range reps {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		bs := mc.benches(rng, m, 0, 0)
		for j, e := range effects {
			bs[j].effect = e
		}
		set := &stats.Set{Base: map[stats.Key][]stats.Obs{}, Head: map[stats.Key][]stats.Obs{}, Estimator: stats.Median}
		for j, b := range bs {
			k := stats.Key{Package: "sim", Name: fmt.Sprintf("B%03d", j), Unit: "sec/op"}
			set.Keys = append(set.Keys, k)
			set.Base[k], set.Head[k] = mc.rounds(rng, b, 1, n)
		}
		sp := p
		sp.Screened = n
		screen := Judge(stats.CompareAlpha(set, 0.95, p.Alpha), nil, sp)
		v, ran := stagedConfirmBy(screen, n, func(k stats.Key, first, count int) (base, head []stats.Obs) {
			var j int
			fmt.Sscanf(k.Name, "B%03d", &j)
			return mc.rounds(rng, bs[j], first, count)
		})
		falseHere := false
		for j, r := range v.Results {
			out.all += ran[r.Key]
			switch {
			case j < len(effects):
				out.freshChanged += ran[r.Key]
				if e := effects[j]; e > 0 && r.Status == Regression || e < 0 && r.Status == Improvement {
					out.found[j]++
				}
			case r.Status == Regression || r.Status == Improvement:
				falseHere = true
			}
		}
		if falseHere {
			out.falseSuites++
		}
		out.screen += m * n
	}
	return out
}

// withoutBursts runs f with the design before the confirmation planned
// for bursts.
func withoutBursts(f func()) {
	b, e, s := burstAware, efficacyShare, tooNoisyStop
	burstAware, efficacyShare, tooNoisyStop = false, 1.0/20, false
	defer func() { burstAware, efficacyShare, tooNoisyStop = b, e, s }()
	f()
}

// TestConfirmHog: under the switching hog, the settings of issue 27's
// campaign find their planted changes (the figures docs/dev/evidence-log.md
// quotes, within three standard deviations), and A/A suites on the hogged
// machine and with an order effect keep the false-change rate at α. With
// BENCHGATE_SIM=1 it measures the design before beside it (not parallel
// then: it sets the design's variables).
func TestConfirmHog(t *testing.T) {
	type cell struct {
		name      string
		mc        machine
		effects   []float64
		n         int
		threshold float64
		quoted    []float64
	}
	order := realistic
	order.order = 0.08
	cells := []cell{
		{"--threshold 2%", hogged, []float64{0.05, -0.05, 0.10}, 10, 0.02, []float64{0.85, 0.84, 0.89}},
		{"defaults", hogged, []float64{0.10}, 10, 0.05, []float64{0.87}},
		{"--threshold 1% --count 20", hogged, []float64{0.03, 0.05}, 20, 0.01, []float64{0.97, 0.97}},
		{"--threshold 2%, A/A", hogged, nil, 10, 0.02, nil},
		{"--threshold 2%, A/A, order effect 8 %", order, nil, 10, 0.02, nil},
	}
	sim := os.Getenv("BENCHGATE_SIM") != ""
	if !sim {
		t.Parallel() // the design's variables are set only to measure before
	}
	for ci, c := range cells {
		reps := simReps(t, 20)
		if c.effects == nil {
			reps = simReps(t, 30)
		}
		seed := 0x409 + uint64(ci)
		o := hogCell(c.mc, 20, c.effects, c.n, c.threshold, reps, seed)
		var before hogRun
		if sim {
			withoutBursts(func() { before = hogCell(c.mc, 20, c.effects, c.n, c.threshold, reps, seed) })
		}
		name := "hog, " + c.name
		rate := checkFPR(t, name+": any false change", o.falseSuites, reps, 0.01)
		line := ""
		for j, e := range c.effects {
			power := checkPower(t, fmt.Sprintf("%s, %+.0f %%", name, 100*e), o.found[j], reps, c.quoted[j])
			line += fmt.Sprintf("%+.0f %% %.3f", 100*e, power)
			if sim {
				line += fmt.Sprintf(" (before %.3f)", float64(before.found[j])/float64(reps))
			}
			line += "; "
		}
		perRow := 0.0
		if len(c.effects) > 0 {
			perRow = float64(o.freshChanged) / float64(reps*len(c.effects))
		}
		extra := float64(o.all) / float64(o.screen)
		t.Logf("%s: %sfresh rounds per changed row %.1f, all fresh rounds %+.1f %% of the screen's, suites with a false change %.4f (%d suites)", name, line, perRow, 100*extra, rate, reps)
		if sim {
			bPerRow := 0.0
			if len(c.effects) > 0 {
				bPerRow = float64(before.freshChanged) / float64(reps*len(c.effects))
			}
			t.Logf("%s, before: fresh rounds per changed row %.1f, all %+.1f %%, false %.4f", name, bPerRow, 100*float64(before.all)/float64(before.screen), float64(before.falseSuites)/float64(reps))
			simOut.add("| the confirmation under a switching hog (20 benchmarks, α=0.01, Holm) | %s | %v | %.4f (suites with any false change; before %.4f) | %sfresh rounds per changed row %.1f (before %.1f), all %+.1f %% (before %+.1f %%) | %d |",
				c.name, c.effects, rate, float64(before.falseSuites)/float64(reps), line, perRow, bPerRow, 100*extra, 100*float64(before.all)/float64(before.screen), reps)
		}
	}
}
