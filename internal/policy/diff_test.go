package policy

import (
	"slices"
	"strings"
	"testing"
)

func changeStrings(cs []Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.String())
	}
	return out
}

func TestDiffSameIsEmpty(t *testing.T) {
	p := mustParse(t, "f.yml", string(readTestdata(t, "full.yml")))
	q := mustParse(t, "f.yml", string(readTestdata(t, "full.yml")))
	if d := Diff(p, q); len(d) != 0 {
		t.Errorf("Diff of a file with itself: %q", changeStrings(d))
	}
	if d := Diff(nil, nil); len(d) != 0 {
		t.Errorf("Diff(nil, nil) = %q", changeStrings(d))
	}
}

func TestDiff(t *testing.T) {
	base := mustParse(t, "base.yml", `threshold: 5%
alpha: 0.01
rules:
  - match: 'codec\.Encode'
    threshold: 10%
    allocs: {max-increase: 1}
  - match: 'ColdStart'
    ignore: true
  - match: 'parse\.Parse$'
    required: true
`)
	head := mustParse(t, "head.yml", `threshold: 1%
fail-on: none
rules:
  - match: 'parse\.Parse$'
    required: false
  - match: 'codec\.Encode'
    threshold: 10%
    allocs: {max-increase: 5%}
    reason: bigger buffers
  - match: '.'
    ignore: true
`)
	got := Diff(base, head)
	want := []string{
		"threshold: 5% → 1%",
		"alpha: 0.01 → default",
		"fail-on: default → none",
		`rule 'parse\.Parse$': required: true → false`,
		`rule 'codec\.Encode': allocs.max-increase: 1 → 5%`,
		`rule 'codec\.Encode': reason: default → bigger buffers`,
		"rule '.' added: ignore: true",
		"rule 'ColdStart' removed (it set ignore: true)",
		`rules apply in another order: 'codec\.Encode', 'parse\.Parse$' → 'parse\.Parse$', 'codec\.Encode'`,
	}
	if s := changeStrings(got); !slices.Equal(s, want) {
		t.Errorf("Diff:\n%q\nwant:\n%q", s, want)
	}
	// Lines point into head's file; a removal has none.
	lines := map[string]int{}
	for _, c := range got {
		lines[c.Setting+" "+c.Rule] = c.Line
	}
	for k, want := range map[string]int{"threshold ": 1, "fail-on ": 2, `allocs.max-increase codec\.Encode`: 8, "rule .": 10, "rule ColdStart": 0} {
		if lines[k] != want {
			t.Errorf("line of %q = %d, want %d", k, lines[k], want)
		}
	}
}

// A head-side file that ignores everything: Diff shows the new rule and
// DiffFor every benchmark it would have ignored, with what it loses.
func TestDiffForIgnoreEverything(t *testing.T) {
	base := mustParse(t, "base.yml", `rules:
  - match: 'codec\.Encode$'
    allocs: {max-increase: 1}
  - match: 'parse\.Parse$'
    required: true
`)
	head := mustParse(t, "head.yml", `rules:
  - match: '.*'
    ignore: true
`)
	if got, want := changeStrings(Diff(base, head)), []string{
		"rule '.*' added: ignore: true",
		`rule 'codec\.Encode$' removed (it set allocs.max-increase: 1)`,
		`rule 'parse\.Parse$' removed (it set required: true)`,
	}; !slices.Equal(got, want) {
		t.Errorf("Diff = %q, want %q", got, want)
	}
	benches := []Bench{{"ex.com/codec", "Encode-8"}, {"ex.com/parse", "Parse-8"}, {"ex.com/x", "Other-8"}}
	got := DiffFor(base, head, benches)
	if len(got) != 3 {
		t.Fatalf("DiffFor: %d benchmarks, want 3: %+v", len(got), got)
	}
	want := [][]string{
		{"rule '.*': allocs.max-increase: 1 → default", "rule '.*': ignore: false → true"},
		{"rule '.*': ignore: false → true", "rule '.*': required: true → false"},
		{"rule '.*': ignore: false → true"},
	}
	for i, bc := range got {
		if bc.Bench != benches[i] || bc.HeadRule != ".*" {
			t.Errorf("%d: bench %v head rule %q", i, bc.Bench, bc.HeadRule)
		}
		if s := changeStrings(bc.Changes); !slices.Equal(s, want[i]) {
			t.Errorf("%v: %q, want %q", bc.Bench, s, want[i])
		}
	}
	if got[0].BaseRule != `codec\.Encode$` || got[2].BaseRule != "" {
		t.Errorf("base rules %q %q", got[0].BaseRule, got[2].BaseRule)
	}
	// Under the same policy nothing changes.
	if d := DiffFor(base, base, benches); len(d) != 0 {
		t.Errorf("DiffFor(base, base) = %+v", d)
	}
}

// No base file, a head file: everything head sets is new.
func TestDiffFromNoFile(t *testing.T) {
	head := mustParse(t, "head.yml", "threshold: 50%\nrules:\n  - match: X\n    fail-on: none\n")
	want := []string{"threshold: default → 50%", "rule 'X' added: fail-on: none"}
	if got := changeStrings(Diff(nil, head)); !slices.Equal(got, want) {
		t.Errorf("Diff(nil, head) = %q, want %q", got, want)
	}
	want = []string{"threshold: 50% → default", "rule 'X' removed (it set fail-on: none)"}
	if got := changeStrings(Diff(head, nil)); !slices.Equal(got, want) {
		t.Errorf("Diff(head, nil) = %q, want %q", got, want)
	}
}

// Head's units entries are compared by pattern.
func TestDiffUnits(t *testing.T) {
	base := mustParse(t, "b.yml", "units:\n  - match: B/s\n    threshold: 10%\n  - match: p99-ns\n    ignore: true\n")
	head := mustParse(t, "h.yml", "units:\n  - match: B/s\n    threshold: 20%\n  - match: mgas/s\n    direction: lower\n")
	var got []string
	for _, c := range Diff(base, head) {
		got = append(got, c.String())
	}
	want := []string{
		"units 'B/s'.threshold: 10% → 20%",
		"units 'mgas/s': default → direction: lower",
		"units 'p99-ns': ignore: true → default",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := Diff(base, base); len(d) != 0 {
		t.Errorf("Diff(base, base) = %v", d)
	}
}
