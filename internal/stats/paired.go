package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// Paired is the paired analysis of one time/op series: base and head
// samples of the same round form a pair, and everything is computed on the
// per-round log-ratios d_r = log(head_r / base_r). See the package
// documentation ("Paired time statistics") for the methods.
type Paired struct {
	// N is the number of pairs: rounds present on both sides.
	N int
	// Rounds are the paired rounds, ascending; LogRatios[i] is
	// log(head/base) of round Rounds[i].
	Rounds    []int
	LogRatios []float64
	// Ratio is the Hodges–Lehmann estimate of head/base: exp of the median
	// of the Walsh averages of the log-ratios. Low and High bound its
	// confidence interval, inverted from the exact signed-rank test; Low is
	// 0 and High +Inf when N is too small for an interval at the requested
	// confidence (N < 6 at 95%).
	Ratio, Low, High float64
	// Confidence is the level the interval achieves (at least the
	// requested one; 1 for an unbounded interval).
	Confidence float64
	// P is the two-sided p-value of the Wilcoxon signed-rank test of "the
	// log-ratios are symmetric about 0" (Pratt's treatment of zeros,
	// midranks for ties). Exact reports whether it comes from the exact
	// permutation distribution (N ≤ ExactLimit) rather than the normal
	// approximation.
	P     float64
	Exact bool
	// NonZero is the number of log-ratios that are not 0. Only they can
	// carry evidence: the smallest p-value this row can give is
	// SignedRankMinP(NonZero) ([Paired.MinP]), not SignedRankMinP(N).
	NonZero int
	// Estimator is how each side's runs of one round were reduced to the
	// value in LogRatios; Runs is the most runs a side made in one paired
	// round (1: one run per side per round).
	Estimator Estimator
	Runs      int
	// MedianRatio and MinRatio are the Hodges–Lehmann estimates of
	// head/base (as Ratio) with each round's runs reduced by their median
	// and by their minimum instead of Estimator: figures to show beside
	// the gated Ratio. With one run per round all three are equal. 0 when
	// a round's value is not positive.
	MedianRatio, MinRatio float64
	// Noise is the robust standard deviation of the log-ratios,
	// 1.4826·MAD (≈ the relative round-to-round noise of head/base: 0.02
	// is about 2 %). See [RobustSD].
	Noise float64
	// MDE is the smallest relative change (0.031 = 3.1 %) that this test
	// detects with 80 % power at the α given to [CompareAlpha], with N
	// pairs and this Noise (see [MDE]); +Inf when no p-value below α is
	// possible with N pairs. The gate recomputes it at the level a
	// benchmark must reach after multiple-testing correction.
	MDE float64
}

// ExactLimit is the largest number of pairs for which the signed-rank
// p-value and the Hodges–Lehmann interval use the exact permutation
// distribution; above it they use the normal approximation.
const ExactLimit = 50

// Interval returns the Hodges–Lehmann confidence interval of the ratio at
// another confidence level (the futility rule of a sequential look uses
// 1−2α): low, high and the achieved confidence, as in Paired.Low/High.
func (p *Paired) Interval(confidence float64) (low, high, achieved float64) {
	_, lo, hi, ach := HodgesLehmann(p.LogRatios, confidence)
	return math.Exp(lo), math.Exp(hi), ach
}

// pairedRounds is the paired analysis of two sides' reduced rounds.
func pairedRounds(base, head []RoundStat, e Estimator, confidence, alpha float64) (*Paired, string) {
	rounds, b, h := matchRounds(base, head)
	if len(rounds) == 0 {
		return nil, ""
	}
	d := make([]float64, len(rounds))
	runs := 0
	for i := range d {
		if !(b[i].Value > 0 && h[i].Value > 0) {
			return nil, fmt.Sprintf("no paired analysis: round %d has a value ≤ 0 (base %v, head %v)", rounds[i], b[i].Value, h[i].Value)
		}
		d[i] = math.Log(h[i].Value / b[i].Value)
		runs = max(runs, b[i].Runs, h[i].Runs)
	}
	p := &Paired{N: len(d), Rounds: rounds, LogRatios: d, Estimator: e, Runs: runs}
	est, lo, hi, ach := HodgesLehmann(d, confidence)
	p.Ratio, p.Low, p.High, p.Confidence = math.Exp(est), math.Exp(lo), math.Exp(hi), ach
	p.P, p.Exact = SignedRankTest(d)
	for _, v := range d {
		if v != 0 {
			p.NonZero++
		}
	}
	p.Noise = RobustSD(d)
	p.MDE = MDE(p.N, p.Noise, alpha)
	p.MedianRatio, p.MinRatio = p.Ratio, p.Ratio
	if runs > 1 {
		if e != Median {
			p.MedianRatio = hlRatio(b, h, func(r RoundStat) float64 { return r.Median })
		}
		if e != Min {
			p.MinRatio = hlRatio(b, h, func(r RoundStat) float64 { return r.Min })
		}
	}
	return p, ""
}

// hlRatio is the Hodges–Lehmann estimate of head/base over aligned rounds
// with the rounds' values taken by v; 0 when a value is not positive.
func hlRatio(b, h []RoundStat, v func(RoundStat) float64) float64 {
	d := make([]float64, len(b))
	for i := range b {
		bv, hv := v(b[i]), v(h[i])
		if !(bv > 0 && hv > 0) {
			return 0
		}
		d[i] = math.Log(hv / bv)
	}
	// The median of the Walsh averages, as HodgesLehmann's estimate,
	// without sorting them all.
	n := len(d)
	w := make([]float64, 0, n*(n+1)/2)
	for i := range n {
		for j := i; j < n; j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	m := len(w)
	est := quickselect(w, m/2)
	if m%2 == 0 {
		est = (est + slices.Max(w[:m/2])) / 2
	}
	return math.Exp(est)
}

// SignedRankMinP is the smallest two-sided p-value the signed-rank test
// (or any sign-flip test) can give with n pairs: 2/2ⁿ, when every pair
// moves the same way (1 for n ≤ 1). Ties and zeros only raise it.
func SignedRankMinP(n int) float64 {
	if n <= 1 {
		return 1
	}
	return math.Ldexp(1, 1-n)
}

// SignedRankTest returns the two-sided p-value of the Wilcoxon signed-rank
// test that d is symmetric about 0, and whether it is exact.
//
// Zeros are handled as Pratt proposed: |d| is ranked with the zeros
// included (tied values get their mean rank), then the zeros' ranks are
// dropped, so an exact zero counts as the smallest possible change rather
// than being thrown away. For len(d) ≤ [ExactLimit] the p-value comes from
// the exact distribution of the statistic over the 2^k sign flips of the k
// non-zero differences with their actual (mid)ranks, so it is exact
// (conditionally on the ranks) with ties and zeros too. Above it, the
// normal approximation with the variance of those ranks and a continuity
// correction of half a rank is used. No non-zero difference gives p = 1.
func SignedRankTest(d []float64) (p float64, exact bool) {
	n := len(d)
	if n == 0 {
		return 1, true
	}
	r2 := doubledRanks(d)
	var nz []int // doubled ranks of the non-zero differences
	t2, s2 := 0, 0
	for i, v := range d {
		if v == 0 {
			continue
		}
		nz = append(nz, r2[i])
		s2 += r2[i]
		if v > 0 {
			t2 += r2[i]
		}
	}
	if len(nz) == 0 {
		return 1, true
	}
	if n <= ExactLimit {
		dist := signFlipDist(nz, s2)
		lower, upper := 0.0, 0.0
		for s, q := range dist {
			if s <= t2 {
				lower += q
			}
			if s >= t2 {
				upper += q
			}
		}
		return math.Min(1, 2*math.Min(lower, upper)), true
	}
	mean := float64(s2) / 2
	v := 0.0
	for _, r := range nz {
		v += float64(r) * float64(r)
	}
	sd := math.Sqrt(v / 4)
	z := (math.Abs(float64(t2)-mean) - 1) / sd // 1 doubled unit = half a rank
	if z < 0 {
		z = 0
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2)), false
}

// doubledRanks returns twice the (mid)rank of |d[i]| among all |d|, an
// integer even for ties.
func doubledRanks(d []float64) []int {
	n := len(d)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		x, y := math.Abs(d[a]), math.Abs(d[b])
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	r2 := make([]int, n)
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(d[idx[j+1]]) == math.Abs(d[idx[i]]) {
			j++
		}
		// Positions i..j (0-based) share the mean rank ((i+1)+(j+1))/2.
		for k := i; k <= j; k++ {
			r2[idx[k]] = i + j + 2
		}
		i = j + 1
	}
	return r2
}

// signFlipDist returns the distribution of the sum of the ranks given a
// positive sign, over all equally likely sign flips: dist[s] = P(sum = s).
func signFlipDist(ranks []int, total int) []float64 {
	dist := make([]float64, total+1)
	dist[0] = 1
	hi := 0
	for _, r := range ranks {
		for s := hi; s >= 0; s-- {
			if dist[s] == 0 {
				continue
			}
			dist[s+r] += dist[s] / 2
			dist[s] /= 2
		}
		hi += r
	}
	return dist
}

// nullCDF returns the cumulative null distribution of the signed-rank
// statistic T+ (sum of the positive ranks 1..n, no ties): cdf[t] = P(T+ ≤ t)
// for t = 0..n(n+1)/2. Results are cached.
func nullCDF(n int) []float64 {
	nullMu.Lock()
	defer nullMu.Unlock()
	if c, ok := nullCache[n]; ok {
		return c
	}
	ranks := make([]int, n)
	for i := range ranks {
		ranks[i] = i + 1
	}
	m := n * (n + 1) / 2
	dist := signFlipDist(ranks, m)
	cdf := make([]float64, m+1)
	acc := 0.0
	for t, q := range dist {
		acc += q
		cdf[t] = acc
	}
	nullCache[n] = cdf
	return cdf
}

var (
	nullMu    sync.Mutex
	nullCache = map[int][]float64{}
)

// walsh returns the sorted Walsh averages (d[i]+d[j])/2, i ≤ j.
func walsh(d []float64) []float64 {
	n := len(d)
	w := make([]float64, 0, n*(n+1)/2)
	for i := range n {
		for j := i; j < n; j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	slices.Sort(w)
	return w
}

// HodgesLehmann returns the Hodges–Lehmann estimate of the center of
// symmetry of d (the median of the Walsh averages) and its confidence
// interval at the given level, inverted from the signed-rank test: the
// k-th smallest and k-th largest Walsh average, with k from the exact null
// distribution for len(d) ≤ [ExactLimit] (the no-ties distribution, the
// usual approximation with ties) and from the normal approximation above.
// achieved is the interval's actual coverage (≥ confidence). When len(d)
// is too small for any interval, lo and hi are −Inf and +Inf and achieved
// is 1. An empty d gives NaN and an unbounded interval.
func HodgesLehmann(d []float64, confidence float64) (est, lo, hi, achieved float64) {
	n := len(d)
	if n == 0 {
		return math.NaN(), math.Inf(-1), math.Inf(1), 1
	}
	w := walsh(d)
	m := len(w)
	if m%2 == 1 {
		est = w[m/2]
	} else {
		est = (w[m/2-1] + w[m/2]) / 2
	}
	k, ach := hlRank(n, confidence)
	if k < 1 {
		return est, math.Inf(-1), math.Inf(1), 1
	}
	return est, w[k-1], w[m-k], ach
}

// hlRank returns k, the rank of the Walsh averages that bound the
// Hodges–Lehmann interval at the given confidence for n pairs, and the
// achieved confidence; k = 0 when no interval exists.
func hlRank(n int, confidence float64) (int, float64) {
	tail := (1 - confidence) / 2
	if n <= ExactLimit {
		cdf := nullCDF(n)
		// Largest k with P(T+ ≤ k−1) ≤ tail.
		k := 0
		for k < len(cdf) && cdf[k] <= tail {
			k++
		}
		if k == 0 {
			return 0, 1
		}
		return k, 1 - 2*cdf[k-1]
	}
	m := float64(n * (n + 1) / 2)
	sd := math.Sqrt(float64(n) * float64(n+1) * float64(2*n+1) / 24)
	z := normalQuantile(1 - tail)
	k := int(math.Floor(m/2 - z*sd))
	if k < 1 {
		return 0, 1
	}
	// Coverage of [W(k), W(m+1-k)]: 1 − 2·P(T+ ≤ k−1), continuity-corrected.
	return k, 1 - 2*normalCDF((float64(k)-0.5-m/2)/sd)
}

// RobustSD returns a robust estimate of the standard deviation of d:
// 1.4826 times the median absolute deviation from the median (consistent
// for normal data, unmoved by a few wild rounds), times a small-sample
// factor that makes it unbiased for normal data at every n (Croux and
// Rousseeuw 1992: 1.19 at n=6, 1.10 at 10, n/(n−0.8) from 10 on; without
// it the estimate averaged 0.84σ at 6 rounds and 0.91σ at 10, so the MDE
// and the "too noisy" warning were optimistic). When more than half the
// values are equal the MAD is 0 although d varies; then 1.2533 times the
// mean absolute deviation from the median is used. It is 0 for fewer than
// two values or equal values.
func RobustSD(d []float64) float64 {
	if len(d) < 2 {
		return 0
	}
	med := median(d)
	dev := make([]float64, len(d))
	sum := 0.0
	for i, v := range d {
		dev[i] = math.Abs(v - med)
		sum += dev[i]
	}
	if mad := median(dev); mad > 0 {
		return 1.4826 * mad * madFactor(len(d))
	}
	return 1.2533 * sum / float64(len(d))
}

// SymmetricNoise is a robust standard deviation of d computed from |d|
// alone, so that it is the same for d and for d with any signs flipped:
// the smaller of 1.4826 × the median of |d| (RobustSD about 0) and 2.5057
// × the median absolute deviation of |d| about its median (for normal d
// centred on 0 both estimate the standard deviation), each with RobustSD's
// small-sample factor. The first grows with a shift of d, the second
// hardly (the |d| of a shifted series spread about the shift as d does),
// so a real change does not read as noise (a constant shift reads as 0).
// When more than half of d is 0, 1.2533 × the mean of |d|. A figure
// computed from it (the
// confirmation's fresh rounds of a row) does not depend on which way the
// row's rounds went.
func SymmetricNoise(d []float64) float64 {
	if len(d) < 2 {
		return 0
	}
	abs := make([]float64, len(d))
	sum := 0.0
	for i, v := range d {
		abs[i] = math.Abs(v)
		sum += abs[i]
	}
	f := madFactor(len(d))
	med := median(abs)
	if med == 0 {
		return 1.2533 * sum / float64(len(d))
	}
	about := make([]float64, len(abs))
	for i, v := range abs {
		about[i] = math.Abs(v - med)
	}
	return math.Min(1.4826*med*f, 2.5057*median(about)*f)
}

// madFactor is the small-sample correction of the normal-consistent MAD:
// measured (400,000 normal samples per n) for n < 10, n/(n−0.8) above,
// which matches the simulation within 0.1 %.
func madFactor(n int) float64 {
	small := [...]float64{2: 1.195, 3: 1.488, 4: 1.362, 5: 1.217, 6: 1.191, 7: 1.138, 8: 1.127, 9: 1.101}
	if n < len(small) {
		return small[n]
	}
	return float64(n) / (float64(n) - 0.8)
}

// median returns the median of x without modifying it.
func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// MDE returns the minimum detectable effect of the paired signed-rank test:
// the smallest relative slowdown exp(δ)−1 that gives a two-sided p-value
// below alpha with 80 % probability, for n pairs whose log-ratios are
// normal with standard deviation noise. It is +Inf when n pairs cannot give
// a p-value below alpha at all ([SignedRankMinP](n) ≥ alpha), 0 when noise
// is 0 and they can.
//
// For n ≤ [ExactLimit] it is computed, not approximated from a formula:
// with the exact critical value c of the statistic at alpha, a shift δ is
// detected exactly when the c-th largest Walsh average of the noise
// exceeds −δ, so the standardized MDE is the 80th percentile of minus that
// order statistic over 4,000 simulated samples of standard normal noise
// (a fixed seed: the result is deterministic; cached per (n, alpha); its
// Monte-Carlo error is about 1 %). Above ExactLimit it is the large-sample
// value (z₁₋α/₂ + z₀.₈)·σ/√(3n/π) (the test's efficiency relative to the
// t test is 3/π).
func MDE(n int, noise, alpha float64) float64 {
	if n < 1 || !(alpha > 0) || SignedRankMinP(n) >= alpha {
		return math.Inf(1)
	}
	if noise <= 0 {
		return 0
	}
	return math.Expm1(noise * standardMDE(n, alpha))
}

type mdeKey struct {
	n     int
	alpha float64
}

var (
	mdeMu    sync.Mutex
	mdeCache = map[mdeKey]float64{}
)

// standardMDE returns the MDE in units of the noise's standard deviation.
func standardMDE(n int, alpha float64) float64 {
	if n > ExactLimit {
		return (normalQuantile(1-alpha/2) + normalQuantile(0.8)) / math.Sqrt(3*float64(n)/math.Pi)
	}
	k := mdeKey{n, alpha}
	mdeMu.Lock()
	defer mdeMu.Unlock()
	if v, ok := mdeCache[k]; ok {
		return v
	}
	cdf := nullCDF(n)
	m := len(cdf) - 1
	// Smallest c with two-sided p = 2·P(T+ ≥ c) < alpha.
	c := m + 1
	for t := m; t >= 0; t-- {
		// P(T+ ≥ t) = P(T+ ≤ m−t) by symmetry (no cancellation).
		if 2*cdf[m-t] < alpha {
			c = t
		} else {
			break
		}
	}
	if c > m {
		mdeCache[k] = math.Inf(1)
		return math.Inf(1)
	}
	const reps = 4000
	rng := rand.New(rand.NewPCG(uint64(n), 0x6d6465))
	z := make([]float64, n)
	w := make([]float64, 0, m)
	shifts := make([]float64, reps)
	for r := range shifts {
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		w = w[:0]
		for i := range n {
			for j := i; j < n; j++ {
				w = append(w, (z[i]+z[j])/2)
			}
		}
		// T+(z+δ) ≥ c ⟺ the c-th largest Walsh average of z exceeds −δ.
		shifts[r] = -quickselect(w, m-c)
	}
	slices.Sort(shifts)
	v := shifts[int(math.Ceil(0.8*reps))-1]
	if v < 0 {
		v = 0
	}
	mdeCache[k] = v
	return v
}

// quickselect returns the k-th smallest (0-based) element of x, reordering x.
func quickselect(x []float64, k int) float64 {
	lo, hi := 0, len(x)-1
	for lo < hi {
		pivot := x[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for x[i] < pivot {
				i++
			}
			for x[j] > pivot {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return x[k]
		}
	}
	return x[k]
}

// normalCDF is the standard normal distribution function.
func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// normalQuantile is the inverse of normalCDF.
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }
