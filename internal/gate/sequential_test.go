package gate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLookThresholdFor checks each test's per-look threshold: the rows the
// U test judges count the looks at which the U test can attain a p-value
// (its floor 2/C(2n, n)), not the paired test's (2/2^n), as their p-values
// are charged (sequentialP with floorFn).
func TestLookThresholdFor(t *testing.T) {
	rel := func(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }
	for _, tt := range []struct {
		name  string
		test  Test
		alpha float64
		m     int
		corr  Correction
		looks []int
		want  float64
	}{
		{"no looks", TestUTest, 0.01, 1, Holm, nil, 0.01},
		{"no looks, Holm over 10", TestUTest, 0.01, 10, Holm, nil, 0.001},
		// The paired test reaches p < 0.0078 (its round-8 floor) at the
		// round-10 look only; the U test at all three looks (floors
		// 0.0022, 0.00016, 0.000011): 0.01/3.
		{"paired, looks 6 8 10", TestPaired, 0.01, 1, Holm, []int{6, 8, 10}, 2.0 / 256},
		{"U, looks 6 8 10", TestUTest, 0.01, 1, Holm, []int{6, 8, 10}, 0.01 / 3},
		// Looks after rounds 4, 5, 6: the paired test cannot reach 0.01 at
		// any (floors 0.125, 0.0625, 0.031); the U test can below its
		// round-5 floor 2/252 at the round-6 look alone.
		{"paired, looks 4 5 6", TestPaired, 0.01, 1, Holm, []int{4, 5, 6}, 0},
		{"U, looks 4 5 6", TestUTest, 0.01, 1, Holm, []int{4, 5, 6}, MinP(5, 5)},
		// PlanAdaptive's looks for 20 benchmarks at α = 0.01: α/20 = 5e-4;
		// the paired round-14 floor 2/2^14 = 1.2e-4 is above 5e-4/5, so
		// four looks count below it; every U floor is far below: 5e-4/5.
		{"paired, adaptive m=20", TestPaired, 0.01, 20, Holm, []int{14, 28, 56, 112, 200}, 2.0 / 16384},
		{"U, adaptive m=20", TestUTest, 0.01, 20, Holm, []int{14, 28, 56, 112, 200}, 0.01 / 20 / 5},
		{"same 4 looks either way", TestUTest, 0.01, 1, Holm, []int{5, 10, 15, 20}, 0.01 / 3},
		// The round-3 look cannot give p < 0.05 (U floor 0.1): one look.
		{"no correction", TestUTest, 0.05, 30, NoCorrection, []int{3, 6}, 0.05},
	} {
		if got := lookThresholdFor(tt.test, tt.alpha, tt.m, tt.corr, tt.looks); !rel(got, tt.want) {
			t.Errorf("%s: lookThresholdFor(%s, %v, %d, %s, %v) = %v, want %v", tt.name, tt.test, tt.alpha, tt.m, tt.corr, tt.looks, got, tt.want)
		}
	}
	// The paired test's (and a row without a test's) is LookThreshold.
	for _, looks := range [][]int{nil, {5, 10, 15, 20}, {6, 8, 10}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}} {
		for _, test := range []Test{TestPaired, ""} {
			if got, want := lookThresholdFor(test, 0.01, 3, Holm, looks), LookThreshold(0.01, 3, Holm, looks); got != want {
				t.Errorf("lookThresholdFor(%q, ..., %v) = %v, LookThreshold %v", test, looks, got, want)
			}
		}
	}
}

// TestLookThresholdIsTheBoundary checks, for random look plans, both
// tests, several families and corrections, that the threshold is where
// the sequential p-value the gate computes (sequentialP with the test's
// floors) crosses alpha/factor: every attainable raw p below it is
// significant, the threshold itself is not, and none is when it is 0.
func TestLookThresholdIsTheBoundary(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for i := range 2000 {
		k := 1 + rng.IntN(6)
		var looks []int
		for range k {
			looks = append(looks, 1+rng.IntN(40))
		}
		alpha := []float64{0.01, 0.05, 0.001}[i%3]
		m := []int{1, 5, 20, 200}[rng.IntN(4)]
		corr := []Correction{Holm, NoCorrection}[rng.IntN(2)]
		a := alpha / factor(m, corr)
		for _, test := range []Test{TestPaired, TestUTest} {
			floor := floorFn(test)
			lowest := math.Inf(1)
			for _, n := range looks {
				lowest = math.Min(lowest, floor(n))
			}
			sig := func(p float64) bool { return sequentialP(p, looks, floor) < a }
			got := lookThresholdFor(test, alpha, m, corr, looks)
			if got == 0 {
				if lowest < a && sig(lowest) {
					t.Fatalf("%s, α=%v m=%d %s looks %v: threshold 0 but p=%v (attainable) is significant", test, alpha, m, corr, looks, lowest)
				}
				continue
			}
			if got < lowest {
				t.Fatalf("%s, α=%v m=%d %s looks %v: threshold %v below every floor (%v)", test, alpha, m, corr, looks, got, lowest)
			}
			if below := got * (1 - 1e-9); below >= lowest && !sig(below) {
				t.Fatalf("%s, α=%v m=%d %s looks %v: p=%v below the threshold %v is not significant (sequential p %v ≥ %v)",
					test, alpha, m, corr, looks, below, got, sequentialP(below, looks, floor), a)
			}
			if sig(got) {
				t.Fatalf("%s, α=%v m=%d %s looks %v: p at the threshold %v is still significant: not the largest", test, alpha, m, corr, looks, got)
			}
		}
	}
}
