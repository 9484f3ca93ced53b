package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEstimatorReduce(t *testing.T) {
	v := []float64{13, 10, 40, 11, 12} // one run hit by interference
	orig := slices.Clone(v)
	for _, tt := range []struct {
		e    Estimator
		want float64
	}{
		{Median, 12},
		{"", 12}, // the zero value is the median
		{Min, 10},
		{P25, 11}, // position 0.25·4 = 1: the second smallest
		{Mean, 17.2},
	} {
		if got := tt.e.Reduce(v); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s.Reduce(%v) = %v, want %v", tt.e, v, got, tt.want)
		}
	}
	if !slices.Equal(v, orig) {
		t.Errorf("Reduce modified its input: %v", v)
	}
	// Even counts and interpolation.
	for _, tt := range []struct {
		e    Estimator
		v    []float64
		want float64
	}{
		{Median, []float64{4, 1, 3, 2}, 2.5},
		{P25, []float64{4, 1, 3, 2}, 1.75}, // position 0.75
		{P25, []float64{2, 1}, 1.25},
		{Min, []float64{7}, 7},
		{Mean, []float64{7}, 7},
	} {
		if got := tt.e.Reduce(tt.v); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s.Reduce(%v) = %v, want %v", tt.e, tt.v, got, tt.want)
		}
	}
	if got := Median.Reduce(nil); !math.IsNaN(got) {
		t.Errorf("Reduce(nil) = %v, want NaN", got)
	}
}

func TestParseEstimator(t *testing.T) {
	for _, s := range []string{"median", "min", "p25", "mean"} {
		e, err := ParseEstimator(s)
		if err != nil || string(e) != s {
			t.Errorf("ParseEstimator(%q) = %q, %v", s, e, err)
		}
	}
	if e, err := ParseEstimator(""); err != nil || e != Median {
		t.Errorf(`ParseEstimator("") = %q, %v; want median`, e, err)
	}
	if _, err := ParseEstimator("max"); err == nil || !strings.Contains(err.Error(), "median, min, p25 or mean") {
		t.Errorf("ParseEstimator(max): err = %v", err)
	}
}

func TestRounds(t *testing.T) {
	o := func(v float64, round int) Obs { return Obs{Value: v, Round: round, Iters: 100} }
	obs := []Obs{o(12, 2), o(10, 1), o(30, 1), o(11, 1), o(9, -1), o(13, 2)}
	got := Rounds(obs, Min)
	want := []RoundStat{
		{Round: 1, Runs: 3, Value: 10, Median: 11, Min: 10},
		{Round: 2, Runs: 2, Value: 12, Median: 12.5, Min: 12},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Rounds (-want +got):\n%s", diff)
	}
	if got := Rounds([]Obs{o(1, -1)}, Median); got != nil {
		t.Errorf("no rounds: %v, want nil", got)
	}
}

// B5: several runs per side in one round are reduced by the estimator, not
// averaged. Each round has five equal runs a side, head 3 % slower,
// and one run in each round slowed by 60 % by interference, on base in
// even rounds and on head in odd ones. The mean carries the interference
// into every round's ratio; the median (the default) and min do not.
func TestPairedEstimatorB5(t *testing.T) {
	var text [2]strings.Builder
	for round := 1; round <= 10; round++ {
		for i := range 2 {
			text[i].WriteString("round: " + strconv.Itoa(round) + "\n")
			for run := range 5 {
				v := 1000.0
				if i == 1 {
					v *= 1.03
				}
				if run == 2 && round%2 == i {
					v *= 1.6
				}
				text[i].WriteString("BenchmarkX 100 " + strconv.FormatFloat(v, 'f', -1, 64) + " ns/op\n")
			}
		}
	}
	for _, tt := range []struct {
		e         Estimator
		wantRatio float64
		exact     bool
	}{
		{"", 1.03, true},
		{Median, 1.03, true},
		{Min, 1.03, true},
		{P25, 1.03, true},
		{Mean, 1.03, false},
	} {
		s := load(t, text[0].String(), text[1].String())
		s.Estimator = tt.e
		c := compare(s, 0.95)[0]
		p := c.Paired
		if p == nil {
			t.Fatalf("%s: no paired analysis: %v", tt.e, c.Warnings)
		}
		if p.N != 10 || p.Runs != 5 {
			t.Errorf("%s: N = %d, Runs = %d; want 10, 5", tt.e, p.N, p.Runs)
		}
		wantEst := tt.e
		if wantEst == "" {
			wantEst = Median
		}
		if c.Estimator != wantEst || p.Estimator != wantEst {
			t.Errorf("estimator: comparison %q, paired %q; want %q", c.Estimator, p.Estimator, wantEst)
		}
		off := math.Abs(p.Ratio - tt.wantRatio)
		if tt.exact && (off > 1e-9 || p.Noise > 1e-9 || p.P > 0.0021) {
			t.Errorf("%s: ratio %v, noise %v, p %v; want exactly +3 %% with no noise and the floor p", tt.e, p.Ratio, p.Noise, p.P)
		}
		if !tt.exact && (p.Noise < 0.05 || p.P < 0.01) {
			// The old average: every round is off by ±12 %.
			t.Errorf("%s: noise %v, p %v; want the interference carried into the rounds", tt.e, p.Noise, p.P)
		}
		if math.Abs(p.MedianRatio-1.03) > 1e-9 || math.Abs(p.MinRatio-1.03) > 1e-9 {
			t.Errorf("%s: median ratio %v, min ratio %v; want 1.03", tt.e, p.MedianRatio, p.MinRatio)
		}
		// benchstat's numbers pool every run.
		if c.Base.N != 50 || c.Head.N != 50 {
			t.Errorf("%s: summaries of %d and %d runs, want 50", tt.e, c.Base.N, c.Head.N)
		}
		// Round 10: base's third run was hit; head's runs are clean.
		if len(c.BaseRounds) != 10 || c.BaseRounds[9].Runs != 5 || math.Abs(c.BaseRounds[9].Min-1000e-9) > 1e-15 ||
			math.Abs(c.BaseRounds[9].Median-1000e-9) > 1e-15 || math.Abs(c.HeadRounds[9].Median-1030e-9) > 1e-15 {
			t.Errorf("%s: rounds %+v / %+v", tt.e, c.BaseRounds, c.HeadRounds)
		}
	}
}

// B4: zero log-ratios (rounds whose reduced values are equal on both sides,
// common with coarse timings) carry no evidence, so the floor of the
// p-value is 2/2^k over the k non-zero ones, not 2/2^N.
func TestPairedMinPCountsZeros(t *testing.T) {
	o := func(v float64, round int) Obs { return Obs{Value: v, Round: round, Iters: 1} }
	var base, head []Obs
	for r := range 10 {
		base = append(base, o(100, r))
		h := 100.0
		if r < 6 {
			h = 110 // six rounds slower, four identical
		}
		head = append(head, o(h, r))
	}
	p, warn := newPaired(base, head, 0.95, 0.01)
	if p == nil {
		t.Fatal(warn)
	}
	if p.N != 10 || p.NonZero != 6 {
		t.Fatalf("N = %d, NonZero = %d; want 10, 6", p.N, p.NonZero)
	}
	if got, want := SignedRankMinP(p.NonZero), SignedRankMinP(6); got != want || want != 1.0/32 {
		t.Errorf("MinP = %v, want 2/2^6 = %v", got, want)
	}
	// The test itself agrees: all six non-zero rounds point the same way,
	// and that is exactly the floor; the floor over all 10 rounds would
	// promise a p the data can never give.
	if p.P != SignedRankMinP(p.NonZero) {
		t.Errorf("P = %v, want the floor %v", p.P, SignedRankMinP(p.NonZero))
	}
	if p.P < 0.01 || SignedRankMinP(p.N) >= 0.01 {
		t.Errorf("P = %v, floor over N = %v: the row must be unable to reach α = 0.01 although N rounds could", p.P, SignedRankMinP(p.N))
	}
	// No zeros: MinP is the usual floor.
	head[9].Value = 99
	p, _ = newPaired(base, head, 0.95, 0.01)
	if p.NonZero != 7 || SignedRankMinP(p.NonZero) != SignedRankMinP(7) {
		t.Errorf("NonZero = %d, MinP = %v", p.NonZero, SignedRankMinP(p.NonZero))
	}
}

// hlRatio's selection gives HodgesLehmann's estimate.
func TestHLRatioMatchesHodgesLehmann(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 30; n++ {
		b, h := make([]RoundStat, n), make([]RoundStat, n)
		d := make([]float64, n)
		for i := range n {
			b[i].Min = 1 + rng.Float64()
			h[i].Min = b[i].Min * math.Exp(0.1*rng.NormFloat64())
			if i%4 == 0 {
				h[i].Min = b[i].Min // ties and zeros
			}
			d[i] = math.Log(h[i].Min / b[i].Min)
		}
		est, _, _, _ := HodgesLehmann(d, 0.95)
		if got := hlRatio(b, h, func(r RoundStat) float64 { return r.Min }); math.Abs(got-math.Exp(est)) > 1e-12 {
			t.Errorf("n=%d: hlRatio %v, HodgesLehmann %v", n, got, math.Exp(est))
		}
	}
}
