package gate

import (
	"github.com/benchgate/benchgate/internal/policy"
)

// Custom metrics: every unit that is not time, allocations, bytes or
// instructions (B/s from b.SetBytes, b.ReportMetric's units). A row has a
// direction: higher is better for rates (benchfmt's "better=higher" unit
// metadata, then any unit ending in "/s"), lower for everything else
// (sizes, counts, latencies); the policy file's units entries can set it,
// the threshold, or ignore the unit. A metric constant within each side
// is compared exactly, like allocations; one that varies is decided as a
// time row is (the paired test on per-round log-ratios when the rounds
// can reach Alpha, else the U test; the threshold on the change), in a
// family of its own: the varying metric rows of the suite, under the
// suite's correction. A worse change is a regression, whatever the
// direction. The rules are in docs/deciding.md, "Custom metrics".

// ReasonUnitIgnored: the policy file's units entry ignores the row's unit
// (status ignored).
const ReasonUnitIgnored ReasonCode = "unit-ignored"

// direction returns +1 when higher values of unit are better, −1
// otherwise: the policy file's units entry, else better, the unit's own
// (stats.Comparison.Better; 0, unknown, is lower).
func (p Policy) direction(unit string, better int) int {
	switch p.File.Unit(unit).Direction {
	case policy.Higher:
		return 1
	case policy.Lower:
		return -1
	}
	if better > 0 {
		return 1
	}
	return -1
}

// metricPolicy is p with the units entry of unit applied (its threshold).
func (p Policy) metricPolicy(unit string) (Policy, policy.UnitRule) {
	u := p.File.Unit(unit)
	if u.Threshold.Set {
		p.Threshold = u.Threshold.Value
	}
	return p, u
}

// judgeMetric judges a custom-metric row with both sides: exactly when
// its sides are constant, or when it is a rate whose per-op amount
// (amounts, nil for none: see rates.go) changed beyond the threshold; a
// rate whose amount did not follows its time row (ReasonFollowsTime,
// status left empty for followTime); else it leaves Status empty for
// judgeMetrics. An ignored unit is Ignored.
func judgeMetric(r *Result, p Policy, amounts *[2]Range) {
	mp, u := p.metricPolicy(r.Unit)
	if u.Ignore {
		r.Status, r.Reason = Ignored, Reason{Code: ReasonUnitIgnored, Detail: u.Match}
		return
	}
	b, h := r.Base, r.Head
	if !(b.Constant && h.Constant) {
		if amounts != nil {
			judgeAmount(r, mp, *amounts)
		}
		return
	}
	br, hr := rangeOf(b), rangeOf(h)
	r.Reason = Reason{Base: &br, Head: &hr, BaseN: b.N, HeadN: h.N, Better: max(r.Better, 0)}
	worse := (h.Min > b.Min) == (r.Better < 0)
	switch {
	case h.Min == b.Min:
		r.Status, r.Reason.Code = Unchanged, ReasonExactSame
		r.Reason.Head = nil
	case worse:
		r.Status, r.Reason.Code = Regression, ReasonExactChange
	default:
		r.Status, r.Reason.Code = Improvement, ReasonExactChange
	}
}

// judgeMetrics decides the varying custom-metric rows (rows) as a family
// of their own: the test chosen as for time rows, the p-values adjusted
// together, each row's threshold (its benchmark's rule, then its units
// entry) applied. No confirmation re-runs them (Policy.ConfirmRounds does
// not apply); planned looks are charged as for time rows.
func judgeMetrics(v *Verdict, rows []int, p Policy) {
	m := len(rows)
	if m == 0 {
		return
	}
	p.ConfirmRounds = 0
	seqPs := make([]float64, m)
	us := make([]uData, m)
	for j, i := range rows {
		r := &v.Results[i]
		c := r.Comparison
		us[j] = uDataOf(c)
		seqPs[j], _ = testRow(r, us[j], m, p)
	}
	adj := adjust(seqPs, correctionOf(p.Correction))
	steps := stepFactors(seqPs, correctionOf(p.Correction), p.Alpha)
	scratch := newWarnings()
	for j, i := range rows {
		r := &v.Results[i]
		if r.P != nil {
			r.PAdjusted = ptr(adj[j])
		}
		rp, _ := p.row(r.Package, r.Name)
		rp.ConfirmRounds = 0
		rp, _ = rp.metricPolicy(r.Unit)
		if r.Status == Inconclusive {
			inconclusive(r, m, rp, scratch)
			r.Reason.Better = max(r.Better, 0)
			continue
		}
		decide(r, m, steps[j], rp)
	}
}
