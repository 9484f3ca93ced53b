package stats

import (
	"fmt"
	"math"
	"slices"
)

// Estimator is how the several runs one side made of a benchmark in one
// round (benchgate's runner makes several short runs per side per round,
// --runs) are reduced to the one value that the paired analysis compares.
// The zero value is [Median].
type Estimator string

// The estimators. With one run per round they all return that run.
const (
	// Median of the round's runs: the default. On a real allocating
	// benchmark it was the best (noise per round 2.3 % quiet, 6.3 % under
	// a CPU hog, against 5.8 % and 11.2 % for one long run): short runs
	// differ in how many GC cycles they contain, and the median keeps
	// the typical one (docs/dev/evidence-log.md).
	Median Estimator = "median"
	// Min of the round's runs: the best case. Interference only slows
	// runs down, so on non-allocating code it drops the runs that were
	// hit; on allocating code it picks the runs that were lucky with the
	// GC, and it was the worst there.
	Min Estimator = "min"
	// P25 is the 25th percentile (linear interpolation between order
	// statistics, R's type 7): between min and median.
	P25 Estimator = "p25"
	// Mean of the round's runs: the old behaviour, kept for comparison;
	// under right-skewed noise it is the worst estimator.
	Mean Estimator = "mean"
)

// Estimators lists the accepted estimator names.
var Estimators = []Estimator{Median, Min, P25, Mean}

// ParseEstimator reads an estimator name ("" is [Median]).
func ParseEstimator(s string) (Estimator, error) {
	if s == "" {
		return Median, nil
	}
	for _, e := range Estimators {
		if string(e) == s {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown estimator %q: want median, min, p25 or mean", s)
}

// String returns the estimator's name ("median" for the zero value).
func (e Estimator) String() string {
	if e == "" {
		return string(Median)
	}
	return string(e)
}

// Reduce returns the estimator applied to v (NaN for an empty v). v is not
// modified.
func (e Estimator) Reduce(v []float64) float64 {
	switch len(v) {
	case 0:
		return math.NaN()
	case 1:
		return v[0]
	}
	switch e {
	case Mean:
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	case Min:
		return slices.Min(v)
	case P25:
		return quantile(sortedCopy(v), 0.25)
	default:
		return quantile(sortedCopy(v), 0.5)
	}
}

func sortedCopy(v []float64) []float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s
}

// quantile returns the q-quantile of the sorted s, interpolating linearly
// between order statistics (position q·(n−1), R's type 7): the median of
// an even count is the mean of the middle two.
func quantile(s []float64, q float64) float64 {
	pos := q * float64(len(s)-1)
	i := int(math.Floor(pos))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	f := pos - float64(i)
	if f == 0 {
		return s[i]
	}
	return s[i] + f*(s[i+1]-s[i])
}

// RoundStat is one side's runs of one benchmark in one round, reduced.
type RoundStat struct {
	// Round is the "round" configuration value of the runs.
	Round int
	// Runs is the number of runs (result lines) the side made in the round.
	Runs int
	// Value is the runs reduced by the comparison's estimator: the value
	// the paired analysis uses for this round.
	Value float64
	// Median and Min are the median and the minimum of the runs, to show
	// beside the estimator's figure.
	Median, Min float64
}

// Rounds groups obs by round and reduces each round's observations with
// e. It returns one RoundStat per round, ascending; observations without a
// round (Round < 0) are left out, so plain `go test -bench` output gives
// nil.
func Rounds(obs []Obs, e Estimator) []RoundStat {
	type rv struct {
		round int
		v     float64
	}
	xs := make([]rv, 0, len(obs))
	sorted := true
	for _, o := range obs {
		if o.Round < 0 {
			continue
		}
		if n := len(xs); n > 0 && o.Round < xs[n-1].round {
			sorted = false
		}
		xs = append(xs, rv{o.Round, o.Value})
	}
	if len(xs) == 0 {
		return nil
	}
	if !sorted {
		slices.SortStableFunc(xs, func(a, b rv) int { return a.round - b.round })
	}
	var out []RoundStat
	v := make([]float64, 0, 8)
	for i := 0; i < len(xs); {
		j := i
		v = v[:0]
		for j < len(xs) && xs[j].round == xs[i].round {
			v = append(v, xs[j].v)
			j++
		}
		out = append(out, RoundStat{Round: xs[i].round, Runs: len(v), Value: e.Reduce(v), Median: Median.Reduce(v), Min: slices.Min(v)})
		i = j
	}
	return out
}
