package ledger

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkAnalyze: 100 benchmarks over 300 merges (4.5 million windows).
func BenchmarkAnalyze(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	var entries []Entry
	for i := range 300 {
		for k := range 100 {
			e := sample(fmt.Sprint("B", k), i)
			e.LogRatio = 0.005 * rng.NormFloat64()
			e.Low, e.High = e.LogRatio-0.01, e.LogRatio+0.01
			entries = append(entries, e)
		}
	}
	b.ResetTimer()
	for range b.N {
		Analyze(entries, DefaultOptions())
	}
}
