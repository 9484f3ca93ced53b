package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bruteSignedRank computes the two-sided signed-rank p-value by enumerating
// every sign flip of the non-zero differences, with midranks computed the
// slow way: an independent implementation for small inputs.
func bruteSignedRank(d []float64) float64 {
	n := len(d)
	rank := make([]float64, n)
	for i := range d {
		less, equal := 0, 0
		for j := range d {
			switch {
			case math.Abs(d[j]) < math.Abs(d[i]):
				less++
			case math.Abs(d[j]) == math.Abs(d[i]):
				equal++
			}
		}
		rank[i] = float64(less) + float64(equal+1)/2
	}
	var nz []float64
	obs := 0.0
	for i, v := range d {
		if v != 0 {
			nz = append(nz, rank[i])
			if v > 0 {
				obs += rank[i]
			}
		}
	}
	if len(nz) == 0 {
		return 1
	}
	ge, le, total := 0, 0, 1<<len(nz)
	for mask := range total {
		t := 0.0
		for i, r := range nz {
			if mask&(1<<i) != 0 {
				t += r
			}
		}
		if t >= obs-1e-9 {
			ge++
		}
		if t <= obs+1e-9 {
			le++
		}
	}
	return math.Min(1, 2*float64(min(ge, le))/float64(total))
}

func TestSignedRankTest(t *testing.T) {
	tests := []struct {
		name  string
		d     []float64
		p     float64 // 0: compare with bruteSignedRank
		exact bool
	}{
		{"no pairs", nil, 1, true},
		{"one pair", []float64{0.1}, 1, true},
		{"one zero", []float64{0}, 1, true},
		{"all zeros", []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 1, true},
		{"ten slower rounds: the floor 2/2^10", []float64{.01, .02, .03, .04, .05, .06, .07, .08, .09, .1}, 2.0 / 1024, true},
		{"ten faster rounds", []float64{-.01, -.02, -.03, -.04, -.05, -.06, -.07, -.08, -.09, -.1}, 2.0 / 1024, true},
		{"all equal ratios: one tie group, all positive", []float64{.05, .05, .05, .05, .05, .05, .05, .05}, 2.0 / 256, true},
		{"seven zeros and three slower rounds: the floor of 3 non-zero pairs", []float64{0, 0, 0, 0, 0, 0, 0, .1, .2, .3}, 0.25, true},
		{"symmetric", []float64{-.03, -.02, -.01, .01, .02, .03}, 1, true},
		{"textbook, no ties", []float64{.12, -.05, .31, .08, .22, -.14, .40, .09, .17, .26}, 0, true},
		{"ties and zeros", []float64{.1, .1, -.1, 0, .2, .2, .3, 0, -.05, .4, .1}, 0, true},
		{"mixed 16", []float64{.3, -.1, .25, .02, -.07, .11, .19, -.3, .08, .04, .5, -.02, .33, .21, .01, .6}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, exact := SignedRankTest(tt.d)
			want := tt.p
			if want == 0 {
				want = bruteSignedRank(tt.d)
			}
			if math.Abs(p-want) > 1e-12 || exact != tt.exact {
				t.Errorf("SignedRankTest = %v, %v; want %v, %v", p, exact, want, tt.exact)
			}
		})
	}
}

func TestSignedRankTestMatchesBruteForceOnRandomData(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		n := 1 + rng.IntN(14)
		d := make([]float64, n)
		for j := range d {
			// Coarse values so that ties and zeros are common.
			d[j] = float64(rng.IntN(9)-3) / 100
		}
		p, _ := SignedRankTest(d)
		if want := bruteSignedRank(d); math.Abs(p-want) > 1e-12 {
			t.Fatalf("case %d, d=%v: p = %v, brute force %v", i, d, p, want)
		}
	}
}

func TestSignedRankNormalApproximation(t *testing.T) {
	// Above ExactLimit the normal approximation is used; at n = 60 it
	// must agree with the exact distribution (computed directly) within
	// 25% of p (it is a little conservative in the far tail, where the
	// continuity correction weighs most).
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		d := make([]float64, 60)
		for j := range d {
			d[j] = rng.NormFloat64() + 0.25
		}
		p, exact := SignedRankTest(d)
		if exact {
			t.Fatal("n=60 reported exact")
		}
		r2 := doubledRanks(d)
		t2, s2 := 0, 0
		for i, v := range d {
			s2 += r2[i]
			if v > 0 {
				t2 += r2[i]
			}
		}
		dist := signFlipDist(r2, s2)
		lo, hi := 0.0, 0.0
		for s, q := range dist {
			if s <= t2 {
				lo += q
			}
			if s >= t2 {
				hi += q
			}
		}
		want := math.Min(1, 2*math.Min(lo, hi))
		if want > 1e-4 && math.Abs(p-want) > 0.25*want {
			t.Errorf("normal approximation p = %v, exact %v", p, want)
		}
	}
}

func TestSignedRankMinP(t *testing.T) {
	for n, want := range map[int]float64{-1: 1, 0: 1, 1: 1, 2: 0.5, 6: 0.03125, 10: 2.0 / 1024, 13: 2.0 / 8192} {
		if got := SignedRankMinP(n); got != want {
			t.Errorf("SignedRankMinP(%d) = %v, want %v", n, got, want)
		}
	}
	// It is the test's real floor: every pair moving the same way.
	for n := 1; n <= 20; n++ {
		d := make([]float64, n)
		for i := range d {
			d[i] = float64(i + 1)
		}
		if p, _ := SignedRankTest(d); math.Abs(p-SignedRankMinP(n)) > 1e-15 {
			t.Errorf("n=%d: all-positive p = %v, SignedRankMinP %v", n, p, SignedRankMinP(n))
		}
	}
}

func TestHodgesLehmann(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name                 string
		d                    []float64
		conf                 float64
		est, lo, hi, achieve float64
	}{
		{"no pairs", nil, 0.95, math.NaN(), -inf, inf, 1},
		{"one pair: no interval", []float64{0.1}, 0.95, 0.1, -inf, inf, 1},
		{"five pairs: no 95% interval", []float64{1, 2, 3, 4, 5}, 0.95, 3, -inf, inf, 1},
		// n=6: k=1 (P(T+ ≤ 0) = 1/64 ≤ 0.025 < 2/64): the full range of the
		// Walsh averages, coverage 1 − 2/64.
		{"six pairs: min to max", []float64{1, 2, 3, 4, 5, 6}, 0.95, 3.5, 1, 6, 1 - 2.0/64},
		{"all equal", []float64{.05, .05, .05, .05, .05, .05, .05}, 0.95, .05, .05, .05, 1 - 2*3.0/128},
		// Walsh averages of {0, 1, 3}: 0, .5, 1, 1.5, 2, 3 → median 1.25.
		{"even number of Walsh averages", []float64{3, 0, 1}, 0.5, 1.25, 0.5, 2, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			est, lo, hi, ach := HodgesLehmann(tt.d, tt.conf)
			got := []float64{est, lo, hi, ach}
			want := []float64{tt.est, tt.lo, tt.hi, tt.achieve}
			if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool {
				return a == b || (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) < 1e-12
			})); diff != "" {
				t.Errorf("est, lo, hi, achieved (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHodgesLehmannInvertsTheTest checks the defining property of the
// interval: shifting the data by a value just outside it makes the
// signed-rank test reject at 1 − achieved, just inside it does not.
func TestHodgesLehmannInvertsTheTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{6, 8, 10, 15, 20, 30} {
		for range 10 {
			d := make([]float64, n)
			for i := range d {
				d[i] = rng.NormFloat64()*0.03 + 0.01
			}
			_, lo, hi, ach := HodgesLehmann(d, 0.95)
			if ach < 0.95 {
				t.Fatalf("n=%d: achieved %v < 0.95", n, ach)
			}
			level := 1 - ach + 1e-12
			shift := func(theta float64) float64 {
				s := make([]float64, n)
				for i := range d {
					s[i] = d[i] - theta
				}
				p, _ := SignedRankTest(s)
				return p
			}
			const eps = 1e-9
			if p := shift(lo - eps); p > level {
				t.Errorf("n=%d: just below lo, p = %v > %v", n, p, level)
			}
			if p := shift(hi + eps); p > level {
				t.Errorf("n=%d: just above hi, p = %v > %v", n, p, level)
			}
			if p := shift(lo + eps); p <= level {
				t.Errorf("n=%d: just above lo, p = %v ≤ %v", n, p, level)
			}
			if p := shift(hi - eps); p <= level {
				t.Errorf("n=%d: just below hi, p = %v ≤ %v", n, p, level)
			}
		}
	}
}

func TestHodgesLehmannLargeN(t *testing.T) {
	// Above ExactLimit the interval comes from the normal approximation;
	// its coverage must still be close to the requested one.
	rng := rand.New(rand.NewPCG(7, 8))
	covered := 0
	const reps = 400
	for range reps {
		d := make([]float64, 80)
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		_, lo, hi, ach := HodgesLehmann(d, 0.9)
		if math.Abs(ach-0.9) > 0.01 {
			t.Fatalf("achieved %v, want about 0.9", ach)
		}
		if lo <= 0 && 0 <= hi {
			covered++
		}
	}
	if c := float64(covered) / reps; c < 0.85 || c > 0.95 {
		t.Errorf("coverage %v, want about 0.9", c)
	}
}

func TestRobustSD(t *testing.T) {
	tests := []struct {
		name string
		d    []float64
		want float64
	}{
		{"empty", nil, 0},
		{"one", []float64{3}, 0},
		{"equal", []float64{2, 2, 2, 2}, 0},
		// median 3, deviations 2 1 0 1 2 → MAD 1.
		{"MAD", []float64{1, 2, 3, 4, 5}, 1.4826 * 1.217},
		{"a wild round does not move it", []float64{1, 2, 3, 4, 500}, 1.4826 * 1.217},
		// More than half equal: MAD 0, mean absolute deviation (0+0+0+1+3)/5.
		{"mostly equal", []float64{1, 1, 1, 2, 4}, 1.2533 * 4 / 5},
	}
	for _, tt := range tests {
		if got := RobustSD(tt.d); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: RobustSD(%v) = %v, want %v", tt.name, tt.d, got, tt.want)
		}
	}
}

// B3: without a small-sample factor the MAD-based estimate averaged 0.84σ
// at 6 rounds and 0.92σ at 10, so the MDE and "too noisy" were optimistic.
func TestRobustSDUnbiased(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	for _, n := range []int{4, 6, 10, 20} {
		const reps = 20000
		sum := 0.0
		d := make([]float64, n)
		for range reps {
			for i := range d {
				d[i] = 0.05 * rng.NormFloat64()
			}
			sum += RobustSD(d)
		}
		if mean := sum / reps / 0.05; math.Abs(mean-1) > 0.02 {
			t.Errorf("n=%d: RobustSD averages %.3fσ, want 1 within 2 %%", n, mean)
		}
	}
}

func TestMDEBoundaries(t *testing.T) {
	for _, tt := range []struct {
		n            int
		noise, alpha float64
		want         float64
	}{
		{0, 0.01, 0.01, math.Inf(1)},
		{1, 0.01, 0.01, math.Inf(1)},
		{7, 0.01, 0.01, math.Inf(1)}, // 2/2^7 = 0.0156 ≥ 0.01
		{8, 0, 0.01, 0},              // 2/2^8 = 0.0078 < 0.01; no noise
		{10, 0.01, 0, math.Inf(1)},
	} {
		if got := MDE(tt.n, tt.noise, tt.alpha); got != tt.want {
			t.Errorf("MDE(%d, %v, %v) = %v, want %v", tt.n, tt.noise, tt.alpha, got, tt.want)
		}
	}
	// More pairs, smaller MDE (up to the Monte-Carlo error of about 1%);
	// more noise, larger MDE; a stricter alpha, larger MDE.
	prev := math.Inf(1)
	for n := 8; n <= 60; n++ {
		m := MDE(n, 0.02, 0.01)
		if !(m < prev*1.01) {
			t.Errorf("MDE(%d) = %v, not below MDE(%d) = %v", n, m, n-1, prev)
		}
		prev = m
	}
	if !(MDE(20, 0.04, 0.01) > MDE(20, 0.02, 0.01)) || !(MDE(20, 0.02, 0.001) > MDE(20, 0.02, 0.01)) {
		t.Errorf("MDE not monotone in noise or alpha")
	}
	// The Monte-Carlo value at the exact limit and the large-sample formula
	// just above it agree.
	a, b := MDE(ExactLimit, 0.02, 0.01), MDE(ExactLimit+1, 0.02, 0.01)
	if math.Abs(a-b)/a > 0.05 {
		t.Errorf("MDE at n=%d: %v, at n=%d: %v", ExactLimit, a, ExactLimit+1, b)
	}
}

// TestMDEHasItsPower checks MDE against an independent simulation: a
// shift of exactly the MDE is detected in about 80% of samples.
func TestMDEHasItsPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tt := range []struct {
		n     int
		alpha float64
	}{{10, 0.01}, {12, 0.05}, {20, 0.01}, {20, 0.0005}, {30, 0.01}} {
		const noise, reps = 0.02, 3000
		shift := math.Log1p(MDE(tt.n, noise, tt.alpha))
		hits := 0
		d := make([]float64, tt.n)
		for range reps {
			for i := range d {
				d[i] = shift + noise*rng.NormFloat64()
			}
			if p, _ := SignedRankTest(d); p < tt.alpha {
				hits++
			}
		}
		if power := float64(hits) / reps; math.Abs(power-0.8) > 0.03 {
			t.Errorf("n=%d α=%v: power at the MDE %v, want 0.80", tt.n, tt.alpha, power)
		}
	}
}

func TestComparePaired(t *testing.T) {
	o := func(v float64, round int) Obs { return Obs{Value: v, Round: round, Iters: 1000} }
	k := Key{"p", "X", "sec/op"}
	mk := func(base, head []Obs) Comparison {
		s := &Set{Keys: []Key{k}, Base: map[Key][]Obs{k: base}, Head: map[Key][]Obs{k: head}}
		return CompareAlpha(s, 0.95, 0.01)[0]
	}

	// Drift shared by both sides: the medians overlap, every pair is 4%
	// slower.
	var base, head []Obs
	for r := range 12 {
		drift := 1 + 0.1*math.Sin(float64(r))
		base = append(base, o(100e-9*drift, r))
		head = append(head, o(104e-9*drift*(1+0.001*float64(r%3)), r))
	}
	c := mk(base, head)
	p := c.Paired
	if p == nil {
		t.Fatal("no paired analysis")
	}
	if p.N != 12 || !slices.Equal(p.Rounds, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) || len(p.LogRatios) != 12 {
		t.Errorf("N %d, rounds %v, %d log-ratios", p.N, p.Rounds, len(p.LogRatios))
	}
	if p.P != SignedRankMinP(12) || !p.Exact {
		t.Errorf("paired P = %v (exact %v), want the floor %v", p.P, p.Exact, SignedRankMinP(12))
	}
	if *c.P < 0.05 {
		t.Errorf("the U test should not see the drifted change: p = %v", *c.P)
	}
	if math.Abs(p.Ratio-1.041) > 0.002 || !(p.Low <= p.Ratio && p.Ratio <= p.High) || p.Low < 1.039 || p.High > 1.043 {
		t.Errorf("ratio %v [%v, %v]", p.Ratio, p.Low, p.High)
	}
	if p.Confidence < 0.95 || p.Noise <= 0 || p.Noise > 0.002 || !(p.MDE > 0 && p.MDE < 0.01) {
		t.Errorf("confidence %v noise %v MDE %v", p.Confidence, p.Noise, p.MDE)
	}
	lo, hi, ach := p.Interval(0.5)
	if !(p.Low <= lo && lo <= p.Ratio && p.Ratio <= hi && hi <= p.High) || ach < 0.5 {
		t.Errorf("50%% interval [%v, %v] (%v) not inside the 95%% one [%v, %v]", lo, hi, ach, p.Low, p.High)
	}

	// One round on both sides: a paired analysis of one pair.
	c = mk([]Obs{o(1, 0), o(1, 1)}, []Obs{o(2, 1), o(2, 2)})
	if c.Paired == nil || c.Paired.N != 1 || c.Paired.P != 1 || c.Paired.Ratio != 2 || c.Paired.Low != 0 || !math.IsInf(c.Paired.High, 1) || !math.IsInf(c.Paired.MDE, 1) {
		t.Errorf("one pair: %+v", c.Paired)
	}
	// No common round, or no rounds: no paired analysis.
	if c := mk([]Obs{o(1, 0)}, []Obs{o(2, 1)}); c.Paired != nil {
		t.Errorf("no common round: %+v", c.Paired)
	}
	if c := mk([]Obs{o(1, -1)}, []Obs{o(2, -1)}); c.Paired != nil {
		t.Errorf("no rounds: %+v", c.Paired)
	}
	// A zero value: no log-ratio, a warning.
	c = mk([]Obs{o(0, 0), o(1, 1)}, []Obs{o(1, 0), o(1, 1)})
	if c.Paired != nil || len(c.Warnings) == 0 || !strings.Contains(c.Warnings[len(c.Warnings)-1], "round 0 has a value ≤ 0") {
		t.Errorf("zero value: paired %+v, warnings %q", c.Paired, c.Warnings)
	}
	// Other units never get one.
	s := &Set{Keys: []Key{{"p", "X", "B/op"}}, Base: map[Key][]Obs{{"p", "X", "B/op"}: {o(1, 0)}}, Head: map[Key][]Obs{{"p", "X", "B/op"}: {o(2, 0)}}}
	if c := compare(s, 0.95)[0]; c.Paired != nil {
		t.Errorf("B/op got a paired analysis")
	}
}

// TestSymmetricNoise: the same whatever the signs, about RobustSD's
// figure under no change, and not the shift's size under a shift.
func TestSymmetricNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := make([]float64, 20)
	for i := range d {
		d[i] = 0.02 * rng.NormFloat64()
	}
	flipped := slices.Clone(d)
	for i := range flipped {
		if i%3 == 0 {
			flipped[i] = -flipped[i]
		}
	}
	if a, b := SymmetricNoise(d), SymmetricNoise(flipped); a != b {
		t.Errorf("SymmetricNoise changed with the signs: %v and %v", a, b)
	}
	if a, b := SymmetricNoise(d), RobustSD(d); math.Abs(a-b) > 0.3*b {
		t.Errorf("SymmetricNoise %v far from RobustSD %v on centred data", a, b)
	}
	shifted := slices.Clone(d)
	for i := range shifted {
		shifted[i] += 0.2
	}
	if got := SymmetricNoise(shifted); got > 2*RobustSD(d) {
		t.Errorf("SymmetricNoise of a +20%% shift %v, want about the noise %v", got, RobustSD(d))
	}
	if got := SymmetricNoise([]float64{0, 0, 0, 0.02}); got != 1.2533*0.005 {
		t.Errorf("SymmetricNoise with mostly zeros = %v, want the mean |d| rule", got)
	}
	if SymmetricNoise([]float64{0.1}) != 0 {
		t.Error("SymmetricNoise of one value is not 0")
	}
}
