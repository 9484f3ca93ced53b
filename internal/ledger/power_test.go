package ledger

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// TestSimulationCreepPower measures how much noise per merge the creep
// test stands for the creep of creep_time.txtar: three +4 % steps of one
// benchmark at the 3rd, 6th and 9th of 12 merges, beside a steady one
// (two time series), each merge through the paired analysis and se of a
// run (merge). It compares the windows of the last RecentMerges merges
// with every window of the whole ledger (the test before it was bounded),
// on a fresh ledger and after 300 quiet merges of history, at 10 rounds
// per merge (the default count) and 30 (recording pushes with 3× the
// rounds: docs/action.md#history). It asserts what docs/ledger.md says:
// the bound changes nothing on a fresh ledger and gains power with
// history; 3× the rounds stand √3× the noise. BENCHGATE_SIM=1 runs it
// (about 3 minutes on 2 cores).
func TestSimulationCreepPower(t *testing.T) {
	if os.Getenv("BENCHGATE_SIM") == "" {
		t.Skip("set BENCHGATE_SIM=1 to run the simulation")
	}
	const ledgers = 100
	step := math.Log(1.04)
	sigmas := []float64{0.01, 0.0125, 0.015, 0.0175, 0.02, 0.025, 0.03, 0.04}
	// power[prior][rounds] is the cells by sigma.
	power := map[int]map[int][]powerCell{}
	for _, prior := range []int{0, 300} {
		power[prior] = map[int][]powerCell{}
		for _, rounds := range []int{10, 30} {
			for si, sigma := range sigmas {
				rng := rand.New(rand.NewPCG(uint64(prior+1), uint64(1000*rounds+si)))
				var c powerCell
				var seN int
				for range ledgers {
					var es []Entry
					for i := range prior + 12 {
						for b := range 2 {
							lr, j := 0.0, i-prior
							if b == 0 && (j == 2 || j == 5 || j == 8) {
								lr = step
							}
							e := merge(t, rng, fmt.Sprintf("B%d", b), i, lr, sigma, rounds)
							if j >= 0 {
								c.se += e.SE
								seN++
							}
							es = append(es, e)
						}
					}
					called := func(o Options) bool {
						h := Analyze(es, o)
						return len(h.Creeps) > 0 && h.Creeps[0].Name == "B0"
					}
					o := DefaultOptions()
					if called(o) {
						c.after++
					}
					o.Recent = prior + 12
					if called(o) {
						c.before++
					}
				}
				c.se /= float64(seN)
				power[prior][rounds] = append(power[prior][rounds], c)
			}
		}
	}
	// noiseAt90 is the per-merge se at which the creep is still called in
	// 90 % of ledgers, interpolated between the cells.
	noiseAt90 := func(cs []powerCell, get func(powerCell) int) float64 {
		for i := 1; i < len(cs); i++ {
			a, b := float64(get(cs[i-1]))/ledgers, float64(get(cs[i]))/ledgers
			if a >= 0.9 && b < 0.9 {
				return cs[i-1].se + (cs[i].se-cs[i-1].se)*(a-0.9)/(a-b)
			}
		}
		return math.NaN()
	}
	after := func(c powerCell) int { return c.after }
	before := func(c powerCell) int { return c.before }
	var tab strings.Builder
	fmt.Fprintf(&tab, "\n| history | rounds | per-round σ | a merge's se | called, last %d merges | called, every window |\n|--:|--:|--:|--:|--:|--:|\n", RecentMerges)
	for _, prior := range []int{0, 300} {
		for _, rounds := range []int{10, 30} {
			for i, c := range power[prior][rounds] {
				fmt.Fprintf(&tab, "| %d | %d | %.2f %% | %.2f %% | %d %% | %d %% |\n", prior, rounds, 100*sigmas[i], 100*c.se, c.after*100/ledgers, c.before*100/ledgers)
			}
		}
	}
	for _, prior := range []int{0, 300} {
		for _, rounds := range []int{10, 30} {
			cs := power[prior][rounds]
			fmt.Fprintf(&tab, "history %d, %d rounds: called in 90 %% up to se %.2f %% (last %d merges), %.2f %% (every window)\n",
				prior, rounds, 100*noiseAt90(cs, after), RecentMerges, 100*noiseAt90(cs, before))
		}
	}
	t.Log(tab.String())
	for _, rounds := range []int{10, 30} {
		for i, c := range power[0][rounds] {
			if c.after != c.before {
				t.Errorf("fresh ledger, %d rounds, σ %v: %d calls bounded, %d unbounded: the windows are the same", rounds, sigmas[i], c.after, c.before)
			}
		}
		gain := 0
		for i, c := range power[300][rounds] {
			// The same ledgers: fewer windows, less correction, never
			// fewer calls beyond the simulation's noise.
			if c.after+2 < c.before {
				t.Errorf("history, %d rounds, σ %v: %d calls bounded < %d unbounded", rounds, sigmas[i], c.after, c.before)
			}
			gain += c.after - c.before
		}
		if gain <= 0 {
			t.Errorf("history, %d rounds: the bound gained no call (%d)", rounds, gain)
		}
		if a, b := noiseAt90(power[300][rounds], after), noiseAt90(power[300][rounds], before); !(a > b) {
			t.Errorf("history, %d rounds: the 90 %% noise %.4f bounded, %.4f unbounded", rounds, a, b)
		}
	}
	// Three times the rounds stand about √3 times the noise per round.
	for _, prior := range []int{0, 300} {
		s10 := sigmaAt90(power[prior][10], sigmas, ledgers)
		s30 := sigmaAt90(power[prior][30], sigmas, ledgers)
		if !(s30 > 1.4*s10) {
			t.Errorf("history %d: 30 rounds stand σ %.4f per round, 10 rounds %.4f: want about √3×", prior, s30, s10)
		}
	}
}

// powerCell is one setting of the power simulation: the mean se of a
// merge and how many ledgers called the creep with the windows of the
// last RecentMerges merges (after) and with every window (before).
type powerCell struct {
	se            float64
	after, before int
}

// sigmaAt90 is the per-round noise at which the creep is still called in
// 90 % of ledgers (bounded windows), interpolated.
func sigmaAt90(cs []powerCell, sigmas []float64, ledgers int) float64 {
	for i := 1; i < len(cs); i++ {
		a, b := float64(cs[i-1].after)/float64(ledgers), float64(cs[i].after)/float64(ledgers)
		if a >= 0.9 && b < 0.9 {
			return sigmas[i-1] + (sigmas[i]-sigmas[i-1])*(a-0.9)/(a-b)
		}
	}
	return math.NaN()
}
