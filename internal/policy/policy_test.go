package policy

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

func mustParse(t *testing.T, name, src string) *Policy {
	t.Helper()
	p, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return p
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The issue's example file gives exactly the settings it describes.
func TestParseIssueExample(t *testing.T) {
	p, err := Parse(".benchgate.yml", readTestdata(t, "issue.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Threshold.Set || p.Threshold.Value != 0.05 || p.Threshold.Line != 2 {
		t.Errorf("threshold = %+v, want 0.05 at line 2", p.Threshold)
	}
	if !p.Alpha.Set || p.Alpha.Value != 0.01 || p.Alpha.Line != 3 {
		t.Errorf("alpha = %+v, want 0.01 at line 3", p.Alpha)
	}
	if len(p.Rules) != 3 {
		t.Fatalf("%d rules, want 3", len(p.Rules))
	}
	enc, cold, parse := p.Rules[0], p.Rules[1], p.Rules[2]
	if enc.Match != `pkg/codec\.Encode` || enc.Line != 5 || enc.Index != 0 {
		t.Errorf("rule 0 = %q line %d index %d", enc.Match, enc.Line, enc.Index)
	}
	if enc.Threshold.Value != 0.10 || !enc.Threshold.FromRule || enc.Threshold.Line != 6 {
		t.Errorf("rule 0 threshold = %+v", enc.Threshold)
	}
	if enc.Allocs.Value != (Limit{Amount: 1}) || enc.Allocs.Line != 7 {
		t.Errorf("rule 0 allocs = %+v", enc.Allocs)
	}
	if enc.Bytes.Set || enc.Ignore || enc.Required {
		t.Errorf("rule 0 sets more than it says: %+v", enc)
	}
	if !cold.Ignore || cold.Required || cold.Match != "ColdStart" || cold.Line != 8 {
		t.Errorf("rule 1 = %+v", cold)
	}
	if !parse.Required || parse.Ignore || parse.Line != 10 {
		t.Errorf("rule 2 = %+v", parse)
	}
}

func TestParseFullSchema(t *testing.T) {
	p, err := Parse(".benchgate.yml", readTestdata(t, "full.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != 1 {
		t.Errorf("version = %d", p.Version)
	}
	if !slices.Equal(p.FailOn.Value, []string{"time", "allocs", "bytes", "failure"}) {
		t.Errorf("fail-on = %v", p.FailOn.Value)
	}
	if !p.Allocs.Set || p.Allocs.Value != (Limit{}) || !p.Bytes.Set || p.Bytes.Value != (Limit{}) {
		t.Errorf("allocs %+v bytes %+v, want set to 0", p.Allocs, p.Bytes)
	}
	if p.Instructions.Value != 0.01 || p.Instructions.Line != 8 {
		t.Errorf("instructions = %+v", p.Instructions)
	}
	r := p.For("example.com/m/pkg/codec", "Encode/size=1k-8")
	if r.Index != 0 {
		t.Fatalf("codec.Encode governed by rule %d, want 0", r.Index)
	}
	want := Rule{Threshold: Setting[float64]{0.10, true, 11, true}}
	if r.Threshold != want.Threshold {
		t.Errorf("threshold = %+v, want %+v", r.Threshold, want.Threshold)
	}
	if r.Bytes.Value != (Limit{Relative: true, Fraction: 0.05}) || r.Instructions.Value != 0.02 {
		t.Errorf("bytes %+v instructions %+v", r.Bytes, r.Instructions)
	}
	if !slices.Equal(r.FailOn.Value, []string{"allocs", "bytes"}) || !r.FailOn.FromRule {
		t.Errorf("fail-on = %+v", r.FailOn)
	}
	if r.Reason != "JSON encoding allocates its output buffer" {
		t.Errorf("reason = %q", r.Reason)
	}
	if got := p.For("example.com/m/other", "ColdStart-4"); !got.Ignore || got.Reason != "flaky, see #123" {
		t.Errorf("ColdStart: %+v", got)
	}
}

// An empty file, or comments only, is the empty policy.
func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "# nothing yet\n", "---\n", "\n\n", "~\n"} {
		p := mustParse(t, "f.yml", src)
		if p.Threshold.Set || p.Alpha.Set || len(p.Rules) != 0 {
			t.Errorf("%q: %+v, want the empty policy", src, p)
		}
		if r := p.For("p", "X-8"); r.Index != -1 || r.Threshold.Set {
			t.Errorf("%q: For = %+v", src, r)
		}
	}
}

// Every error names the file and the exact line of the offending key or
// value.
func TestParseErrors(t *testing.T) {
	const f = ".benchgate.yml"
	cases := []struct {
		name, src string
		want      []string
	}{
		{"unknown top key", "threshold: 5%\nthreshhold: 5%\n",
			[]string{`.benchgate.yml:2: unknown key "threshhold": did you mean threshold? (want version, threshold, alpha, fail-on, allocs, bytes, instructions, rules, units, trusted-bots)`}},
		{"units: unknown key", "units:\n  - match: 'B/s'\n    better: higher\n",
			[]string{`.benchgate.yml:3: units entry: unknown key "better": want match, direction, threshold, ignore, reason`}},
		{"units: bad direction", "units:\n  - match: 'B/s'\n    direction: up\n",
			[]string{`.benchgate.yml:3: units: direction: want higher or lower, got "up"`}},
		{"units: built-in unit", "units:\n  - match: '.*/op'\n    direction: higher\n",
			[]string{
				`.benchgate.yml:2: units: match ".*/op" matches sec/op, which has its own rules: a units entry is for custom metrics`,
				`.benchgate.yml:2: units: match ".*/op" matches allocs/op, which has its own rules: a units entry is for custom metrics`,
				`.benchgate.yml:2: units: match ".*/op" matches B/op, which has its own rules: a units entry is for custom metrics`,
				`.benchgate.yml:2: units: match ".*/op" matches instructions/op, which has its own rules: a units entry is for custom metrics`,
			}},
		{"units: no match", "units:\n  - direction: higher\n",
			[]string{`.benchgate.yml:2: units entry has no match: every entry needs a match regexp over the unit`}},
		{"units: ignore with settings", "units:\n  - match: x/s\n    ignore: true\n    threshold: 5%\n",
			[]string{`.benchgate.yml:4: threshold has no effect: the entry has ignore: true`}},
		{"units: not a list", "units: B/s\n",
			[]string{`.benchgate.yml:1: units: want a list of entries (lines starting with -), got a string`}},
		{"units: repeated", "units:\n  - match: x/s\n    direction: lower\n  - match: x/s\n    direction: higher\n",
			[]string{`.benchgate.yml:4: units: match "x/s" repeats the entry of line 2, which always applies first`}},
		{"unknown rule key", "rules:\n  - match: a\n    treshold: 5%\n",
			[]string{`.benchgate.yml:3: rule: unknown key "treshold": did you mean threshold? (want match, threshold, allocs, bytes, instructions, fail-on, ignore, required, reason)`}},
		{"bad regexp", "rules:\n  - match: x\n  - match: 'Encode('\n",
			[]string{`.benchgate.yml:3: match: invalid regular expression "Encode(": missing closing ): ` + "`Encode(`"}},
		{"empty match", "rules:\n  - match: ''\n",
			[]string{`.benchgate.yml:2: match: empty pattern: write '.' to match every benchmark`}},
		{"no match", "rules:\n  - threshold: 5%\n",
			[]string{`.benchgate.yml:2: rule has no match: every rule needs a match regexp`}},
		{"ambiguous threshold", "threshold: 0.05\n",
			[]string{`.benchgate.yml:1: threshold: "0.05" is ambiguous: write 0.05% for 0.05 percent, or 5% for a fraction of 0.05`}},
		{"negative threshold", "rules:\n  - match: a\n    threshold: -5%\n",
			[]string{`.benchgate.yml:3: threshold: "-5%": must not be negative`}},
		{"huge threshold", "threshold: 1000%\n",
			[]string{`.benchgate.yml:1: threshold: "1000%": must be below 1000%`}},
		{"threshold not a number", "threshold: five\n",
			[]string{`.benchgate.yml:1: threshold: want a percentage such as 5%, got "five"`}},
		{"threshold list", "threshold: [5%]\n",
			[]string{`.benchgate.yml:1: threshold: want a single value, got a list`}},
		{"missing value", "alpha:\n",
			[]string{`.benchgate.yml:1: alpha: missing value`}},
		{"alpha range", "\n\nalpha: 1.5\n",
			[]string{`.benchgate.yml:3: alpha: want a number in (0, 1) such as 0.01, got "1.5"`}},
		{"alpha in rule", "rules:\n  - match: a\n    alpha: 0.05\n",
			[]string{`.benchgate.yml:3: alpha is suite-wide (the correction spans every benchmark): set it at the top level, not in a rule`}},
		{"yes is not a boolean", "rules:\n  - match: a\n    ignore: yes\n",
			[]string{`.benchgate.yml:3: ignore: want true or false, got a string`}},
		{"negative max-increase", "rules:\n  - match: a\n    allocs: {max-increase: -1}\n",
			[]string{`.benchgate.yml:3: allocs.max-increase: "-1": must not be negative`}},
		{"max-increase word", "bytes:\n  max-increase: lots\n",
			[]string{`.benchgate.yml:2: bytes.max-increase: want a number in the metric's unit such as 1, or a percentage of base such as 5%, got "lots"`}},
		{"limit block unknown key", "allocs: {max: 1}\n",
			[]string{`.benchgate.yml:1: allocs: unknown key "max": want max-increase`}},
		{"limit block scalar", "allocs: 1\n",
			[]string{`.benchgate.yml:1: allocs: want a mapping (key: value lines), got a number`}},
		{"instructions key", "instructions: {max-increase: 1}\n",
			[]string{`.benchgate.yml:1: instructions: unknown key "max-increase": want threshold`}},
		{"fail-on unknown", "fail-on: [time, memory]\n",
			[]string{`.benchgate.yml:1: fail-on: unknown kind "memory": want time, allocs, bytes, metrics, instructions, failure, removed, inconclusive, scaling, or none`}},
		{"fail-on none mixed", "rules:\n  - match: a\n    fail-on: time, none\n",
			[]string{`.benchgate.yml:3: fail-on: none cannot be combined with other kinds`}},
		{"version", "version: 2\n",
			[]string{`.benchgate.yml:1: version: 2 is not supported: this benchgate reads version 1`}},
		{"ignore with settings", "rules:\n  - match: Cold\n    ignore: true\n    threshold: 50%\n    required: true\n",
			[]string{
				`.benchgate.yml:4: threshold has no effect: the rule has ignore: true, and an ignored benchmark is not run`,
				`.benchgate.yml:5: required has no effect: the rule has ignore: true, and an ignored benchmark is not run`,
			}},
		{"duplicate match", "rules:\n  - match: Encode\n    threshold: 10%\n  - match: Encode\n    ignore: true\n",
			[]string{`.benchgate.yml:4: match "Encode" repeats the rule of line 2, which always applies first`}},
		{"rule key at top", "match: Encode\n",
			[]string{`.benchgate.yml:1: match belongs in a rule: a list item under rules:`}},
		{"rules not a list", "rules:\n  match: a\n",
			[]string{`.benchgate.yml:2: rules: want a list of rules (lines starting with -), got a mapping`}},
		{"rule not a mapping", "rules:\n  - Encode\n",
			[]string{`.benchgate.yml:2: rule: want a mapping (key: value lines), got a string`}},
		{"top not a mapping", "- a\n- b\n",
			[]string{`.benchgate.yml:1: the policy: want a mapping (key: value lines), got a list`}},
		{"unknown alias", "threshold: *t\n",
			[]string{`.benchgate.yml:1: alias *t: no anchor &t before it`}},
		{"two documents", "threshold: 5%\n---\nalpha: 0.01\n",
			[]string{`.benchgate.yml:3: a second YAML document: the policy is one document`}},
		{"several errors", "threshold: 5\nalpha: 2\nrules:\n  - match: '['\n    ignore: 1\n",
			[]string{
				`.benchgate.yml:2: alpha: want a number in (0, 1) such as 0.01, got "2"`,
				".benchgate.yml:4: match: invalid regular expression \"[\": missing closing ]: `[`",
				`.benchgate.yml:5: ignore: want true or false, got a number`,
			}},
		// Syntax errors come from the YAML parser, with its position.
		{"tab indentation", "rules:\n\t- match: a\n",
			[]string{`.benchgate.yml:2: YAML: found character '	' that cannot start any token`}},
		{"mapping in plain scalar", "threshold: a: b\n",
			[]string{`.benchgate.yml:1: YAML: mapping value is not allowed in this context`}},
		{"duplicate key", "threshold: 5%\nalpha: 0.01\nthreshold: 6%\n",
			[]string{`.benchgate.yml:3: YAML: mapping key "threshold" already defined at [1:1]`}},
		{"unclosed flow", "rules:\n  - {match: a\n",
			[]string{`.benchgate.yml:2: YAML: could not find flow mapping end token '}'`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(f, []byte(c.src))
			if err == nil {
				t.Fatalf("no error; policy %+v", p)
			}
			if p != nil {
				t.Errorf("a policy beside the error: %+v", p)
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error %T is not an ErrorList", err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			var first *Error
			if !errors.As(err, &first) || first != list[0] {
				t.Errorf("errors.As does not find the first *Error")
			}
		})
	}
}

// Anchors and aliases work, so settings can be shared between rules.
func TestParseAliases(t *testing.T) {
	src := `
tolerant: &tolerant
rules:
  - match: Encode
    allocs: &one {max-increase: 1}
  - match: Decode
    allocs: *one
    threshold: &wide 20%
  - match: Parse
    threshold: *wide
`
	// "tolerant" is not a key of the schema: aliases do not make unknown
	// keys acceptable.
	if _, err := Parse("f.yml", []byte(src)); err == nil || err.Error() != `f.yml:2: unknown key "tolerant": want version, threshold, alpha, fail-on, allocs, bytes, instructions, rules, units, trusted-bots` {
		t.Fatalf("err = %v", err)
	}
	p := mustParse(t, "f.yml", strings.Replace(src, "tolerant: &tolerant\n", "", 1))
	if got := p.For("m", "Decode").Allocs.Value; got != (Limit{Amount: 1}) {
		t.Errorf("Decode allocs = %+v, want the aliased 1", got)
	}
	if got := p.For("m", "Parse").Threshold.Value; got != 0.20 {
		t.Errorf("Parse threshold = %v, want the aliased 20%%", got)
	}
}

func TestFailOnForms(t *testing.T) {
	for src, want := range map[string][]string{
		"fail-on: time, allocs\n":      {"time", "allocs"},
		"fail-on: [time, allocs]\n":    {"time", "allocs"},
		"fail-on:\n  - instructions\n": {"instructions"},
		"fail-on: none\n":              {},
		"fail-on: time,time\n":         {"time"},
	} {
		p := mustParse(t, "f.yml", src)
		if !p.FailOn.Set || !slices.Equal(p.FailOn.Value, want) || p.FailOn.Value == nil {
			t.Errorf("%q: fail-on = %+v, want %v", src, p.FailOn, want)
		}
	}
}

// The first matching rule wins, and settings it leaves unset come from the
// top level.
func TestForFirstMatchAndInheritance(t *testing.T) {
	p := mustParse(t, "f.yml", `threshold: 5%
bytes: {max-increase: 64}
rules:
  - match: 'codec\.Encode$'
    threshold: 10%
  - match: 'codec\.'
    threshold: 20%
    bytes: {max-increase: 5%}
`)
	r := p.For("ex.com/codec", "Encode-8")
	if r.Index != 0 || r.Threshold.Value != 0.10 || !r.Threshold.FromRule {
		t.Errorf("Encode: rule %d threshold %+v, want rule 0's 10%%", r.Index, r.Threshold)
	}
	if r.Bytes.Value != (Limit{Amount: 64}) || r.Bytes.FromRule || r.Bytes.Line != 2 {
		t.Errorf("Encode bytes = %+v, want the top level's 64 (line 2, not from the rule)", r.Bytes)
	}
	r = p.For("ex.com/codec", "Decode-8")
	if r.Index != 1 || r.Threshold.Value != 0.20 || r.Bytes.Value != (Limit{Relative: true, Fraction: 0.05}) {
		t.Errorf("Decode: %+v", r)
	}
	r = p.For("ex.com/other", "Encode-8")
	if r.Index != -1 || r.Threshold.Value != 0.05 || r.Threshold.FromRule {
		t.Errorf("other.Encode: %+v, want the top level", r)
	}
	var nilPolicy *Policy
	if r := nilPolicy.For("p", "X"); r.Index != -1 || r.Threshold.Set {
		t.Errorf("nil policy: %+v", r)
	}
}

// Patterns see "import/path.Name" with and without the -GOMAXPROCS suffix.
func TestForNames(t *testing.T) {
	p := mustParse(t, "f.yml", `rules:
  - match: 'codec\.Encode-8$'
    threshold: 8%
  - match: 'codec\.Encode$'
    threshold: 10%
  - match: '^Plain/case=1$'
    threshold: 30%
  - match: 'pkg/parse\.Parse$'
    required: true
`)
	cases := []struct {
		pkg, name string
		index     int
	}{
		{"ex.com/codec", "Encode-8", 0},          // the suffix itself
		{"ex.com/codec", "Encode-4", 1},          // without the suffix
		{"ex.com/codec", "Encode", 1},            // GOMAXPROCS 1 prints none
		{"ex.com/codec", "BenchmarkEncode-2", 1}, // the Benchmark prefix is dropped
		{"ex.com/codec", "Encode/size=1k-8", -1}, // a sub-benchmark is another name
		{"ex.com/codec", "EncodeAll-8", -1},
		{"", "Plain/case=1-16", 2}, // no package: the name alone
		{"ex.com/x", "Plain/case=1", -1},
		{"ex.com/pkg/parse", "Parse-8", 3},
		{"ex.com/pkg/parse", "ParseAll-8", -1},
	}
	for _, c := range cases {
		if got := p.For(c.pkg, c.name).Index; got != c.index {
			t.Errorf("For(%q, %q) = rule %d, want %d", c.pkg, c.name, got, c.index)
		}
	}
	if Key("ex.com/codec", "BenchmarkEncode-8") != "ex.com/codec.Encode-8" || Key("", "X") != "X" {
		t.Errorf("Key: %q %q", Key("ex.com/codec", "BenchmarkEncode-8"), Key("", "X"))
	}
	for in, want := range map[string]string{"A-8": "A", "A/b-c": "A/b-c", "A-": "A-", "A": "A", "A/n-1-16": "A/n-1"} {
		if got := StripProcs(in); got != want {
			t.Errorf("StripProcs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolvePrecedence(t *testing.T) {
	fromRule := Setting[float64]{Value: 0.10, Set: true, FromRule: true}
	fromTop := Setting[float64]{Value: 0.07, Set: true}
	unset := Setting[float64]{}
	cases := []struct {
		s        Setting[float64]
		flag     float64
		explicit bool
		want     float64
	}{
		{fromRule, 0.03, true, 0.10},  // a rule beats an explicit flag
		{fromTop, 0.03, true, 0.03},   // an explicit flag beats the top level
		{fromTop, 0.05, false, 0.07},  // the top level beats the default
		{unset, 0.05, false, 0.05},    // nothing set: the default
		{unset, 0.03, true, 0.03},     // nothing set: the flag
		{fromRule, 0.05, false, 0.10}, // a rule beats the default
	}
	for i, c := range cases {
		if got := c.s.Resolve(c.flag, c.explicit); got != c.want {
			t.Errorf("case %d: Resolve = %v, want %v", i, got, c.want)
		}
	}
}

func TestLimitAllows(t *testing.T) {
	one := Limit{Amount: 1}
	five := Limit{Relative: true, Fraction: 0.05}
	cases := []struct {
		l          Limit
		base, head float64
		want       bool
	}{
		{Limit{}, 3, 3, true},
		{Limit{}, 3, 4, false}, // the zero Limit is the exact check
		{Limit{}, 3, 2, true},
		{one, 3, 4, true},
		{one, 3, 5, false},
		{one, 0, 1, true},
		{five, 2000, 2100, true}, // exactly 5%
		{five, 2000, 2101, false},
		{five, 0, 1, false}, // 0 → N is never within a relative limit
		{five, 0, 0, true},
		{Limit{Amount: 64}, 1000, 1064, true},
		{Limit{Amount: 64}, 1000, 1065, false},
	}
	for _, c := range cases {
		if got := c.l.Allows(c.base, c.head); got != c.want {
			t.Errorf("%s.Allows(%v, %v) = %v, want %v", c.l, c.base, c.head, got, c.want)
		}
	}
	if one.String() != "1" || five.String() != "5%" || (Limit{Amount: 1.5}).String() != "1.5" {
		t.Errorf("String: %s %s", one, five)
	}
}

func TestMissingRequired(t *testing.T) {
	p := mustParse(t, "f.yml", `rules:
  - match: 'Cold'
    ignore: true
  - match: 'parse\.Parse$'
    required: true
  - match: 'codec\.'
    required: true
  - match: 'Gone$'
    required: true
`)
	head := []Bench{{"ex.com/parse", "Parse-8"}, {"ex.com/codec", "ColdDecode-8"}, {"ex.com/x", "Other-8"}}
	var got []string
	for _, r := range p.MissingRequired(head) {
		got = append(got, r.Match)
	}
	// codec's only benchmark on head falls under the earlier ignore rule,
	// so the required codec rule is missing; Gone matches nothing.
	if want := []string{`codec\.`, `Gone$`}; !slices.Equal(got, want) {
		t.Errorf("missing = %q, want %q", got, want)
	}
	var nilPolicy *Policy
	if nilPolicy.MissingRequired(head) != nil {
		t.Error("nil policy requires something")
	}
	if !p.For("ex.com/codec", "ColdDecode-8").Ignore || p.For("ex.com/parse", "Parse-8").Ignore {
		t.Error("For(...).Ignore")
	}
}

// units entries match the whole unit, first entry first.
func TestUnits(t *testing.T) {
	p := mustParse(t, ".benchgate.yml", `units:
  - match: 'B/s'
    direction: lower
    reason: a cost, not a rate
  - match: '.*/s'
    threshold: 20%
  - match: 'p99-ns'
    ignore: true
`)
	for unit, want := range map[string]string{
		"B/s":          "0 lower false false",
		"MB/s":         "1  true false",
		"items/s":      "1  true false",
		"p99-ns":       "2  false true",
		"p99-ns/op":    "-1  false false",
		"bytes-out/op": "-1  false false",
	} {
		u := p.Unit(unit)
		if got := fmt.Sprintf("%d %s %v %v", u.Index, u.Direction, u.Threshold.Set, u.Ignore); got != want {
			t.Errorf("Unit(%q) = %s, want %s", unit, got, want)
		}
	}
	if u := p.Unit("items/s"); u.Threshold.Value != 0.2 || u.Line != 5 {
		t.Errorf("items/s entry: %+v", u)
	}
	var nilPolicy *Policy
	if u := nilPolicy.Unit("B/s"); u.Index != -1 {
		t.Errorf("nil policy: %+v", u)
	}
}

// trusted-bots names the bots whose accept label counts: logins only.
func TestTrustedBots(t *testing.T) {
	p, err := Parse(".benchgate.yml", []byte("trusted-bots:\n  - release-bot[bot]\n  - octo-maintainer\n"))
	if err != nil || strings.Join(p.TrustedBots, " ") != "release-bot[bot] octo-maintainer" {
		t.Fatalf("%v, %v", p, err)
	}
	for _, bad := range []string{"trusted-bots: x\n", "trusted-bots:\n  - 'a b'\n", "trusted-bots:\n  - '../x'\n"} {
		if _, err := Parse(".benchgate.yml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "trusted-bots") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
