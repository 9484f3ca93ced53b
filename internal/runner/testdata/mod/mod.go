// Package mod is a tiny module whose benchmarks exercise the runner.
package mod

// Sum adds the numbers in xs.
func Sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

// Grow returns a slice of n zeros; one allocation.
func Grow(n int) []int { return make([]int, n) }
