package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Change is one difference between the base policy (the one in force) and
// head's: what head's file would change if it were in force.
type Change struct {
	// Rule is the match pattern of the rule concerned; "" for a top-level
	// setting (and, in a [BenchChange], the pattern of head's rule for the
	// benchmark).
	Rule string
	// Setting is the key that changes: threshold, alpha, fail-on,
	// allocs.max-increase, bytes.max-increase, instructions.threshold,
	// ignore, required or reason; "units 'PATTERN'" for a units entry
	// added or removed, "units 'PATTERN'.KEY" for one of its settings;
	// "rule" for a rule added or removed (Old or
	// New then lists its settings); "order" when rules present in both files
	// apply in another order (Old and New list their patterns).
	Setting string
	// Old and New are the values as the file would write them; "" means
	// not set (the flag or the built-in default applies) or absent.
	Old, New string
	// Line is the line in head's file (0 for something head removed).
	Line int
}

func orDefault(s string) string {
	if s == "" {
		return "default"
	}
	return s
}

// String renders the change for a report, e.g.
//
//	threshold: 5% → 1%
//	rule 'ColdStart' added: ignore: true
//	rule 'pkg/parse\.Parse$': required: true → false
func (c Change) String() string {
	switch {
	case c.Setting == "rule" && c.Old == "":
		return fmt.Sprintf("rule '%s' added: %s", c.Rule, orNothing(c.New))
	case c.Setting == "rule":
		return fmt.Sprintf("rule '%s' removed (it set %s)", c.Rule, orNothing(c.Old))
	case c.Setting == "order":
		return fmt.Sprintf("rules apply in another order: %s → %s", c.Old, c.New)
	case c.Rule == "":
		return fmt.Sprintf("%s: %s → %s", c.Setting, orDefault(c.Old), orDefault(c.New))
	}
	return fmt.Sprintf("rule '%s': %s: %s → %s", c.Rule, c.Setting, orDefault(c.Old), orDefault(c.New))
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

func fmtPercent(s Setting[float64]) string {
	if !s.Set {
		return ""
	}
	return formatPercent(s.Value)
}

func fmtLimit(s Setting[Limit]) string {
	if !s.Set {
		return ""
	}
	return s.Value.String()
}

func fmtList(s Setting[[]string]) string {
	if !s.Set {
		return ""
	}
	if len(s.Value) == 0 {
		return "none"
	}
	return strings.Join(s.Value, ",")
}

type field struct {
	name, value string
	line        int
}

// topFields lists the top-level settings in a fixed order.
func topFields(p *Policy) []field {
	alpha := ""
	if p.Alpha.Set {
		alpha = strconv.FormatFloat(p.Alpha.Value, 'g', -1, 64)
	}
	return []field{
		{"threshold", fmtPercent(p.Threshold), p.Threshold.Line},
		{"alpha", alpha, p.Alpha.Line},
		{"fail-on", fmtList(p.FailOn), p.FailOn.Line},
		{"allocs.max-increase", fmtLimit(p.Allocs), p.Allocs.Line},
		{"bytes.max-increase", fmtLimit(p.Bytes), p.Bytes.Line},
		{"instructions.threshold", fmtPercent(p.Instructions), p.Instructions.Line},
		{"trusted-bots", strings.Join(p.TrustedBots, ", "), 0},
	}
}

// ruleFields lists a rule's settings in a fixed order. For a Rule from
// For, that includes the values inherited from the top level.
func ruleFields(r Rule) []field {
	b := func(v bool) string {
		if v {
			return "true"
		}
		return "false"
	}
	return []field{
		{"threshold", fmtPercent(r.Threshold), r.Threshold.Line},
		{"allocs.max-increase", fmtLimit(r.Allocs), r.Allocs.Line},
		{"bytes.max-increase", fmtLimit(r.Bytes), r.Bytes.Line},
		{"instructions.threshold", fmtPercent(r.Instructions), r.Instructions.Line},
		{"fail-on", fmtList(r.FailOn), r.FailOn.Line},
		{"ignore", b(r.Ignore), r.Line},
		{"required", b(r.Required), r.Line},
		{"reason", r.Reason, r.Line},
	}
}

// summary lists a rule's settings as "key: value, ..." (false and empty
// left out).
func summary(r Rule) string {
	var parts []string
	for _, f := range ruleFields(r) {
		if f.value != "" && f.value != "false" {
			parts = append(parts, f.name+": "+f.value)
		}
	}
	return strings.Join(parts, ", ")
}

// Diff lists what head's policy changes relative to base's, top-level
// settings first, then rules in head's order (changed and added), then
// rules head removed, then a change of order. Rules are identified by their
// match pattern: a rule whose pattern changed is one removed and one added.
// A nil policy is the empty one (no file). Diff(base, base) is empty.
func Diff(base, head *Policy) []Change {
	if base == nil {
		base = &Policy{}
	}
	if head == nil {
		head = &Policy{}
	}
	var out []Change
	bt, ht := topFields(base), topFields(head)
	for i := range bt {
		if bt[i].value != ht[i].value {
			out = append(out, Change{Setting: bt[i].name, Old: bt[i].value, New: ht[i].value, Line: ht[i].line})
		}
	}
	baseRule := map[string]Rule{}
	for _, r := range base.Rules {
		baseRule[r.Match] = r
	}
	headHas := map[string]bool{}
	var commonBase, commonHead []string
	for _, hr := range head.Rules {
		headHas[hr.Match] = true
		br, ok := baseRule[hr.Match]
		if !ok {
			out = append(out, Change{Rule: hr.Match, Setting: "rule", New: summary(hr), Line: hr.Line})
			continue
		}
		commonHead = append(commonHead, hr.Match)
		bf, hf := ruleFields(br), ruleFields(hr)
		for i := range bf {
			if bf[i].value != hf[i].value {
				out = append(out, Change{Rule: hr.Match, Setting: bf[i].name, Old: bf[i].value, New: hf[i].value, Line: hf[i].line})
			}
		}
	}
	for _, br := range base.Rules {
		if !headHas[br.Match] {
			out = append(out, Change{Rule: br.Match, Setting: "rule", Old: summary(br)})
		} else {
			commonBase = append(commonBase, br.Match)
		}
	}
	out = append(out, diffUnits(base.Units, head.Units)...)
	if !slices.Equal(commonBase, commonHead) {
		q := func(list []string) string {
			s := make([]string, len(list))
			for i, m := range list {
				s[i] = "'" + m + "'"
			}
			return strings.Join(s, ", ")
		}
		out = append(out, Change{Setting: "order", Old: q(commonBase), New: q(commonHead)})
	}
	return out
}

// BenchChange is what head's policy would change for one benchmark.
type BenchChange struct {
	Bench Bench
	// BaseRule and HeadRule are the patterns of the rules that govern the
	// benchmark under each file ("" for none).
	BaseRule, HeadRule string
	// Changes lists the settings whose effective value differs (Rule is
	// HeadRule; Line is where head sets the new value, 0 if it does not).
	Changes []Change
}

// DiffFor applies both policies to each benchmark and returns those whose
// effective settings (threshold, allocs, bytes, instructions, fail-on,
// ignore, required; not reason) differ, in the order given: e.g. the
// benchmarks a head-side "ignore everything" rule would have ignored.
func DiffFor(base, head *Policy, benches []Bench) []BenchChange {
	var out []BenchChange
	for _, b := range benches {
		br, hr := base.For(b.Package, b.Name), head.For(b.Package, b.Name)
		bf, hf := ruleFields(br), ruleFields(hr)
		var ch []Change
		for i := range bf {
			if bf[i].name == "reason" || bf[i].value == hf[i].value {
				continue
			}
			ch = append(ch, Change{Rule: hr.Match, Setting: bf[i].name, Old: bf[i].value, New: hf[i].value, Line: hf[i].line})
		}
		if len(ch) > 0 {
			out = append(out, BenchChange{Bench: b, BaseRule: br.Match, HeadRule: hr.Match, Changes: ch})
		}
	}
	return out
}

// unitFields lists a units entry's settings in a fixed order.
func unitFields(u UnitRule) []field {
	ignore := ""
	if u.Ignore {
		ignore = "true"
	}
	return []field{
		{"direction", u.Direction, u.Line},
		{"threshold", fmtPercent(u.Threshold), u.Threshold.Line},
		{"ignore", ignore, u.Line},
	}
}

// diffUnits lists the units entries head adds, changes and removes, by
// pattern, as settings named "units 'PATTERN'" ("units 'B/s': default →
// direction: higher") and "units 'PATTERN'.KEY".
func diffUnits(base, head []UnitRule) []Change {
	sum := func(u UnitRule) string {
		var parts []string
		for _, f := range unitFields(u) {
			if f.value != "" {
				parts = append(parts, f.name+": "+f.value)
			}
		}
		if len(parts) == 0 {
			return "nothing"
		}
		return strings.Join(parts, ", ")
	}
	byMatch := map[string]UnitRule{}
	for _, u := range base {
		byMatch[u.Match] = u
	}
	var out []Change
	headHas := map[string]bool{}
	for _, hu := range head {
		headHas[hu.Match] = true
		name := "units '" + hu.Match + "'"
		bu, ok := byMatch[hu.Match]
		if !ok {
			out = append(out, Change{Setting: name, New: sum(hu), Line: hu.Line})
			continue
		}
		bf, hf := unitFields(bu), unitFields(hu)
		for i := range bf {
			if bf[i].value != hf[i].value {
				out = append(out, Change{Setting: name + "." + bf[i].name, Old: bf[i].value, New: hf[i].value, Line: hf[i].line})
			}
		}
	}
	for _, bu := range base {
		if !headHas[bu.Match] {
			out = append(out, Change{Setting: "units '" + bu.Match + "'", Old: sum(bu)})
		}
	}
	return out
}
