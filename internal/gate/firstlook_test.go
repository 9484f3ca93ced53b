package gate

// Why the confirmation's first look is the paired signed-rank test and
// not Student's t on the log-ratios, whose p-values have no floor: under
// the null of the interleaved design (base and head in a random order,
// so a round's log-ratio is as likely to have either sign whatever its
// size) a test's rate at level L is exactly the share of the 2^n sign
// patterns of the rounds' magnitudes it rejects, which is counted here
// (meet in the middle) for magnitudes drawn from several kinds of noise.
// The t test's rate is L under normal noise and below it under heavy
// tails and bursts, but far above it when the magnitudes are alike: an
// order effect (the second run of a pair slower by c), which the random
// order and a round's median turn into ±c a round, gives 11 times L at
// the first look's Holm step for a suite of 20 (α/20/20 = 2.5·10⁻⁵),
// and light-tailed noise 4 times. The signed-rank test's rate is at most
// L for every kind (it depends on the ranks alone), at the price of its
// floor, 2/2^n.
//
//	BENCHGATE_SIM=1 go test -run TestFirstLookTTest -v ./internal/gate/

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	mstats "github.com/aclements/go-moremath/stats"
)

// tCritical returns c with P(|T_{n−1}| ≥ c) = level, two-sided.
func tCritical(n int, level float64) float64 {
	td := mstats.TDist{V: float64(n - 1)}
	lo, hi := 0.0, 1e4
	for range 200 {
		mid := (lo + hi) / 2
		if 2*td.CDF(-mid) > level {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// signFlipRate returns the exact share of the sign patterns of the
// magnitudes a for which the one-sample t statistic of the signed values
// has |t| ≥ c: |t| ≥ c exactly when |Σ±a| ≥ √(c²·n·Σa²/(n−1+c²)), Σa²
// being the same for every pattern.
func signFlipRate(a []float64, c float64) float64 {
	n := float64(len(a))
	q := 0.0
	for _, v := range a {
		q += v * v
	}
	s := math.Sqrt(c * c * n * q / (n - 1 + c*c))
	sums := func(x []float64) []float64 {
		out := []float64{0}
		for _, v := range x {
			next := make([]float64, 0, 2*len(out))
			for _, o := range out {
				next = append(next, o+v, o-v)
			}
			out = next
		}
		return out
	}
	h := len(a) / 2
	lo, hi := sums(a[:h]), sums(a[h:])
	sort.Float64s(hi)
	count := 0
	for _, x := range lo {
		count += len(hi) - sort.SearchFloat64s(hi, s-x-1e-12*s)
	}
	return 2 * float64(count) / math.Pow(2, n)
}

// signedRankRate is signFlipRate for the signed-rank test at level:
// the share of the sign patterns whose exact p-value, 2·min(P(W ≤ w),
// P(W ≥ w)) for the sum w of the positive ones' ranks, is below it.
func signedRankRate(a []float64, level float64) float64 {
	dist := signFlipDist(doubledRanksOf(a))
	rate := 0.0
	cum := 0.0
	for w := range dist {
		cum += dist[w]
		upper := 1 - cum + dist[w]
		if p := 2 * math.Min(cum, upper); p < level {
			rate += dist[w]
		}
	}
	return rate
}

func doubledRanksOf(a []float64) []int {
	idx := make([]int, len(a))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return a[idx[i]] < a[idx[j]] })
	r := make([]int, len(a))
	for i, j := range idx {
		r[j] = 2 * (i + 1)
	}
	return r
}

// signFlipDist is the distribution of Σ of the positive ones of ranks
// under fair signs, by value.
func signFlipDist(ranks []int) []float64 {
	total := 0
	for _, r := range ranks {
		total += r
	}
	dist := make([]float64, total+1)
	dist[0] = 1
	for _, r := range ranks {
		for w := total; w >= r; w-- {
			dist[w] = 0.5*dist[w] + 0.5*dist[w-r]
		}
		for w := r - 1; w >= 0; w-- {
			dist[w] *= 0.5
		}
	}
	return dist
}

func TestFirstLookTTest(t *testing.T) {
	t.Parallel()
	const n = 17 // the first look at the defaults: 10 screen rounds + 7
	level := 0.01 / 20 / 20
	reps := simReps(t, 300)
	c := tCritical(n, level)
	kinds := []struct {
		name       string
		draw       func(*rand.Rand) float64
		tLow, tHig float64 // the t test's rate, in units of the level
	}{
		{"normal", func(r *rand.Rand) float64 { return r.NormFloat64() }, 0.8, 1.25},
		{"Student t, 3 df", func(r *rand.Rand) float64 {
			chi := 0.0
			for range 3 {
				z := r.NormFloat64()
				chi += z * z
			}
			return r.NormFloat64() / math.Sqrt(chi/3)
		}, 0, 0.6},
		{"bursts: 1 round in 10 slowed 3–10×", func(r *rand.Rand) float64 {
			if r.Float64() < 0.1 {
				return 3 + 7*r.Float64()
			}
			return r.NormFloat64()
		}, 0, 0.6},
		{"uniform", func(r *rand.Rand) float64 { return 2*r.Float64() - 1 }, 2, math.Inf(1)},
		{"order effect: ±c, c 10× the noise", func(r *rand.Rand) float64 { return 1 + 0.1*r.NormFloat64() }, 5, math.Inf(1)},
	}
	for _, k := range kinds {
		rng := rand.New(rand.NewPCG(17, uint64(len(k.name))))
		var tRate, srRate float64
		for range reps {
			a := make([]float64, n)
			for i := range a {
				a[i] = math.Abs(k.draw(rng))
			}
			tRate += signFlipRate(a, c)
			srRate += signedRankRate(a, level)
		}
		tRate /= float64(reps) * level
		srRate /= float64(reps) * level
		t.Logf("%s: the t test's rate %.2f× the level, the signed-rank test's %.2f×", k.name, tRate, srRate)
		if tRate < k.tLow || tRate > k.tHig {
			t.Errorf("%s: the t test's rate at %.1e is %.2f× the level, want within [%.2f, %.2f]", k.name, level, tRate, k.tLow, k.tHig)
		}
		if srRate > 1 {
			t.Errorf("%s: the signed-rank test's rate is %.2f× the level, want at most 1", k.name, srRate)
		}
		simOut.add("| first look: Student's t on the log-ratios, exact over the 2^17 sign patterns | %s | +0%% | %.2f× the level (2.5·10⁻⁵) | the signed-rank test %.2f× | %d |", k.name, tRate, srRate, reps)
	}
}
