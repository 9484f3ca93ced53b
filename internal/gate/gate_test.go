package gate

import (
	"fmt"
	"maps"
	"math"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// measured builds a comparison from real samples with package stats, so
// that p-values are the U test's.
func measured(pkg, name, unit string, base, head []float64) stats.Comparison {
	k := stats.Key{Package: pkg, Name: name, Unit: unit}
	s := &stats.Set{Keys: []stats.Key{k}, Base: map[stats.Key][]stats.Obs{}, Head: map[stats.Key][]stats.Obs{}}
	for side, vals := range map[*map[stats.Key][]stats.Obs][]float64{&s.Base: base, &s.Head: head} {
		for i, v := range vals {
			(*side)[k] = append((*side)[k], stats.Obs{Value: v, Round: i, Iters: 1000})
		}
	}
	return stats.CompareAlpha(s, 0.95, 0.05)[0]
}

// unpaired is measured without rounds, as plain go test output.
func unpaired(pkg, name, unit string, base, head []float64) stats.Comparison {
	k := stats.Key{Package: pkg, Name: name, Unit: unit}
	s := &stats.Set{Keys: []stats.Key{k}, Base: map[stats.Key][]stats.Obs{}, Head: map[stats.Key][]stats.Obs{}}
	for _, v := range base {
		s.Base[k] = append(s.Base[k], stats.Obs{Value: v, Round: -1, Iters: 1000})
	}
	for _, v := range head {
		s.Head[k] = append(s.Head[k], stats.Obs{Value: v, Round: -1, Iters: 1000})
	}
	return stats.CompareAlpha(s, 0.95, 0.05)[0]
}

// synthetic builds a time comparison with a chosen p-value and centers,
// for boundaries the U test cannot produce exactly (p == α).
func synthetic(unit string, base, head, p float64) stats.Comparison {
	sum := func(c float64) *stats.Summary {
		return &stats.Summary{Center: c, Low: c * 0.99, High: c * 1.01, N: 10, Min: c * 0.98, Max: c * 1.02}
	}
	c := stats.Comparison{Key: stats.Key{Package: "p", Name: "X-8", Unit: unit}, Base: sum(base), Head: sum(head), P: &p, Better: -1}
	if base != 0 {
		d := head/base - 1
		c.Delta = &d
	}
	return c
}

func rep(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// spread returns n values around v, all distinct, 0.1% apart.
func spread(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v * (1 + 0.001*float64(i))
	}
	return out
}

func TestJudgeRows(t *testing.T) {
	def := DefaultPolicy()
	tests := []struct {
		name   string
		c      stats.Comparison
		policy *Policy
		status Status
		gated  bool
		code   ReasonCode
		words  string
	}{
		// time/op: p-value and threshold.
		{"time regression", synthetic("sec/op", 100, 107.3, 0.002),
			nil, Regression, true, ReasonSignificant, "p=0.002 < α=0.01 and +7.30% ≥ +5%"},
		{"time p exactly alpha is not significant", synthetic("sec/op", 100, 110, 0.01),
			nil, Unchanged, true, ReasonNotSignificant, "+10.00% but p=0.010 ≥ α=0.01: not significant"},
		{"time p just under alpha", synthetic("sec/op", 100, 110, 0.0099),
			nil, Regression, true, ReasonSignificant, "p=0.010 < α=0.01 and +10.00% ≥ +5%"},
		{"time large delta, not significant", synthetic("sec/op", 100, 107.3, 0.09),
			nil, Unchanged, true, ReasonNotSignificant, "+7.30% but p=0.090 ≥ α=0.01: not significant"},
		{"time delta exactly +threshold (100 → 105)", synthetic("sec/op", 100, 105, 0.001),
			nil, Regression, true, ReasonSignificant, "p=0.001 < α=0.01 and +5.00% ≥ +5%"},
		{"time delta exactly +threshold with rounding below it (3 → 3.15)", synthetic("sec/op", 3, 3.15, 0.001),
			nil, Regression, true, ReasonSignificant, "p=0.001 < α=0.01 and +5.00% ≥ +5%"},
		{"time delta just under threshold", synthetic("sec/op", 100, 104.9, 0.001),
			nil, Unchanged, true, ReasonWithinThreshold, "+4.90% is significant (p=0.001) but within ±5%"},
		{"time delta exactly -threshold", synthetic("sec/op", 100, 95, 0.0005),
			nil, Improvement, true, ReasonSignificant, "p<0.001 < α=0.01 and -5.00% ≤ -4.76%"},
		{"time small and not significant", synthetic("sec/op", 100, 101, 0.4),
			nil, Unchanged, true, ReasonNoChange, "+1.00%, p=0.400: no significant change"},
		{"time not gated by policy", synthetic("sec/op", 100, 150, 0.001),
			&Policy{Threshold: 0.05, Alpha: 0.01, FailOn: map[Kind]bool{Allocs: true}}, Regression, false, ReasonSignificant, "p=0.001 < α=0.01 and +50.00% ≥ +5%"},
		{"time n=4 per side cannot reach alpha", measured("p", "X", "sec/op", spread(100, 4), spread(150, 4)),
			nil, Inconclusive, false, ReasonCannotJudge, "not judged: with 4 rounds and 1 benchmark the smallest possible p is 0.029 ≥ α=0.01"},
		{"time n=4 unpaired cannot reach alpha", unpaired("p", "X", "sec/op", spread(100, 4), spread(150, 4)),
			nil, Inconclusive, false, ReasonCannotJudge, "not judged: with 4 samples per side and 1 benchmark the smallest possible p is 0.029 ≥ α=0.01"},
		{"time inconclusive fails with FailOnInconclusive", measured("p", "X", "sec/op", spread(100, 4), spread(150, 4)),
			&Policy{Threshold: 0.05, Alpha: 0.01, FailOn: map[Kind]bool{Time: true}, FailOnInconclusive: true}, Inconclusive, true, ReasonCannotJudge, "not judged: with 4 rounds and 1 benchmark the smallest possible p is 0.029 ≥ α=0.01"},
		{"time n=3+5 cannot reach alpha", measured("p", "X", "sec/op", spread(100, 3), spread(150, 5)),
			nil, Inconclusive, false, ReasonCannotJudge, "not judged: with 3 rounds (3 base and 5 head samples) and 1 benchmark the smallest possible p is 0.036 ≥ α=0.01"},
		{"time 5 rounds: the U test judges (the paired floor is 0.0625)", measured("p", "X", "sec/op", spread(100, 5), spread(150, 5)),
			nil, Regression, true, ReasonSignificant, "p=0.008 < α=0.01 and +50.00% ≥ +5%"},
		{"time 8 rounds, every one slower: the paired test at its floor", measured("p", "X", "sec/op", spread(100, 8), spread(107, 8)),
			nil, Regression, true, ReasonSignificant, "p=0.008 < α=0.01 and +7.00% ≥ +5%"},
		{"time 7 rounds: the paired floor 0.0156 cannot reach 0.01, the U test can", measured("p", "X", "sec/op", spread(100, 7), spread(107, 7)),
			nil, Regression, true, ReasonSignificant, "p<0.001 < α=0.01 and +7.00% ≥ +5%"},
		{"time 0 pairs, unpaired input", unpaired("p", "X", "sec/op", spread(100, 6), spread(120, 6)),
			nil, Regression, true, ReasonSignificant, "p=0.002 < α=0.01 and +20.00% ≥ +5%"},
		{"time 1 pair", measured("p", "X", "sec/op", spread(100, 1), spread(120, 1)),
			nil, Inconclusive, false, ReasonCannotJudge, "not judged: with 1 round and 1 benchmark the smallest possible p is 1.000 ≥ α=0.01"},
		{"time zero base, significant rise", measured("p", "X", "sec/op", rep(0, 6), spread(2e-9, 6)),
			nil, Regression, true, ReasonSignificant, "p=0.002 < α=0.01 and 0 sec/op → 2.005n sec/op"},
		{"time zero on both sides", measured("p", "X", "sec/op", rep(0, 6), rep(0, 6)),
			nil, Unchanged, true, ReasonZeroBoth, "0 sec/op on both sides"},

		// allocs/op and B/op: exact checks.
		{"one extra alloc with 3 rounds", measured("p", "X", "allocs/op", rep(2, 3), rep(3, 3)),
			nil, Regression, true, ReasonExactChange, "2 → 3 allocs/op in every round"},
		{"one extra alloc with 30 rounds", measured("p", "X", "allocs/op", rep(2, 30), rep(3, 30)),
			nil, Regression, true, ReasonExactChange, "2 → 3 allocs/op in every round"},
		{"one extra alloc with 1 round", measured("p", "X", "allocs/op", rep(2, 1), rep(3, 1)),
			nil, Regression, true, ReasonExactChange, "2 → 3 allocs/op in every round"},
		{"0 → N allocs", measured("p", "X", "allocs/op", rep(0, 5), rep(5, 5)),
			nil, Regression, true, ReasonExactChange, "0 → 5 allocs/op in every round"},
		{"fewer allocs", measured("p", "X", "allocs/op", rep(3, 5), rep(2, 5)),
			nil, Improvement, true, ReasonExactChange, "3 → 2 allocs/op in every round"},
		{"N → 0 allocs", measured("p", "X", "allocs/op", rep(4, 5), rep(0, 5)),
			nil, Improvement, true, ReasonExactChange, "4 → 0 allocs/op in every round"},
		{"same allocs", measured("p", "X", "allocs/op", rep(3, 5), rep(3, 5)),
			nil, Unchanged, true, ReasonExactSame, "3 allocs/op on both sides in every round"},
		{"0 allocs on both sides", measured("p", "X", "allocs/op", rep(0, 5), rep(0, 5)),
			nil, Unchanged, true, ReasonExactSame, "0 allocs/op on both sides in every round"},
		{"head allocs vary by one: background", measured("p", "X", "allocs/op", rep(7, 6), []float64{7, 8, 7, 7, 8, 7}),
			nil, Unchanged, true, ReasonBackground, "base 7, head 7–8 allocs/op: within one of each other, a runtime allocation caught by a short run"},
		{"head allocs vary by two", measured("p", "X", "allocs/op", rep(7, 6), []float64{7, 9, 7, 7, 8, 7}),
			nil, Unstable, false, ReasonVaries, "head varies 7–9 allocs/op between rounds: not judged exactly"},
		{"both sides vary", measured("p", "X", "allocs/op", []float64{0, 1, 0}, []float64{7, 8, 9}),
			nil, Unstable, false, ReasonVaries, "base varies 0–1 and head varies 7–9 allocs/op between rounds: not judged exactly"},
		{"B/op grows", measured("p", "X", "B/op", rep(16, 5), rep(48, 5)),
			nil, Regression, true, ReasonExactChange, "16 → 48 B/op in every round"},
		{"B/op 0 → N", measured("p", "X", "B/op", rep(0, 2), rep(1024, 2)),
			nil, Regression, true, ReasonExactChange, "0 → 1024 B/op in every round"},
		{"B/op not gated by policy", measured("p", "X", "B/op", rep(16, 5), rep(48, 5)),
			&Policy{Threshold: 0.05, Alpha: 0.01, FailOn: map[Kind]bool{Time: true}}, Regression, false, ReasonExactChange, "16 → 48 B/op in every round"},

		// Custom metrics: judged in the unit's direction, gated by default.
		{"B/s drop is a regression", measured("p", "X", "B/s", spread(100e6, 6), spread(80e6, 6)),
			nil, Regression, true, ReasonSignificant, "p=0.002 < α=0.01 and -20.00% ≤ -4.76% (higher is better)"},
		{"B/s rise is an improvement", measured("p", "X", "B/s", spread(100e6, 6), spread(120e6, 6)),
			nil, Improvement, true, ReasonSignificant, "p=0.002 < α=0.01 and +20.00% ≥ +5% (higher is better)"},
		{"custom unit: lower is better", measured("p", "X", "frobs/op", spread(10, 6), spread(12, 6)),
			nil, Regression, true, ReasonSignificant, "p=0.002 < α=0.01 and +20.00% ≥ +5% (lower is better)"},
		{"custom unit not in FailOn is not gated", measured("p", "X", "frobs/op", spread(10, 6), spread(12, 6)),
			&Policy{Threshold: 0.05, Alpha: 0.01, FailOn: map[Kind]bool{Time: true}}, Regression, false, ReasonSignificant, "p=0.002 < α=0.01 and +20.00% ≥ +5% (lower is better)"},
		{"constant custom metric grows", measured("p", "X", "bytes-out/op", rep(100, 6), rep(120, 6)),
			nil, Regression, true, ReasonExactChange, "100 → 120 bytes-out/op in every round (lower is better)"},
		{"constant rate grows", measured("p", "X", "items/s", rep(100, 6), rep(120, 6)),
			nil, Improvement, true, ReasonExactChange, "100 → 120 items/s in every round (higher is better)"},
		{"constant custom metric same", measured("p", "X", "items/s", rep(100, 6), rep(100, 6)),
			nil, Unchanged, true, ReasonExactSame, "100 items/s on both sides in every round"},

		// One side only.
		{"new", measured("p", "X", "sec/op", nil, spread(1, 5)),
			nil, New, false, ReasonOnlyHead, "only on head"},
		{"removed, not gated by default", measured("p", "X", "sec/op", spread(1, 5), nil),
			nil, Removed, false, ReasonOnlyBase, "only on base"},
		{"removed, gated", measured("p", "X", "allocs/op", rep(1, 5), nil),
			&Policy{Threshold: 0.05, Alpha: 0.01, FailOnRemoved: true}, Removed, true, ReasonOnlyBase, "only on base"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := def
			if tt.policy != nil {
				p = *tt.policy
			}
			v := Judge([]stats.Comparison{tt.c}, nil, p)
			if len(v.Results) != 1 {
				t.Fatalf("got %d results", len(v.Results))
			}
			r := v.Results[0]
			got := [4]string{string(r.Status), fmt.Sprint(r.Gated), string(r.Reason.Code), reasonText(r)}
			want := [4]string{string(tt.status), fmt.Sprint(tt.gated), string(tt.code), tt.words}
			if got != want {
				t.Errorf("status, gated, reason, its words:\n got  %q\n want %q", got, want)
			}
			wantPass := !(tt.gated && (tt.status == Regression || tt.status == Removed || tt.status == Inconclusive))
			if v.Pass != wantPass || r.Fails() == wantPass {
				t.Errorf("Pass = %v, Fails = %v; want Pass %v", v.Pass, r.Fails(), wantPass)
			}
			if r.Comparison.Key != tt.c.Key {
				t.Errorf("result lost its comparison: %v", r.Comparison.Key)
			}
		})
	}
}

func TestJudgeFailures(t *testing.T) {
	rows := []stats.Comparison{
		measured("example.com/a", "Parse-8", "sec/op", spread(1, 6), spread(1, 6)),
		measured("example.com/a", "Parse-8", "allocs/op", rep(1, 6), rep(1, 6)),
		measured("example.com/a", "Parse/big-8", "sec/op", spread(1, 6), nil),
		measured("example.com/a", "ParseAll-8", "sec/op", spread(1, 6), spread(1, 6)),
		measured("example.com/b", "Parse-8", "sec/op", spread(1, 6), spread(1, 6)),
	}
	head := Failure{Package: "example.com/a", Name: "BenchmarkParse", Side: SideHead, Message: "panic: boom"}
	base := Failure{Package: "example.com/a", Name: "Parse", Side: SideBase, Message: "--- FAIL"}
	pkgB := Failure{Package: "example.com/b", Side: SideHead, Message: "exit status 2"}
	other := Failure{Package: "example.com/c", Name: "Gone", Side: SideHead, Message: "timeout"}
	type row struct {
		Status Status
		Gated  bool
	}
	tests := []struct {
		name     string
		failures []Failure
		policy   Policy
		want     []row
		pass     bool
	}{{
		name:     "head failure covers the benchmark, its units and sub-benchmarks",
		failures: []Failure{head},
		policy:   DefaultPolicy(),
		want:     []row{{Failed, true}, {Failed, true}, {Failed, true}, {Unchanged, true}, {Unchanged, true}},
	}, {
		name:     "base failure is reported, not gated",
		failures: []Failure{base},
		policy:   DefaultPolicy(),
		want:     []row{{Failed, false}, {Failed, false}, {Failed, false}, {Unchanged, true}, {Unchanged, true}},
		pass:     true,
	}, {
		name:     "head wins over base",
		failures: []Failure{base, head},
		policy:   DefaultPolicy(),
		want:     []row{{Failed, true}, {Failed, true}, {Failed, true}, {Unchanged, true}, {Unchanged, true}},
	}, {
		name:     "a package failure covers the whole package",
		failures: []Failure{pkgB},
		policy:   DefaultPolicy(),
		want:     []row{{Unchanged, true}, {Unchanged, true}, {Removed, false}, {Unchanged, true}, {Failed, true}},
	}, {
		name:     "a head failure without rows still fails the gate",
		failures: []Failure{other},
		policy:   DefaultPolicy(),
		want:     []row{{Unchanged, true}, {Unchanged, true}, {Removed, false}, {Unchanged, true}, {Unchanged, true}},
	}, {
		name:     "failures do not gate without FailOnFailure",
		failures: []Failure{head, other},
		policy:   Policy{Threshold: 0.05, Alpha: 0.01, FailOn: map[Kind]bool{Time: true}},
		want:     []row{{Failed, false}, {Failed, false}, {Failed, false}, {Unchanged, true}, {Unchanged, true}},
		pass:     true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Judge(rows, tt.failures, tt.policy)
			var got []row
			for _, r := range v.Results {
				got = append(got, row{r.Status, r.Gated})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if v.Pass != tt.pass {
				t.Errorf("Pass = %v, want %v", v.Pass, tt.pass)
			}
			if diff := cmp.Diff(tt.failures, v.Failures); diff != "" {
				t.Errorf("Failures (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNameCovers(t *testing.T) {
	for _, tt := range []struct {
		name, full string
		want       bool
	}{
		{"Foo", "Foo", true},
		{"Foo", "Foo-8", true},
		{"BenchmarkFoo", "Foo-8", true},
		{"Foo", "Foo/x=1-8", true},
		{"Foo/x=1", "Foo/x=1-8", true},
		{"Foo", "FooBar-8", false},
		{"Foo", "Foo-bar", false},
		{"Foo/x=1", "Foo/x=10-8", false},
		{"Foo-8", "Foo-8", true},
		{"BenchmarkFoo-8", "Foo/x=1-8", true},
		{"Foo-8", "Foo-4", false},
		{"Foo-8", "Foo/x=1-4", false},
		{"Foo-8", "FooBar-8", false},
		{"Foo", "Foo-8x", false},
		{"Foo", "Foo-bar-8", false},
		{"", "Anything", true},
	} {
		if got := nameCovers(tt.name, tt.full); got != tt.want {
			t.Errorf("nameCovers(%q, %q) = %v, want %v", tt.name, tt.full, got, tt.want)
		}
	}
}

func TestVerdictWarningsAndCounts(t *testing.T) {
	cmps := []stats.Comparison{
		measured("p", "A", "sec/op", spread(1, 4), spread(2, 4)),
		measured("p", "B", "sec/op", spread(1, 4), spread(1, 4)),
		measured("p", "C", "sec/op", spread(1, 3), spread(1, 4)),
		measured("p", "D", "sec/op", spread(1, 10), spread(2, 10)),
		measured("p", "D", "allocs/op", rep(1, 10), []float64{1, 3, 1, 1, 1, 1, 1, 1, 1, 1}),
		measured("p", "E", "B/op", []float64{8, 10}, rep(10, 2)),
		measured("p", "E", "allocs/op", rep(1, 2), rep(2, 2)),
		measured("p", "F", "frobs/op", spread(1, 2), spread(2, 2)), // custom metrics: inconclusive, no warning of the time rows
	}
	// E's allocations were measured at another b.N on head.
	for i := range cmps[6].Head.Values {
		cmps[6].Head.Values[i].Iters = 500
	}
	v := Judge(cmps, nil, DefaultPolicy())
	want := []string{
		"time/op not judged for 2 benchmarks: with 4 rounds and 4 benchmarks the smallest possible adjusted p is 0.114 ≥ α=0.01; use --count 10 or more",
		"time/op not judged for 1 benchmark: with 3 rounds (3 base and 4 head samples) and 4 benchmarks the smallest possible adjusted p is 0.229 ≥ α=0.01; use --count 10 or more",
		"allocs/op of 1 benchmark vary between rounds: reported as unstable, not judged exactly: D",
		"B/op of 1 benchmark vary between rounds: reported as unstable, not judged exactly: E",
		"allocs/op of 1 benchmark were measured at different iteration counts on base and head; allocation figures are only exactly comparable at the same b.N (-benchtime=Nx)",
	}
	if diff := cmp.Diff(want, warningTexts(v)); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
	// The facts behind the words.
	wantFacts := []Warning{
		{Code: WarnCannotJudge, Benchmarks: []Bench{{"p", "A"}, {"p", "B"}}, Rounds: 4, BaseN: 4, HeadN: 4, Family: 4, MinP: 4 * 2.0 / 70, Adjusted: true, Alpha: 0.01, MinCount: 10},
		{Code: WarnCannotJudge, Benchmarks: []Bench{{"p", "C"}}, Rounds: 3, BaseN: 3, HeadN: 4, Family: 4, MinP: 4.0 / 35 * 2, Adjusted: true, Alpha: 0.01, MinCount: 10},
		{Code: WarnAllocsVary, Unit: "allocs/op", Benchmarks: []Bench{{"p", "D"}}},
		{Code: WarnAllocsVary, Unit: "B/op", Benchmarks: []Bench{{"p", "E"}}},
		{Code: WarnItersDiffer, Unit: "allocs/op", Benchmarks: []Bench{{"p", "E"}}},
	}
	if diff := cmp.Diff(wantFacts, v.Warnings, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
	if r := v.Results[0]; r.Reason.Code != ReasonCannotJudge || r.Reason.Rounds != 4 || r.Reason.Family != 4 {
		t.Errorf("A's reason: %+v", r.Reason)
	}
	counts := map[Status]int{}
	for _, s := range []Status{Regression, Improvement, Unchanged, Unstable, New, Removed, Failed, Inconclusive} {
		counts[s] = v.Count(s)
	}
	wantCounts := map[Status]int{Regression: 2, Unchanged: 0, Unstable: 2, Improvement: 0, New: 0, Removed: 0, Failed: 0, Inconclusive: 4}
	if diff := cmp.Diff(wantCounts, counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	var regs []string
	for _, r := range v.Regressions() {
		regs = append(regs, r.Name+" "+r.Unit)
	}
	if diff := cmp.Diff([]string{"D sec/op", "E allocs/op"}, regs); diff != "" {
		t.Errorf("Regressions (-want +got):\n%s", diff)
	}
	if v.Pass {
		t.Errorf("Pass = true with gated regressions")
	}
	if v.Policy.Alpha != 0.01 {
		t.Errorf("verdict does not carry its policy: %+v", v.Policy)
	}
	if v.Family != 4 || v.MinCount != 10 || v.Correction != Holm {
		t.Errorf("Family %d, MinCount %d, Correction %q; want 4, 10, holm", v.Family, v.MinCount, v.Correction)
	}
	if want := strings.Join(want[:2], "; "); inconclusiveText(v) != want {
		t.Errorf("Inconclusive = %q, want %q", inconclusiveText(v), want)
	}
}

func TestPassWithOnlyUngatedRows(t *testing.T) {
	v := Judge([]stats.Comparison{
		measured("p", "A", "B/s", spread(100, 6), spread(50, 6)),
		measured("p", "B", "allocs/op", rep(1, 6), []float64{1, 3, 1, 1, 1, 1}),
		measured("p", "C", "sec/op", nil, spread(1, 6)),
		measured("p", "D", "sec/op", spread(1, 6), nil),
	}, []Failure{{Package: "p", Name: "E", Side: SideBase, Message: "x"}}, withoutMetrics(DefaultPolicy()))
	if !v.Pass {
		t.Errorf("Pass = false; results %+v", v.Results)
	}
	if n := len(v.Regressions()); n != 1 {
		t.Errorf("%d regressions, want the ungated B/s one", n)
	}
}

// withoutMetrics is p with custom metrics reported, not gated (--fail-on
// without metrics).
func withoutMetrics(p Policy) Policy {
	p.FailOn = maps.Clone(p.FailOn)
	delete(p.FailOn, Other)
	return p
}

func TestJudgeEmpty(t *testing.T) {
	v := Judge(nil, nil, DefaultPolicy())
	if !v.Pass || len(v.Results) != 0 || len(v.Warnings) != 0 {
		t.Errorf("Judge(nil) = %+v, want an empty passing verdict", v)
	}
}

// TestMinPMatchesUTest checks MinP against the U test itself: with
// non-overlapping samples the test's p-value is the smallest possible one.
func TestMinPMatchesUTest(t *testing.T) {
	for n1 := 1; n1 <= 9; n1++ {
		for n2 := 1; n2 <= 9; n2++ {
			c := measured("p", "X", "sec/op", spread(1, n1), spread(2, n2))
			if got := MinP(n1, n2); math.Abs(got-*c.P) > 1e-12*math.Max(1, got) {
				t.Errorf("MinP(%d, %d) = %v, U test gives %v", n1, n2, got, *c.P)
			}
		}
	}
	if MinP(0, 5) != 1 {
		t.Errorf("MinP(0, 5) = %v, want 1", MinP(0, 5))
	}
}

func TestMinCount(t *testing.T) {
	for _, alpha := range []float64{0.5, 0.1, 0.05, 0.01, 0.001, 1e-5} {
		n := MinCountU(alpha, 1, NoCorrection)
		if MinP(n, n) >= alpha || (n > 1 && MinP(n-1, n-1) < alpha) {
			t.Errorf("MinCountU(%v, 1, none) = %d: MinP(n)=%v, MinP(n-1)=%v", alpha, n, MinP(n, n), MinP(n-1, n-1))
		}
	}
}

func TestDefaultPolicy(t *testing.T) {
	p := DefaultPolicy()
	want := Policy{Threshold: 0.05, Alpha: 0.01, FailOn: map[Kind]bool{Time: true, Allocs: true, Bytes: true, Other: true}, FailOnFailure: true, Correction: Holm, InstructionThreshold: 0.01}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("DefaultPolicy (-want +got):\n%s", diff)
	}
}
