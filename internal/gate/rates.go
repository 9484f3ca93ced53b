package gate

import (
	"math"
	"strings"

	"github.com/benchgate/benchgate/internal/stats"
)

// Rates: a custom unit ending in "/s" (B/s from b.SetBytes, "items/s"
// from b.ReportMetric) whose runs also report sec/op. Go prints MB/s as
// b.SetBytes's n over the run's time per op, so in every run
// rate × sec/op = n: the rate's change is the per-op amount's ratio
// (exact) times the inverse of time/op's change (noisy, judged on the
// sec/op row). Judging the rate by a test on its own values judges the
// clock's noise twice and misses an exact change under load. So, when
// every run of each side gives the same amount within the precision the
// values were printed with ([sideAmount]):
//
//   - an amount that moved the rate beyond the threshold (its
//     benchmark's rule, then its units entry) is a regression or an
//     improvement by the rate's direction, exactly, like allocations
//     ([ReasonAmountChange]; Delta is the amount's ratio − 1);
//   - otherwise (the same amount, or one within the threshold) the rate
//     carries nothing that time/op does not, and takes the time row's
//     status, test, p-values and inverted change ([ReasonFollowsTime]).
//     A separate verdict could contradict time/op (a rate "unchanged"
//     beside a 20 % slowdown, or the other way round, at the boundary of
//     a test run twice on the same rounds), would count the same
//     evidence twice in the metric family's correction, and would not
//     follow a confirmation's pooled decision; mirrored, the row shows
//     what the throughput did and fails the gate exactly when time/op's
//     judgement says so (under --fail-on metrics). A regression of time
//     is a regression of a higher-is-better rate, an improvement of a
//     rate the policy says is lower-is-better.
//
// A rate whose amount varies within a side (a count that is not per op)
// keeps the paired test of judgeMetrics.

// amountPrecision is the largest relative half-width of a side's per-op
// amount for a rate to be judged on it: the runs pin the amount to
// ±0.1 %, far inside any threshold, so that the same amount on both
// sides cannot hide a change that matters. Go's own output gets there
// whenever MB/s ≥ 10 (two decimals) or over a few runs.
const amountPrecision = 1e-3

// elapsedSlop is how much further above its count a b.ReportMetric rate
// × sec/op may come out in a run: such a rate is the benchmark's count
// over b.Elapsed(), read before the timer stops, so the product is the
// count times T/Elapsed ≥ 1 (0.01 % above in quiet runs of 20 ms; up to
// 0.07 % in the e2e script's runs on a loaded machine, where a run
// preempted between the two readings strayed 0.44 % once: that rate then
// kept the paired test). B/s from b.SetBytes is computed by package
// testing from the same T as ns/op and gets none.
const elapsedSlop = 1e-3

// rateUnit reports whether unit is a rate: a custom unit ending in "/s".
func rateUnit(unit string) bool {
	return KindOf(unit) == Other && strings.HasSuffix(unit, "/s")
}

// printedError is the largest relative error x can carry from being
// printed in decimal: half a unit of its last digit, the largest power
// of ten of which x is a whole multiple ("1391" ns/op: 0.5 ns; "2945.61"
// MB/s: 0.005 MB/s; benchfmt's scaling to sec/op and B/s keeps the
// digits). A value that ends in zeros is credited with fewer digits than
// it may have had (sound, wider); at most nine digits are credited,
// which also absorbs the rounding of the scaling. A value that is not a
// normal float64 (0, subnormal, infinite, NaN) carries no precision: +Inf.
//
// The search ends within printedSteps powers of ten whatever x is: at
// the first, x/q is in (0.1, 1]; after ten more it passes 10⁹, where
// any whole number is within 1e-9 of it.
func printedError(x float64) float64 {
	x = math.Abs(x)
	if !(x >= smallestNormal) || math.IsInf(x, 0) {
		return math.Inf(1)
	}
	e := math.Ceil(math.Log10(x))
	for range printedSteps {
		q := math.Pow(10, e)
		r := x / q
		if q == 0 || math.IsInf(r, 0) || math.IsNaN(r) {
			break
		}
		if n := math.Round(r); n >= 1 && math.Abs(r-n) <= 1e-9*r {
			return q / 2 / x
		}
		e--
	}
	return math.Inf(1)
}

// smallestNormal is the smallest positive normal float64, 2⁻¹⁰²².
const smallestNormal = 0x1p-1022

// printedSteps bounds printedError's search (eleven powers of ten suffice;
// two more absorb Log10's rounding at a power of ten).
const printedSteps = 13

// sideAmount is the per-op amount of one side of a rate row: the range
// that every run's rate × sec/op allows, each value within its
// printedError, and the product up to slop above the amount (a count
// over the benchmark's own b.Elapsed(): elapsedSlop). ok is false when
// the side's runs cannot be paired (not every result line reports both
// units) or their ranges do not meet (the amount varies), or when the
// range is wider than amountPrecision.
func sideAmount(rate, time *stats.Summary, slop float64) (a Range, ok bool) {
	if rate == nil || time == nil || len(rate.Values) == 0 || len(rate.Values) != len(time.Values) {
		return Range{}, false
	}
	a = Range{Min: 0, Max: math.Inf(1)}
	strict := 0.0 // a.Min without the slop
	for i, o := range rate.Values {
		t := time.Values[i]
		if o.Round != t.Round || o.Iters != t.Iters || o.Value <= 0 || t.Value <= 0 {
			return Range{}, false
		}
		er, et := printedError(o.Value), printedError(t.Value)
		if er >= 1 || et >= 1 {
			return Range{}, false
		}
		v := o.Value * t.Value
		strict = math.Max(strict, v/((1+er)*(1+et)))
		a.Min = math.Max(a.Min, v/((1+er)*(1+et)*(1+slop)))
		a.Max = math.Min(a.Max, v/((1-er)*(1-et)))
	}
	if strict <= a.Max {
		a.Min = strict // the runs agree without the slop
	}
	if a.Min > a.Max || a.Max-a.Min > amountPrecision*(a.Max+a.Min) {
		return Range{}, false
	}
	return a, true
}

// rateAmounts maps every rate row of cmps whose per-op amount is pinned
// on both sides ([sideAmount]) to the base and head amounts.
func rateAmounts(cmps []stats.Comparison) map[stats.Key][2]Range {
	times := map[benchKey]stats.Comparison{}
	for _, c := range cmps {
		if c.Unit == "sec/op" && c.Base != nil && c.Head != nil {
			times[benchKey{c.Package, c.Name}] = c
		}
	}
	out := map[stats.Key][2]Range{}
	for _, c := range cmps {
		t, ok := times[benchKey{c.Package, c.Name}]
		if !ok || !rateUnit(c.Unit) || c.Base == nil || c.Head == nil {
			continue
		}
		slop := elapsedSlop
		if c.Unit == "B/s" {
			slop = 0
		}
		b, bok := sideAmount(c.Base, t.Base, slop)
		h, hok := sideAmount(c.Head, t.Head, slop)
		if bok && hok {
			out[c.Key] = [2]Range{b, h}
		}
	}
	return out
}

// mid is the middle of r.
func mid(r Range) float64 { return (r.Min + r.Max) / 2 }

// judgeAmount judges a rate row on its per-op amounts (base, head) with
// the threshold of p: an amount that moved the rate beyond it is a
// regression or an improvement ([ReasonAmountChange]); otherwise the row
// follows its time row ([ReasonFollowsTime], Status left empty).
func judgeAmount(r *Result, p Policy, amounts [2]Range) {
	b, h := amounts[0], amounts[1]
	r.Reason = Reason{Code: ReasonFollowsTime, Base: &b, Head: &h, BaseN: r.Base.N, HeadN: r.Head.N, Better: max(r.Better, 0)}
	if b.Max >= h.Min && h.Max >= b.Min {
		return // the same amount within the printed precision
	}
	d := mid(h)/mid(b) - 1
	r.Reason.Threshold = p.Threshold
	up := d >= p.Threshold-thresholdSlack
	down := d <= ImprovementThreshold(p.Threshold)+thresholdSlack
	if !up && !down {
		return
	}
	r.Delta, r.Reason.Delta = &d, &d
	r.Reason.Code = ReasonAmountChange
	r.Status = Improvement
	if up != (r.Better > 0) {
		r.Status = Regression
	}
}

// followTime gives every rate row that follows its time row
// ([ReasonFollowsTime]) that row's judgement: its status (regression and
// improvement swapped for a lower-is-better rate), test, p-values, and
// its change and interval inverted (a rate is an amount over time/op).
// It runs on every finished verdict, Judge's and Confirm's (which
// changes time rows after Judge), before the acceptances.
func followTime(v *Verdict) {
	times := map[benchKey]int{}
	for i, r := range v.Results {
		if r.Kind == Time {
			times[benchKey{r.Package, r.Name}] = i
		}
	}
	for i := range v.Results {
		r := &v.Results[i]
		if r.Kind != Other || r.Reason.Code != ReasonFollowsTime {
			continue
		}
		t, ok := times[benchKey{r.Package, r.Name}]
		if !ok {
			r.Status = Unchanged // no time row to follow (not expected)
			continue
		}
		rp, _ := v.Policy.row(r.Package, r.Name)
		mirror(r, v.Results[t], rp)
	}
}

// mirror makes rate row r take time row t's judgement (followTime).
func mirror(r *Result, t Result, p Policy) {
	r.Status, r.Test, r.P, r.PAdjusted = t.Status, t.Test, t.P, t.PAdjusted
	r.Delta, r.Interval = inverse(t.Delta), nil
	if iv := t.Interval; iv != nil {
		r.Interval = &Interval{Confidence: iv.Confidence, Estimate: *inverse(&iv.Estimate), Low: *inverse(&iv.High), High: *inverse(&iv.Low)}
	}
	r.Noise, r.MDE, r.TooNoisy = nil, nil, false
	if r.Better < 0 {
		switch r.Status {
		case Regression:
			r.Status = Improvement
		case Improvement:
			r.Status = Regression
		}
	}
	switch r.Status {
	case Unchanged, Regression, Improvement, Inconclusive:
	default:
		// Time rows are judged, or inconclusive; anything else (no row
		// to follow) leaves the rate unchanged on its own evidence.
		r.Status = Unchanged
	}
	r.Gated = p.FailOn[Other] && (r.Status != Inconclusive || p.FailOnInconclusive)
	r.Accepted = nil
	rs := &r.Reason
	rs.Delta, rs.P, rs.PAdjusted = r.Delta, r.P, r.PAdjusted
	rs.Looks, rs.Correction, rs.Alpha = t.Reason.Looks, t.Reason.Correction, t.Reason.Alpha
}

// inverse is the change of 1/x for a change d of x: 1/(1+d) − 1; nil for
// nil or a change of −100 %.
func inverse(d *float64) *float64 {
	if d == nil || *d <= -1 {
		return nil
	}
	return ptr(1/(1+*d) - 1)
}
