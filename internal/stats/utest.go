package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"golang.org/x/perf/benchmath"
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
		if n1 > 50 || n2 > 50 {
			return 0, false // go-moremath's normal approximation
		}
		// go-moremath: p = 2 CDF(min(U1, U2)), 1 when U1 = U2; here from
		// a cached exact distribution of U (go-moremath rebuilds its own
		// on every call, the cost of a simulation).
		u1x2 := obs2 - n1*(n1+1)
		u2x2 := 2*n1*n2 - u1x2
		if u1x2 == u2x2 {
			return 1, true
		}
		cdf := uCDF(n1, n2)
		return 2 * cdf[min(u1x2, u2x2)/2], true
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

// uCDF returns the null distribution function of U = #{(i, j): x_i <
// y_j} for n1 and n2 values without ties: cdf[u] = P(U ≤ u), from the
// coefficients of the Gaussian binomial [n1+n2 choose n1]_q. Cached.
func uCDF(n1, n2 int) []float64 {
	k := [2]int{n1, n2}
	uMu.Lock()
	defer uMu.Unlock()
	if c, ok := uCache[k]; ok {
		return c
	}
	L := n1*n2 + 1
	f := make([]float64, L)
	f[0] = 1
	deg := 0
	for i := 1; i <= n1; i++ {
		for d := deg; d >= 0; d-- { // × (1 − q^(n2+i))
			if d+n2+i < L {
				f[d+n2+i] -= f[d]
			}
		}
		deg = min(deg+n2+i, L-1)
		for d := i; d < L; d++ { // ÷ (1 − q^i)
			f[d] += f[d-i]
		}
	}
	total := binomF(n1+n2, n1)
	acc := 0.0
	for u := range f {
		acc += f[u]
		f[u] = math.Min(1, acc/total)
	}
	uCache[k] = f
	return f
}

var (
	uMu    sync.Mutex
	uCache = map[[2]int][]float64{}
)

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

// UTest returns the two-sided Mann–Whitney U p-value of x against y as
// benchstat computes it (benchmath.AssumeNothing), capped at 1: with ties
// the doubled tail can exceed 1, which is no probability (benchstat
// prints it; a gate must not). Package gate runs it on the rounds' values
// (Comparison.BaseRounds, HeadRounds): the runs of one round share the
// machine's state, so they are not independent samples. x and y are not
// modified. 1 when either is empty.
func UTest(x, y []float64) float64 {
	if len(x) == 0 || len(y) == 0 {
		return 1
	}
	th := &benchmath.Thresholds{CompareAlpha: benchmath.DefaultThresholds.CompareAlpha}
	bs := benchmath.NewSample(slices.Clone(x), th)
	hs := benchmath.NewSample(slices.Clone(y), th)
	p, _ := uTest(bs, hs, th.CompareAlpha, nil)
	return math.Min(1, *p)
}

// UMinP is the smallest two-sided p-value the U test can give with n1
// and n2 values: 2/C(n1+n2, n1), when the samples do not overlap (1 when
// a side is empty).
func UMinP(n1, n2 int) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	return math.Min(1, 2/binomF(n1+n2, n1))
}

// binomF is C(n, k) in floating point, unrounded (large n).
func binomF(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// MDEU is [MDE] for the U test on n values a side whose difference
// varies like pairs with log-ratio noise noise (√2 × the spread within a
// side): the smallest relative slowdown exp(δ)−1 that gives a two-sided
// p-value below alpha with 80 % probability. It is +Inf when no p below
// alpha is possible ([UMinP](n, n) ≥ alpha), 0 when noise is 0 and one
// is. For n ≤ [ExactLimit] it is computed from the exact null
// distribution of U (no ties) and 4,000 simulated normal samples (a fixed
// seed; cached per (n, alpha)), as MDE is for the signed-rank test: a
// shift δ is detected when the c-th smallest difference base_i − head_j
// is below δ, c the exact critical value. The large-sample formula it
// replaces, (z₁₋α/₂ + z₀.₈)·noise/√(3n/π), had 69 % power at n=10 and
// α=0.01, 53 % at α=0.001, and gave a finite MDE where the floor made
// power 0. Above ExactLimit that formula is used.
func MDEU(n int, noise, alpha float64) float64 {
	if n < 1 || !(alpha > 0) || UMinP(n, n) >= alpha {
		return math.Inf(1)
	}
	if noise <= 0 {
		return 0
	}
	if n > ExactLimit {
		return math.Expm1(noise * (normalQuantile(1-alpha/2) + normalQuantile(0.8)) / math.Sqrt(3*float64(n)/math.Pi))
	}
	return math.Expm1(noise * standardMDEU(n, alpha))
}

var mdeUCache = map[mdeKey]float64{}

// standardMDEU is MDEU in units of the noise.
func standardMDEU(n int, alpha float64) float64 {
	k := mdeKey{n, alpha}
	mdeMu.Lock()
	defer mdeMu.Unlock()
	if v, ok := mdeUCache[k]; ok {
		return v
	}
	// The null distribution of U = #{(i, j): x_i < y_j} for n and n
	// values: the coefficients of the Gaussian binomial [2n choose n]_q.
	L := n*n + 1
	f := make([]float64, L)
	f[0] = 1
	deg := 0
	for i := 1; i <= n; i++ {
		// × (1 − q^(n+i))
		for d := deg; d >= 0; d-- {
			if d+n+i < L {
				f[d+n+i] -= f[d]
			}
		}
		deg = min(deg+n+i, L-1)
		// ÷ (1 − q^i): a_d += a_(d−i), ascending.
		for d := i; d < L; d++ {
			f[d] += f[d-i]
		}
	}
	total := binomF(2*n, n)
	// Smallest c with two-sided p = 2·P(U ≥ c) < alpha; P(U ≥ c) =
	// P(U ≤ n² − c) by symmetry.
	c, acc := L, 0.0
	for u := 0; u < L; u++ {
		acc += f[u]
		if 2*acc/total >= alpha {
			break
		}
		c = n*n - u
	}
	if c >= L {
		mdeUCache[k] = math.Inf(1)
		return math.Inf(1)
	}
	const reps = 4000
	rng := rand.New(rand.NewPCG(uint64(n), 0x6d64657531))
	x, y := make([]float64, n), make([]float64, n)
	diffs := make([]float64, 0, n*n)
	shifts := make([]float64, reps)
	for r := range shifts {
		for i := range x {
			x[i] = rng.NormFloat64() / math.Sqrt2
			y[i] = rng.NormFloat64() / math.Sqrt2
		}
		diffs = diffs[:0]
		for _, a := range x {
			for _, b := range y {
				diffs = append(diffs, a-b)
			}
		}
		// U(y+δ) = #{x_i < y_j + δ} ≥ c ⟺ the c-th smallest x_i − y_j < δ.
		shifts[r] = quickselect(diffs, c-1)
	}
	slices.Sort(shifts)
	v := max(shifts[int(math.Ceil(0.8*reps))-1], 0)
	mdeUCache[k] = v
	return v
}
