package runner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
)

// The process layouts of a round compared in simulation, under the
// switching hog of the evidence campaigns (one core busy for a second,
// idle for a second) on a machine with drift and bursts of interference:
// the per-round noise of the paired log ratios (what power follows from),
// the power of a paired test at +3 % and +5 %, and the wall time of a
// round. docs/dev/evidence-log.md, "The same timed work in fewer processes",
// tables it beside the real measurements.
//
//	BENCHGATE_SIM=1 go test -run TestLayoutSim -v ./internal/runner/

// simMachine is a timeline model of a shared 2-core machine.
type simMachine struct {
	name string
	// hog: while on (every other second, random phase), work runs
	// 1/(1+hogC) as fast.
	hogC float64
	// bursts of interference: rate per second, mean length (s), slowdown.
	rate, burst, burstC float64
	// drift: an Ornstein–Uhlenbeck log-speed of sd drift, time constant tau.
	drift, tau float64
	// procSD: a process's own lognormal draw (layout, page colouring);
	// whiteSD: a run's noise for a second of work (scales 1/√W).
	procSD, whiteSD float64
}

// simCost is what a process costs beyond its timed work: start-up, the
// benchmark function's set-up (paid once per process), and each run's own
// cost (its N=1 run and two collections).
type simCost struct {
	name                 string
	start, setup, perRun float64
}

// simLayout is a round of a benchmark: its processes in order, each a
// side (0 or 1; every round flips both at random) and its runs.
type simLayout struct {
	name  string
	procs [][2]int
}

// pairs is the layout of k processes per side in pairs, each pair in a
// random order (the runner's), of counts runs each.
func pairs(name string, counts ...int) simLayout {
	l := simLayout{name: name}
	for _, c := range counts {
		l.procs = append(l.procs, [2]int{-1, c}, [2]int{-2, c})
	}
	return l
}

type simTimeline struct {
	rng    *rand.Rand
	m      simMachine
	t      float64
	s      float64 // drift
	phase  float64 // hog phase
	bursts [][2]float64
	next   float64
}

func newSimTimeline(rng *rand.Rand, m simMachine) *simTimeline {
	tl := &simTimeline{rng: rng, m: m, s: m.drift * rng.NormFloat64(), phase: 2 * rng.Float64()}
	if m.rate > 0 {
		tl.next = rng.ExpFloat64() / m.rate
	} else {
		tl.next = math.Inf(1)
	}
	return tl
}

// slow is the slowdown factor at time t.
func (tl *simTimeline) slow(t float64) float64 {
	f := 1.0
	if math.Mod(t+tl.phase, 2) < 1 {
		f *= 1 + tl.m.hogC
	}
	for tl.next < t+1 {
		tl.bursts = append(tl.bursts, [2]float64{tl.next, tl.next + tl.m.burst*tl.rng.ExpFloat64()})
		tl.next += tl.rng.ExpFloat64() / tl.m.rate
	}
	for _, b := range tl.bursts {
		if b[0] <= t && t < b[1] {
			f *= 1 + tl.m.burstC
		}
	}
	return f
}

func (tl *simTimeline) advance(d float64) {
	a := math.Exp(-d / tl.m.tau)
	tl.s = a*tl.s + math.Sqrt(1-a*a)*tl.m.drift*tl.rng.NormFloat64()
	tl.t += d
}

// run does w seconds of clean work at mult (the change) in a process of
// draw proc and returns its measured time per unit of work.
func (tl *simTimeline) run(w, mult, proc float64) float64 {
	const dt = 0.001
	start, done, work := tl.t, 0.0, w*mult*proc
	for done < work {
		sp := math.Exp(-tl.s) / tl.slow(tl.t)
		if done+sp*dt >= work {
			tl.t += (work - done) / sp
			break
		}
		done += sp * dt
		tl.t += dt
	}
	wall := tl.t - start
	tl.advance(0)
	return wall / w * math.Exp(tl.m.whiteSD/math.Sqrt(w)*tl.rng.NormFloat64())
}

// simRound is one round of a layout: per side, its runs' values, and the
// round's wall time.
func simRound(tl *simTimeline, l simLayout, c simCost, work, effect float64) (b, h []float64, wall float64) {
	runs := 0
	for _, p := range l.procs {
		runs += p[1]
	}
	w := 2 * work / float64(runs)
	t0 := tl.t
	flip := tl.rng.IntN(2)
	pairFirst := 0
	for _, p := range l.procs {
		side := p[0]
		switch side {
		case -1: // the first of a pair in a random order
			pairFirst = tl.rng.IntN(2)
			side = pairFirst
		case -2:
			side = 1 - pairFirst
		default:
			side = (side + flip) % 2
		}
		tl.advance(c.start + c.setup)
		proc := math.Exp(tl.m.procSD * tl.rng.NormFloat64())
		mult := 1.0
		if side == 1 {
			mult += effect
		}
		for range p[1] {
			tl.advance(c.perRun)
			v := tl.run(w, mult, proc)
			if side == 0 {
				b = append(b, v)
			} else {
				h = append(h, v)
			}
		}
	}
	return b, h, tl.t - t0
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func TestLayoutSim(t *testing.T) {
	if os.Getenv("BENCHGATE_SIM") == "" {
		t.Skip("a simulation: runs with BENCHGATE_SIM=1")
	}
	machines := []simMachine{
		{"quiet, the hog (+20 % while on)", 0.20, 0, 0, 0, 0.01, 30, 0.005, 0.003},
		{"quiet, a weak hog (+5 % while on)", 0.05, 0, 0, 0, 0.01, 30, 0.005, 0.003},
		{"quiet, a strong hog (+50 % while on)", 0.50, 0, 0, 0, 0.01, 30, 0.005, 0.003},
		{"moderate: the hog, bursts 0.3/s ×1.2–2, drift 3 %", 0.20, 0.3, 0.3, 0.6, 0.03, 30, 0.005, 0.003},
		{"heavy: the hog, bursts 1/s ×1.3–2.5, drift 8 %", 0.20, 1.0, 0.5, 1.0, 0.08, 10, 0.01, 0.005},
	}
	costs := []simCost{
		{"no set-up (5 ms a process)", 0.005, 0, 0.0003},
		{"xxhash-like set-up (5 + 15 ms a process)", 0.005, 0.015, 0.0003},
	}
	layouts := []simLayout{
		pairs("5 processes × 1 run (before)", 1, 1, 1, 1, 1),
		pairs("3 processes, 2 + 2 + 1 runs", 2, 2, 1),
		pairs("2 processes, 3 + 2 runs", 3, 2),
		{"2 processes ABBA, 3 + 2 runs", [][2]int{{0, 3}, {1, 3}, {1, 2}, {0, 2}}},
		{"sandwich: 3, the other's 5, 2", [][2]int{{0, 3}, {1, 5}, {0, 2}}},
		pairs("1 process × 5 runs (-test.count)", 5),
		pairs("1 process × 1 run (--runs 1)", 1),
	}
	const rounds, work, reps = 20, 0.1, 600
	for _, m := range machines {
		for _, c := range costs {
			fmt.Printf("\n%s; %s; %d rounds of 100 ms a side, the median of a round's runs\n", m.name, c.name, rounds)
			fmt.Printf("%-34s %8s %10s %10s %12s\n", "layout", "noise", "+3 % found", "+5 % found", "round wall")
			for li, l := range layouts {
				var noise, wall float64
				found := map[float64]int{}
				for _, eff := range []float64{0, 0.03, 0.05} {
					rng := rand.New(rand.NewPCG(uint64(li+1), uint64(1000*eff)+uint64(len(m.name))))
					for range reps {
						tl := newSimTimeline(rng, m)
						lr := make([]float64, rounds)
						for r := range rounds {
							b, h, wl := simRound(tl, l, c, work, eff)
							lr[r] = math.Log(median(h) / median(b))
							if eff == 0 {
								wall += wl
							}
						}
						if eff == 0 {
							noise += stats.RobustSD(lr)
							continue
						}
						// α/20: one benchmark of a suite of 20 under Bonferroni.
						if p, _ := stats.SignedRankTest(lr); p < 0.0005 {
							if hl, _, _, _ := stats.HodgesLehmann(lr, 0.95); hl > 0 {
								found[eff]++
							}
						}
					}
				}
				fmt.Printf("%-34s %7.2f%% %10.2f %10.2f %10.0f ms\n", l.name, 100*noise/reps, float64(found[0.03])/reps, float64(found[0.05])/reps, 1000*wall/(reps*rounds))
			}
		}
	}
}
