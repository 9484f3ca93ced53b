package cli

import (
	"math"
	"slices"
	"testing"
)

func TestRecommend(t *testing.T) {
	// Quiet benchmarks: few rounds suffice, and the threshold asked for is met.
	r, mdes := recommend([]float64{0.005, 0.006, 0.004, 0.005, 0.007}, 0.01, "holm", 0.05, "100ms")
	if r.Count < 5 || r.Count > 15 || r.Threshold > 0.05 || len(mdes) != 5 {
		t.Errorf("quiet suite: %+v", r)
	}
	if r.Benchtime != "100ms" {
		t.Errorf("quiet suite: benchtime changed to %s", r.Benchtime)
	}
	// Noisier benchmarks need more rounds for the same threshold.
	noisy, _ := recommend([]float64{0.03, 0.03, 0.04, 0.03, 0.035}, 0.01, "holm", 0.05, "100ms")
	if noisy.Count <= r.Count || noisy.Threshold > 0.05 {
		t.Errorf("noisy suite: %+v, want more rounds than %d at ≤5%%", noisy, r.Count)
	}
	// Many benchmarks cost rounds (the suite-wide correction).
	many := slices.Repeat([]float64{0.005}, 200)
	big, _ := recommend(many, 0.01, "holm", 0.05, "100ms")
	if big.Count <= r.Count {
		t.Errorf("200 benchmarks: %d rounds, want more than %d for 5", big.Count, r.Count)
	}
	// One outlier is reported too noisy rather than setting everyone's count.
	out, mdes := recommend([]float64{0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.5}, 0.01, "holm", 0.05, "100ms")
	if out.Count > 20 || mdes[10] <= out.Threshold {
		t.Errorf("outlier: %+v, mde %v", out, mdes[10])
	}
	// Unreachable: the best count is recommended with a raised threshold,
	// and a longer benchtime.
	hard, _ := recommend([]float64{0.3, 0.3, 0.3}, 0.01, "holm", 0.01, "100ms")
	if hard.Threshold <= 0.01 || hard.Reached || !hard.Longer || hard.Benchtime != "200ms" {
		t.Errorf("unreachable: %+v", hard)
	}
	if math.IsNaN(hard.Threshold) {
		t.Errorf("NaN threshold")
	}
}
