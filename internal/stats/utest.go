package stats

import (
	"math"
	"slices"
	"sync"
)

// uTestP returns the two-sided p-value of the Mann–Whitney U test of x and y
// exactly as benchmath.AssumeNothing (go-moremath's MannWhitneyUTest with
// LocationDiffers) computes it, in the cases where that uses the exact null
// distribution with ties (both samples of at most 25 values, some tied): the
// usual case for benchmark timings, which go test prints to four or five
// significant digits. ok is false in the other cases; the caller then uses
// benchmath.
//
// go-moremath builds that distribution with maps; this computes only the
// needed tail with arrays: the distribution of twice the rank sum of x over
// the tie groups (a knapsack over groups, weighted by binomial counts),
// pruned at the observed value. The result agrees with go-moremath to
// rounding (TestUTestMatchesBenchmath) at a fraction of the cost.
func uTestP(x, y []float64) (p float64, ok bool) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 || n1 > 25 || n2 > 25 {
		return 0, false
	}
	type val struct {
		v   float64
		inX bool
	}
	all := make([]val, 0, n1+n2)
	for _, v := range x {
		all = append(all, val{v, true})
	}
	for _, v := range y {
		all = append(all, val{v, false})
	}
	slices.SortFunc(all, func(a, b val) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	// Tie groups: size and twice the midrank (an integer).
	var sizes, w2 []int
	obs2 := 0 // twice the rank sum of x
	ties := false
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		t := j - i
		mid2 := i + 1 + j // 2 × (i+1 + j)/2
		sizes = append(sizes, t)
		w2 = append(w2, mid2)
		for k := i; k < j; k++ {
			if all[k].inX {
				obs2 += mid2
			}
		}
		ties = ties || t > 1
		i = j
	}
	if !ties {
		return 0, false // go-moremath's no-ties algorithm is fast already
	}
	if len(sizes) == 1 {
		return 0, false // all values equal: benchmath's warning says so
	}
	// As go-moremath: p = 2 P(U1 ≤ min(U1, U2)) under the distribution of
	// U1 for this tie structure, and 1 when U1 = U2. In terms of twice the
	// rank sum of x: U1 = R1 − n1(n1+1)/2.
	N := n1 + n2
	u1x2 := obs2 - n1*(n1+1) // 2 U1
	u2x2 := 2*n1*n2 - u1x2   // 2 U2
	if u1x2 == u2x2 {
		return 1, true
	}
	obs2 = min(u1x2, u2x2) + n1*(n1+1) // the bound on 2 R1
	// dp[k][s]: number of ways to pick k values whose twice-rank sum is s,
	// for s ≤ obs2. For each k only the band [lo[k], hi[k]] can be
	// non-zero; groups come in increasing rank, so the band grows at the
	// top.
	width := obs2 + 1
	buf := dpPool.Get().(*[]float64)
	defer dpPool.Put(buf)
	if cap(*buf) < (n1+1)*width {
		*buf = make([]float64, (n1+1)*width)
	}
	dp := (*buf)[:(n1+1)*width]
	clear(dp)
	var tmp []float64
	lo := make([]int, n1+1)
	hi := make([]int, n1+1)
	for k := range lo {
		lo[k], hi[k] = width, -1 // empty
	}
	lo[0], hi[0] = 0, 0
	dp[0] = 1
	for g, t := range sizes {
		w := w2[g]
		if w > obs2 {
			break // no larger rank fits under the bound
		}
		if t == 1 {
			// In place, k descending: dp[k] is read before it is written.
			for k := n1 - 1; k >= 0; k-- {
				if hi[k] < 0 || lo[k]+w > obs2 {
					continue
				}
				top := min(hi[k], obs2-w)
				src := dp[k*width+lo[k] : k*width+top+1]
				dst := dp[(k+1)*width+lo[k]+w : (k+1)*width+top+w+1]
				for s, v := range src {
					dst[s] += v
				}
				lo[k+1] = min(lo[k+1], lo[k]+w)
				hi[k+1] = max(hi[k+1], top+w)
			}
			continue
		}
		// A tie group of t values: choose j of them, C(t, j) ways.
		tmp = append(tmp[:0], dp...)
		nlo, nhi := slices.Clone(lo), slices.Clone(hi)
		for j := 1; j <= t; j++ {
			c := binom(t, j)
			shift := j * w
			if shift > obs2 {
				break
			}
			for k := n1 - j; k >= 0; k-- {
				if hi[k] < 0 || lo[k]+shift > obs2 {
					continue
				}
				top := min(hi[k], obs2-shift)
				src := tmp[k*width+lo[k] : k*width+top+1]
				dst := dp[(k+j)*width+lo[k]+shift : (k+j)*width+top+shift+1]
				for s, v := range src {
					dst[s] += c * v
				}
				nlo[k+j] = min(nlo[k+j], lo[k]+shift)
				nhi[k+j] = max(nhi[k+j], top+shift)
			}
		}
		lo, hi = nlo, nhi
	}
	tail := 0.0
	if hi[n1] >= 0 {
		for _, v := range dp[n1*width+lo[n1] : n1*width+hi[n1]+1] {
			tail += v
		}
	}
	// Not capped at 1: go-moremath does not cap it either (with ties the
	// doubled tail can exceed 1), and benchstat prints what it computes.
	return 2 * tail / binom(N, n1), true
}

// dpPool recycles uTestP's tables (about 130 kB for 20 samples a side).
var dpPool = sync.Pool{New: func() any { return new([]float64) }}

func binom(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return math.Round(r)
}
