package gate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
)

// TestUTestRowMDEAtItsLooks: a row judged by the U test gets its MDE at
// the U test's own look threshold, not the paired test's.
func TestUTestRowMDEAtItsLooks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var base, head []float64
	for range 6 {
		base = append(base, 100*math.Exp(0.01*rng.NormFloat64()))
		head = append(head, 100*math.Exp(0.01*rng.NormFloat64()))
	}
	p := DefaultPolicy()
	p.Test = TestUTest
	p.ConfirmRounds = 0
	p.Looks = []int{4, 5, 6}
	r := Judge([]stats.Comparison{measured("p", "X", "sec/op", base, head)}, nil, p).Results[0]
	if r.Test != TestUTest || r.MDE == nil || r.Noise == nil {
		t.Fatalf("test %q MDE %v noise %v: %s", r.Test, r.MDE, r.Noise, reasonText(r))
	}
	// At looks after rounds 4, 5, 6 the paired test can reach α = 0.01 at
	// none (the old level was 0: an infinite MDE, "too noisy"); the U
	// test below 2/252 at the round-6 look.
	if want := stats.MDEU(6, *r.Noise, MinP(5, 5)); math.IsInf(*r.MDE, 1) || *r.MDE != want {
		t.Errorf("MDE %v, want %v (U test's level %v)", *r.MDE, want, MinP(5, 5))
	}
	if r.TooNoisy {
		t.Errorf("too noisy at noise %v: %s", *r.Noise, reasonText(r))
	}
}
