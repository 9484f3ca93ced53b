// Package cgmod has benchmarks with exactly known work, for the tests of
// the instruction lane.
package cgmod

import (
	"strconv"
	"strings"
)

// Work runs a loop of n iterations: a few instructions each, no memory.
//
//go:noinline
func Work(n int) int {
	x := 1
	for i := 0; i < n; i++ {
		x = x*31 + i
	}
	return x
}

// Alloc builds strings and slices: a few allocations of a few sizes.
func Alloc(n int) int {
	var b strings.Builder
	var parts [][]byte
	for i := range n {
		b.WriteString(strconv.Itoa(i))
		parts = append(parts, []byte(b.String()))
	}
	return len(parts) + b.Len()
}

// Map fills a map: allocations, and hashing with a seed that differs from
// process to process.
func Map(n int) int {
	m := make(map[string]int)
	for i := range n {
		m[strconv.Itoa(i)] = i
	}
	return len(m)
}
