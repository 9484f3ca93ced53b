package gate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
)

// screenRow judges one benchmark's rounds as a screen of a family of m
// (ConfirmRounds set, as the pipeline does) and returns its row and the
// screen's policy.
func screenRow(t *testing.T, base, head []float64, m int, p Policy) (Result, Policy) {
	t.Helper()
	p.ConfirmRounds = ConfirmRounds(len(base), m, p)
	v := Judge([]stats.Comparison{roundsOf("X", base, head, 0, p.Alpha)}, nil, p)
	r := v.Results[0]
	if r.Test != TestPaired || r.Paired == nil {
		t.Fatalf("screen row judged by %q, want the paired test", r.Test)
	}
	return r, p
}

// TestRowFreshIgnoresSigns: a row's planned fresh rounds are the same
// when any of its rounds has base and head swapped (the log-ratio's sign
// flipped), which the pooled decision's validity needs (Confirm).
func TestRowFreshIgnoresSigns(t *testing.T) {
	p := DefaultPolicy()
	p.Threshold = 0.02
	for i := range 200 {
		rng := rand.New(rand.NewPCG(31, uint64(i)))
		sc := scenario{Name: "σ", RunNoise: (0.01 + 0.06*rng.Float64()) / math.Sqrt2}
		base, head := simulate(rng, sc, 10, 0.05*rng.Float64())
		r, sp := screenRow(t, base, head, 20, p)
		want := rowFresh(r, sp, 20)
		for j := range base {
			if rng.IntN(2) == 0 {
				base[j], head[j] = head[j], base[j]
			}
		}
		flipped, sp := screenRow(t, base, head, 20, p)
		if got := rowFresh(flipped, sp, 20); got != want {
			t.Fatalf("run %d: %d fresh rounds, %d with some rounds' signs flipped", i, want, got)
		}
	}
}

// TestRowFresh: the planned rounds at the figures the docs quote.
func TestRowFresh(t *testing.T) {
	two := DefaultPolicy()
	two.Threshold = 0.02
	d := func(noise, shift float64) []float64 {
		// Log-ratios with this spread about shift: ±noise·z at the
		// quantiles of a normal, so the estimate is close to noise.
		z := []float64{-1.64, -1.04, -0.67, -0.39, -0.13, 0.13, 0.39, 0.67, 1.04, 1.64}
		out := make([]float64, len(z))
		for i := range z {
			out[i] = shift + noise*z[i]
		}
		return out
	}
	for _, c := range []struct {
		name         string
		noise, shift float64
		want         int
	}{
		{"5 % noise at --threshold 2%: the cap, 3.8× the screen's 10", 0.05, 0, 38},
		{"1 % noise: the first ten", 0.01, 0, 10},
		// SymmetricNoise reads a shifted row's noise at about 1.7σ (its
		// second spread is scaled for |d| centred on 0), not at the shift
		// (the root mean square of d would plan all 38).
		{"a clear +10 % change with 1 % noise: not the cap", 0.01, math.Log(1.10), 24},
	} {
		base := make([]float64, 10)
		head := make([]float64, 10)
		for i, v := range d(c.noise, c.shift) {
			base[i], head[i] = 1e-3, 1e-3*math.Exp(v)
		}
		r, sp := screenRow(t, base, head, 20, two)
		if got := rowFresh(r, sp, 20); got != c.want {
			t.Errorf("%s: %d fresh rounds, want %d", c.name, got, c.want)
		}
	}
}

// TestFirstFresh: the first stage is 7 in 10 of ConfirmRounds, rounded
// up, at least 1.
func TestFirstFresh(t *testing.T) {
	for _, c := range []struct{ confirm, want int }{{0, 1}, {1, 1}, {2, 2}, {10, 7}, {13, 10}, {15, 11}} {
		p := DefaultPolicy()
		p.ConfirmRounds = c.confirm
		if got := FirstFresh(Verdict{Policy: p}); got != c.want {
			t.Errorf("ConfirmRounds %d: FirstFresh %d, want %d", c.confirm, got, c.want)
		}
	}
}

// TestTooNoisyToConfirm: a promising row whose pooled test could not see
// twice its threshold even with the most fresh rounds, at the low end of
// what its noise reads, is not re-run; a row whose screen already shows a
// change that large is, and so is a quiet one and one the screen alone
// calls a change. Confirm marks the row not re-run, too noisy, with the
// MDE.
func TestTooNoisyToConfirm(t *testing.T) {
	p := DefaultPolicy()
	p.ConfirmRounds = ConfirmRounds(10, 20, p)
	z := []float64{-1.64, -1.04, -0.67, -0.39, -0.13, 0.13, 0.39, 0.67, 1.04, 1.64}
	row := func(noise, change float64, status Status) Result {
		d := make([]float64, len(z))
		for i := range z {
			d[i] = math.Log1p(change) + noise*z[i]
		}
		return Result{Test: TestPaired, Status: status, Delta: ptr(change),
			Comparison: stats.Comparison{Key: stats.Key{Name: "X", Unit: "sec/op"}, Paired: &stats.Paired{N: len(d), LogRatios: d}}}
	}
	for _, c := range []struct {
		name          string
		noise, change float64
		status        Status
		skip          bool
	}{
		{"60 % noise, +4 %: cannot see 10 %", 0.6, 0.04, Unchanged, true},
		{"60 % noise, +40 %: the screen shows more than it could not see", 0.6, 0.40, Unchanged, false},
		{"60 % noise, a screen regression", 0.6, 0.04, Regression, false},
		{"5 % noise, +4 %", 0.05, 0.04, Unchanged, false},
	} {
		mde, skip := tooNoisyToConfirm(row(c.noise, c.change, c.status), p, 20)
		if skip != c.skip {
			t.Errorf("%s: not re-run %v (MDE at the cap %.1f%%), want %v", c.name, skip, 100*mde, c.skip)
		}
		if skip && !(mde > 2*p.Threshold) {
			t.Errorf("%s: not re-run with an MDE of %.1f%%, want beyond twice the threshold", c.name, 100*mde)
		}
	}
	saved := tooNoisyStop
	tooNoisyStop = false
	defer func() { tooNoisyStop = saved }()
	if _, skip := tooNoisyToConfirm(row(0.6, 0.04, Unchanged), p, 20); skip {
		t.Error("without the stop: not re-run")
	}
}
