package gate

import (
	"testing"

	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/stats"
)

func parsePolicy(t *testing.T, src string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse(".benchgate.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func rowOf(t *testing.T, v Verdict, name, unit string) Result {
	t.Helper()
	for _, r := range v.Results {
		if r.Name == name && r.Unit == unit {
			return r
		}
	}
	t.Fatalf("no row %s %s in %v", name, unit, v.Results)
	return Result{}
}

// TestPolicyRules applies a policy file to a suite with three regressions:
// each rule turns its row into exactly what the rule says, and the
// verdict follows.
func TestPolicyRules(t *testing.T) {
	slowB, slowH := drifted(12, 0.08, 0.003, 7) // +8 %: above 5 %, below 10 %
	coldB, coldH := drifted(12, 0.30, 0.003, 8)
	plainB, plainH := drifted(12, 0.0, 0.003, 9)
	cmps := []stats.Comparison{
		measured("example.com/m/codec", "Encode-2", "sec/op", slowB, slowH),
		measured("example.com/m/codec", "Encode-2", "allocs/op", rep(3, 12), rep(4, 12)),
		measured("example.com/m/codec", "Decode-2", "sec/op", plainB, plainH),
		measured("example.com/m/codec", "Decode-2", "allocs/op", rep(3, 12), rep(5, 12)),
		measured("example.com/m/start", "ColdStart-2", "sec/op", coldB, coldH),
	}
	without := Judge(cmps, nil, DefaultPolicy())
	for _, k := range []struct{ name, unit string }{{"Encode-2", "sec/op"}, {"Encode-2", "allocs/op"}, {"Decode-2", "allocs/op"}, {"ColdStart-2", "sec/op"}} {
		if r := rowOf(t, without, k.name, k.unit); r.Status != Regression || !r.Gated {
			t.Fatalf("fixture: without a policy %s %s is %s (gated %v), want a gated regression: %s", k.name, k.unit, r.Status, r.Gated, reasonText(r))
		}
	}

	p := DefaultPolicy()
	p.File = parsePolicy(t, `
rules:
  - match: 'codec\.Encode$'
    threshold: 10%
    allocs: {max-increase: 1}
    reason: the encoder keeps one buffer
  - match: 'ColdStart'
    ignore: true
  - match: 'codec\.Decode$'
    allocs: {max-increase: 1}
`)
	v := Judge(cmps, nil, p)
	enc := rowOf(t, v, "Encode-2", "sec/op")
	if enc.Status != Unchanged || enc.Reason.Code != ReasonWithinThreshold || enc.Reason.Threshold != 0.10 || enc.Gated && enc.Fails() {
		t.Errorf("Encode time under a 10%% rule: %s (%s, threshold %v): %s", enc.Status, enc.Reason.Code, enc.Reason.Threshold, reasonText(enc))
	}
	if enc.Rule == nil || enc.Rule.Source != ".benchgate.yml:3" || enc.Rule.Reason != "the encoder keeps one buffer" {
		t.Errorf("Encode's rule = %+v, want .benchgate.yml:3 with its reason", enc.Rule)
	}
	if r := rowOf(t, v, "Encode-2", "allocs/op"); r.Status != Unchanged || r.Reason.Code != ReasonWithinAllowance || r.Reason.Allowance != "1" {
		t.Errorf("Encode +1 alloc with max-increase 1: %s (%s, allowance %q)", r.Status, r.Reason.Code, r.Reason.Allowance)
	}
	if r := rowOf(t, v, "Decode-2", "allocs/op"); r.Status != Regression || !r.Gated {
		t.Errorf("Decode +2 allocs with max-increase 1: %s gated %v, want a gated regression", r.Status, r.Gated)
	}
	cold := rowOf(t, v, "ColdStart-2", "sec/op")
	if cold.Status != Ignored || cold.Gated || cold.Reason.Code != ReasonIgnored || cold.Rule == nil {
		t.Errorf("ColdStart under ignore: %s gated %v (%s), rule %v", cold.Status, cold.Gated, cold.Reason.Code, cold.Rule)
	}
	if v.Pass {
		t.Errorf("the verdict passes with Decode's +2 allocs/op")
	}
	if v.Family != 2 {
		t.Errorf("Family = %d, want 2: an ignored row is not a comparison", v.Family)
	}

	// Without Decode's second extra allocation the policy passes the suite.
	cmps[3] = measured("example.com/m/codec", "Decode-2", "allocs/op", rep(3, 12), rep(4, 12))
	if v := Judge(cmps, nil, p); !v.Pass {
		t.Errorf("every regression is covered by a rule, yet the verdict fails: %+v", v.Results)
	}
}

// TestPolicyIgnoredNotRun lists benchmarks the runner did not run.
func TestPolicyIgnoredNotRun(t *testing.T) {
	b, h := drifted(12, 0, 0.003, 1)
	p := DefaultPolicy()
	p.File = parsePolicy(t, "rules:\n  - match: ColdStart\n    ignore: true\n")
	p.Ignored = []Bench{{"example.com/m", "ColdStart"}}
	v := Judge([]stats.Comparison{measured("example.com/m", "Parse-2", "sec/op", b, h)}, nil, p)
	r := rowOf(t, v, "ColdStart", "sec/op")
	if r.Status != Ignored || r.Gated || r.Rule == nil || r.Rule.Source != ".benchgate.yml:2" {
		t.Errorf("ignored row: %+v", r)
	}
	if len(v.Results) != 2 || !v.Pass {
		t.Errorf("%d rows, pass %v; want 2 rows and a pass", len(v.Results), v.Pass)
	}
}

// TestPolicyRequired fails the gate when a required benchmark is missing
// on head, whatever --fail-on says about removed benchmarks.
func TestPolicyRequired(t *testing.T) {
	b, h := drifted(12, 0, 0.003, 1)
	p := DefaultPolicy()
	p.File = parsePolicy(t, "rules:\n  - match: 'Parse$'\n    required: true\n  - match: 'Lex$'\n    required: true\n")
	if p.FailOnRemoved {
		t.Fatal("fixture: removed benchmarks should not fail by default")
	}
	present := measured("example.com/m", "Parse-2", "sec/op", b, h)
	gone := measured("example.com/m", "Parse-2", "sec/op", b, nil)
	lex := measured("example.com/m", "Lex-2", "sec/op", b, h)

	if v := Judge([]stats.Comparison{present, lex}, nil, p); !v.Pass {
		t.Errorf("both required benchmarks present, yet the verdict fails: %+v %+v", v.Results, v.Warnings)
	}
	v := Judge([]stats.Comparison{gone, lex}, nil, p)
	r := rowOf(t, v, "Parse-2", "sec/op")
	if r.Status != Removed || !r.Gated || v.Pass {
		t.Errorf("required and removed: %s gated %v, pass %v", r.Status, r.Gated, v.Pass)
	}
	// A required pattern no benchmark matches on head: a gated warning.
	v = Judge([]stats.Comparison{present}, nil, p)
	var found bool
	for _, w := range v.Warnings {
		if w.Code == WarnRequiredMissing && w.Detail == "Lex$" && w.Source == ".benchgate.yml:4" && w.Gated {
			found = true
		}
	}
	if !found || v.Pass {
		t.Errorf("Lex$ matches nothing: warnings %+v, pass %v", v.Warnings, v.Pass)
	}
	// A selective run (--bench, some packages, one shard of several)
	// cannot tell a pattern that matches nothing from one it excluded on
	// both sides: the full run, or the merge, checks.
	p.Selective = true
	if v := Judge([]stats.Comparison{present}, nil, p); !v.Pass {
		t.Errorf("a selective run failed for a required benchmark it excluded on both sides: %+v", v.Warnings)
	}
	// But a required benchmark that base ran and head lost fails there
	// too.
	if v := Judge([]stats.Comparison{gone, lex}, nil, p); v.Pass || !rowOf(t, v, "Parse-2", "sec/op").Gated {
		t.Errorf("a selective run passed a required benchmark that head lost")
	}
	// A required benchmark that fails on head fails the gate even when
	// --fail-on leaves failures out.
	p.Selective = false
	p.FailOnFailure = false
	fail := []Failure{{Package: "example.com/m", Name: "Lex-2", Side: SideHead, Message: "panic"}}
	if v := Judge([]stats.Comparison{present, lex}, fail, p); v.Pass || !rowOf(t, v, "Lex-2", "sec/op").Gated {
		t.Errorf("a required benchmark failed on head, yet the verdict passes")
	}
}

// TestPolicyRuleFailOn reports a rule's ungated kinds without failing.
func TestPolicyRuleFailOn(t *testing.T) {
	b, h := drifted(12, 0.30, 0.003, 3)
	p := DefaultPolicy()
	p.File = parsePolicy(t, "rules:\n  - match: Encode\n    fail-on: [allocs]\n")
	v := Judge([]stats.Comparison{measured("m", "Encode-2", "sec/op", b, h), measured("m", "Other-2", "sec/op", b, h)}, nil, p)
	if r := rowOf(t, v, "Encode-2", "sec/op"); r.Status != Regression || r.Gated {
		t.Errorf("Encode's time with fail-on [allocs]: %s gated %v, want an ungated regression", r.Status, r.Gated)
	}
	if r := rowOf(t, v, "Other-2", "sec/op"); r.Status != Regression || !r.Gated {
		t.Errorf("Other's time: %s gated %v, want a gated regression", r.Status, r.Gated)
	}
}

// TestAccepted keeps an accepted regression a regression, not gated, and
// says who accepted it.
func TestAccepted(t *testing.T) {
	b, h := drifted(12, 0.30, 0.003, 3)
	accepts, err := policy.ParseAcceptTrailers("fix: correct rounding\n\nSlower on purpose.\n\nBenchgate-Accept: codec\\.Encode\n")
	if err != nil || len(accepts) != 1 {
		t.Fatal(accepts, err)
	}
	accepts[0].By = "A U Thor <author@example.com>"
	p := DefaultPolicy()
	p.Accepts = accepts
	cmps := []stats.Comparison{measured("example.com/m/codec", "Encode-2", "sec/op", b, h), measured("example.com/m/codec", "Encode-2", "allocs/op", rep(3, 12), rep(4, 12))}
	v := Judge(cmps, nil, p)
	for _, r := range v.Results {
		if r.Status != Regression || r.Gated || r.Accepted == nil || r.Accepted.By != "A U Thor <author@example.com>" || r.Accepted.Via != `Benchgate-Accept: codec\.Encode` {
			t.Errorf("%s: %s gated %v accepted %+v", r.Unit, r.Status, r.Gated, r.Accepted)
		}
	}
	if !v.Pass {
		t.Error("every regression accepted, yet the verdict fails")
	}
	// Something else still fails.
	cmps = append(cmps, measured("example.com/m/codec", "Decode-2", "sec/op", b, h))
	if v := Judge(cmps, nil, p); v.Pass || rowOf(t, v, "Decode-2", "sec/op").Accepted != nil {
		t.Error("an unaccepted regression passes")
	}
}

// TestSameBinaryRows: the rows of benchmarks not measured for their
// identical test binaries get status same-binary, are never gated, stay
// out of the time family, take their unit's direction, and appear once
// when a verdict is judged again.
func TestSameBinaryRows(t *testing.T) {
	p := DefaultPolicy()
	p.SameBinary = []stats.Key{
		{Package: "a", Name: "X-2", Unit: "sec/op"},
		{Package: "a", Name: "X-2", Unit: "B/s"},
		{Package: "a", Name: "X-2", Unit: "allocs/op"},
	}
	v := Judge(nil, nil, p)
	if !v.Pass || v.Family != 0 || len(v.Results) != 3 || v.Count(SameBinary) != 3 {
		t.Fatalf("verdict: pass %v, family %d, %d rows (%d same-binary); want a pass of 3 same-binary rows outside the family", v.Pass, v.Family, len(v.Results), v.Count(SameBinary))
	}
	for _, r := range v.Results {
		if r.Gated || r.Fails() || r.Reason.Code != ReasonSameBinary || r.Delta != nil || r.P != nil {
			t.Errorf("%s %s: %+v", r.Name, r.Unit, r)
		}
	}
	if d := v.Results[1].Direction(); d != "higher" {
		t.Errorf("B/s direction %q, want higher", d)
	}
	cmps := make([]stats.Comparison, len(v.Results))
	for i, r := range v.Results {
		cmps[i] = r.Comparison
	}
	if again := Judge(cmps, nil, p); len(again.Results) != 3 || again.Count(SameBinary) != 3 {
		t.Errorf("judged again: %d rows, %d same-binary; want 3 and 3", len(again.Results), again.Count(SameBinary))
	}
}
