package stats

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testenv"
)

// FuzzLoad: any two benchmark texts load without a panic, in time, to at
// most one observation per value printed, and compare; only base's unit
// metadata is kept (round 3's L3), and no value kept is NaN or infinite.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("pkg: p\nround: 1\nBenchmarkA-2 10 1 ns/op 2 MB/s\n"), []byte("Unit sec/op better=higher\npkg: p\nround: 1\nBenchmarkA-2 10 2 ns/op 5e-324 MB/s\n"))
	f.Fuzz(func(t *testing.T, base, head []byte) {
		var (
			s    *Set
			err  error
			cmps []Comparison
		)
		testenv.Within(t, 20*time.Second, func() {
			s, err = Load(Input{Name: "base.txt", R: strings.NewReader(string(base))}, Input{Name: "head.txt", R: strings.NewReader(string(head))})
			if err == nil {
				cmps = CompareAlpha(s, 0.95, 0.01)
			}
		})
		if err != nil {
			return
		}
		n := 0
		for _, side := range []map[Key][]Obs{s.Base, s.Head} {
			for _, obs := range side {
				n += len(obs)
				for _, o := range obs {
					if math.IsNaN(o.Value) || math.IsInf(o.Value, 0) {
						t.Fatalf("non-finite value kept: %v", o.Value)
					}
				}
			}
		}
		if n > len(base)+len(head) {
			t.Fatalf("%d observations from %d bytes", n, len(base)+len(head))
		}
		if len(cmps) != len(s.Keys) {
			t.Fatalf("%d comparisons of %d keys", len(cmps), len(s.Keys))
		}
		for k := range s.Units {
			if !strings.Contains(string(base), k.Key) {
				t.Fatalf("unit metadata %v not from base", k)
			}
		}
	})
}
