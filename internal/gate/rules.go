package gate

import (
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/stats"
)

// Per-benchmark policy: the rules of a .benchgate.yml (Policy.File, read
// from the base commit) and the regressions accepted on purpose
// (Policy.Accepts). docs/policy.md gives the file's schema and how rules
// match names; the caller resolves the file's top level against the flags
// (a flag given explicitly wins) into Policy's suite-wide fields, and the
// gate applies each row's rule on top of them.

// RuleRef says which rule of the policy file a row fell under.
type RuleRef struct {
	// Source is where the rule is: "FILE:LINE".
	Source string
	// Match is the rule's pattern as written; Reason its reason text.
	Match, Reason string
	// Required: the benchmark must be present and succeed on head.
	Required bool
}

// Acceptance says who accepted a regression on purpose, and how.
type Acceptance struct {
	// Pattern is the accepting regexp as written.
	Pattern string
	// By is who accepted it, as GitHub names them ("@login" of whoever
	// added the accept label, or of the pull request's author for a
	// trailer in the action); "" when nobody verified who (--accept, a
	// trailer in a local run). Never a git author field.
	By string
	// Via is the trailer line and its commit ("Benchgate-Accept: codec
	// (commit abc1234)"), the flag, or the label and the commit it was
	// added for ("label benchgate-accept, added at abc1234").
	Via string
}

// SetFailOn sets the gated findings from the words of --fail-on (time,
// allocs, bytes, metrics (custom units: kind Other), instructions, failure, removed, inconclusive, scaling);
// an empty list gates nothing. Unknown words are ignored: callers check
// them when parsing.
func (p *Policy) SetFailOn(words []string) {
	p.FailOn = map[Kind]bool{}
	p.FailOnFailure, p.FailOnRemoved, p.FailOnInconclusive, p.FailOnScaling = false, false, false, false
	for _, k := range words {
		switch k {
		case string(Time), string(Allocs), string(Bytes), string(Instructions):
			p.FailOn[Kind(k)] = true
		case "metrics":
			p.FailOn[Other] = true
		case "failure":
			p.FailOnFailure = true
		case "removed":
			p.FailOnRemoved = true
		case "inconclusive":
			p.FailOnInconclusive = true
		case "scaling":
			p.FailOnScaling = true
		}
	}
}

// row returns the policy for one benchmark: p with the settings of the
// policy file's rule that matches it, and the rule (Index -1 for none).
// Only what a rule sets itself replaces the suite's settings; the file's
// top-level allowances apply to every row (no flag sets them).
func (p Policy) row(pkg, name string) (Policy, policy.Rule) {
	if p.File == nil {
		return p, policy.Rule{Index: -1}
	}
	r := p.File.For(pkg, name)
	rp := p
	if r.Threshold.FromRule {
		rp.Threshold = r.Threshold.Value
	}
	if r.Instructions.FromRule {
		rp.InstructionThreshold = r.Instructions.Value
	}
	if r.FailOn.FromRule {
		scaling := rp.FailOnScaling
		rp.SetFailOn(r.FailOn.Value)
		rp.FailOnScaling = scaling // suite-wide: scaling compares several rows
	}
	rp.AllocsLimit, rp.BytesLimit = r.Allocs.Value, r.Bytes.Value
	return rp, r
}

// ruleRef is the row's reference to its rule, nil for none.
func (p Policy) ruleRef(r policy.Rule) *RuleRef {
	if r.Index < 0 {
		return nil
	}
	return &RuleRef{Source: sourceOf(p.File.File, r.Line), Match: r.Match, Reason: r.Reason, Required: r.Required}
}

func sourceOf(file string, line int) string {
	if file == "" {
		file = policy.File
	}
	return file + ":" + strconv.Itoa(line)
}

// limit returns the increase accepted for r's kind.
func (p Policy) limit(k Kind) policy.Limit {
	switch k {
	case Allocs:
		return p.AllocsLimit
	case Bytes:
		return p.BytesLimit
	}
	return policy.Limit{}
}

// ignoredRow is the row of a benchmark a rule ignores: listed, not judged.
func ignoredRow(c stats.Comparison, ref *RuleRef) Result {
	return Result{Comparison: c, Kind: KindOf(c.Unit), Status: Ignored, Reason: Reason{Code: ReasonIgnored}, Rule: ref}
}

// sameRow is the row of a benchmark not measured because its package's
// test binaries were the same on both sides: a zero change, not gated. A
// rate's direction is its unit's (higher is better for units per second).
func sameRow(k stats.Key, ref *RuleRef, p Policy) Result {
	r := Result{Comparison: stats.Comparison{Key: k}, Kind: KindOf(k.Unit), Status: SameBinary, Reason: Reason{Code: ReasonSameBinary}, Rule: ref}
	if r.Kind == Other {
		if strings.HasSuffix(k.Unit, "/s") {
			r.Comparison.Better = 1
		}
		r.Better = p.direction(k.Unit, r.Comparison.Better)
	}
	return r
}

// accept finishes a verdict (the last step of Judge and of Confirm,
// before pass): the rates that follow their time rows take those rows'
// final judgements (followTime), then the regressions that
// Policy.Accepts accepts are marked: they stay regressions, accepted and
// not gated.
func accept(v *Verdict) {
	followTime(v)
	if len(v.Policy.Accepts) == 0 {
		return
	}
	for i := range v.Results {
		r := &v.Results[i]
		if r.Status != Regression {
			continue
		}
		if a, ok := policy.Accepted(v.Policy.Accepts, r.Package, r.Name); ok {
			r.Accepted = &Acceptance{Pattern: a.Pattern, By: a.By, Via: a.Trailer}
			r.Gated = false
		}
	}
}

// missingRequired warns, gated, of the required rules that no benchmark
// falls under on head: a required benchmark deleted or renamed (its
// removed row, when base has it, is gated too), or a pattern that matches
// nothing. In a selective run only the first: a rule no row of either side
// matches may name a benchmark the selection left out.
func missingRequired(v *Verdict) []Warning {
	p := v.Policy
	var out []Warning
	if p.HeadPolicyError != "" {
		out = append(out, Warning{Code: WarnHeadPolicyInvalid, Gated: true, Detail: p.HeadPolicyError})
	}
	if p.File == nil {
		return out
	}
	var head, both []policy.Bench
	for _, r := range v.Results {
		b := policy.Bench{Package: r.Package, Name: r.Name}
		if r.Head != nil || r.Status == Ignored {
			head = append(head, b)
		}
		both = append(both, b)
	}
	onNeither := map[int]bool{}
	for _, r := range p.File.MissingRequired(both) {
		onNeither[r.Line] = true
	}
	for _, r := range p.File.MissingRequired(head) {
		if p.Selective && onNeither[r.Line] {
			continue
		}
		out = append(out, Warning{Code: WarnRequiredMissing, Gated: true, Detail: r.Match, Source: sourceOf(p.File.File, r.Line)})
	}
	return out
}
