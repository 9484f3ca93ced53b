package gate

import (
	"reflect"
	"slices"

	"github.com/benchgate/benchgate/internal/stats"
)

// Confirm combines a screening verdict with a confirmation verdict: second
// is [Judge] of fresh interleaved rounds of only the benchmarks that first
// flagged as time/op regressions (typically with the same Policy; its
// correction then covers the flagged benchmarks only). A time regression
// of first
//
//   - stays a regression, with Confirmed = true, when second also finds
//     it a regression;
//   - becomes unchanged, with Confirmed = false and the reason
//     [ReasonVanished] (the screen's figures; Confirmation holds the
//     confirmation's), when second finds it unchanged or improved — the
//     screen's finding did not recur (a one-off state of the machine, or
//     a layout effect of that build);
//   - stays a regression, Confirmed nil and Unconfirmed set, when second
//     could not judge it (missing, failed, inconclusive): a regression is
//     never dropped without evidence.
//
// Both stages must agree for a regression to fail the gate, so a false
// regression needs a false positive in both: the false-fail rate is at
// most the smaller of the two stages' rates, and in practice about their
// product. Rows other than time regressions are kept as they are.
// Result.Confirmation holds the second stage's row. Failures of second
// are added (a benchmark that crashes on head during confirmation is a
// failure); warnings of second that first does not have are added with
// Warning.Confirmation set. Pass is recomputed.
func Confirm(first, second Verdict) Verdict {
	v := first
	v.Results = slices.Clone(first.Results)
	byKey := map[stats.Key]Result{}
	for _, r := range second.Results {
		byKey[r.Key] = r
	}
	for i := range v.Results {
		r := &v.Results[i]
		if r.Kind != Time || r.Status != Regression {
			continue
		}
		s, ok := byKey[r.Key]
		switch {
		case ok && s.Status == Regression:
			r.Confirmed = ptr(true)
			r.Confirmation = &s
		case ok && (s.Status == Unchanged || s.Status == Improvement):
			r.Confirmed = ptr(false)
			r.Confirmation = &s
			r.Status = Unchanged
			r.Reason.Code = ReasonVanished
		default:
			r.Unconfirmed = true
			if ok {
				r.Confirmation = &s
			}
		}
	}
	seenF := map[Failure]bool{}
	for _, f := range first.Failures {
		seenF[f] = true
	}
	v.Failures = slices.Clone(first.Failures)
	for _, f := range second.Failures {
		if !seenF[f] {
			seenF[f] = true
			v.Failures = append(v.Failures, f)
		}
	}
	v.Warnings = slices.Clone(first.Warnings)
	for _, w := range second.Warnings {
		if !slices.ContainsFunc(first.Warnings, func(x Warning) bool { return reflect.DeepEqual(x, w) }) {
			w.Confirmation = true
			v.Warnings = append(v.Warnings, w)
		}
	}
	v.Confirmed = true
	v.Pass = pass(v)
	return v
}

func ptr[T any](v T) *T { return &v }
