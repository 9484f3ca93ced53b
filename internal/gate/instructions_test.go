package gate

import (
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
	"github.com/google/go-cmp/cmp"
)

// instr is an instructions/op comparison of the lane's repeats (no rounds).
func instr(name string, base, head []float64) stats.Comparison {
	return unpaired("p", name, InstructionsUnit, base, head)
}

// TestJudgeInstructions: the nearly exact rule, boundaries included: the
// threshold is inclusive, ranges that touch overlap, a change below the
// threshold is unchanged however separated, a zero base has no relative
// change.
func TestJudgeInstructions(t *testing.T) {
	withInstr := DefaultPolicy()
	withInstr.FailOn[Instructions] = true
	tests := []struct {
		name   string
		c      stats.Comparison
		policy Policy
		status Status
		gated  bool
		code   ReasonCode
		words  string
	}{
		{"same count", instr("Sum", rep(1000, 3), rep(1000, 3)), withInstr, Unchanged, true, ReasonBelowThreshold,
			"+0.00%, within ±1% (base 1,000, head 1,000)"},
		{"+2% separated", instr("Sum", []float64{1000, 1001, 1000.5}, []float64{1020, 1021, 1020.2}), withInstr, Regression, true, ReasonRangesSeparated,
			"+1.97% ≥ +1% and the repeats' ranges are apart (base 1,000–1,001, head 1,020–1,021 instructions/op)"},
		{"-5% separated", instr("Sum", rep(2000, 3), rep(1900, 3)), withInstr, Improvement, true, ReasonRangesSeparated,
			"-5.00% ≤ -1% and the repeats' ranges are apart (base 2,000, head 1,900 instructions/op)"},
		{"exactly the threshold", instr("Sum", rep(1000, 3), rep(1010, 3)), withInstr, Regression, true, ReasonRangesSeparated, ""},
		{"just below the threshold", instr("Sum", rep(1000, 3), rep(1009.9, 3)), withInstr, Unchanged, true, ReasonBelowThreshold, ""},
		{"ranges touch", instr("Alloc", []float64{1000, 1020, 1005}, []float64{1020, 1040, 1030}), withInstr, Unstable, false, ReasonRangesOverlap,
			"+2.49% but the repeats' ranges overlap (base 1,000–1,020, head 1,020–1,040 instructions/op): they vary as much as the change; not judged"},
		{"not in fail-on", instr("Sum", rep(1000, 3), rep(1100, 3)), DefaultPolicy(), Regression, false, ReasonRangesSeparated, ""},
		{"threshold 0.5%", instr("Sum", rep(1000, 3), rep(1006, 3)), func() Policy { p := withInstr; p.InstructionThreshold = 0.005; return p }(), Regression, true, ReasonRangesSeparated, ""},
		{"zero base", instr("Empty", rep(0, 3), rep(5, 3)), withInstr, Regression, true, ReasonRangesSeparated, ""},
		{"only base", instr("Gone", rep(1000, 3), nil), withInstr, Removed, false, ReasonOnlyBase, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Judge([]stats.Comparison{tt.c}, nil, tt.policy)
			r := v.Results[0]
			if r.Kind != Instructions || r.Status != tt.status || r.Gated != tt.gated || r.Reason.Code != tt.code || r.P != nil {
				t.Errorf("kind %s status %s gated %v code %s p %v; want %s, %s, %v, %s, no p", r.Kind, r.Status, r.Gated, r.Reason.Code, r.P, Instructions, tt.status, tt.gated, tt.code)
			}
			if tt.words != "" {
				if got := reasonText(r); got != tt.words {
					t.Errorf("words %q\nwant  %q", got, tt.words)
				}
			}
			if v.Pass != !(r.Gated && r.Status == Regression) {
				t.Errorf("pass = %v", v.Pass)
			}
		})
	}
}

// A lane failure makes its benchmark's row unavailable (with or without a
// count on the other side), never gated and not one of the failures that
// fail the gate; the other rows are judged; instruction rows follow their
// benchmark's time rows.
func TestJudgeInstructionsUnavailable(t *testing.T) {
	p := DefaultPolicy()
	p.FailOn[Instructions] = true
	cmps := []stats.Comparison{
		unpaired("p", "Read-2", "sec/op", rep(1e-6, 6), rep(1e-6, 6)),
		unpaired("p", "Sum-2", "sec/op", rep(2e-6, 6), rep(2e-6, 6)),
		unpaired("p", "Sum-2", "allocs/op", rep(0, 6), rep(0, 6)),
		unpaired("p", "Cgo-2", "sec/op", rep(3e-6, 6), rep(3e-6, 6)),
		instr("Sum", rep(1000, 3), rep(1000, 3)),
		instr("Read", rep(500, 1), nil),
	}
	failures := []Failure{
		{Package: "p", Name: "Read", Side: SideHead, Message: "unavailable: timed out after 10m0s under valgrind: valgrind ...\nmore", Unit: InstructionsUnit},
		{Package: "p", Name: "BenchmarkCgo", Side: SideBase, Message: "unavailable: valgrind aborted (signal: aborted)", Unit: InstructionsUnit},
	}
	v := Judge(cmps, failures, p)
	type row struct {
		Name, Unit string
		Status     Status
		Side       string
	}
	var got []row
	for _, r := range v.Results {
		got = append(got, row{r.Name, r.Unit, r.Status, r.Reason.Side})
		if r.Gated && r.Status == Unavailable {
			t.Errorf("%s: an unavailable row is gated", r.Name)
		}
	}
	want := []row{
		{"Read-2", "sec/op", Unchanged, ""},
		{"Read", InstructionsUnit, Unavailable, SideHead},
		{"Sum-2", "sec/op", Unchanged, ""},
		{"Sum-2", "allocs/op", Unchanged, ""},
		{"Sum", InstructionsUnit, Unchanged, ""},
		{"Cgo-2", "sec/op", Unchanged, ""},
		{"Cgo", InstructionsUnit, Unavailable, SideBase},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if !v.Pass || len(v.Failures) != 2 || len(v.HeadFailures()) != 0 {
		t.Errorf("pass %v, failures %+v: lane failures must not fail the gate", v.Pass, v.Failures)
	}
	// Judged again from its own rows and failures (as a confirmation
	// does), the verdict is the same.
	var again []stats.Comparison
	for _, r := range v.Results {
		again = append(again, r.Comparison)
	}
	if v2 := Judge(again, v.Failures, p); !cmp.Equal(statuses(v2), statuses(v)) {
		t.Errorf("judged again: %v, want %v", statuses(v2), statuses(v))
	}
	read := v.Results[1]
	if read.Reason.Detail != "timed out after 10m0s under valgrind: valgrind ...\nmore" || read.Base == nil || read.Head != nil {
		t.Errorf("Read: %+v", read)
	}
	if got, want := reasonText(read), "unavailable on head: timed out after 10m0s under valgrind: valgrind ..."; got != want {
		t.Errorf("words %q, want %q", got, want)
	}
	var warned []WarningCode
	for _, w := range v.Warnings {
		warned = append(warned, w.Code)
		if w.Code == WarnUnavailable && len(w.Benchmarks) != 2 {
			t.Errorf("unavailable warning: %+v", w)
		}
	}
	if !cmp.Equal(warned, []WarningCode{WarnUnavailable}) {
		t.Errorf("warnings %v", warned)
	}
	if got := warningTexts(v); len(got) != 1 || got[0] != "instructions/op unavailable for 2 benchmarks (each row says why; the other rows are judged): Read, Cgo" {
		t.Errorf("warning words %q", got)
	}
}

// Valgrind missing: one failure per benchmark for both sides, no rows
// measured at all; each benchmark still gets its row.
func TestJudgeInstructionsMissing(t *testing.T) {
	failures := []Failure{
		{Package: "p", Name: "A", Message: "unavailable: valgrind not found in PATH (/usr/bin): install it", Unit: InstructionsUnit},
		{Package: "p", Name: "B", Message: "unavailable: valgrind not found in PATH (/usr/bin): install it", Unit: InstructionsUnit},
		{Package: "p", Name: "C-2", Side: SideHead, Message: "panic"},
	}
	v := Judge(nil, failures, DefaultPolicy())
	if len(v.Results) != 2 || v.Results[0].Status != Unavailable || v.Results[1].Name != "B" || v.Results[1].Unit != InstructionsUnit {
		t.Fatalf("rows %+v", v.Results)
	}
	if got := reasonText(v.Results[0]); got != "unavailable: valgrind not found in PATH (/usr/bin): install it" {
		t.Errorf("words %q", got)
	}
	if len(v.HeadFailures()) != 1 || v.Pass {
		t.Errorf("the time lane's head failure must still fail the gate: %+v, pass %v", v.Failures, v.Pass)
	}
}

// Instruction rows vary as much as their change: unstable, with a warning.
func TestJudgeInstructionsVaryWarning(t *testing.T) {
	v := Judge([]stats.Comparison{instr("Map", []float64{100, 103, 101}, []float64{102, 105, 104})}, nil, DefaultPolicy())
	if len(v.Warnings) != 1 || v.Warnings[0].Code != WarnInstructionsVary || v.Warnings[0].Unit != InstructionsUnit {
		t.Fatalf("warnings %+v", v.Warnings)
	}
	if got := warningTexts(v)[0]; got != "instructions/op of 1 benchmark varies between repeats as much as the change: reported as unstable, not judged (a loop that makes system calls, or heavy allocation): Map" {
		t.Errorf("words %q", got)
	}
}

func statuses(v Verdict) []string {
	var out []string
	for _, r := range v.Results {
		out = append(out, r.Name+" "+r.Unit+" "+string(r.Status)+" "+string(r.Reason.Code))
	}
	return out
}
