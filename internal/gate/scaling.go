package gate

import (
	"math"
	"slices"
	"strconv"

	"github.com/benchgate/benchgate/internal/policy"
)

// Scaling is how the time/op of one benchmark changes with GOMAXPROCS on
// each side, in a run with several cpu values (--cpu 1,2,4,8). See "CPU
// scaling" in the package documentation for the rule behind Worse.
type Scaling struct {
	// Package is the import path; Name the benchmark name without its
	// "-GOMAXPROCS" suffix ("Encode/size=64").
	Package, Name string
	// CPUs are the GOMAXPROCS values with a time/op row on both sides,
	// ascending; at least 2.
	CPUs []int
	// Base and Head are each side's speed-ups, one per CPUs value: the
	// median time/op at CPUs[0] divided by the median at CPUs[i]
	// (Base[0] = Head[0] = 1; 6.5 at cpu 8 means 6.5 times as fast as at
	// cpu 1).
	Base, Head []float64
	// Change is the paired head/base ratio at the largest cpu value
	// divided by the one at the smallest, minus 1: how many times base's
	// speed-up exceeds head's at the largest cpu value, minus 1 (+1.5:
	// head's speed-up is 1/2.5 of base's; 0: both scale alike). nil when
	// either row has no paired analysis.
	Change *float64
	// Worse reports that parallel scaling got worse.
	Worse bool
	// Reason says why Worse is what it is, with the figures.
	Reason ScalingReason
}

// scalingMember is one cpu value of a benchmark: the row judged at it.
type scalingMember struct {
	cpu int
	r   *Result
}

// cpuSuffix splits a "-GOMAXPROCS" suffix of 2 or more off a benchmark
// name. The testing package writes no suffix at GOMAXPROCS 1, so "-1" (or
// "-0") is part of the name.
func cpuSuffix(name string) (base string, cpu int, ok bool) {
	b, procs, ok := policy.SplitProcs(name)
	if !ok {
		return name, 1, false
	}
	n, err := strconv.Atoi(procs)
	if err != nil || n < 2 {
		return name, 1, false
	}
	return b, n, true
}

// judgeScaling groups the time rows of results by package and benchmark
// across GOMAXPROCS values and judges each group of 2 or more values, in
// order of first appearance.
func judgeScaling(results []Result, p Policy) []Scaling {
	var rows []*Result
	names := map[benchKey]bool{}
	for i := range results {
		r := &results[i]
		if r.Kind != Time || r.Status == Failed || r.Base == nil || r.Head == nil || !(r.Base.Center > 0) || !(r.Head.Center > 0) {
			continue
		}
		rows = append(rows, r)
		names[benchKey{r.Package, r.Name}] = true
	}
	// A name that another row extends by a cpu suffix is that benchmark
	// at GOMAXPROCS 1, even when it ends in "-N" itself: "Foo/n-64" (cpu
	// 1) and "Foo/n-64-8" (cpu 8) are one benchmark.
	atOne := map[benchKey]bool{}
	for k := range names {
		if b, _, ok := cpuSuffix(k.name); ok && names[benchKey{k.pkg, b}] {
			atOne[benchKey{k.pkg, b}] = true
		}
	}
	var order []benchKey
	groups := map[benchKey][]scalingMember{}
	for _, r := range rows {
		k := benchKey{r.Package, r.Name}
		cpu := 1
		if !atOne[k] {
			var b string
			b, cpu, _ = cpuSuffix(r.Name)
			k.name = b
		}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		if !slices.ContainsFunc(groups[k], func(m scalingMember) bool { return m.cpu == cpu }) {
			groups[k] = append(groups[k], scalingMember{cpu, r})
		}
	}
	var out []Scaling
	for _, k := range order {
		ms := groups[k]
		if len(ms) < 2 {
			continue
		}
		slices.SortFunc(ms, func(a, b scalingMember) int { return a.cpu - b.cpu })
		s := Scaling{Package: k.pkg, Name: k.name}
		b0, h0 := ms[0].r.Base.Center, ms[0].r.Head.Center
		for _, m := range ms {
			s.CPUs = append(s.CPUs, m.cpu)
			s.Base = append(s.Base, b0/m.r.Base.Center)
			s.Head = append(s.Head, h0/m.r.Head.Center)
		}
		judgeScalingRule(&s, ms[0], ms[len(ms)-1], p)
		out = append(out, s)
	}
	return out
}

// judgeScalingRule sets s.Change, s.Worse and s.Reason from the rows at
// the smallest (lo) and the largest (hi) cpu value.
func judgeScalingRule(s *Scaling, lo, hi scalingMember, p Policy) {
	s.Reason = ScalingReason{Threshold: p.Threshold}
	for _, m := range []scalingMember{lo, hi} {
		if m.r.Paired == nil {
			s.Reason.CPUs = append(s.Reason.CPUs, m.cpu)
		}
	}
	if len(s.Reason.CPUs) > 0 {
		s.Reason.Code = ScalingUnpaired
		return
	}
	rl, rh := lo.r.Paired, hi.r.Paired
	change := rh.Ratio/rl.Ratio - 1
	s.Change = ptr(change)
	for _, m := range []scalingMember{lo, hi} {
		if math.IsInf(m.r.Paired.High, 1) || m.r.Paired.Low <= 0 {
			s.Reason.CPUs = append(s.Reason.CPUs, m.cpu)
			s.Reason.Rounds = append(s.Reason.Rounds, m.r.Paired.N)
		}
	}
	if len(s.Reason.CPUs) > 0 {
		s.Reason.Code = ScalingFewRounds
		return
	}
	s.Reason.Lo = &Interval{Confidence: rl.Confidence, Estimate: rl.Ratio - 1, Low: rl.Low - 1, High: rl.High - 1}
	s.Reason.Hi = &Interval{Confidence: rh.Confidence, Estimate: rh.Ratio - 1, Low: rh.Low - 1, High: rh.High - 1}
	disjointUp := rh.Low > rl.High
	disjointDown := rh.High < rl.Low
	up := change >= p.Threshold-thresholdSlack
	down := change <= -p.Threshold+thresholdSlack
	switch {
	case up && disjointUp:
		s.Worse = true
		s.Reason.Code = ScalingWorse
	case down && disjointDown:
		s.Reason.Code = ScalingBetter
	case disjointUp || disjointDown:
		s.Reason.Code = ScalingWithin
	default:
		s.Reason.Code = ScalingSame
	}
}

// scalingWarnings summarizes the benchmarks whose scaling got worse.
func scalingWarnings(ss []Scaling, p Policy) []Warning {
	var names []Bench
	for _, s := range ss {
		if s.Worse {
			names = append(names, Bench{s.Package, s.Name})
		}
	}
	if len(names) == 0 {
		return nil
	}
	return []Warning{{Code: WarnScalingWorse, Benchmarks: names, Threshold: p.Threshold, Gated: p.FailOnScaling}}
}

// ScalingWorse returns the scalings that got worse, in order.
func (v Verdict) ScalingWorse() []Scaling {
	var out []Scaling
	for _, s := range v.Scaling {
		if s.Worse {
			out = append(out, s)
		}
	}
	return out
}
