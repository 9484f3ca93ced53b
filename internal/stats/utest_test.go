package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/perf/benchmath"
)

func benchmathP(x, y []float64) float64 {
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(append([]float64(nil), x...), &benchmath.DefaultThresholds), benchmath.NewSample(append([]float64(nil), y...), &benchmath.DefaultThresholds))
	return c.P
}

// TestUTestMatchesBenchmath checks the fast exact U test against benchmath
// on random samples with ties, of every size it handles.
func TestUTestMatchesBenchmath(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for trial := 0; trial < 3000; trial++ {
		n1, n2 := 1+rng.IntN(25), 1+rng.IntN(25)
		levels := 2 + rng.IntN(30)
		shift := rng.IntN(5)
		x, y := make([]float64, n1), make([]float64, n2)
		for i := range x {
			x[i] = float64(rng.IntN(levels))
		}
		for i := range y {
			y[i] = float64(rng.IntN(levels) + shift)
		}
		got, ok := uTestP(x, y)
		if !ok {
			continue
		}
		checked++
		want := benchmathP(x, y)
		if math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("n=%d+%d x=%v y=%v: p = %.15g, benchmath %.15g", n1, n2, x, y, got, want)
		}
	}
	if checked < 2500 {
		t.Errorf("only %d samples checked", checked)
	}
}

func BenchmarkUTestNoTies(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := make([]float64, 20), make([]float64, 20)
	for i := range x {
		x[i] = 1000 * (1 + 0.02*rng.NormFloat64())
		y[i] = 1000 * (1 + 0.02*rng.NormFloat64())
	}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			uTestP(x, y)
		}
	})
	b.Run("benchmath", func(b *testing.B) {
		for b.Loop() {
			benchmathP(x, y)
		}
	})
}

func BenchmarkUTest(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := make([]float64, 20), make([]float64, 20)
	for i := range x {
		x[i] = math.Round(1000 * (1 + 0.02*rng.NormFloat64()))
		y[i] = math.Round(1000 * (1 + 0.02*rng.NormFloat64()))
	}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			uTestP(x, y)
		}
	})
	b.Run("benchmath", func(b *testing.B) {
		for b.Loop() {
			benchmathP(x, y)
		}
	})
}

// TestCompareParallelMatchesSequential: CompareAlpha spreads keys over
// goroutines; the result must be the one key-by-key comparison gives.
func TestCompareParallelMatchesSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	s := &Set{Base: map[Key][]Obs{}, Head: map[Key][]Obs{}}
	for i := range 300 {
		for _, unit := range []string{"sec/op", "allocs/op"} {
			k := Key{Package: "p", Name: fmt.Sprintf("B%d-8", i), Unit: unit}
			s.Keys = append(s.Keys, k)
			for r := 1; r <= 12; r++ {
				v := math.Round(1000 * (1 + 0.03*rng.NormFloat64()))
				if unit == "allocs/op" {
					v = float64(i % 3)
				}
				s.Base[k] = append(s.Base[k], Obs{Value: v, Round: r, Iters: 100})
				s.Head[k] = append(s.Head[k], Obs{Value: v * (1 + 0.01*float64(i%5)), Round: r, Iters: 100})
			}
		}
	}
	got := CompareAlpha(s, 0.95, 0.01)
	th := &benchmath.Thresholds{CompareAlpha: 0.01}
	for i, k := range s.Keys {
		want := compareKey(s, k, 0.95, 0.01, th)
		if diff := cmp.Diff(want, got[i]); diff != "" {
			t.Fatalf("%v (-sequential +parallel):\n%s", k, diff)
		}
	}
}
