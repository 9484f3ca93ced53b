package mod

import (
	"os"
	"testing"
)

var sink int

func BenchmarkSum(b *testing.B) {
	xs := make([]int, 256)
	for b.Loop() {
		sink += Sum(xs)
	}
}

// BenchmarkSizes has sub-benchmarks whose names need quoting in patterns.
func BenchmarkSizes(b *testing.B) {
	for _, name := range []string{"n=8", "a b", "x|y", "p/q"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				sink += len(Grow(8))
			}
		})
	}
}

// BenchmarkFlaky panics when FLAKY is set in the environment of the side.
func BenchmarkFlaky(b *testing.B) {
	if _, err := os.Stat("FLAKY"); err == nil {
		panic("flaky benchmark exploded")
	}
	for b.Loop() {
		sink++
	}
}

func TestNothing(t *testing.T) {}
