package ledger

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/stats"
)

// merge builds one recorded merge of benchmark name the way a run does:
// rounds paired base/head with noise sigma per side and a true change of
// exp(logChange), through the paired analysis and pairedChange.
func merge(t testing.TB, rng *rand.Rand, name string, i int, logChange, sigma float64, rounds int) Entry {
	var base, head []stats.Obs
	for r := range rounds {
		drift := rng.NormFloat64() * 0.05 // shared by the pair: cancels
		base = append(base, stats.Obs{Value: 1e-6 * math.Exp(drift+sigma*rng.NormFloat64()), Round: r, Iters: 1000})
		head = append(head, stats.Obs{Value: 1e-6 * math.Exp(drift+logChange+sigma*rng.NormFloat64()), Round: r, Iters: 1000})
	}
	k := stats.Key{Package: "example.com/m", Name: "X", Unit: "sec/op"}
	set := &stats.Set{Keys: []stats.Key{k}, Base: map[stats.Key][]stats.Obs{k: base}, Head: map[stats.Key][]stats.Obs{k: head}}
	cs := stats.CompareAlpha(set, 0.95, 0.01)
	if len(cs) != 1 || cs[0].Paired == nil {
		t.Fatalf("no paired analysis: %+v", cs)
	}
	p := cs[0].Paired
	e := sample(name, i)
	e.P = nil
	if !pairedChange(&e, p, 0.95) {
		t.Fatalf("pairedChange refused %+v", p)
	}
	return e
}

// suite is a ledger of merges×benchmarks; steps[b][i] is the true log
// change of benchmark b at merge i (missing: none).
func suite(t testing.TB, rng *rand.Rand, benchmarks, merges int, steps map[int]map[int]float64) []Entry {
	var out []Entry
	for i := range merges {
		for b := range benchmarks {
			sigma := 0.01 + 0.02*float64(b%3)/2 // 1 %, 2 %, 3 % per round
			out = append(out, merge(t, rng, fmt.Sprintf("B%d", b), i, steps[b][i], sigma, 20))
		}
	}
	return out
}

// An A/A ledger (no change anywhere, the se each merge's own rounds give)
// calls a creep in at most α of suites, within binomial tolerance. The
// threshold is 0 so that only the error control stands between noise
// and a call; the uncorrected rate shows the control is needed.
func TestSimulationAA(t *testing.T) {
	const suites, alpha = 200, 0.05
	rng := rand.New(rand.NewPCG(1, 2))
	o := Options{Threshold: 0, Alpha: alpha, Confidence: 0.95}
	called, uncorrected := 0, 0
	for range suites {
		h := Analyze(suite(t, rng, 8, 12, nil), o)
		if len(h.Creeps) > 0 {
			called++
		}
		any := false
		for _, s := range h.Series {
			windows(s, RecentMerges, alpha, func(window) { any = true })
		}
		if any {
			uncorrected++
		}
	}
	limit := alpha*suites + 3*math.Sqrt(alpha*(1-alpha)*suites)
	t.Logf("A/A: creeps in %d of %d suites (limit %.0f); a window significant before correction in %d", called, suites, limit, uncorrected)
	if float64(called) > limit {
		t.Errorf("A/A suites with a creep: %d of %d, want at most %.0f (α %v)", called, suites, limit, alpha)
	}
	if float64(uncorrected) < 4*alpha*suites {
		t.Errorf("only %d of %d suites had an uncorrected significant window: the simulation does not exercise the correction", uncorrected, suites)
	}
}

// Three +4 % steps among a dozen merges (each below the 5 % threshold)
// make a creep of about +12 % on that benchmark and nothing elsewhere;
// the three steps are its largest contributors.
func TestSimulationCreep(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	step := math.Log(1.04)
	truth := 1.04*1.04*1.04 - 1
	for seed := range 20 {
		entries := suite(t, rng, 10, 12, map[int]map[int]float64{3: {2: step, 5: step, 9: step}})
		h := Analyze(entries, DefaultOptions())
		if len(h.Creeps) != 1 {
			t.Fatalf("seed %d: %d creeps, want 1: %+v", seed, len(h.Creeps), h.Creeps)
		}
		c := h.Creeps[0]
		// The window's own noise is about ±2 % (2 sd) and picking it adds a
		// little; its interval must hold the truth.
		if c.Name != "B3" || c.Change < 0.09 || c.Change > 0.17 || !(c.Low < truth && truth < c.High) {
			t.Errorf("seed %d: creep %s %+.3f [%+.3f, %+.3f], want B3 about +0.125", seed, c.Name, c.Change, c.Low, c.High)
		}
		if testing.Verbose() {
			t.Logf("seed %d: creep %s %+.3f [%+.3f, %+.3f] over %d merges", seed, c.Name, c.Change, c.Low, c.High, c.Merges)
		}
		want := map[string]bool{}
		for _, i := range []int{2, 5, 9} {
			want[fmt.Sprintf("%040x", i+1)] = true
		}
		if len(c.Contributors) < 3 {
			t.Fatalf("seed %d: contributors %v", seed, c.Contributors)
		}
		for _, k := range c.Contributors[:3] {
			if !want[k.SHA] {
				t.Errorf("seed %d: contributor %s (%+.3f) is not one of the steps", seed, k.SHA, k.Change)
			}
		}
		if !c.Running || c.First != fmt.Sprintf("%040x", 3) && c.First > fmt.Sprintf("%040x", 3) {
			t.Errorf("seed %d: creep from %s running %v", seed, c.First, c.Running)
		}
	}
}

func TestChainLevels(t *testing.T) {
	var entries []Entry
	for i, lr := range []float64{0.1, -0.05, 0.02} {
		e := sample("A", i)
		e.LogRatio, e.Change, e.SE, e.Low, e.High = lr, math.Expm1(lr), 0.01, lr-0.02, lr+0.02
		entries = append(entries, e)
	}
	// The same head again (a re-run): replaces, does not add.
	dup := entries[2]
	dup.LogRatio, dup.Change = 0.03, math.Expm1(0.03)
	dup.Low, dup.High = 0.01, 0.05
	entries = append(entries, dup)
	h := Analyze(entries, DefaultOptions())
	if len(h.Series) != 1 || len(h.Series[0].Merges) != 3 {
		t.Fatalf("series %+v", h.Series)
	}
	s := h.Series[0]
	if got, want := s.Level, math.Expm1(0.1-0.05+0.03); math.Abs(got-want) > 1e-12 {
		t.Errorf("level %v, want %v", got, want)
	}
	// The interval grows as √(Σ se²).
	half := 1.959963984540054 * math.Sqrt(3*0.01*0.01)
	if got, want := s.High, math.Expm1(0.08+half); math.Abs(got-want) > 1e-9 {
		t.Errorf("level high %v, want %v", got, want)
	}
	if got, want := s.Merges[0].LevelHigh, math.Expm1(0.1+1.959963984540054*0.01); math.Abs(got-want) > 1e-9 {
		t.Errorf("first level high %v, want %v", got, want)
	}
}

// Exact counts (se 0) make any summed regression beyond the threshold a
// creep, and a higher-is-better unit creeps downwards.
func TestCreepDirectionsAndExact(t *testing.T) {
	var entries []Entry
	for i := range 6 {
		a := sample("Allocs", i)
		a.Unit, a.Test, a.SE, a.P = "allocs/op", "exact", 0, nil
		a.LogRatio = 0
		if i == 1 || i == 3 {
			a.LogRatio = math.Log(1.03)
		}
		a.Change, a.Low, a.High = math.Expm1(a.LogRatio), a.LogRatio, a.LogRatio
		entries = append(entries, a)
		r := sample("Rate", i)
		r.Unit, r.Direction, r.SE = "B/s", Higher, 0.002
		r.LogRatio = -0.03
		r.Change, r.Low, r.High = math.Expm1(r.LogRatio), r.LogRatio-0.004, r.LogRatio+0.004
		entries = append(entries, r)
	}
	h := Analyze(entries, DefaultOptions())
	got := map[string]Creep{}
	for _, c := range h.Creeps {
		got[c.Name] = c
	}
	if c, ok := got["Allocs"]; !ok || math.Abs(c.Change-(1.03*1.03-1)) > 1e-12 || c.Merges != 3 {
		t.Errorf("allocs creep %+v, want +6.09 %% over merges 2–4", c)
	}
	if c, ok := got["Rate"]; !ok || c.Change > -0.15 || c.Merges != 6 {
		t.Errorf("rate creep %+v, want about −16 %% over 6 merges", c)
	}
}

func TestSince(t *testing.T) {
	var entries []Entry
	for i := range 4 {
		entries = append(entries, sample("A", i))
	}
	if got, ok := Since(entries, fmt.Sprintf("%040x", 2)); !ok || len(got) != 2 || got[0].Base.SHA != fmt.Sprintf("%040x", 2) {
		t.Errorf("Since base: %d entries, ok %v", len(got), ok)
	}
	if got, ok := Since(entries, fmt.Sprintf("%040x", 4)); !ok || len(got) != 0 {
		t.Errorf("Since last head: %d entries, ok %v", len(got), ok)
	}
	if _, ok := Since(entries, "main"); ok {
		t.Error("Since accepted a branch name")
	}
	got := SinceTime(entries, time.Date(2026, 11, 1, 10, 3, 0, 0, time.UTC))
	if len(got) != 2 {
		t.Errorf("SinceTime: %d entries, want 2", len(got))
	}
}

// TestCreepOfCounts: in a near-exact series (instructions/op, se ≈ 0) the
// merges around a creep's steps move the level by a few parts per million;
// the creep starts at its first step and ends at its last, not at the
// first and last merges that moved it at all (creep_history.txtar, CI
// 2026-12-02: the window ran from c2).
func TestCreepOfCounts(t *testing.T) {
	var es []Entry
	for i := range 11 {
		e := sample("Work", i)
		e.Unit, e.Test, e.N, e.P, e.SE = "instructions/op", "exact", 1, nil, 1e-7
		lr := 8e-5 // noise of a count: + a few ppm
		if i == 2 || i == 5 || i == 8 {
			lr = math.Log(1.04)
		}
		e.LogRatio, e.Change = lr, math.Expm1(lr)
		e.Low, e.High = lr-2e-7, lr+2e-7
		es = append(es, e)
	}
	h := Analyze(es, DefaultOptions())
	if len(h.Creeps) != 1 {
		t.Fatalf("creeps = %+v, want one", h.Creeps)
	}
	c := h.Creeps[0]
	if c.First != es[2].Head.SHA || c.Last != es[8].Head.SHA || c.Merges != 7 {
		t.Errorf("creep from %s to %s over %d merges, want from the first step (%s) to the last (%s), 7 merges",
			c.First, c.Last, c.Merges, es[2].Head.SHA, es[8].Head.SHA)
	}
	if math.Abs(c.Change-0.1251) > 0.001 {
		t.Errorf("change = %.4f, want +12.5 %%", c.Change)
	}
}
