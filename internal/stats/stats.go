// Package stats turns two streams of Go benchmark results (benchfmt, the
// output of go test -bench) into one comparison per (package, benchmark,
// unit): benchstat's numbers, computed exactly as benchstat computes them,
// and, for time/op measured in interleaved rounds, a paired analysis of the
// per-round values (each round's short runs reduced by an [Estimator]).
// [Load] reads the streams; [CompareAlpha] compares them. How rounds are
// paired, the tests and their floors are in docs/statistics.md.
package stats

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
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
	// Lines maps R's lines to the lines of the file Name names, for
	// errors: line i of R is line Lines[i-1] of the file (text converted
	// from go test -json, benchout.FromJSON); nil when R is the file.
	Lines []int
}

// line maps line n of in's reader to the file's line.
func (in Input) line(n int) int {
	if in.Lines == nil || n < 1 {
		return n
	}
	if n > len(in.Lines) {
		return in.Lines[len(in.Lines)-1]
	}
	return in.Lines[n-1]
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

// Set holds the observations of both sides.
type Set struct {
	// Keys lists every key in first-seen order, base stream first, then the
	// keys that only the head stream has.
	Keys []Key
	// Base and Head map each key to its observations in file order. A key
	// missing on one side has no entry in that side's map.
	Base, Head map[Key][]Obs
	// Units is the unit metadata ("Unit x better=higher" lines) of the
	// base stream. Head's is not read: a line in head's file alone would
	// otherwise turn the direction of its own metric (a +30 % p99-sec/op
	// declared better=higher passes as an improvement); one that base
	// lacks or contradicts is a warning.
	Units benchfmt.UnitMetadataMap
	// Warnings are problems that did not stop loading (non-finite values).
	Warnings []string
	// Estimator reduces each side's runs of one round to the value the
	// paired analysis compares (several short runs per side per round,
	// benchgate run --runs); "" is [Median]. Load leaves it empty; set
	// it before comparing.
	Estimator Estimator
	// Looks are the rounds after which an adaptive run (benchgate run
	// --max-time) looked at its results and could have stopped, from the
	// streams' "looks: 5,10,20" configuration line; nil for a run of
	// fixed length. The p-values must pay for them (gate.Policy.Looks).
	Looks []int
}

// The most Load keeps: a suite of thousands of benchmarks, each with a few
// units over dozens of rounds of several runs, is far within them; past
// them the streams are refused (a shard's raw file, up to 256 MiB, could
// otherwise hold a hundred times more, and the comparison's memory grows
// with each series).
const (
	MaxSeries       = 20_000    // keys (benchmark × unit) of both streams
	MaxObservations = 4_000_000 // values of both streams
)

// maxSeries and maxObservations are the limits Load applies (tests shrink
// them).
var maxSeries, maxObservations = MaxSeries, MaxObservations

// Load reads the base and head streams into a Set. See the package
// documentation for what is read and which errors are reported.
func Load(base, head Input) (*Set, error) {
	s := &Set{
		Base: make(map[Key][]Obs),
		Head: make(map[Key][]Obs),
	}
	seen := make(map[Key]bool)
	obs := 0
	var units benchfmt.UnitMetadataMap
	var errs []error
	for i, side := range []struct {
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
		// A reader of its own per side: benchfmt's Reset keeps the unit
		// metadata read so far, which would let head's join base's.
		r := new(benchfmt.Reader)
		r.Reset(side.in.R, name)
		results := 0
		var looks []int
		looksSeen := false
		for r.Scan() {
			switch rec := r.Result().(type) {
			case *benchfmt.Result:
				round, err := roundOf(rec, side.in)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				results++
				if !looksSeen {
					looksSeen = true
					if looks, err = looksOf(rec, side.in); err != nil {
						errs = append(errs, err)
						continue
					}
				}
				for _, v := range rec.Values {
					if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
						file, line := rec.Pos()
						s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: %s: ignoring non-finite value %v %s", file, side.in.line(line), rec.Name, v.Value, v.Unit))
						continue
					}
					k := Key{Package: rec.GetConfig("pkg"), Name: rec.Name.String(), Unit: v.Unit}
					if !seen[k] {
						if len(s.Keys) == maxSeries {
							file, line := rec.Pos()
							return nil, fmt.Errorf("%s:%d: more than %d series (benchmark × unit) in the two files: benchgate compares at most that many", file, side.in.line(line), maxSeries)
						}
						seen[k] = true
						s.Keys = append(s.Keys, k)
					}
					if obs++; obs > maxObservations {
						file, line := rec.Pos()
						return nil, fmt.Errorf("%s:%d: more than %d values in the two files: benchgate compares at most that many", file, side.in.line(line), maxObservations)
					}
					side.obs[k] = append(side.obs[k], Obs{Value: v.Value, Round: round, Iters: rec.Iters})
				}
			case *benchfmt.SyntaxError:
				e := *rec
				e.Line = side.in.line(e.Line)
				errs = append(errs, &e)
			case *benchfmt.UnitMetadata:
				// Base's is accumulated by its Reader; head's is refused.
				if i == 1 {
					if b := units[rec.UnitMetadataKey]; b == nil || b.Value != rec.Value {
						file, line := rec.Pos()
						s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: ignoring Unit %s %s=%s: unit metadata is read from the base file only", file, side.in.line(line), rec.OrigUnit, rec.Key, rec.Value))
					}
				}
			default:
				// Other record types may be added to benchfmt in the
				// future.
			}
		}
		if err := r.Err(); err != nil {
			errs = append(errs, err)
			continue
		}
		if i == 0 {
			units = r.Units()
		}
		if results == 0 {
			errs = append(errs, fmt.Errorf("%s: no benchmark results", name))
		}
		if i == 0 {
			s.Looks = looks
		} else if !slices.Equal(s.Looks, looks) {
			errs = append(errs, fmt.Errorf("%s: looks %v differ from base's %v: the two files come from different runs", name, looks, s.Looks))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s.Units = units
	return s, nil
}

// looksOf returns the "looks" configuration value of res: ascending
// round numbers separated by commas, or nil without one.
func looksOf(res *benchfmt.Result, in Input) ([]int, error) {
	v := res.GetConfig("looks")
	if v == "" {
		return nil, nil
	}
	var looks []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || (len(looks) > 0 && n <= looks[len(looks)-1]) {
			file, line := res.Pos()
			line = in.line(line)
			return nil, fmt.Errorf("%s:%d: looks %q: want ascending round numbers such as 5,10,20", file, line, v)
		}
		looks = append(looks, n)
	}
	return looks, nil
}

// roundOf returns the "round" configuration value of res, or -1.
func roundOf(res *benchfmt.Result, in Input) (int, error) {
	v := res.GetConfig("round")
	if v == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		file, line := res.Pos()
		line = in.line(line)
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
	// Paired is the paired analysis of a sec/op or custom-metric ([Custom])
	// series measured in rounds (see the package documentation); nil for
	// other units, without rounds present on both sides, and for a
	// custom metric with a value ≤ 0 in a round.
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

// CompareAlpha compares every key of s, in s.Keys order, at the given
// confidence level (0.95 in benchstat) and the significance level α that
// benchmath's sample-size warning ("need >= 5 samples to detect a
// difference at alpha level 0.01") and Paired.MDE refer to (benchstat's
// default α is 0.05). The p-values do not depend on alpha. The paired
// interval uses the same confidence level as the medians.
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
	switch {
	case k.Unit == "sec/op":
		var warn string
		c.Paired, warn = pairedRounds(c.BaseRounds, c.HeadRounds, est, confidence, alpha)
		if warn != "" {
			c.Warnings = append(c.Warnings, warn)
		}
	case Custom(k.Unit):
		// A metric ≤ 0 in a round has no log-ratio: it is judged by the
		// U test instead, which needs no word here.
		c.Paired, _ = pairedRounds(c.BaseRounds, c.HeadRounds, est, confidence, alpha)
	}
	return c
}

// Custom reports whether unit is a custom metric: not time/op,
// allocations, bytes per op or instructions (B/s from b.SetBytes and
// b.ReportMetric's units are). Custom metrics measured in rounds get a
// paired analysis too.
func Custom(unit string) bool {
	switch unit {
	case "sec/op", "allocs/op", "B/op", "instructions/op":
		return false
	}
	return true
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
