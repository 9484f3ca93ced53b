// Package policy reads benchgate's per-benchmark policy file, .benchgate.yml
// (read from the base commit, so that a pull request cannot loosen its own
// gate), and the Benchgate-Accept trailers of a commit message. It decides
// nothing about measurements: package gate applies what [Policy.For] returns
// to its rows. Errors are FILE:LINE ([Error], [ErrorList]); [Diff] and
// [DiffFor] say what a head-side copy would change. The schema, the
// precedence of flags, file and rules, and how rules match names are in
// docs/policy.md.
package policy

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// File is the policy file's name, relative to the module's directory.
const File = ".benchgate.yml"

// Version is the only schema version this package reads.
const Version = 1

// FailOnKinds are the words of a fail-on list (besides "none").
var FailOnKinds = []string{"time", "allocs", "bytes", "metrics", "instructions", "failure", "removed", "inconclusive", "scaling"}

// Setting is one value of the file. Set reports whether the file gives it;
// Line is where (the line of the value). FromRule reports that the value
// comes from the matching rule rather than from the file's top level (in
// a [Rule] returned by [Policy.For]).
type Setting[T any] struct {
	Value    T
	Set      bool
	Line     int
	FromRule bool
}

// Resolve applies the precedence rule > flag > file top level > built-in
// default. current is the value the caller would use without the file
// (the flag's value, or its default when the flag was not given) and
// explicit reports whether the flag or input was given explicitly.
func (s Setting[T]) Resolve(current T, explicit bool) T {
	switch {
	case s.Set && s.FromRule:
		return s.Value
	case explicit:
		return current
	case s.Set:
		return s.Value
	}
	return current
}

// Limit is a max-increase: the increase of a metric from base to head that
// is accepted. The zero Limit accepts no increase (benchgate's exact
// check).
type Limit struct {
	// Relative selects Fraction (of base's value) over Amount (in the
	// metric's own unit).
	Relative bool
	Amount   float64
	Fraction float64
}

// limitSlack absorbs floating-point error at the boundary: an increase of
// exactly the limit is accepted.
const limitSlack = 1e-9

// Allows reports whether going from base to head stays within the limit. A
// decrease or no change is always allowed; a relative limit never allows
// an increase from a base of 0 (or below).
func (l Limit) Allows(base, head float64) bool {
	d := head - base
	if !(d > 0) {
		return true
	}
	if l.Relative {
		return base > 0 && d/base <= l.Fraction+limitSlack
	}
	return d <= l.Amount+limitSlack*max(1, l.Amount)
}

// String renders the limit as the file would: "1", "64", "5%".
func (l Limit) String() string {
	if l.Relative {
		return formatPercent(l.Fraction)
	}
	return strconv.FormatFloat(l.Amount, 'f', -1, 64)
}

func formatPercent(f float64) string {
	return strconv.FormatFloat(f*100, 'f', -1, 64) + "%"
}

// Policy is a parsed .benchgate.yml. The zero Policy, and a nil *Policy,
// is the empty policy: no rule, nothing set.
type Policy struct {
	// File is the name given to Parse, used in errors and reports.
	File string
	// Version is the file's version, or 0 when it has none.
	Version int
	// The suite-wide settings: the file's top level.
	Threshold    Setting[float64]
	Alpha        Setting[float64]
	FailOn       Setting[[]string]
	Allocs       Setting[Limit]
	Bytes        Setting[Limit]
	Instructions Setting[float64]
	// Rules in file order.
	Rules []Rule
	// Units are the entries of units, in file order: directions,
	// thresholds and ignores of custom metrics by unit.
	Units []UnitRule
	// TrustedBots are the bots whose accept label counts as a
	// maintainer's (the action's accept-label; docs/policy.md): logins,
	// "NAME[bot]" for an app.
	TrustedBots []string
}

// Rule is one entry of rules, or, from [Policy.For], the settings that
// apply to one benchmark.
type Rule struct {
	// Index is the rule's position in Policy.Rules, from 0; -1 when no rule
	// matched (the settings then are the file's top level only).
	Index int
	// Line is the line of the rule's list item; 0 when Index is -1.
	Line int
	// Match is the rule's pattern as written ("" when Index is -1).
	Match string
	re    *regexp.Regexp

	Threshold    Setting[float64]
	Allocs       Setting[Limit]
	Bytes        Setting[Limit]
	Instructions Setting[float64]
	FailOn       Setting[[]string]

	// Ignore: the benchmark is not run and is listed as ignored.
	Ignore bool
	// Required: a benchmark missing on head fails the gate.
	Required bool
	// Reason is the rule's reason text, for the report.
	Reason string
}

// Matches reports whether the rule's pattern matches the benchmark (see
// "Names" in the package documentation). A rule without pattern (Index
// -1) matches nothing.
func (r Rule) Matches(pkg, name string) bool {
	return r.re != nil && matches(r.re, pkg, name)
}

// For returns the settings for one benchmark: a copy of the first rule whose
// pattern matches it, with every setting the rule leaves unset taken from the
// file's top level (FromRule false). With no matching rule it returns the top
// level alone, Index -1. pkg is the import path ("" if unknown) and name the
// benchmark's name as benchfmt prints it ("Encode/size=1k-8"; a "Benchmark"
// prefix is dropped). For on a nil Policy returns the empty Rule{Index: -1}.
func (p *Policy) For(pkg, name string) Rule {
	if p == nil {
		return Rule{Index: -1}
	}
	r := Rule{Index: -1}
	for i := range p.Rules {
		if p.Rules[i].Matches(pkg, name) {
			r = p.Rules[i]
			break
		}
	}
	fill(&r.Threshold, p.Threshold)
	fill(&r.Allocs, p.Allocs)
	fill(&r.Bytes, p.Bytes)
	fill(&r.Instructions, p.Instructions)
	fill(&r.FailOn, p.FailOn)
	r.FailOn.Value = slices.Clone(r.FailOn.Value)
	return r
}

func fill[T any](dst *Setting[T], suite Setting[T]) {
	if !dst.Set {
		*dst = suite
		dst.FromRule = false
	}
}

// Bench names one benchmark: its package import path and its benchfmt name.
type Bench struct {
	Package, Name string
}

// MissingRequired returns the required rules that no benchmark of head falls
// under (For gives that rule), in file order: a required benchmark deleted
// or renamed, or a pattern that matches nothing. head lists the benchmarks
// head produced results for.
func (p *Policy) MissingRequired(head []Bench) []Rule {
	if p == nil {
		return nil
	}
	seen := make([]bool, len(p.Rules))
	for _, b := range head {
		if i := p.For(b.Package, b.Name).Index; i >= 0 {
			seen[i] = true
		}
	}
	var out []Rule
	for i, r := range p.Rules {
		if r.Required && !seen[i] {
			out = append(out, r)
		}
	}
	return out
}

// Key returns the string a pattern is matched against: "import/path.Name",
// or the name alone when pkg is empty. A "Benchmark" prefix of name is
// dropped.
func Key(pkg, name string) string {
	name = strings.TrimPrefix(name, "Benchmark")
	if pkg == "" {
		return name
	}
	return pkg + "." + name
}

// StripProcs removes a trailing "-GOMAXPROCS" suffix ("-8") from a benchmark
// name; a name without one is returned as is.
func StripProcs(name string) string {
	base, _, _ := SplitProcs(name)
	return base
}

// SplitProcs splits a trailing "-GOMAXPROCS" suffix off a benchmark name:
// "Encode-8" is "Encode", "8", true; a name without one is returned as is,
// with ok false.
func SplitProcs(name string) (base, procs string, ok bool) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return name, "", false
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name, "", false
		}
	}
	return name[:i], name[i+1:], true
}

// matches applies re to the benchmark's key with and without its
// -GOMAXPROCS suffix.
func matches(re *regexp.Regexp, pkg, name string) bool {
	full := Key(pkg, name)
	if re.MatchString(full) {
		return true
	}
	stripped := Key(pkg, StripProcs(strings.TrimPrefix(name, "Benchmark")))
	return stripped != full && re.MatchString(stripped)
}

// The directions a units entry can set.
const (
	Higher = "higher" // higher values are better (rates: B/s, items/s)
	Lower  = "lower"  // lower values are better (time, sizes, counts)
)

// UnitRule is one entry of units: what the file says about the custom
// metrics whose unit its pattern matches (docs/policy.md, "Units").
type UnitRule struct {
	// Index is the entry's position in Policy.Units, from 0; -1 for none.
	Index int
	// Line is the line of the entry's list item.
	Line int
	// Match is the pattern as written: a Go regexp that must match the
	// whole unit as benchfmt tidies it ("B/s" for MB/s, "bytes-out/op").
	Match string
	re    *regexp.Regexp
	// Direction is Higher, Lower, or "" (the unit's own).
	Direction string
	// Threshold is the smallest relative change of a varying metric that
	// counts.
	Threshold Setting[float64]
	// Ignore: the unit's rows are listed as ignored, never judged.
	Ignore bool
	// Reason is the entry's reason text.
	Reason string
}

// Unit returns the first units entry whose pattern matches the whole of
// unit, or UnitRule{Index: -1} (also on a nil Policy).
func (p *Policy) Unit(unit string) UnitRule {
	if p == nil {
		return UnitRule{Index: -1}
	}
	for _, u := range p.Units {
		if u.re != nil && u.re.MatchString(unit) {
			return u
		}
	}
	return UnitRule{Index: -1}
}
