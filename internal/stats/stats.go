// Package stats turns two streams of Go benchmark results (benchfmt, the
// output of `go test -bench`) into one comparison per (package, benchmark,
// unit): benchstat's numbers, computed exactly as benchstat computes them,
// and, for time/op measured in interleaved rounds, a paired analysis.
//
// # Reading
//
// [Load] reads the base and the head stream with golang.org/x/perf/benchfmt.
// Every result line contributes one observation ([Obs]) per unit to the
// series of its [Key]:
//
//   - Key.Package is the value of the "pkg" configuration line in force for
//     the result ("" if there is none);
//   - Key.Name is benchfmt's name: the benchmark function name without the
//     "Benchmark" prefix, with its sub-benchmark parts and its "-GOMAXPROCS"
//     suffix ("Encode/format=json-8");
//   - Key.Unit is benchfmt's tidied unit: "ns/op" becomes "sec/op" (values
//     scaled by 1e-9), "MB/s" becomes "B/s" (×1e6); "B/op", "allocs/op" and
//     custom units are kept as written.
//
// The "round" configuration key, which benchgate's runner writes before the
// results of each interleaved round ("round: 3"), is recorded in Obs.Round
// (-1 when absent) so that base and head samples of the same round can be
// paired ([Pairs]). A side may hold several results of one benchmark in
// one round: the runner makes several short runs per side per round
// (--runs), each its own result line after the round's "round:" line;
// they are that side's runs of that round, grouped by (round, side) and
// reduced by Set.Estimator ([Rounds]). Every other configuration key
// (goos, cpu, note, ...) is ignored, as `benchstat -ignore` would.
// Observations keep file order; they are never sorted in place.
//
// Load fails on anything that is not clean benchmark output: each benchfmt
// syntax error is reported as "file:line: message" (all of them, joined with
// errors.Join), a "round" value that is not a non-negative integer is an
// error at its line, a stream without any benchmark result is the error
// "NAME: no benchmark results", and read errors are returned wrapped.
// Non-finite values (NaN, ±Inf, which b.ReportMetric can print) are dropped
// with a warning in Set.Warnings, so that no NaN reaches a report.
//
// # Comparing: benchstat's numbers
//
// [Compare] summarizes each side with benchmath.AssumeNothing (the median
// and a distribution-free order-statistic confidence interval at the given
// confidence level, 0.95 in benchstat) and compares the sides with
// benchmath.AssumeNothing.Compare, the two-sided Mann–Whitney U test that
// benchstat reports as "p=". Delta is head.Center/base.Center - 1, the figure
// benchstat prints as "vs base". Values are copied before benchmath sorts
// them. benchmath's caveats ("need >= 6 samples for confidence interval at
// level 0.95", "all samples are equal", ...) are kept as warning strings.
// These numbers never change with pairing: `benchstat -ignore round
// base.txt head.txt` reproduces them. They pool every run of a side, the
// several short runs of each round included; only the paired analysis
// reduces a round's runs to one value.
//
// # Paired time statistics
//
// Interleaving puts base and head of one round seconds apart, under the same
// machine state; the unpaired U test treats that shared drift as noise and
// loses power (BenchmarkPairedVsUTest in package gate: at 10 rounds on a
// machine whose state drifts by 3 %, a 2 % change is significant in 64 %
// of runs paired against 32 % unpaired; on a loaded machine a 10 %
// regression is caught in 99.7 % of runs against 78 %). So for every sec/op key
// with at least one round present on both sides, Comparison.Paired holds
// an analysis of the per-round log-ratios d_r = log(head_r/base_r) ([Pairs]
// matches the rounds). head_r and base_r are each side's runs of round r
// reduced by the estimator (Set.Estimator: median by default, or min, p25,
// mean; [Estimator]); the same estimator on both sides keeps the sign-flip
// test exact. The median and the minimum of each round's runs are kept
// beside it (Comparison.BaseRounds, HeadRounds) with the ratios they give
// (Paired.MedianRatio, MinRatio), so that a report can show them beside
// the gated figure:
//
//   - Ratio: the Hodges–Lehmann estimate of head/base, exp(median of the
//     Walsh averages (d_i+d_j)/2, i ≤ j). It is the estimator that goes
//     with the signed-rank test, robust to a few wild rounds, and more
//     efficient than the median of the d_r.
//   - Low, High: its confidence interval by exact inversion of the
//     signed-rank test (the k-th smallest and largest Walsh averages, k
//     from the exact null distribution for N ≤ ExactLimit = 50, from the
//     normal approximation above). N < 6 pairs give no 95 % interval.
//   - P: the two-sided Wilcoxon signed-rank p-value. Zeros (a round where
//     head and base printed the same ns/op, which happens with coarse
//     timings) follow Pratt: they are ranked with the others and their
//     ranks then dropped. Wilcoxon's original rule (drop the zeros, rank
//     the rest) is not monotone: making a slower round even slower can
//     make the result less significant (Pratt 1959); Pratt's rule keeps
//     each zero's place in the ranking and is what scipy (zero_method
//     "pratt") and R's coin package offer. A zero can never count as
//     evidence: with k non-zero rounds the floor is 2/2^k
//     (Paired.NonZero, [Paired.MinP]). Ties get
//     midranks. For N ≤ 50 the p-value is exact: it is computed from the
//     distribution of the statistic over all 2^k sign flips of the k
//     non-zero log-ratios with their actual (mid)ranks, a permutation test
//     that is exact under the null hypothesis "head and base are
//     exchangeable within a round" whatever the noise distribution, ties
//     and zeros included. Above 50, the normal approximation with the
//     ranks' own variance. The signed-rank test keeps 95 % of the t test's
//     power on normal noise and is far safer on the heavy-tailed noise of
//     shared machines; a sign-flip test on the raw values would be exact
//     too, but one wild round could dominate it.
//   - Noise: the robust standard deviation of the d_r (1.4826·MAD), the
//     round-to-round noise of the ratio; MDE: the smallest change that the
//     test finds with 80 % power at α with N pairs at this noise ([MDE]).
//
// The floor: with N pairs no sign-flip test can give p below 2/2^N
// ([SignedRankMinP]): 0.0020 at N=10, 0.031 at N=6; with zeros among the
// log-ratios, 2/2^NonZero ([Paired.MinP]). benchstat's U test, with
// 2N values, goes lower (0.0022 at 6 per side). Package gate decides which
// test can judge a suite, and how to correct for many benchmarks.
//
// Paired is nil without pairs (plain `go test -bench` output has no round
// lines) and for other units; when a paired value is not positive there is
// no log-ratio, Paired is nil and the comparison warns.
//
// This package does not judge anything: significance levels, thresholds and
// exact allocation checks belong to package gate. Units with an
// "assume=exact" metadata line are still summarized with AssumeNothing; the
// exact treatment of allocs/op and B/op is the gate's.
//
// The conformance test runs benchstat's own testdata
// (testdata/benchstat, copied from golang.org/x/perf) and checks that the
// centers, intervals, deltas and p-values render exactly as benchstat
// printed them. BenchmarkPairedVsUTest in package gate measures what the
// paired test buys.
package stats

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// Input is one benchfmt stream. Name is used in error messages
// ("base.txt:12: missing units").
type Input struct {
	Name string
	R    io.Reader
}

// Obs is one observation: a value of one unit from one benchmark result line.
type Obs struct {
	Value float64
	// Round is the "round" configuration value in force for the result,
	// or -1 if there was none.
	Round int
	// Iters is the iteration count (b.N) of the result.
	Iters int
}

// Key identifies one series: a benchmark of a package in one unit.
type Key struct {
	// Package is the "pkg" configuration value ("" if none).
	Package string
	// Name is the benchfmt name: no "Benchmark" prefix, sub-benchmark parts
	// and the "-GOMAXPROCS" suffix kept.
	Name string
	// Unit is the tidied benchfmt unit ("sec/op", "B/op", "allocs/op",
	// "B/s", or a custom unit).
	Unit string
}

// String returns "package.Name unit", or "Name unit" without a package.
func (k Key) String() string {
	if k.Package == "" {
		return k.Name + " " + k.Unit
	}
	return k.Package + "." + k.Name + " " + k.Unit
}

// Set holds the observations of both sides.
type Set struct {
	// Keys lists every key in first-seen order, base stream first, then the
	// keys that only the head stream has.
	Keys []Key
	// Base and Head map each key to its observations in file order. A key
	// missing on one side has no entry in that side's map.
	Base, Head map[Key][]Obs
	// Units is the unit metadata ("Unit x better=higher" lines) of both
	// streams.
	Units benchfmt.UnitMetadataMap
	// Warnings are problems that did not stop loading (non-finite values).
	Warnings []string
	// Estimator reduces each side's runs of one round to the value the
	// paired analysis compares (several short runs per side per round,
	// benchgate run --runs); "" is [Median]. Load leaves it empty; set
	// it before comparing.
	Estimator Estimator
}

// Load reads the base and head streams into a Set. See the package
// documentation for what is read and which errors are reported.
func Load(base, head Input) (*Set, error) {
	s := &Set{
		Base: make(map[Key][]Obs),
		Head: make(map[Key][]Obs),
	}
	seen := make(map[Key]bool)
	r := new(benchfmt.Reader)
	var errs []error
	for _, side := range []struct {
		in  Input
		obs map[Key][]Obs
	}{{base, s.Base}, {head, s.Head}} {
		name := side.in.Name
		if name == "" {
			name = "<unknown>"
		}
		if side.in.R == nil {
			errs = append(errs, fmt.Errorf("%s: no reader", name))
			continue
		}
		r.Reset(side.in.R, name)
		results := 0
		for r.Scan() {
			switch rec := r.Result().(type) {
			case *benchfmt.Result:
				round, err := roundOf(rec)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				results++
				for _, v := range rec.Values {
					if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
						file, line := rec.Pos()
						s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: %s: ignoring non-finite value %v %s", file, line, rec.Name, v.Value, v.Unit))
						continue
					}
					k := Key{Package: rec.GetConfig("pkg"), Name: rec.Name.String(), Unit: v.Unit}
					if !seen[k] {
						seen[k] = true
						s.Keys = append(s.Keys, k)
					}
					side.obs[k] = append(side.obs[k], Obs{Value: v.Value, Round: round, Iters: rec.Iters})
				}
			case *benchfmt.SyntaxError:
				errs = append(errs, rec)
			default:
				// Unit metadata is accumulated by the Reader; other
				// record types may be added to benchfmt in the future.
			}
		}
		if err := r.Err(); err != nil {
			errs = append(errs, err)
			continue
		}
		if results == 0 {
			errs = append(errs, fmt.Errorf("%s: no benchmark results", name))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s.Units = r.Units()
	return s, nil
}

// roundOf returns the "round" configuration value of res, or -1.
func roundOf(res *benchfmt.Result) (int, error) {
	v := res.GetConfig("round")
	if v == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		file, line := res.Pos()
		return 0, fmt.Errorf("%s:%d: round %q is not a non-negative integer", file, line, v)
	}
	return n, nil
}

// Summary describes one side of a comparison.
type Summary struct {
	// Center is the median; Low and High bound its confidence interval
	// (benchmath.AssumeNothing). Low and High are ±Inf when there are too
	// few samples for an interval at the requested confidence.
	Center, Low, High float64
	// Confidence is the confidence level the interval achieves (at least
	// the requested one).
	Confidence float64
	// N is the number of observations.
	N int
	// Min and Max are the smallest and largest observation.
	Min, Max float64
	// Constant reports whether all observations are equal.
	Constant bool
	// Values are the observations in file order.
	Values []Obs
	// Warnings are benchmath's caveats about this summary.
	Warnings []string
}

// PctRangeString renders the half-width of the confidence interval as a
// percentage of the center, exactly as benchstat prints it after "±"
// ("2%", "∞" without an interval, "?" when a bound and the center differ
// in sign).
func (s *Summary) PctRangeString() string {
	return benchmath.Summary{Center: s.Center, Lo: s.Low, Hi: s.High}.PctRangeString()
}

// Summarize summarizes obs with benchmath.AssumeNothing at the given
// confidence level. It returns nil for no observations. obs is not modified.
func Summarize(obs []Obs, confidence float64) *Summary {
	if len(obs) == 0 {
		return nil
	}
	sum, _ := summarize(obs, confidence, nil)
	return sum
}

func summarize(obs []Obs, confidence float64, th *benchmath.Thresholds) (*Summary, *benchmath.Sample) {
	vals := make([]float64, len(obs))
	for i, o := range obs {
		vals[i] = o.Value
	}
	sample := benchmath.NewSample(vals, th) // sorts vals, which is our copy
	bs := benchmath.AssumeNothing.Summary(sample, confidence)
	sum := &Summary{
		Center:     bs.Center,
		Low:        bs.Lo,
		High:       bs.Hi,
		Confidence: bs.Confidence,
		N:          len(vals),
		Min:        vals[0],
		Max:        vals[len(vals)-1],
		Constant:   vals[0] == vals[len(vals)-1],
		Values:     append([]Obs(nil), obs...),
	}
	sum.Warnings = appendErrs(sum.Warnings, sample.Warnings)
	sum.Warnings = appendErrs(sum.Warnings, bs.Warnings)
	return sum, sample
}

func appendErrs(dst []string, errs []error) []string {
	for _, err := range errs {
		dst = append(dst, err.Error())
	}
	return dst
}

// Comparison compares the base and head series of one key.
type Comparison struct {
	Key
	// Base and Head summarize each side; nil when that side lacks the key.
	Base, Head *Summary
	// Delta is Head.Center/Base.Center - 1 (0.05 = +5%); nil when a side
	// is missing or Base.Center is 0.
	Delta *float64
	// P is the two-sided Mann–Whitney U p-value exactly as benchstat
	// computes it; nil when a side is missing. When every value on both
	// sides is equal, benchstat's convention applies: P is 1 and Warnings
	// says "all samples are equal".
	P *float64
	// Better is +1 when higher values of the unit are better (B/s), -1
	// when lower values are better (sec/op, B/op, allocs/op), 0 when
	// unknown. It comes from "Unit ... better=" metadata, then benchfmt's
	// built-in defaults, then the rule that a unit ending in "/s" is a rate.
	Better int
	// Paired is the paired analysis of a sec/op series measured in rounds
	// (see the package documentation); nil for other units and without
	// rounds present on both sides.
	Paired *Paired
	// Estimator is the reduction of each round's runs (Set.Estimator;
	// never empty).
	Estimator Estimator
	// BaseRounds and HeadRounds are each side's observations grouped by
	// round, ascending, each round's runs reduced by Estimator and also
	// to their median and minimum; nil for a side without rounds. Base and
	// Head summarize the runs themselves, as benchstat does.
	BaseRounds, HeadRounds []RoundStat
	// Warnings are benchmath's caveats about the test.
	Warnings []string
}

// Compare compares every key of s, in s.Keys order, at the given confidence
// level (0.95 in benchstat). Warnings about sample sizes refer to benchstat's
// default α of 0.05; use [CompareAlpha] to state another α.
func Compare(s *Set, confidence float64) []Comparison {
	return CompareAlpha(s, confidence, benchmath.DefaultThresholds.CompareAlpha)
}

// uTest is benchmath.AssumeNothing.Compare's p-value and warnings. Where
// benchmath would build the exact tied distribution with maps (samples of
// 10 to 25 values with ties, the common case for timings) the same p comes
// from uTestP; there benchmath's only warning ("need >= N samples") cannot
// apply, since a side has at least 10 samples.
func uTest(bs, hs *benchmath.Sample, alpha float64, warnings []string) (*float64, []string) {
	if max(len(bs.Values), len(hs.Values)) >= 10 && alpha >= 1e-4 {
		if p, ok := uTestP(bs.Values, hs.Values); ok {
			return &p, warnings
		}
	}
	cmp := benchmath.AssumeNothing.Compare(bs, hs)
	p := cmp.P
	return &p, appendErrs(warnings, cmp.Warnings)
}

// CompareAlpha is [Compare] with the significance level α that benchmath's
// sample-size warning ("need >= 5 samples to detect a difference at alpha
// level 0.01") and Paired.MDE refer to. The p-values do not depend on
// alpha. The paired interval uses the same confidence level as the medians.
func CompareAlpha(s *Set, confidence, alpha float64) []Comparison {
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	out := make([]Comparison, len(s.Keys))
	// Keys are independent: spread them over the CPUs.
	workers := min(runtime.GOMAXPROCS(0), max(1, len(s.Keys)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(s.Keys); i += workers {
				out[i] = compareKey(s, s.Keys[i], confidence, alpha, th)
			}
		}()
	}
	wg.Wait()
	return out
}

func compareKey(s *Set, k Key, confidence, alpha float64, th *benchmath.Thresholds) Comparison {
	est, err := ParseEstimator(string(s.Estimator))
	if err != nil {
		est = Median
	}
	c := Comparison{Key: k, Better: better(s.Units, k.Unit), Estimator: est}
	var bs, hs *benchmath.Sample
	if obs := s.Base[k]; len(obs) > 0 {
		c.Base, bs = summarize(obs, confidence, th)
		c.BaseRounds = Rounds(obs, est)
	}
	if obs := s.Head[k]; len(obs) > 0 {
		c.Head, hs = summarize(obs, confidence, th)
		c.HeadRounds = Rounds(obs, est)
	}
	if err != nil {
		c.Warnings = append(c.Warnings, err.Error()+"; using median")
	}
	if bs == nil || hs == nil {
		return c
	}
	c.P, c.Warnings = uTest(bs, hs, alpha, c.Warnings)
	if c.Base.Center != 0 {
		d := c.Head.Center/c.Base.Center - 1
		c.Delta = &d
	}
	if k.Unit == "sec/op" {
		var warn string
		c.Paired, warn = pairedRounds(c.BaseRounds, c.HeadRounds, est, confidence, alpha)
		if warn != "" {
			c.Warnings = append(c.Warnings, warn)
		}
	}
	return c
}

func better(units benchfmt.UnitMetadataMap, unit string) int {
	if b := units.GetBetter(unit); b != 0 {
		return b
	}
	if strings.HasSuffix(unit, "/s") {
		return 1
	}
	return 0
}

// Pairs matches base and head observations by round, for paired statistics
// on interleaved runs. It returns one value per round present on both
// sides, in ascending round order: b[i] and h[i] were measured in the same
// round. Observations without a round (Round < 0) are left out. When a
// round holds several observations on one side (several short runs), their
// median is used; [PairsBy] takes another estimator.
func Pairs(base, head []Obs) (b, h []float64) {
	return PairsBy(base, head, Median)
}

// PairsBy is [Pairs] with the runs of a round reduced by e.
func PairsBy(base, head []Obs, e Estimator) (b, h []float64) {
	_, bs, hs := matchRounds(Rounds(base, e), Rounds(head, e))
	for i := range bs {
		b = append(b, bs[i].Value)
		h = append(h, hs[i].Value)
	}
	return b, h
}

// matchRounds returns the rounds present in both base and head (each
// ascending) and their RoundStats, aligned.
func matchRounds(base, head []RoundStat) (rounds []int, b, h []RoundStat) {
	i, j := 0, 0
	for i < len(base) && j < len(head) {
		switch {
		case base[i].Round < head[j].Round:
			i++
		case base[i].Round > head[j].Round:
			j++
		default:
			rounds = append(rounds, base[i].Round)
			b = append(b, base[i])
			h = append(h, head[j])
			i++
			j++
		}
	}
	return rounds, b, h
}
