package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/english"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
	"golang.org/x/perf/benchunit"
)

// This file puts the gate's facts in words: reasons, warnings and
// suspicions become spans (units and names untrusted, figures trusted).

// ReasonText is the reason of a row in plain words (units and names as
// they are), for logs and annotations that escape for themselves.
func ReasonText(r gate.Result) string { return Plain(reasonSpans(r)) }

// WarningText is a warning in plain words.
func WarningText(w gate.Warning) string { return Plain(warningSpans(w, nil)) }

// reasonSpans says why a row has its status, with its confirmation and,
// for an unchanged row too noisy to judge, what it could not see.
func reasonSpans(r gate.Result) []Span {
	l := line(whySpans(r.Reason, r.Unit, r.Confirmation))
	if r.TooNoisy && r.Status == gate.Unchanged && r.Reason.Code != gate.ReasonVanished && r.MDE != nil && r.Noise != nil {
		n := 0
		if r.Base != nil && r.Head != nil {
			n = pooledRounds(r)
		}
		if r.NotRerun > 0 {
			// Not re-run: what the most fresh rounds could not show.
			l.text("; too noisy to confirm: changes under ").num(absPct1(*r.MDE)).text(" cannot be seen at this noise (").
				num(absPct1(*r.Noise)).text(" per round) even with ").num(strconv.Itoa(r.NotRerun)).text(" fresh rounds: not re-run")
		} else {
			l.text("; too noisy to judge: changes under ").num(absPct1(*r.MDE)).text(" cannot be seen at this noise (").
				num(absPct1(*r.Noise)).text(" per round, ").num(strconv.Itoa(n)).text(" rounds)")
		}
	}
	if md, ok := mediansDisagree(r); ok {
		l.text("; the medians differ by ").num(pct(md)).text(": the change is the paired one, each round's head over the base of its own round")
	}
	switch {
	case r.Screen != nil:
		// Decided on the first rounds and the re-run's together.
		if r.Reason.Code != gate.ReasonVanished {
			n := pooledRounds(r)
			l.text("; decided on all ").num(strconv.Itoa(n)).text(" rounds (").add(partSpans("the first", r.Screen)...).
				text("; ").add(partSpans("the re-run", r.Confirmation)...).text(")")
		}
		switch {
		case r.Confirmed != nil && *r.Confirmed:
			l.text(": confirmed on re-run")
		case notConfirmed(r) && r.Reason.Code != gate.ReasonVanished:
			l.text(": a change in the first rounds, not confirmed on re-run")
		}
	case r.Confirmed != nil && *r.Confirmed:
		l.text("; confirmed on re-run (").add(stageSpans(r.Confirmation)...).text(")")
	case r.Unconfirmed && r.Confirmation == nil:
		l.text("; not re-run: kept")
	case r.Unconfirmed:
		l.text("; could not be re-run (" + statusWord(*r.Confirmation) + "): kept")
	}
	return l
}

// mediansDisagree returns the change of the medians of a paired time row
// when it disagrees with the paired change the row shows: it lies outside
// the row's interval, or, without one, more than half the threshold (at
// least 2%) away from the paired change. The columns show the medians,
// the change is the paired estimate: the row says why they differ.
func mediansDisagree(r gate.Result) (float64, bool) {
	if r.Kind != gate.Time || r.Test != gate.TestPaired || r.Delta == nil || r.Base == nil || r.Head == nil || !(r.Base.Center > 0) {
		return 0, false
	}
	md := r.Head.Center/r.Base.Center - 1
	if iv := r.Interval; iv != nil {
		return md, md < iv.Low || md > iv.High
	}
	return md, math.Abs(math.Log1p(md)-math.Log1p(*r.Delta)) > math.Max(r.Reason.Threshold/2, 0.02)
}

// partSpans is a part of a row's rounds and what it showed alone: "the
// first 12: +10.00%, p=0.007", "the re-run 12: …" (without their number
// when unknown).
func partSpans(part string, r *gate.Result) []Span {
	var l line
	l.text(part)
	if n := roundsOf(r); n > 0 {
		l.text(" ").num(strconv.Itoa(n))
	}
	return *l.text(": ").add(stageSpans(r)...)
}

// roundsOf is the number of paired rounds of a row, 0 when it has none.
func roundsOf(r *gate.Result) int {
	if r == nil || r.Paired == nil {
		return 0
	}
	return r.Paired.N
}

// whySpans puts a reason in words; unit is the row's, confirmation the
// confirmation run's row (for ReasonVanished).
func whySpans(rs gate.Reason, unit string, confirmation *gate.Result) []Span {
	var l line
	switch rs.Code {
	case gate.ReasonNoSamples:
		l.text("no samples on either side")
	case gate.ReasonOnlyHead:
		l.text("only on head")
	case gate.ReasonOnlyBase:
		l.text("only on base")
	case gate.ReasonFailedHead:
		l.text("the head run failed (see failures)")
	case gate.ReasonFailedBase:
		l.text("the base run failed (see failures); not gated")
	case gate.ReasonExactSame:
		l.num(exactRange(rs.Base)).text(" ").add(unitSpan(unit)).text(" on both sides in every round")
	case gate.ReasonExactChange:
		l.num(exactRange(rs.Base) + " → " + exactRange(rs.Head)).text(" ").add(unitSpan(unit)).text(" in every round")
		if stats.Custom(unit) {
			l.add(directionSpans(rs)...)
		}
	case gate.ReasonSeparated:
		dir := "above"
		if rs.Head != nil && rs.Base != nil && rs.Head.Max < rs.Base.Min {
			dir = "below"
		}
		l.num(exactRange(rs.Base) + " → " + exactRange(rs.Head)).text(" ").add(unitSpan(unit)).
			text(": varies, but every head round is " + dir + " every base round (" + strconv.Itoa(rs.HeadN) + " and " + strconv.Itoa(rs.BaseN) + " rounds)")
	case gate.ReasonVaries:
		first := true
		for _, s := range []struct {
			side string
			r    *gate.Range
		}{{"base", rs.Base}, {"head", rs.Head}} {
			if s.r == nil || s.r.Constant() {
				continue
			}
			if !first {
				l.text(" and ")
			}
			first = false
			l.text(s.side + " varies ").num(exactRange(s.r))
		}
		l.text(" ").add(unitSpan(unit)).text(" between rounds: not judged exactly")
	case gate.ReasonBackground:
		l.text("base ").num(exactRange(rs.Base)).text(", head ").num(exactRange(rs.Head)).text(" ").add(unitSpan(unit)).
			text(": within one of each other, a runtime allocation caught by a short run")
	case gate.ReasonNoTest:
		l.text("no test applies")
	case gate.ReasonZeroBoth:
		l.add(valueSpans(rs.Base.Min, unit)...).text(" on both sides")
	case gate.ReasonSignificant:
		l.add(pSpans(rs)...).text(" < ").add(alphaSpans(rs)...).text(" and ")
		if rs.Delta == nil {
			l.add(changeSpans(rs, unit)...)
		} else {
			l.num(pct(*rs.Delta))
			if *rs.Delta <= gate.ImprovementThreshold(rs.Threshold)+1e-9 {
				l.text(" ≤ ").num(improvementPct(rs.Threshold))
			} else {
				l.text(" ≥ ").num("+" + fmtNum(100*rs.Threshold) + "%")
			}
		}
		l.add(directionSpans(rs)...)
	case gate.ReasonNotSignificant:
		if rs.Delta == nil {
			l.add(changeSpans(rs, unit)...)
		} else {
			l.num(pct(*rs.Delta))
		}
		l.text(" but ").add(pSpans(rs)...).text(" ≥ ").add(alphaSpans(rs)...).text(": not significant")
	case gate.ReasonWithinThreshold:
		l.num(pct(*rs.Delta)).text(" is significant (").add(pSpans(rs)...).text(") but within ").num("±" + fmtNum(100*rs.Threshold) + "%")
	case gate.ReasonNoChange:
		l.num(pct(*rs.Delta)).text(", ").add(pSpans(rs)...).text(": no significant change")
	case gate.ReasonCannotJudge:
		l.text("not judged: with ").add(roundsSpans(rs.Rounds, rs.BaseN, rs.HeadN)...).
			text(" and " + english.Plural(rs.Family, "benchmark", "benchmarks") + " ").add(minPSpans(rs.MinP, rs.Adjusted)...).
			text(" ≥ α=").num(fmtNum(rs.Alpha))
	case gate.ReasonVanished:
		n := roundsOf(confirmation)
		l.text("not confirmed on re-run: all rounds together ").add(reasonStage(rs)...).text("; the ")
		if n > 0 {
			l.num(strconv.Itoa(n)).text(" ")
		}
		l.text("re-run rounds alone ").add(stageSpans(confirmation)...)
		if confirmation != nil && rs.Delta != nil && confirmation.Delta != nil && !halfOf(*confirmation.Delta, *rs.Delta) {
			l.text(", less than half of it")
		}
	case gate.ReasonRangesSeparated, gate.ReasonRangesOverlap, gate.ReasonBelowThreshold, gate.ReasonUnavailable:
		l.add(instructionWhy(rs, unit)...)
	case gate.ReasonAmountChange:
		l.add(amountSpans(rs, unit)...).text(" in every run").add(sourceSpans(unit)...).text(": ").num(pct(*rs.Delta))
		if *rs.Delta <= gate.ImprovementThreshold(rs.Threshold)+1e-9 {
			l.text(" ≤ ").num(improvementPct(rs.Threshold))
		} else {
			l.text(" ≥ ").num("+" + fmtNum(100*rs.Threshold) + "%")
		}
		l.add(directionSpans(rs)...).text("; time/op is judged on its own row")
	case gate.ReasonFollowsTime:
		l.add(amountSpans(rs, unit)...).text(" in every run")
		if sameAmount(rs, unit) {
			l.text(" on both sides").add(sourceSpans(unit)...).text(": ").add(unitSpan(unit)).text(" changes only with time/op and takes its judgement")
		} else {
			l.add(sourceSpans(unit)...).text(", within ").num("±" + fmtNum(100*rs.Threshold) + "%").text(": ").add(unitSpan(unit)).text(" takes time/op's judgement")
		}
		if rs.Delta != nil {
			l.text(": ").num(pct(*rs.Delta))
			if rs.P != nil {
				l.text(", ").add(pSpans(rs)...)
			}
		}
	case gate.ReasonIgnored:
		l.text("ignored by the policy: not run, not judged")
	case gate.ReasonSameBinary:
		l.text("same code: not measured")
	case gate.ReasonUnitIgnored:
		l.text("unit ignored by the policy (units: ").name(rs.Detail).text("): not judged")
	case gate.ReasonWithinAllowance:
		l.num(exactRange(rs.Base) + " → " + exactRange(rs.Head)).text(" ").add(unitSpan(unit)).
			text(": an increase the policy accepts (max-increase ").num(rs.Allowance).text(")")
	case gate.ReasonEquivalent:
		iv := rs.Interval
		l.text("within ").num("±" + fmtNum(100*rs.Threshold) + "%").text(": the ").num(fmtNum(100*iv.Confidence) + "%").
			text(" interval of the change is ").num(pct1(iv.Low)).text(" to ").num(pct1(iv.High)).
			text(" after ").num(strconv.Itoa(rs.Rounds)).text(" rounds")
	default:
		l.text(string(rs.Code))
	}
	return l
}

// amountSpans is a rate's per-op amount on both sides: "the bytes per op
// went 4.000Ki → 3.199Ki", or "the items per op are 64.00" when the sides
// agree at the printed precision.
func amountSpans(rs gate.Reason, unit string) []Span {
	var l line
	if unit == "B/s" {
		l.text("the bytes per op")
	} else {
		l.text("the ").name(strings.TrimSuffix(unit, "/s")).text(" per op")
	}
	if sameAmount(rs, unit) {
		return *l.text(" are ").num(amountString(rs.Base, unit))
	}
	return *l.text(" went ").num(amountString(rs.Base, unit) + " → " + amountString(rs.Head, unit))
}

// amountString is a rate's per-op amount in four digits: the middle of
// its range for B/s, the upper end for other rates (a count over
// b.Elapsed() times sec/op comes out above the count, never below: gate's
// elapsedSlop).
func amountString(r *gate.Range, unit string) string {
	v := r.Max
	if unit == "B/s" {
		v = (r.Min + r.Max) / 2
	}
	return benchunit.Scale(v, benchunit.ClassOf(strings.TrimSuffix(unit, "/s")+"/op"))
}

// sameAmount reports whether a rate's per-op amounts are the same on both
// sides: their ranges meet, or they differ only past the digits shown.
func sameAmount(rs gate.Reason, unit string) bool {
	return rs.Base.Max >= rs.Head.Min && rs.Head.Max >= rs.Base.Min || amountString(rs.Base, unit) == amountString(rs.Head, unit)
}

// sourceSpans names where a rate's per-op amount comes from: b.SetBytes
// for B/s.
func sourceSpans(unit string) []Span {
	if unit == "B/s" {
		return []Span{txt(" (SetBytes)")}
	}
	return nil
}

// pooledRounds is the number of rounds a pooled row was decided on: its
// pairs, or the rounds a side.
func pooledRounds(r gate.Result) int {
	if r.Test == gate.TestPaired && r.Paired != nil {
		return r.Paired.N
	}
	if len(r.BaseRounds) > 0 && len(r.HeadRounds) > 0 {
		return min(len(r.BaseRounds), len(r.HeadRounds))
	}
	return min(r.Base.N, r.Head.N)
}

// improvementPct is the improvement threshold of threshold t in words:
// "-4.76%" at 5 % (1/1.05 − 1), "-5%" at 0.
func improvementPct(t float64) string {
	v := math.Round(-100*gate.ImprovementThreshold(t)*100) / 100
	if v == 0 {
		return "0%"
	}
	return "-" + fmtNum(v) + "%"
}

// pSpans is the p-value judged: "p=0.007", and when the early checks or
// the correction changed it, the adjusted one first, as the tables show
// it: "p=0.007 (raw <0.001, after 2 early checks and Holm's correction
// for 14 time/op rows)".
func pSpans(rs gate.Reason) []Span {
	var l line
	if rs.P == nil {
		return l
	}
	raw := pString(*rs.P)
	if rs.PAdjusted == nil || pString(*rs.PAdjusted) == raw {
		return *l.num(raw)
	}
	l.num(pString(*rs.PAdjusted)).text(" (raw ").num(FormatP(*rs.P))
	var after []string
	if rs.Looks > 1 {
		after = append(after, strconv.Itoa(rs.Looks)+" early checks")
	}
	if name := correctionName(rs.Correction); name != "" {
		c := name + "'s correction"
		if rs.Family > 1 {
			c += " for " + strconv.Itoa(rs.Family) + " time/op rows"
		}
		after = append(after, c)
	}
	if len(after) > 0 {
		l.text(", after " + strings.Join(after, " and "))
	}
	return *l.text(")")
}

// alphaSpans is the level a p-value was compared with: "α=0.01", or the
// share of the user's α that one of the re-run's checks had: "0.0095
// (α=0.01 less the part kept for stopping the re-run early)".
func alphaSpans(rs gate.Reason) []Span {
	if rs.PolicyAlpha == 0 || rs.PolicyAlpha == rs.Alpha {
		return []Span{txt("α="), numSpan(fmtNum(rs.Alpha))}
	}
	if rs.Alpha < rs.PolicyAlpha/2 {
		return []Span{numSpan(fmtNum(rs.Alpha)), txt(" (the part of α="), numSpan(fmtNum(rs.PolicyAlpha)), txt(" kept for stopping the re-run early)")}
	}
	return []Span{numSpan(fmtNum(rs.Alpha)), txt(" (α="), numSpan(fmtNum(rs.PolicyAlpha)), txt(" less the part kept for stopping the re-run early)")}
}

// halfOf reports whether change fresh is at least half of pooled, the
// same way ([gate.Confirm]'s replication check, on log ratios).
func halfOf(fresh, pooled float64) bool {
	if !(fresh > -1) || !(pooled > -1) {
		return false
	}
	f, p := math.Log1p(fresh), math.Log1p(pooled)
	if p > 0 {
		return f >= p/2
	}
	return f <= p/2
}

// changeSpans is a change from a zero base: "0 sec/op → 2.005n sec/op".
func changeSpans(rs gate.Reason, unit string) []Span {
	var l line
	l.add(valueSpans(rs.Base.Min, unit)...).text(" → ").add(valueSpans(rs.Head.Min, unit)...)
	return l
}

func valueSpans(v float64, unit string) []Span {
	return []Span{numSpan(scaled(v, unit)), txt(" "), unitSpan(unit)}
}

// scaled is a figure in unit as the tables show it ("6.070n" sec/op).
func scaled(v float64, unit string) string {
	if v == 0 {
		return "0"
	}
	return benchunit.Scale(v, benchunit.ClassOf(unit))
}

func directionSpans(rs gate.Reason) []Span {
	switch rs.Better {
	case 1:
		return []Span{txt(" (higher is better)")}
	case 0:
		return []Span{txt(" (lower is better)")}
	}
	return nil
}

// roundsSpans says how many rounds or samples: "12 rounds", "3 rounds
// (12 base and 3 head samples)", "4 samples per side".
func roundsSpans(rounds, baseN, headN int) []Span {
	if rounds == 0 {
		return []Span{numSpan(sizes(baseN, headN))}
	}
	s := english.Plural(rounds, "round", "rounds")
	if rounds != baseN || rounds != headN {
		s += " (" + sizes(baseN, headN) + ")"
	}
	return []Span{numSpan(s)}
}

func sizes(n1, n2 int) string {
	if n1 == n2 {
		return english.Plural(n1, "sample", "samples") + " per side"
	}
	return strconv.Itoa(n1) + " base and " + strconv.Itoa(n2) + " head samples"
}

func minPSpans(p float64, adjusted bool) []Span {
	what := "the smallest possible p is "
	if adjusted {
		what = "the smallest possible adjusted p is "
	}
	return []Span{txt(what), numSpan(FormatP(p))}
}

// stageSpans summarizes the figures a row was judged on: "+7.1%,
// p=0.004".
func stageSpans(r *gate.Result) []Span {
	if r == nil {
		return []Span{txt("not re-run")}
	}
	return reasonStage(gate.Reason{Delta: r.Delta, P: r.P, PAdjusted: r.PAdjusted})
}

func reasonStage(rs gate.Reason) []Span {
	var l line
	if rs.Delta != nil {
		l.num(pct(*rs.Delta))
	} else {
		l.text("no change measured")
	}
	p := rs.PAdjusted
	if p == nil {
		p = rs.P
	}
	if p != nil {
		l.text(", ").num(pString(*p))
	}
	return l
}

// scalingSpans says why a benchmark's scaling is judged as it is.
func scalingSpans(s gate.Scaling) []Span {
	var l line
	rs := s.Reason
	last := len(s.CPUs) - 1
	speedUp := func() {
		l.text("speed-up at cpu " + strconv.Itoa(s.CPUs[last]) + " ").num(times(s.Base[last]) + " → " + times(s.Head[last]))
	}
	thr := fmtNum(100 * rs.Threshold)
	change := 0.0
	if s.Change != nil {
		change = *s.Change
	}
	switch rs.Code {
	case gate.ScalingUnpaired:
		var cpus []string
		for _, c := range rs.CPUs {
			cpus = append(cpus, strconv.Itoa(c))
		}
		l.text("not judged: no paired rounds at cpu " + strings.Join(cpus, " and ") + "; ")
		speedUp()
		return l
	case gate.ScalingFewRounds:
		var parts []string
		for i, c := range rs.CPUs {
			parts = append(parts, "cpu "+strconv.Itoa(c)+" ("+english.Plural(rs.Rounds[i], "round", "rounds")+")")
		}
		l.text("not judged: too few rounds for an interval at " + strings.Join(parts, " and ") + "; ")
		speedUp()
		return l
	case gate.ScalingWorse:
		l.text("scaling got worse (").num(pct1(change)).text(" ≥ ").num("+" + thr + "%").text(", intervals disjoint): ")
	case gate.ScalingBetter:
		l.text("scaling got better (").num(pct1(change)).text(" ≤ ").num("-" + thr + "%").text(", intervals disjoint): ")
	case gate.ScalingWithin:
		l.text("scaling changed by ").num(pct1(change)).text(", within ").num("±" + thr + "%").text(": ")
	default:
		l.text("no significant change of scaling (").num(pct1(change)).text(", intervals overlap): ")
	}
	speedUp()
	if rs.Lo != nil && rs.Hi != nil {
		l.text("; head/base ").num(intervalText(*rs.Lo)).text(" at cpu " + strconv.Itoa(s.CPUs[0]) + ", ").
			num(intervalText(*rs.Hi)).text(" at cpu " + strconv.Itoa(s.CPUs[last]))
	}
	return l
}

// intervalText formats a change and its interval: "+7.3% [+5.1%, +9.8%]".
func intervalText(iv gate.Interval) string {
	return pct1(iv.Estimate) + " [" + pct1(iv.Low) + ", " + pct1(iv.High) + "]"
}

// warningSpans puts a warning in words; scaling, when given, adds each
// benchmark's speed-ups to a WarnScalingWorse.
func warningSpans(w gate.Warning, scaling []gate.Scaling) []Span {
	var l line
	if w.Confirmation {
		l.text("re-run: ")
	}
	n := len(w.Benchmarks)
	switch w.Code {
	case gate.WarnCannotJudge:
		l.text("time/op not judged for " + english.Plural(n, "benchmark", "benchmarks") + ": with ").
			add(roundsSpans(w.Rounds, w.BaseN, w.HeadN)...).
			text(" and " + english.Plural(w.Family, "benchmark", "benchmarks") + " ").add(minPSpans(w.MinP, w.Adjusted)...).
			text(" ≥ α=").num(fmtNum(w.Alpha)).text("; ").add(countHint(w.MinCount, w.Rounds)...)
	case gate.WarnUTestFallback:
		l.text("time/op of " + english.Plural(n, "benchmark", "benchmarks") + " was judged with benchstat's unpaired U test, which is less sensitive when the machine drifts: with ").
			num(english.Plural(w.Rounds, "round", "rounds")).text(" and " + english.Plural(w.Family, "benchmark", "benchmarks") + " the paired test's smallest possible adjusted p is ").
			num(FormatP(w.MinP)).text(" ≥ α=").num(fmtNum(w.Alpha)).text("; ").add(countHint(w.MinCount, w.Rounds)...).text(" for the paired test")
	case gate.WarnTooNoisy:
		rng := absPct1(w.Low)
		if w.High > w.Low*1.05 {
			rng += " to " + absPct1(w.High)
		}
		l.text(english.Plural(n, "benchmark is", "benchmarks are") + " too noisy to judge at ").num("±" + fmtNum(100*w.Threshold) + "%").
			text(": changes under ").num(rng).text(" cannot be seen at their noise (more rounds, a longer --benchtime or a quieter machine help): ").
			add(nameList(w.Benchmarks, nil)...)
	case gate.WarnOptimizedAway:
		l.text(english.Plural(n, "benchmark runs", "benchmarks run") + " under ").num(trimFloat(w.Limit * 1e9)).
			text(" ns/op with 0 allocs/op: almost certainly optimized away (no sink): ").add(nameList(w.Benchmarks, nil)...)
	case gate.WarnShortRuns:
		l.text(english.Plural(n, "benchmark timed", "benchmarks timed") + " less than ").num(benchunit.Scale(w.Limit, benchunit.Decimal) + "s").
			text(" of work per run, too little to time reliably; use a longer --benchtime: ").add(nameList(w.Benchmarks, nil)...)
	case gate.WarnAllocsVary:
		l.add(unitSpan(w.Unit)).text(" of " + english.Plural(n, "benchmark", "benchmarks") + " vary between rounds: reported as unstable, not judged exactly: ").
			add(nameList(w.Benchmarks, nil)...)
	case gate.WarnItersDiffer:
		l.add(unitSpan(w.Unit)).text(" of " + english.Plural(n, "benchmark", "benchmarks") + " were measured at different iteration counts on base and head; allocation figures are only exactly comparable at the same b.N (-benchtime=Nx)")
	case gate.WarnScalingWorse:
		gated := "not gated"
		if w.Gated {
			gated = "fails the gate"
		}
		l.text("parallel scaling got worse for " + english.Plural(n, "benchmark", "benchmarks") + " (head's speed-up at the largest cpu value fell short of base's by ≥ ").
			num(fmtNum(100*w.Threshold) + "%").text(": the symptom of contention or false sharing; " + gated + "): ").
			add(nameList(w.Benchmarks, func(b gate.Bench) []Span { return speedUpNote(b, scaling) })...)
	case gate.WarnCountTooLow:
		what := " after " + correctionName(w.Correction) + "'s correction"
		switch {
		case w.Family <= 1:
			what = "" // no correction for one benchmark
		case correctionName(w.Correction) == "":
			what = " without correction"
		}
		then := "without the re-run nothing could be judged"
		if w.UTest {
			then = "without it (--confirm=false) benchstat's U test judges time/op instead, less sensitive on a drifting machine"
		}
		l.text("with --count ").num(strconv.Itoa(w.Count)).text(" and " + english.Plural(w.Family, "benchmark", "benchmarks") + " the first rounds alone cannot reach α=").
			num(fmtNum(w.Alpha)).text(what + " (the smallest possible p is ").num(FormatP(w.MinP)).
			text("), so rows that look like a change are re-run on fresh rounds and decided on all their rounds (the default); " + then + "; use ").
			add(codeText("--count " + strconv.Itoa(w.MinCount))).text(" or more to decide in the first rounds")
	case gate.WarnInstructionsVary, gate.WarnUnavailable:
		l.add(instructionWarning(w)...)
	case gate.WarnInput:
		l.add(prose(w.Detail))
	case gate.WarnRequiredMissing:
		l.text("the policy requires a benchmark matching ").name(w.Detail).text(" (").name(w.Source).
			text("), and head has none: it was deleted or renamed, or the pattern matches nothing; this fails the gate")
	case gate.WarnShardsIncomplete:
		missing := ""
		if w.Count > 0 {
			missing = ", " + english.Plural(w.Count, "benchmark", "benchmarks") + " measured by no shard"
		}
		l.text("the shards do not cover the suite (see the problems below" + missing + "): the merged verdict is incomplete; this fails the gate")
	case gate.WarnHeadPolicyInvalid:
		l.text("head's policy file does not parse, so every run after the merge would stop on it; this fails the gate: ").add(prose(w.Detail))
	default:
		l.text(string(w.Code)).text(": ").add(nameList(w.Benchmarks, nil)...)
	}
	return l
}

// countHint says how many rounds would do: "use --count 12 or more";
// for samples without rounds (go test's output, which compare judges),
// "make the files with go test -count 12 or more".
func countHint(n, rounds int) []Span {
	c := strconv.Itoa(n)
	if rounds == 0 {
		return []Span{txt("make the files with "), codeText("go test -count " + c), txt(" or more")}
	}
	return []Span{txt("use "), codeText("--count " + c), txt(" or more")}
}

// speedUpNote is " (cpu 8: 6.50× → 2.60×)" for a benchmark of scaling.
func speedUpNote(b gate.Bench, scaling []gate.Scaling) []Span {
	for _, s := range scaling {
		if s.Package == b.Package && s.Name == b.Name {
			last := len(s.CPUs) - 1
			return []Span{txt(" (cpu " + strconv.Itoa(s.CPUs[last]) + ": "), numSpan(times(s.Base[last]) + " → " + times(s.Head[last])), txt(")")}
		}
	}
	return nil
}

// maxNames is the number of benchmarks a warning names.
const maxNames = 5

// nameList names up to maxNames benchmarks, then how many more; more adds
// spans after each name.
func nameList(bs []gate.Bench, more func(gate.Bench) []Span) []Span {
	var l line
	for i, b := range bs {
		if i == maxNames {
			l.text(" and " + strconv.Itoa(len(bs)-maxNames) + " more")
			break
		}
		if i > 0 {
			l.text(", ")
		}
		l.name(b.Name)
		if more != nil {
			l.add(more(b)...)
		}
	}
	return l
}

// suspicionSpans says what a suspicious benchmark does wrong.
func suspicionSpans(sp gate.Suspicion, unit string) []Span {
	var l line
	sides := strings.Join(sp.Sides, " and ")
	switch sp.Code {
	case gate.SuspectOptimizedAway:
		alloc := " with 0 allocs/op"
		if sp.NoAllocs {
			alloc = " (no allocation figures)"
		}
		l.num(trimFloat(sp.Value * 1e9)).text(" ns/op" + alloc + " on " + sides + ": almost certainly optimized away; use the result (a sink) so the work cannot be removed")
	case gate.SuspectShortRuns:
		l.text("a run timed only ").num(benchunit.Scale(sp.Value, benchunit.Decimal) + "s").
			text(" of work on " + sides + " (b.N × time/op): too short to time reliably; use a longer --benchtime")
	case gate.SuspectAllocsVary:
		l.add(unitSpan(unit)).text(" varies between rounds (")
		first := true
		for _, s := range []struct {
			side string
			r    *gate.Range
		}{{"base", sp.Base}, {"head", sp.Head}} {
			if s.r == nil {
				continue
			}
			if !first {
				l.text(", ")
			}
			first = false
			l.text(s.side + " ").num(exactRange(s.r))
		}
		l.text("): something allocates outside the benchmark loop or in the background, so the exact check cannot apply")
	default:
		l.text(sp.Code)
	}
	return l
}

// exactRange formats an allocation figure or range exactly: "3", "7–8".
func exactRange(r *gate.Range) string {
	if r == nil {
		return none
	}
	if r.Constant() {
		return exact(r.Min)
	}
	return exact(r.Min) + "–" + exact(r.Max)
}

// unitSpan is a unit: the testing package's own as text, any other (a
// custom metric's, untrusted) as a name.
func unitSpan(u string) Span {
	switch u {
	case "sec/op", "B/op", "allocs/op", "B/s":
		return txt(u)
	}
	return nameSpan(u)
}

// FormatP formats a p-value for people: three decimals, "<0.001" below.
func FormatP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

// pString formats "p=0.002" or "p<0.001".
func pString(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return "p=" + FormatP(p)
}

// pct formats a relative change as benchstat does: "+9.95%".
func pct(d float64) string { return fmt.Sprintf("%+.2f%%", 100*d) }

// pct1 formats a relative change with one decimal: "+9.1%".
func pct1(d float64) string { return fmt.Sprintf("%+.1f%%", 100*d) }

// absPct1 formats a fraction without sign: "1.2%", "∞".
func absPct1(d float64) string {
	if math.IsInf(d, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.1f%%", 100*d)
}

// times formats a speed-up: "6.50×".
func times(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "×" }

// trimFloat formats v with 3 significant digits ("0.25").
func trimFloat(v float64) string { return fmt.Sprintf("%.3g", v) }

func exact(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

const none = "—"

// Warnings are the warnings of v in plain words, in order.
func Warnings(v gate.Verdict) []string {
	var out []string
	for _, w := range v.Warnings {
		out = append(out, Plain(warningSpans(w, v.Scaling)))
	}
	return out
}

// ScalingText is why a benchmark's scaling is judged as it is, in plain
// words.
func ScalingText(s gate.Scaling) string { return Plain(scalingSpans(s)) }

// SuspicionText says what a suspicious benchmark does wrong, in plain
// words; unit is its row's.
func SuspicionText(sp gate.Suspicion, unit string) string { return Plain(suspicionSpans(sp, unit)) }
