package gate

// What the paired test buys, measured: simulated interleaved runs with
// known injected effects, judged by this package's gate with and without
// the rounds (the paired test against benchstat's U test), and the same on
// real interleaved samples.
//
//	go test -run '^$' -bench PairedVsUTest -benchtime 2000x ./internal/gate/
//	BENCHGATE_SIM=1 go test -run 'TestSimulation|TestRealInterleaved' -v ./internal/gate/
//
// The benchmark reports, per scenario, rounds and effect, the share of
// runs the gate called a regression with each test (paired-rate,
// utest-rate; -benchtime Nx sets the number of simulated runs, each seeded
// by its index, so the figures are reproducible). TestSimulation prints
// the same as Markdown tables with 4,000 runs per cell, plus a suite of
// 100 benchmarks. TestRealInterleaved uses real raw files (see there).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
)

// scenario is a model of a machine: each run's time is
// true × exp(state + run noise); the state is shared by consecutive runs
// and drifts as an AR(1) process in log space with stationary standard
// deviation Drift and coefficient Rho between consecutive runs.
type scenario struct {
	Name       string
	RunNoise   float64 // standard deviation of a run's own log-noise
	Drift, Rho float64
}

var scenarios = []scenario{
	{"quiet", 0.01, 0, 0},        // 1 % run noise, no drift
	{"drift", 0.01, 0.03, 0.95},  // + 3 % slowly drifting state (SCIENCE.md §2)
	{"loaded", 0.02, 0.10, 0.95}, // a loaded machine: 2 % noise, 10 % drift
	{"jumpy", 0.03, 0.05, 0.5},   // fast-changing state: pairing helps less
	{"heavy", 0.01, 0.03, 0.95},  // "drift" with heavy-tailed run noise (t, 3 df)
}

var simEffects = []float64{0, 0.02, 0.03, 0.05, 0.07, 0.10}

// simulate draws n interleaved rounds: in each round base and head run
// back to back in a random order; head is (1+effect) times slower.
func simulate(rng *rand.Rand, sc scenario, n int, effect float64) (base, head []float64) {
	state := sc.Drift * rng.NormFloat64()
	next := func() float64 {
		state = sc.Rho*state + math.Sqrt(1-sc.Rho*sc.Rho)*sc.Drift*rng.NormFloat64()
		noise := rng.NormFloat64()
		if sc.Name == "heavy" {
			// Student's t with 3 degrees of freedom, scaled to sd 1.
			chi := 0.0
			for range 3 {
				z := rng.NormFloat64()
				chi += z * z
			}
			noise = noise / math.Sqrt(chi/3) / math.Sqrt(3)
		}
		return state + sc.RunNoise*noise
	}
	for range n {
		var b, h float64
		if rng.IntN(2) == 0 {
			b, h = next(), next()
		} else {
			h, b = next(), next()
		}
		base = append(base, 1e-3*math.Exp(b))
		head = append(head, 1e-3*(1+effect)*math.Exp(h))
	}
	return base, head
}

// comparisons returns the comparison of one benchmark with rounds (paired)
// and without (benchstat's U test).
func comparisons(name string, base, head []float64, alpha float64) (paired, unpaired stats.Comparison) {
	k := stats.Key{Package: "sim", Name: name, Unit: "sec/op"}
	set := func(round func(int) int) *stats.Set {
		s := &stats.Set{Keys: []stats.Key{k}, Base: map[stats.Key][]stats.Obs{}, Head: map[stats.Key][]stats.Obs{}}
		for i := range base {
			s.Base[k] = append(s.Base[k], stats.Obs{Value: base[i], Round: round(i), Iters: 1000})
			s.Head[k] = append(s.Head[k], stats.Obs{Value: head[i], Round: round(i), Iters: 1000})
		}
		return s
	}
	paired = stats.CompareAlpha(set(func(i int) int { return i }), 0.95, alpha)[0]
	unpaired = stats.CompareAlpha(set(func(int) int { return -1 }), 0.95, alpha)[0]
	return paired, unpaired
}

// cell is one simulated configuration's outcome rates.
type cell struct {
	pairedFlag, uFlag float64 // share called a regression by the gate
	pairedSig, uSig   float64 // share significant (adjusted p < α), whatever the delta
}

func runCell(sc scenario, n int, effect float64, reps int, seed uint64) cell {
	p := DefaultPolicy()
	var c cell
	for i := range reps {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		base, head := simulate(rng, sc, n, effect)
		pc, uc := comparisons("X", base, head, p.Alpha)
		for _, tc := range []struct {
			cmp       stats.Comparison
			flag, sig *float64
		}{{pc, &c.pairedFlag, &c.pairedSig}, {uc, &c.uFlag, &c.uSig}} {
			r := Judge([]stats.Comparison{tc.cmp}, nil, p).Results[0]
			if r.Status == Regression {
				*tc.flag++
			}
			if r.PAdjusted != nil && *r.PAdjusted < p.Alpha {
				*tc.sig++
			}
		}
	}
	for _, v := range []*float64{&c.pairedFlag, &c.uFlag, &c.pairedSig, &c.uSig} {
		*v /= float64(reps)
	}
	return c
}

func cellSeed(sc scenario, n int, effect float64) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range []byte(fmt.Sprintf("%s/%d/%g", sc.Name, n, effect)) {
		h = (h ^ uint64(b)) * 1099511628211
	}
	return h
}

// BenchmarkPairedVsUTest reports, for each scenario, number of rounds and
// injected effect, the share of b.N simulated runs that the default gate
// (delta ≥ +5 % and p < 0.01) calls a regression with the paired test and
// with benchstat's U test. Use -benchtime Nx to set the number of runs.
func BenchmarkPairedVsUTest(b *testing.B) {
	for _, sc := range scenarios {
		for _, n := range []int{10, 20} {
			for _, e := range simEffects {
				b.Run(fmt.Sprintf("scenario=%s/n=%d/effect=%.0f%%", sc.Name, n, 100*e), func(b *testing.B) {
					c := runCell(sc, n, e, b.N, cellSeed(sc, n, e))
					b.ReportMetric(c.pairedFlag, "paired-rate")
					b.ReportMetric(c.uFlag, "utest-rate")
					b.ReportMetric(c.pairedSig, "paired-sig")
					b.ReportMetric(c.uSig, "utest-sig")
				})
			}
		}
	}
}

// TestSimulation prints the simulation as Markdown tables and asserts
// that no A/A cell's false-positive rate exceeds α within binomial
// tolerance. It runs only with BENCHGATE_SIM=1 (about a minute on 2
// cores); the rules' own simulations (simrules_test.go) run always.
func TestSimulation(t *testing.T) {
	if os.Getenv("BENCHGATE_SIM") == "" {
		t.Skip("set BENCHGATE_SIM=1 to run the simulation")
	}
	const reps = 4000
	var out strings.Builder
	fmt.Fprintf(&out, "\nShare of %d simulated runs called a regression by the default gate (delta ≥ +5%%, p < 0.01), paired test / benchstat's U test; in brackets, the share significant at p < 0.01 whatever the delta.\n\n", reps)
	fmt.Fprintf(&out, "| scenario | rounds |")
	for _, e := range simEffects {
		fmt.Fprintf(&out, " +%.0f%% |", 100*e)
	}
	fmt.Fprintf(&out, "\n|:--|--:|")
	for range simEffects {
		fmt.Fprintf(&out, "--:|")
	}
	fmt.Fprintln(&out)
	for _, sc := range scenarios {
		for _, n := range []int{10, 20} {
			fmt.Fprintf(&out, "| %s | %d |", sc.Name, n)
			for _, e := range simEffects {
				c := runCell(sc, n, e, reps, cellSeed(sc, n, e))
				fmt.Fprintf(&out, " %.3f / %.3f (%.2f / %.2f) |", c.pairedFlag, c.uFlag, c.pairedSig, c.uSig)
				if tol := binomTol(0.01, reps); e == 0 && (c.pairedFlag > 0.01+tol || c.uFlag > 0.01+tol || c.pairedSig > 0.01+tol || c.uSig > 0.01+tol) {
					t.Errorf("%s, %d rounds, A/A: false-positive rates %v, want ≤ α=0.01 (+%.4f)", sc.Name, n, c, tol)
				}
			}
			fmt.Fprintln(&out)
		}
	}
	out.WriteString(suiteTable(t, 200))
	out.WriteString(sequentialTable(1000))
	t.Log(out.String())
}

// suiteTable simulates suites of 100 benchmarks on the "loaded" machine,
// judged together: all unchanged (A/A), or 5 of them 10% slower.
func suiteTable(t *testing.T, reps int) string {
	var out strings.Builder
	fmt.Fprintf(&out, "\nSuites of 100 benchmarks on the \"loaded\" machine (%d suites per cell, judged together): the share of A/A suites with any false regression, at the default gate and with no threshold at all (any significant slowdown counts), with Holm's correction and without; and how many of 5 real +10%% regressions among 100 are found.\n\n", reps)
	out.WriteString("| rounds | test | A/A, default gate | A/A, threshold 0, Holm | A/A, threshold 0, no correction | 5 × +10%: found |\n|--:|:--|--:|--:|--:|--:|\n")
	sc := scenarios[2]
	def := DefaultPolicy()
	zero := def
	zero.Threshold = 0
	zeroNone := zero
	zeroNone.Correction = NoCorrection
	for _, n := range []int{10, 20} {
		for _, paired := range []bool{true, false} {
			var anyDef, anyZero, anyNone, found int
			for i := range reps {
				for _, withEffects := range []bool{false, true} {
					rng := rand.New(rand.NewPCG(uint64(n), uint64(i)*2+boolBit(withEffects)))
					var cmps []stats.Comparison
					for j := range 100 {
						e := 0.0
						if withEffects && j < 5 {
							e = 0.10
						}
						base, head := simulate(rng, sc, n, e)
						pc, uc := comparisons(fmt.Sprintf("B%03d", j), base, head, def.Alpha)
						if paired {
							cmps = append(cmps, pc)
						} else {
							cmps = append(cmps, uc)
						}
					}
					if withEffects {
						for j, r := range Judge(cmps, nil, def).Results {
							if j < 5 && r.Status == Regression {
								found++
							}
						}
						continue
					}
					for _, pc := range []struct {
						p     Policy
						count *int
					}{{def, &anyDef}, {zero, &anyZero}, {zeroNone, &anyNone}} {
						if len(Judge(cmps, nil, pc.p).Regressions()) > 0 {
							*pc.count++
						}
					}
				}
			}
			name := "benchstat U test"
			if paired {
				name = "paired"
				if !Feasible(n, def.Alpha, 100, Holm) {
					name += " (the U test: the paired floor is too high)"
				}
			}
			r := float64(reps)
			fmt.Fprintf(&out, "| %d | %s | %.3f | %.3f | %.3f | %.2f |\n", n, name, float64(anyDef)/r, float64(anyZero)/r, float64(anyNone)/r, float64(found)/r)
			if tol := binomTol(def.Alpha, reps); float64(anyDef)/r > def.Alpha+tol || float64(anyZero)/r > def.Alpha+tol {
				t.Errorf("suite of 100, %d rounds, %s: A/A suites with a false regression %.3f (threshold 0: %.3f), want ≤ α (+%.3f)", n, name, float64(anyDef)/r, float64(anyZero)/r, tol)
			}
		}
	}
	return out.String()
}

// sequentialTable simulates runs of at most 20 rounds that stop early:
// Look after every round, which decides only at the planned looks after
// rounds 5, 10, 15 and 20, against a fixed run of 20 rounds.
func sequentialTable(reps int) string {
	var out strings.Builder
	fmt.Fprintf(&out, "\nSequential runs of at most 20 rounds (%d runs per cell, default gate): Look after every round, decisions (significance, or \"within ±5%%\" at 1−2α/4) only at the planned looks after rounds 5, 10, 15 and 20; against a fixed run of 20 rounds. Share called a regression, and mean rounds used.\n\n", reps)
	out.WriteString("| scenario | effect | sequential: regression | mean rounds | fixed 20: regression |\n|:--|--:|--:|--:|--:|\n")
	p := DefaultPolicy()
	p.Looks = []int{5, 10, 15, 20}
	fixed := DefaultPolicy()
	for _, sc := range []scenario{scenarios[1], scenarios[2]} {
		for _, e := range []float64{0, 0.03, 0.05, 0.10} {
			var seqReg, fixReg, rounds int
			for i := range reps {
				rng := rand.New(rand.NewPCG(cellSeed(sc, 20, e), uint64(i)+1<<40))
				base, head := simulate(rng, sc, 20, e)
				used := 20
				var last Status
				for n := 2; n <= 20; n++ {
					pc, _ := comparisons("X", base[:n], head[:n], p.Alpha)
					if d, ok := Look([]stats.Comparison{pc}, p)[pc.Key]; ok {
						used, last = n, d.Status
						break
					}
				}
				if last == "" {
					pc, _ := comparisons("X", base, head, p.Alpha)
					last = Judge([]stats.Comparison{pc}, nil, p).Results[0].Status
				}
				if last == Regression {
					seqReg++
				}
				rounds += used
				pc, _ := comparisons("X", base, head, p.Alpha)
				if Judge([]stats.Comparison{pc}, nil, fixed).Results[0].Status == Regression {
					fixReg++
				}
			}
			r := float64(reps)
			fmt.Fprintf(&out, "| %s | +%.0f%% | %.3f | %.1f | %.3f |\n", sc.Name, 100*e, float64(seqReg)/r, float64(rounds)/r, float64(fixReg)/r)
		}
	}
	return out.String()
}

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// TestRealInterleaved measures both tests on real interleaved samples and
// asserts that the A/A subsets (effect 0) are called a regression at most
// α of the time, within binomial tolerance:
// raw files written by `benchgate run --out DIR`, ideally of an A/A run
// (`--allow-same`: base and head the same commit) so that every real
// difference is noise. Known effects are injected by scaling head's
// values; for each benchmark with at least 20 paired rounds, random
// subsets of 10 rounds (pairs kept together) are judged 400 times per
// effect. It reads BENCHGATE_REAL_BASE and BENCHGATE_REAL_HEAD, or
// testdata/real/base.txt and head.txt, and is skipped without them.
func TestRealInterleaved(t *testing.T) {
	basePath, headPath := os.Getenv("BENCHGATE_REAL_BASE"), os.Getenv("BENCHGATE_REAL_HEAD")
	if basePath == "" {
		basePath, headPath = filepath.Join("testdata", "real", "base.txt"), filepath.Join("testdata", "real", "head.txt")
	}
	open := func(path string) stats.Input {
		f, err := os.Open(path)
		if err != nil {
			t.Skipf("no real raw files (%v): set BENCHGATE_REAL_BASE and BENCHGATE_REAL_HEAD", err)
		}
		t.Cleanup(func() { f.Close() })
		return stats.Input{Name: path, R: f}
	}
	b, h := open(basePath), open(headPath)
	set, err := stats.Load(b, h)
	if err != nil {
		t.Fatal(err)
	}
	// In a plain go test run (committed files), a quick look: 5
	// benchmarks, 100 draws; BENCHGATE_SIM=1 does all of them, 400 draws.
	sub, draws, maxRows := 10, 100, 5
	if os.Getenv("BENCHGATE_SIM") != "" {
		draws, maxRows = 400, math.MaxInt
	}
	p := DefaultPolicy()
	var out strings.Builder
	fmt.Fprintf(&out, "\nReal interleaved samples (%s, %s): share of %d random %d-round subsets called a regression, paired / U test, after scaling head by 1+effect.\n\n", basePath, headPath, draws, sub)
	out.WriteString("| benchmark | rounds | noise | U-test noise |")
	for _, e := range simEffects {
		fmt.Fprintf(&out, " +%.0f%% |", 100*e)
	}
	out.WriteString("\n|:--|--:|--:|--:|" + strings.Repeat("--:|", len(simEffects)) + "\n")
	rows := 0
	for _, k := range set.Keys {
		if k.Unit != "sec/op" {
			continue
		}
		bv, hv := roundPairs(set.Base[k], set.Head[k])
		if len(bv) < 2*sub || rows == maxRows {
			continue
		}
		rows++
		d := make([]float64, len(bv))
		for i := range bv {
			d[i] = math.Log(hv[i] / bv[i])
		}
		ls := func(x []float64) []float64 {
			o := make([]float64, len(x))
			for i, v := range x {
				o[i] = math.Log(v)
			}
			return o
		}
		// The spread the U test faces: of each side's values, pooled.
		uNoise := math.Sqrt((sq(stats.RobustSD(ls(bv))) + sq(stats.RobustSD(ls(hv)))))
		fmt.Fprintf(&out, "| %s | %d | %.1f%% | %.1f%% |", k.Name, len(bv), 100*stats.RobustSD(d), 100*uNoise)
		for _, e := range simEffects {
			rng := rand.New(rand.NewPCG(uint64(len(bv)), math.Float64bits(e)))
			pf, uf := 0, 0
			idx := make([]int, len(bv))
			for i := range idx {
				idx[i] = i
			}
			defer func(e float64) {
				if tol := binomTol(p.Alpha, draws); e == 0 && (float64(pf)/float64(draws) > p.Alpha+tol || float64(uf)/float64(draws) > p.Alpha+tol) {
					t.Errorf("%s, real A/A rounds: %d and %d of %d subsets called a regression, want ≤ α=%v (+%.3f)", k.Name, pf, uf, draws, p.Alpha, tol)
				}
			}(e)
			for range draws {
				rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
				pick := slices.Clone(idx[:sub])
				slices.Sort(pick)
				var sb, sh []float64
				for _, i := range pick {
					sb = append(sb, bv[i])
					sh = append(sh, hv[i]*(1+e))
				}
				pc, uc := comparisons(k.Name, sb, sh, p.Alpha)
				if Judge([]stats.Comparison{pc}, nil, p).Results[0].Status == Regression {
					pf++
				}
				if Judge([]stats.Comparison{uc}, nil, p).Results[0].Status == Regression {
					uf++
				}
			}
			fmt.Fprintf(&out, " %.2f / %.2f |", float64(pf)/float64(draws), float64(uf)/float64(draws))
		}
		out.WriteString("\n")
	}
	if rows == 0 {
		t.Skipf("no sec/op benchmark with at least %d paired rounds in %s and %s", 2*sub, basePath, headPath)
	}
	t.Log(out.String())
}

func sq(x float64) float64 { return x * x }

// roundPairs is each round both sides ran, ascending: base's and head's
// runs of the round reduced to their median, as the paired test pairs them.
func roundPairs(base, head []stats.Obs) (b, h []float64) {
	heads := map[int]float64{}
	for _, r := range stats.Rounds(head, stats.Median) {
		heads[r.Round] = r.Value
	}
	for _, r := range stats.Rounds(base, stats.Median) {
		if v, ok := heads[r.Round]; ok {
			b, h = append(b, r.Value), append(h, v)
		}
	}
	return b, h
}
