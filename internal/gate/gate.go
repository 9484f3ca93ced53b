// Package gate judges benchmark comparisons against a policy and returns a
// verdict: a status and a reason for every (package, benchmark, unit) row,
// suite-level warnings, and whether the gate passes. Reasons and warnings
// are facts (a code and its figures, [Reason], [Warning]); package report
// puts them in words.
//
// time/op rows are judged by a test and a minimum change, with a suite-wide
// correction, sequential looks ([PlanAdaptive]) and a pooled confirmation
// ([Promising], [Confirm]); allocs/op and B/op nearly exactly (constant, or
// separated per-round ranges; within one unit, background); custom metrics
// (B/s, b.ReportMetric units) in their direction, exactly when constant,
// a rate on its per-op amount when that is constant (exactly, or
// following its time row: rates.go), else like time in a family of their
// own (metrics.go); instructions/op by its own threshold with separated
// repeats. The rules, and the simulations that hold them to α, are in
// docs/deciding.md.
package gate

import (
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/stats"
)

// Status is the judgement of one row.
type Status string

// The statuses of a row.
const (
	Regression  Status = "regression"
	Improvement Status = "improvement"
	Unchanged   Status = "unchanged"
	Unstable    Status = "unstable"
	New         Status = "new"
	Removed     Status = "removed"
	Failed      Status = "failed"
	// Inconclusive: a time row that no test could judge at Alpha with this
	// many rounds and benchmarks (see "Feasibility").
	Inconclusive Status = "inconclusive"
	// Ignored: a benchmark a policy rule ignores (ignore: true): not run,
	// or not judged when the input has it; never gated.
	Ignored Status = "ignored"
	// SameBinary: a benchmark of a package whose test binaries ran
	// the same code on both sides, so it was not measured: nothing it
	// runs changed (Policy.SameBinary). Never gated; a zero change.
	SameBinary Status = "same-binary"
)

// Kind classifies a unit by how it is judged.
type Kind string

// The kinds of units.
const (
	Time   Kind = "time"   // sec/op
	Allocs Kind = "allocs" // allocs/op
	Bytes  Kind = "bytes"  // B/op
	// Other is every other unit, a custom metric (B/s from b.SetBytes,
	// b.ReportMetric's units): judged with its direction (see "Custom
	// metrics" in docs/deciding.md); --fail-on's word is "metrics".
	Other Kind = "other"
)

// KindOf returns the kind of a tidied benchfmt unit.
func KindOf(unit string) Kind {
	switch unit {
	case "sec/op":
		return Time
	case "allocs/op":
		return Allocs
	case "B/op":
		return Bytes
	case InstructionsUnit:
		return Instructions
	}
	return Other
}

// Test names the test that judged a row.
type Test string

// The tests.
const (
	// TestPaired: the Wilcoxon signed-rank test on per-round log-ratios,
	// with the Hodges–Lehmann ratio as delta.
	TestPaired Test = "paired"
	// TestUTest: benchstat's Mann–Whitney U test, with the delta of the
	// medians.
	TestUTest Test = "utest"
	// TestAuto chooses between the two (Policy.Test only; a row names
	// the test that judged it).
	TestAuto Test = "auto"
)

// Tests lists the valid values of Policy.Test.
var Tests = []Test{TestAuto, TestPaired, TestUTest}

// Policy says what the gate checks.
type Policy struct {
	// Threshold is the smallest relative time change that counts
	// (0.05 = 5%).
	Threshold float64
	// Alpha is the significance level: adjusted p < Alpha is significant.
	Alpha float64
	// FailOn lists the kinds whose regressions fail the gate (Other:
	// custom metrics, --fail-on metrics).
	FailOn map[Kind]bool
	// FailOnFailure makes a head-side benchmark failure fail the gate.
	FailOnFailure bool
	// FailOnRemoved makes a benchmark missing on head fail the gate.
	FailOnRemoved bool
	// Correction is the multiple-testing correction over the time rows:
	// Holm ("holm", also ""), BH ("bh") or NoCorrection ("none").
	Correction Correction
	// FailOnInconclusive makes an inconclusive time row (of a gated kind)
	// fail the gate.
	FailOnInconclusive bool
	// Test chooses the time/op test: TestAuto (or ""): the paired test
	// when the rounds can reach Alpha, else the U test; TestPaired: the
	// paired test whenever it can reach Alpha; TestUTest: benchstat's U
	// test always.
	Test Test
	// Looks lists the numbers of rounds after which a sequential run may
	// stop early ([Look]); nil for a run of fixed length. Judge accounts
	// for the looks in the p-values.
	Looks []int
	// InstructionThreshold is the smallest relative instructions/op
	// change that counts (0.01 = 1%).
	InstructionThreshold float64
	// FailOnScaling makes a benchmark whose parallel scaling got worse
	// (Scaling.Worse, see "CPU scaling") fail the gate. Off by default:
	// worse scaling is a warning.
	FailOnScaling bool
	// ConfirmRounds is the number of fresh rounds a promising time row
	// will get in a confirmation stage ([Promising], [Confirm],
	// [ConfirmRounds]); 0 when none follows. Judge then measures what the
	// rows can show at the pooled size: a row is inconclusive only when
	// the pooled test could not reach Alpha either, and the MDE is the
	// pooled test's. The screen's own p-values and statuses are computed
	// as without it.
	ConfirmRounds int
	// Screened, when positive, says that a confirmation stage follows a
	// screen of this many rounds: Judge sets ConfirmRounds to
	// [ConfirmRounds] of it for the family it finds, so that a screen is
	// judged once, knowing its promising rows get fresh rounds.
	Screened int
	// Family, when larger than the number of time rows judged, is the
	// size of the family those rows belong to: a shard's rows are part
	// of the suite's (every shard calibrates every benchmark), and the
	// correction covers the whole suite, the rows not judged here
	// entering with p = 1 (a valid p-value), so that a shard plans and
	// decides its rows as the merged suite does. 0: the rows judged.
	Family int

	// File is the per-benchmark policy (.benchgate.yml from the base
	// commit; nil for none): each row gets its rule's settings on top of
	// the ones above, which the caller resolved from the file's top level
	// and the flags (see rules.go). AllocsLimit and BytesLimit are the
	// allocs/op and B/op increases accepted (the zero Limit: none); a
	// row's rule replaces them.
	File                    *policy.Policy
	AllocsLimit, BytesLimit policy.Limit
	// Accepts are the regressions accepted on purpose (Benchgate-Accept
	// trailers, a label): matching regressions stay regressions, with
	// Result.Accepted set, not gated.
	Accepts []policy.Accept
	// Ignored lists the benchmarks that were not run because a rule
	// ignores them: each gets a row with status Ignored.
	Ignored []Bench
	// SameBinary lists the rows (package, name, unit) of the benchmarks
	// that were not measured because their package's test binaries ran
	// the same code on both sides: each gets a row with status
	// SameBinary.
	SameBinary []stats.Key
	// Selective says the run selected part of the suite (--bench, a
	// subset of packages, one shard of several): a required rule that no
	// benchmark of either side matches is not reported, since the run may
	// have excluded it on both sides. A required benchmark that base ran
	// and head lost or broke still fails (its removed or failed row).
	Selective bool
	// HeadPolicyError is set when head's copy of the policy file does not
	// parse (its FILE:LINE errors): after the merge every run would stop
	// on it, so it fails the gate (WarnHeadPolicyInvalid).
	HeadPolicyError string
}

// DefaultPolicy returns the default policy: a 5% threshold at α = 0.01
// with Holm's correction; time, allocs/op, B/op and custom-metric
// regressions and head-side failures fail the gate; new, removed and
// inconclusive benchmarks do not.
func DefaultPolicy() Policy {
	return Policy{
		Threshold:            0.05,
		Alpha:                0.01,
		FailOn:               map[Kind]bool{Time: true, Allocs: true, Bytes: true, Other: true},
		FailOnFailure:        true,
		Correction:           Holm,
		InstructionThreshold: 0.01,
	}
}

// The sides of a Failure.
const (
	SideBase = "base"
	SideHead = "head"
)

// Failure is a benchmark that did not produce results on one side. A
// run keeps its failures beside its raw files (failures.json, for compare
// DIR and merge): the json names are that file's format, Go's field names
// as it has always been written.
type Failure struct {
	// Package is the import path; Name the benchmark name (with or
	// without the "Benchmark" prefix; "" for the whole package).
	Package string `json:"Package"`
	Name    string `json:"Name"`
	// Side is SideBase or SideHead.
	Side string `json:"Side"`
	// Message is the first lines of the benchmark's output.
	Message string `json:"Message"`
	// Unit is "" for a failure of every row of the benchmark, or
	// InstructionsUnit for the instruction lane's (its rows are
	// unavailable; see instructions.go).
	Unit string `json:"Unit"`
}

// Result is the judgement of one comparison.
type Result struct {
	stats.Comparison
	Kind   Kind
	Status Status
	// Gated reports whether the row counts toward the verdict: a judged
	// row of a kind in Policy.FailOn (never unstable, new, ignored or
	// inconclusive (unless Policy.FailOnInconclusive) rows), a removed row
	// with Policy.FailOnRemoved, a row failed on head with
	// Policy.FailOnFailure. Only gated regressions, removals, failures and
	// inconclusive rows fail the gate (Fails).
	Gated bool
	// Reason says why the row has its status, with the figures.
	Reason Reason
	// Test is the test that judged a time row ("" for other kinds and for
	// inconclusive rows).
	Test Test
	// Delta and P are the figures the row was judged on: for TestPaired
	// the Hodges–Lehmann ratio − 1 and the signed-rank p-value; otherwise
	// benchstat's (Comparison.Delta, Comparison.P, which they shadow: use
	// r.Comparison.Delta for benchstat's). P is nil for exact checks. For
	// an inconclusive row they are the paired figures when there are
	// pairs, for information.
	Delta, P *float64
	// PAdjusted is P after the looks and the correction over the family of
	// time rows (see "Many benchmarks"); nil outside the family.
	PAdjusted *float64
	// Noise is the robust standard deviation of the per-round log-ratios
	// of a time row with pairs (0.02 ≈ 2 % per round); nil without pairs.
	Noise *float64
	// MDE is the smallest relative change the row's test finds with 80 %
	// power at the level one changed benchmark must reach in this verdict
	// (at the pooled size when a confirmation stage follows,
	// Policy.ConfirmRounds); +Inf when that level cannot be reached; nil
	// without a test. TooNoisy reports MDE > Threshold.
	MDE      *float64
	TooNoisy bool
	// NotRerun is set on a promising time row that the confirmation did
	// not re-run because it is too noisy to confirm: the fresh rounds
	// its MDE counts (the most it could have had), beyond the screen's;
	// 0 otherwise.
	NotRerun int
	// Interval is the change's confidence interval at the level one
	// changed benchmark must reach in this verdict (1 − α/m under Holm or
	// BH, less with looks): a simultaneous (Bonferroni) interval for the
	// family, so that an interval entirely beyond ±Threshold always comes
	// with a significant status. From the paired rounds of a row judged
	// by the paired test; nil otherwise, and when the rounds are too few
	// for an interval at that level.
	Interval *Interval
	// Screen is the screening run's row of a time row decided by the
	// pooled confirmation ([Confirm]); nil otherwise.
	Screen *Result
	// Suspect lists reasons to distrust what the row's benchmark reports.
	Suspect []Suspicion
	// Confirmed is set by [Confirm]: true on a regression or an
	// improvement decided by the pooled confirmation, false on a row the
	// screen alone would have called one that the pooled decision did not
	// (the row is then unchanged); nil otherwise. Confirmation is the
	// confirmation run's own row (its fresh rounds alone). Unconfirmed
	// marks a time regression of the screen that could not be re-measured
	// (missing, failed: Confirmation says which, nil when it was not
	// re-measured): it is kept.
	Confirmed    *bool
	Confirmation *Result
	Unconfirmed  bool
	// Rule is the policy file's rule the row fell under; nil for none.
	Rule *RuleRef
	// Accepted is set on a regression accepted on purpose
	// (Policy.Accepts); such a row is not gated.
	Accepted *Acceptance
}

// Direction is the row's direction: "higher" when higher values are
// better (a custom metric that is a rate, or that the policy file says
// so of), else "lower".
func (r Result) Direction() string {
	if r.Kind == Other && r.Better > 0 {
		return policy.Higher
	}
	return policy.Lower
}

// Fails reports whether the row fails the gate.
func (r Result) Fails() bool {
	return r.Gated && (r.Status == Regression || r.Status == Failed || r.Status == Removed || r.Status == Inconclusive)
}

// Verdict is the outcome of Judge.
type Verdict struct {
	Pass     bool
	Results  []Result
	Failures []Failure
	Warnings []Warning
	Policy   Policy
	// Correction is the correction applied ("holm", "bh" or "none").
	Correction Correction
	// Family is m, the number of time rows the correction covers.
	Family int
	// MinCount is the smallest number of rounds with which the time rows of this
	// suite can be judged by the paired test (by the U test for input
	// without rounds); 0 without time rows.
	MinCount int
	// Confirmed reports that the verdict went through [Confirm].
	Confirmed bool
	// Scaling lists, for runs with several GOMAXPROCS values (--cpu
	// 1,2,4,8), each benchmark's speed-ups on both sides and whether its
	// parallel scaling got worse (see "CPU scaling"); nil otherwise.
	Scaling []Scaling
}

// Count returns the number of results with status s.
func (v Verdict) Count(s Status) int {
	n := 0
	for _, r := range v.Results {
		if r.Status == s {
			n++
		}
	}
	return n
}

// Regressions returns the results with status Regression, gated or not,
// in order.
func (v Verdict) Regressions() []Result {
	var out []Result
	for _, r := range v.Results {
		if r.Status == Regression {
			out = append(out, r)
		}
	}
	return out
}

// Blind returns the time/op rows that could not have seen a change of
// their threshold, so that no regression found in them is no evidence of
// none: rows unchanged (or not confirmed) whose MDE is beyond the
// threshold (TooNoisy), and rows no test could judge (Inconclusive).
func (v Verdict) Blind() []Result {
	var out []Result
	for _, r := range v.Results {
		if r.Kind == Time && (r.Status == Inconclusive || r.Status == Unchanged && r.TooNoisy) {
			out = append(out, r)
		}
	}
	return out
}

// HeadFailures returns the failures on the head side (not the instruction
// lane's: their rows are unavailable).
func (v Verdict) HeadFailures() []Failure {
	var out []Failure
	for _, f := range v.Failures {
		if f.Side == SideHead && !f.isLane() {
			out = append(out, f)
		}
	}
	return out
}

func pass(v Verdict) bool {
	for _, r := range v.Results {
		if r.Fails() {
			return false
		}
	}
	for _, w := range v.Warnings {
		if (w.Code == WarnRequiredMissing || w.Code == WarnHeadPolicyInvalid || w.Code == WarnShardsIncomplete) && w.Gated {
			return false
		}
	}
	if v.Policy.FailOnScaling && len(v.ScalingWorse()) > 0 {
		return false
	}
	return !(v.Policy.FailOnFailure && len(v.HeadFailures()) > 0)
}

// Incomplete is v failed because the shards a merge judged together do
// not cover the suite (WarnShardsIncomplete): missing benchmarks no shard
// measured, or other problems of the shards. A missing or failed shard
// never passes silently.
func Incomplete(v Verdict, missing int) Verdict {
	v.Warnings = append(slices.Clone(v.Warnings), Warning{Code: WarnShardsIncomplete, Count: missing, Gated: true})
	v.Pass = pass(v)
	return v
}

// Judge applies p to every comparison and failure. Results keep the order
// of cmps.
func Judge(cmps []stats.Comparison, failures []Failure, p Policy) Verdict {
	rest, lane := splitLane(failures)
	v := Verdict{
		Results:    make([]Result, 0, len(cmps)),
		Failures:   failures,
		Policy:     p,
		Correction: correctionOf(p.Correction),
	}
	w := newWarnings()
	w.rates = rateAmounts(cmps)
	allocs := map[benchKey]stats.Comparison{}
	for _, c := range cmps {
		if c.Unit == "allocs/op" {
			allocs[benchKey{c.Package, c.Name}] = c
		}
		if c.Unit == "B/op" && c.Base != nil && c.Head != nil {
			bv, hv := allocValues(c.BaseRounds, c.Base), allocValues(c.HeadRounds, c.Head)
			w.bytesMoved[benchKey{c.Package, c.Name}] = !background(rangeOfValues(bv), rangeOfValues(hv), medianOf(bv), medianOf(hv))
		}
	}
	for _, c := range cmps {
		if k := KindOf(c.Unit); (k == Allocs || k == Bytes) && c.Base != nil && c.Head != nil && !(c.Base.Constant && c.Head.Constant) {
			if _, failed := matchFailure(rest, c.Key); !failed {
				w.varyingAllocs++
			}
		}
	}
	var family, metrics []int
	same := map[stats.Key]bool{}
	for _, k := range p.SameBinary {
		same[k] = true
	}
	for _, c := range cmps {
		rp, rule := p.row(c.Package, c.Name)
		ref := p.ruleRef(rule)
		if same[c.Key] {
			continue // judged again (a confirmation's screen): added below
		}
		if rule.Ignore {
			v.Results = append(v.Results, ignoredRow(c, ref))
			continue
		}
		if f, ok := laneFailure(lane, c.Key); ok {
			r := unavailableRow(c, f)
			r.Rule = ref
			v.Results = append(v.Results, r)
			continue
		}
		f, failed := matchFailure(rest, c.Key)
		if failed {
			r := Result{Comparison: c, Kind: KindOf(c.Unit), Status: Failed, Delta: c.Delta, Reason: Reason{Code: ReasonFailedBase}, Rule: ref}
			if f.Side == SideHead {
				r.Gated = rp.FailOnFailure || rule.Required
				r.Reason.Code = ReasonFailedHead
			}
			v.Results = append(v.Results, r)
			continue
		}
		r := judge(c, rp, w)
		r.Rule = ref
		if r.Kind == Other && r.Status == "" && r.Reason.Code != ReasonFollowsTime {
			metrics = append(metrics, len(v.Results))
		}
		if r.Status == Removed && rule.Required {
			r.Gated = true
		}
		if r.Kind == Time {
			r.Suspect = suspectTime(c, allocs)
			if c.Base != nil && c.Head != nil {
				family = append(family, len(v.Results))
			}
		}
		for _, s := range r.Suspect {
			w.suspect[s.Code] = append(w.suspect[s.Code], Bench{r.Package, r.Name})
		}
		v.Results = append(v.Results, r)
	}
	for _, b := range p.Ignored {
		c := stats.Comparison{Key: stats.Key{Package: b.Package, Name: b.Name, Unit: "sec/op"}}
		if slices.ContainsFunc(cmps, func(x stats.Comparison) bool { return x.Key == c.Key }) {
			continue // judged again (a confirmation's screen)
		}
		_, rule := p.row(b.Package, b.Name)
		v.Results = append(v.Results, ignoredRow(c, p.ruleRef(rule)))
	}
	for _, k := range p.SameBinary {
		_, rule := p.row(k.Package, k.Name)
		v.Results = append(v.Results, sameRow(k, p.ruleRef(rule), p))
	}
	m := max(len(family), p.Family)
	if p.Screened > 0 {
		p.ConfirmRounds = ConfirmRounds(p.Screened, m, p)
		v.Policy = p
	}
	judgeTime(&v, family, m, p, w)
	judgeMetrics(&v, metrics, p)
	v.Family = m
	v.Scaling = judgeScaling(v.Results, p)
	v.Warnings = append(w.list(p), scalingWarnings(v.Scaling, p)...)
	finishInstructions(&v, lane, w)
	v.Warnings = append(v.Warnings, missingRequired(&v)...)
	accept(&v) // after followTime: rates that follow time take its rows' statuses
	v.Pass = pass(v)
	return v
}

func judge(c stats.Comparison, p Policy, w *warnings) Result {
	r := Result{Comparison: c, Kind: KindOf(c.Unit), Delta: c.Delta}
	gatedKind := p.FailOn[r.Kind]
	if r.Kind == Other {
		r.Better = p.direction(c.Unit, c.Better)
	}
	switch {
	case c.Base == nil && c.Head == nil:
		r.Status, r.Reason = Unchanged, Reason{Code: ReasonNoSamples}
	case c.Base == nil:
		r.Status, r.Reason = New, Reason{Code: ReasonOnlyHead}
	case c.Head == nil:
		r.Status, r.Reason = Removed, Reason{Code: ReasonOnlyBase}
		r.Gated = p.FailOnRemoved
	case r.Kind == Allocs || r.Kind == Bytes:
		judgeExact(&r, p, w)
		r.Gated = gatedKind && r.Status != Unstable
		if r.Status == Unstable {
			r.Suspect = suspectAllocs(r)
		}
	case r.Kind == Instructions:
		judgeInstructions(&r, p, gatedKind, w)
	case r.Kind == Time:
		// Judged with the rest of the family in judgeTime.
		r.Gated = gatedKind
	default:
		var amounts *[2]Range
		if a, ok := w.rates[c.Key]; ok {
			amounts = &a
		}
		judgeMetric(&r, p, amounts)
		r.Gated = gatedKind && r.Status != Ignored
	}
	return r
}

// judgeExact applies the allocation rule (see "Rules"): constant sides
// are compared exactly; varying sides whose ranges are separated are a
// regression or an improvement when so clean a separation could not
// happen by chance (below); overlapping ranges within one unit of each
// other are background (unchanged, [background]); other overlapping
// ranges are unstable.
//
// The values compared are the rounds' values (each round's runs reduced
// by their median: short runs at a small b.N jitter more, and one odd run
// should not make a round) or, without rounds, every sample. Under
// jitter that is the same on both sides, all head values land above all
// base values with probability 1/C(nb+nh, nb) (the U test's floor: 1e-5
// at 10 rounds a side, 0.05 at 3), so a separated row also needs
// 2/C(nb+nh, nb) times the number of varying allocation rows below Alpha
// (a Bonferroni bound over them).
func judgeExact(r *Result, p Policy, w *warnings) {
	b, h := r.Base, r.Head
	if !sameIters(b.Values, h.Values) {
		w.iters[r.Unit] = append(w.iters[r.Unit], Bench{r.Package, r.Name})
	}
	if b.Constant && h.Constant {
		br, hr := rangeOf(b), rangeOf(h)
		r.Reason = Reason{Base: &br, Head: &hr, BaseN: b.N, HeadN: h.N}
		switch {
		case h.Min > b.Min && p.limit(r.Kind).Allows(b.Min, h.Min):
			allowed(r, p)
		case h.Min > b.Min:
			r.Status, r.Reason.Code = Regression, ReasonExactChange
		case h.Min < b.Min:
			r.Status, r.Reason.Code = Improvement, ReasonExactChange
		default:
			r.Status, r.Reason.Code = Unchanged, ReasonExactSame
			r.Reason.Head = nil
		}
		return
	}
	bv, hv := allocValues(r.BaseRounds, b), allocValues(r.HeadRounds, h)
	br, hr := rangeOfValues(bv), rangeOfValues(hv)
	r.Reason = Reason{Base: &br, Head: &hr, BaseN: len(bv), HeadN: len(hv)}
	chance := MinP(len(bv), len(hv)) * float64(max(1, w.varyingAllocs))
	switch {
	case br.Max < hr.Min && chance < p.Alpha && p.limit(r.Kind).Allows(medianOf(bv), medianOf(hv)):
		allowed(r, p)
	case br.Max < hr.Min && chance < p.Alpha:
		r.Status, r.Reason.Code = Regression, ReasonSeparated
	case hr.Max < br.Min && chance < p.Alpha:
		r.Status, r.Reason.Code = Improvement, ReasonSeparated
	case background(br, hr, medianOf(bv), medianOf(hv)) && !(r.Kind == Allocs && w.bytesMoved[benchKey{r.Package, r.Name}]):
		r.Status, r.Reason.Code = Unchanged, ReasonBackground
	default:
		r.Status, r.Reason.Code = Unstable, ReasonVaries
		w.unstable[r.Unit] = append(w.unstable[r.Unit], Bench{r.Package, r.Name})
	}
}

// background reports whether an allocation row's overlapping values,
// both sides together, lie within one allocation or one byte per op of
// each other (max − min ≤ 1) with medians less than one apart: a runtime
// allocation that a short run caught (16 bytes over b.N = 10 is 1 B/op,
// over b.N = 1000 it is 0), not a change of the code, which would be
// constant or separated, or move the typical round by a whole unit. An
// allocs/op row whose benchmark's B/op moves by more (0–1 allocs/op with
// 0–64 B/op: a whole allocation some runs make) is not background.
func background(b, h Range, bm, hm float64) bool {
	return max(b.Max, h.Max)-min(b.Min, h.Min) <= 1 && math.Abs(hm-bm) < 1
}

// allowed makes an allocation row whose increase the policy accepts
// (Policy.AllocsLimit, BytesLimit) unchanged, saying so.
func allowed(r *Result, p Policy) {
	l := p.limit(r.Kind)
	r.Status, r.Reason.Code, r.Reason.Allowance = Unchanged, ReasonWithinAllowance, l.String()
}

// allocValues are the values an allocation row compares: the rounds'
// medians when there are rounds, else the samples.
func allocValues(rounds []stats.RoundStat, s *stats.Summary) []float64 {
	var out []float64
	if len(rounds) > 0 {
		for _, r := range rounds {
			out = append(out, r.Median)
		}
		return out
	}
	for _, o := range s.Values {
		out = append(out, o.Value)
	}
	if len(out) == 0 {
		out = []float64{s.Min, s.Max}
	}
	return out
}

// rangeOfValues is the range of v (not empty).
func rangeOfValues(v []float64) Range { return Range{Min: slices.Min(v), Max: slices.Max(v)} }

// rangeOf is the range of a side's values.
func rangeOf(s *stats.Summary) Range { return Range{Min: s.Min, Max: s.Max} }

// sameIters reports whether both sides ran with the same set of iteration
// counts.
func sameIters(a, b []stats.Obs) bool {
	set := func(obs []stats.Obs) []int {
		var s []int
		for _, o := range obs {
			s = append(s, o.Iters)
		}
		slices.Sort(s)
		return slices.Compact(s)
	}
	return slices.Equal(set(a), set(b))
}

// floorAdj returns the smallest adjusted p-value that test can give for
// comparison c in a family of m under the correction and the looks of p,
// at the size the row will be decided at (the pooled size when a
// confirmation stage follows, Policy.ConfirmRounds): the test's floor,
// made valid across the looks, times the correction's factor. The paired
// floor counts only the non-zero log-ratios (a zero is never evidence).
func floorAdj(test Test, c stats.Comparison, m int, p Policy) float64 {
	var f float64
	looks := shiftLooks(p.Looks, p.ConfirmRounds)
	if test == TestPaired {
		f = sequentialP(stats.SignedRankMinP(c.Paired.NonZero+p.ConfirmRounds), looks, pairedFloor)
	} else {
		nb, nh := uSizes(c)
		f = sequentialP(MinP(nb+p.ConfirmRounds, nh+p.ConfirmRounds), looks, uFloor)
	}
	return math.Min(1, f*factor(m, p.Correction))
}

// shiftLooks returns looks moved by n rounds: the sizes of a pooled
// analysis that adds n rounds to a sequential run stopped at a look.
func shiftLooks(looks []int, n int) []int {
	if n == 0 || len(looks) == 0 {
		return looks
	}
	out := make([]int, len(looks))
	for i, l := range looks {
		out[i] = l + n
	}
	return out
}

// floorFn returns the floor function of a test, for the looks.
func floorFn(test Test) func(int) float64 {
	if test == TestPaired {
		return pairedFloor
	}
	return uFloor
}

// uData is what the U test of a time row compares: the rounds' values of
// each side (each round's runs reduced by the estimator: the runs of one
// round share the machine's state and are not independent samples), or,
// without rounds, every sample.
type uData struct {
	base, head []float64
	nb, nh     int
	delta      *float64
	p          *float64
}

// uSizes returns the numbers of values a side the U test of c compares.
func uSizes(c stats.Comparison) (nb, nh int) {
	if len(c.BaseRounds) > 0 && len(c.HeadRounds) > 0 {
		return len(c.BaseRounds), len(c.HeadRounds)
	}
	if c.Base != nil && c.Head != nil {
		return c.Base.N, c.Head.N
	}
	return 0, 0
}

// uDataOf returns the U test's data and figures for c: on the rounds'
// values when c has rounds on both sides, else benchstat's own (c.P,
// c.Delta, which pool every sample), capped at 1.
func uDataOf(c stats.Comparison) uData {
	var u uData
	if len(c.BaseRounds) > 0 && len(c.HeadRounds) > 0 {
		for _, r := range c.BaseRounds {
			u.base = append(u.base, r.Value)
		}
		for _, r := range c.HeadRounds {
			u.head = append(u.head, r.Value)
		}
		u.nb, u.nh = len(u.base), len(u.head)
		if c.P != nil && u.nb == c.Base.N && u.nh == c.Head.N {
			// One run per round: the rounds' values are benchstat's
			// samples, and its p-value is the U test's on them.
			u.p = ptr(math.Min(1, *c.P))
		} else {
			u.p = ptr(stats.UTest(u.base, u.head))
		}
		if mb := medianOf(u.base); mb != 0 {
			d := medianOf(u.head)/mb - 1
			u.delta = &d
		}
		return u
	}
	if c.Base != nil && c.Head != nil {
		u.nb, u.nh = c.Base.N, c.Head.N
		for _, o := range c.Base.Values {
			u.base = append(u.base, o.Value)
		}
		for _, o := range c.Head.Values {
			u.head = append(u.head, o.Value)
		}
	}
	u.delta = c.Delta
	if c.P != nil {
		u.p = ptr(math.Min(1, *c.P))
	}
	return u
}

// noise is √2 × the pooled robust spread of the logarithms within a side:
// the U test's equivalent of the paired rows' per-round noise.
func (u uData) noise() float64 {
	sb, sh := logSpread(u.base), logSpread(u.head)
	return math.Sqrt2 * math.Sqrt((sb*sb+sh*sh)/2)
}

// medianOf is the median of x (0 when empty); x is not modified.
func medianOf(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// logSpread is the robust standard deviation of the logarithms of the
// positive values of v.
func logSpread(v []float64) float64 {
	var l []float64
	for _, x := range v {
		if x > 0 {
			l = append(l, math.Log(x))
		}
	}
	return stats.RobustSD(l)
}

// chooseTest chooses the test of a time row in a family of m (see "Which
// test"): the paired test whenever it can reach Alpha at the size the row
// is decided at, else the U test; "" when neither can. The choice rests
// on the numbers of rounds, non-zero log-ratios and benchmarks only,
// never on the values, so it costs no error control. fallback reports the
// U test chosen because the paired test had too few rounds.
func chooseTest(c stats.Comparison, u uData, m int, p Policy) (t Test, fallback bool) {
	pairedOK := c.Paired != nil && p.Test != TestUTest && floorAdj(TestPaired, c, m, p) < p.Alpha
	uOK := u.p != nil && floorAdj(TestUTest, c, m, p) < p.Alpha
	switch {
	case pairedOK:
		return TestPaired, false
	case uOK:
		// A fallback for want of rounds (not for want of non-zero
		// log-ratios, which more rounds of the same would not fix).
		fallback := c.Paired != nil && p.Test != TestUTest &&
			sequentialP(stats.SignedRankMinP(c.Paired.N+p.ConfirmRounds), shiftLooks(p.Looks, p.ConfirmRounds), pairedFloor)*factor(m, p.Correction) >= p.Alpha
		return TestUTest, fallback
	}
	return "", false
}

// figures sets r.Delta and r.P to test's figures for r's comparison (u
// its U test's).
func figures(r *Result, test Test, u uData) {
	c := r.Comparison
	if test == TestPaired {
		r.Delta, r.P = ptr(c.Paired.Ratio-1), ptr(c.Paired.P)
		return
	}
	r.Delta, r.P = u.delta, u.p
}

// judgeTime chooses the test of every time row of the family (the rows
// at family, in a family of m ≥ len(family): the others enter the
// correction with p = 1, see Policy.Family), adjusts the p-values
// together and applies the rule.
func judgeTime(v *Verdict, family []int, m int, p Policy, w *warnings) {
	corr := correctionOf(p.Correction)
	seqPs := padded(len(family), m)
	us := make([]uData, len(family))
	paired := false
	for j, i := range family {
		r := &v.Results[i]
		c := r.Comparison
		if c.Paired != nil {
			paired = true
			r.Noise = ptr(c.Paired.Noise)
		}
		us[j] = uDataOf(c)
		var fallback bool
		seqPs[j], fallback = testRow(r, us[j], m, p)
		if fallback {
			// Not chosen for the noise: the paired test could not
			// have reached alpha with this few rounds.
			n := c.Paired.N + p.ConfirmRounds
			w.fallback[n] = append(w.fallback[n], Bench{r.Package, r.Name})
		}
	}
	adj := adjust(seqPs, corr)
	steps := stepFactors(seqPs, corr, p.Alpha)
	for j, i := range family {
		r := &v.Results[i]
		if r.P != nil {
			r.PAdjusted = ptr(adj[j])
		}
		rp, _ := p.row(r.Package, r.Name)
		if r.Status == Inconclusive {
			inconclusive(r, m, rp, w)
			continue
		}
		decide(r, m, steps[j], rp)
		assess(r, us[j], m, rp, w)
	}
	if m > 0 {
		if paired {
			v.MinCount = MinRounds(p.Alpha, m, corr)
		} else {
			v.MinCount = MinCountU(p.Alpha, m, corr)
		}
	}
	w.family, w.minCount = m, v.MinCount
}

// testRow chooses the test of row r in a family of m (chooseTest), fills
// its figures (an Inconclusive row gets the figures of the test it would
// have had) and returns its p-value as the looks make it (sequentialP; 1
// without one) for the family's correction; fallback is chooseTest's.
func testRow(r *Result, u uData, m int, p Policy) (seqP float64, fallback bool) {
	c := r.Comparison
	test, fallback := chooseTest(c, u, m, p)
	r.Test = test
	switch test {
	case TestPaired, TestUTest:
		figures(r, test, u)
	default:
		r.Status = Inconclusive
		fallback = false
		if c.Paired != nil {
			figures(r, TestPaired, u)
		} else {
			figures(r, TestUTest, u)
		}
	}
	t := r.Test
	if t == "" && c.Paired != nil {
		t = TestPaired
	}
	if r.P == nil {
		return 1, fallback
	}
	return sequentialP(*r.P, p.Looks, floorFn(t)), fallback
}

// decide applies the rule to a time row whose Test, Delta, P and
// PAdjusted are set, in a family of m; step is the divisor of Alpha at
// the correction's step that decides the row ([stepFactors]). The
// interval is at that step's level (with the looks' penalty), so that it
// excludes no change exactly when the row is significant: a regression
// is never shown with an interval that contains 0 (with Bonferroni's
// level for every row, 1 % of Holm's regressions were:
// TestIntervalAgreesWithHolm).
func decide(r *Result, m int, step float64, p Policy) {
	looks := 0
	if k := looksAt(*r.P, p.Looks, floorFn(r.Test)); len(p.Looks) > 0 && k > 1 {
		looks = k
	}
	var note Correction
	if m > 1 && correctionOf(p.Correction) != NoCorrection {
		note = correctionOf(p.Correction)
	}
	judgeSignificance(r, p, looks, note)
	r.Reason.Family = m
	r.Interval = nil
	if r.Test == TestPaired && r.Paired != nil {
		conf := 1 - lookLevel(p.Alpha/step, p.Looks, pairedFloor)
		lo, hi, ach := r.Paired.Interval(conf)
		if lo > 0 && !math.IsInf(hi, 1) {
			r.Interval = &Interval{Confidence: ach, Estimate: r.Paired.Ratio - 1, Low: lo - 1, High: hi - 1}
		}
	}
}

// assess sets a judged time row's noise and MDE at the level one changed
// benchmark of m must reach, at the size the row will be decided at. When
// a confirmation follows (Policy.ConfirmRounds), that is the MDE of the
// procedure run: at the screen's rounds plus the fresh rounds the row
// would get ([FreshRounds]), widened for the chance that a real change
// of that size is not promising in the screen ([procedureMDE]).
func assess(r *Result, u uData, m int, p Policy, w *warnings) {
	extra := p.ConfirmRounds
	alpha := p.Alpha
	if extra > 0 {
		// The confirmation decides at its last look's level.
		_, alpha = efficacyLevels(p)
	}
	var mde float64
	switch {
	case r.Test == TestPaired:
		if extra > 0 {
			extra = rowFresh(*r, p, m)
		}
		level := lookThresholdFor(r.Test, alpha, m, p.Correction, shiftLooks(p.Looks, extra))
		n, noise := r.Paired.N+extra, r.Paired.Noise
		r.Noise = ptr(noise)
		mde = stats.MDE(n, noise, level)
		if stats.SignedRankMinP(r.Paired.NonZero+extra) >= level {
			mde = math.Inf(1)
		} else if p.ConfirmRounds > 0 {
			mde = procedureMDE(mde, r.Paired.N, extra, noise, level, p.Threshold, PromisingLevel(m, p.Alpha))
		}
	case r.Test == TestUTest:
		if u.nb < 2 || u.nh < 2 {
			return
		}
		noise := u.noise()
		if noise == 0 {
			return
		}
		r.Noise = ptr(noise)
		// At level: the U test's own look threshold (lookThresholdFor
		// uses the U floors for U rows).
		level := lookThresholdFor(r.Test, alpha, m, p.Correction, shiftLooks(p.Looks, extra))
		n := min(u.nb, u.nh)
		mde = stats.MDEU(n+extra, noise, level)
		if extra > 0 && !math.IsInf(mde, 1) {
			mde = procedureMDE(mde, n, extra, noise, level, p.Threshold, PromisingLevel(m, p.Alpha))
		}
	default:
		return
	}
	r.MDE = ptr(mde)
	if p.Threshold > 0 && mde > p.Threshold+thresholdSlack {
		r.TooNoisy = true
		if w != nil {
			w.tooNoisy = append(w.tooNoisy, noisy{Bench{r.Package, r.Name}, mde})
		}
	}
}

// procedureMDE widens pooled, the MDE of the pooled test at n screen and
// f fresh rounds (noise per round, significance level), to the MDE of the
// procedure: a change is found when the screen finds it promising (raw p
// below cut and at least half the threshold) and the pooled test is
// significant, and the fresh rounds alone estimate at least half the pooled
// change ([Confirm]'s replication check). In a normal model of the test's
// statistic (efficiency 3/π),
// the standardized change δ with 80 % power for both together is found
// by bisection; pooled grows in log terms by δ over the pooled test's
// own (z₁₋level/2 + z₀.₈)/√(n+f). At threshold 0, 10 + 10 rounds and one
// benchmark that is about 6 % (a change equal to the pooled MDE alone was
// found 0.75 of the time, not 0.80: confirmcost_test.go).
func procedureMDE(pooled float64, n, f int, noise, level, threshold, cut float64) float64 {
	if n < 1 || f < 1 || noise <= 0 || math.IsInf(pooled, 1) {
		return pooled
	}
	sigma := noise / math.Sqrt(3/math.Pi)
	a := math.Max(normQ(1-cut/2), math.Log1p(threshold/2)*math.Sqrt(float64(n))/sigma)
	c := normQ(1 - level/2)
	ratio := promisingRatio(n, f, math.Round(a*50)/50, math.Round(c*200)/200)
	return math.Expm1(math.Log1p(pooled) * ratio)
}

// procedurePower is the power procedureMDE's normal model is solved for:
// above 0.8 because the model leaves out the procedure's second stage
// and its futility stops, which lose a little more; at 0.8 a change of
// the reported MDE was found 0.785 of 15,000 times (TestProcedureMDE).
const procedurePower = 0.82

type ratioKey struct {
	n, f int
	a, c float64
}

var (
	ratioMu    sync.Mutex
	ratioCache = map[ratioKey]float64{}
)

// promisingRatio is δ/δ₀ of procedureMDE: δ₀ = (c + z₀.₈)/√(n+f) gives the
// pooled test 80 % power, δ gives it to "screen z > a and pooled z > c".
func promisingRatio(n, f int, a, c float64) float64 {
	k := ratioKey{n, f, a, c}
	ratioMu.Lock()
	defer ratioMu.Unlock()
	if v, ok := ratioCache[k]; ok {
		return v
	}
	sn, sf, N := math.Sqrt(float64(n)), math.Sqrt(float64(f)), float64(n+f)
	power := func(d float64) float64 {
		// ∫ φ(x) · 1[x + d√n > a] · P(√n·x + √f·Z > c√N − dN) dx
		const step = 0.05
		sum := 0.0
		for x := math.Max(a-d*sn, -7); x < 7; x += step {
			// The fresh rounds' Z must make the pooled test significant
			// and replicate: their estimate at least half the pooled one.
			z := math.Max((c*math.Sqrt(N)-d*N-sn*x)/sf, sf*(float64(n)*(d+x/sn)/(2*N-float64(f))-d))
			tail := 0.5 * math.Erfc(z/math.Sqrt2)
			sum += math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) * tail * step
		}
		return sum
	}
	d0 := (c + normQ(0.8)) / math.Sqrt(N)
	lo, hi := d0, 4*d0+1
	for range 40 {
		mid := (lo + hi) / 2
		if power(mid) >= procedurePower {
			hi = mid
		} else {
			lo = mid
		}
	}
	v := math.Max(1, hi/d0)
	ratioCache[k] = v
	return v
}

// normQ is the standard normal quantile.
func normQ(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// inconclusive gives an inconclusive row its reason.
func inconclusive(r *Result, m int, p Policy, w *warnings) {
	c := r.Comparison
	nb, nh := uSizes(c)
	rs := Reason{
		Code: ReasonCannotJudge, Delta: r.Delta, P: r.P, PAdjusted: r.PAdjusted,
		Alpha: p.Alpha, BaseN: nb + p.ConfirmRounds, HeadN: nh + p.ConfirmRounds, Family: m,
		MinP:     floorAdj(TestUTest, c, m, p),
		Adjusted: factor(m, p.Correction) > 1 || len(p.Looks) > 0,
		Better:   -1,
	}
	if c.Paired != nil {
		rs.MinP = math.Min(rs.MinP, floorAdj(TestPaired, c, m, p))
		rs.Rounds = c.Paired.N + p.ConfirmRounds
	}
	r.Reason = rs
	r.Gated = r.Gated && p.FailOnInconclusive
	key := incKey{rs.Rounds, rs.BaseN, rs.HeadN, rs.MinP, rs.Adjusted}
	if _, ok := w.inconclusive[key]; !ok {
		w.incOrder = append(w.incOrder, key)
	}
	w.inconclusive[key] = append(w.inconclusive[key], Bench{r.Package, r.Name})
}

// ImprovementThreshold is the change that counts as an improvement at
// threshold t: 1/(1+t) − 1 (−4.76 % at 5 %), the exact inverse of a +t
// slowdown, so that base → head and head → base are judged alike.
func ImprovementThreshold(t float64) float64 { return 1/(1+t) - 1 }

// thresholdSlack absorbs floating-point rounding in deltas such as
// 1.05/1.00 - 1 = 0.050000000000000044 or 3.15/3 - 1 = 0.04999999999999982.
const thresholdSlack = 1e-9

// judgeSignificance applies the p-value and threshold rule to r.Delta,
// r.P and r.PAdjusted; looks and correction say what adjusted P (the
// number of looks counted, the correction's name; 0 and "" for none).
func judgeSignificance(r *Result, p Policy, looks int, correction Correction) {
	c := r.Comparison
	if r.P == nil {
		r.Status, r.Reason = Unchanged, Reason{Code: ReasonNoTest, Alpha: p.Alpha, Threshold: p.Threshold, Better: -1}
		return
	}
	rs := Reason{Delta: r.Delta, P: r.P, PAdjusted: r.PAdjusted, Looks: looks, Correction: correction,
		Alpha: p.Alpha, Threshold: p.Threshold, Better: -1, BaseN: c.Base.N, HeadN: c.Head.N}
	if c.Paired != nil && r.Test == TestPaired {
		rs.Rounds = c.Paired.N
	}
	pv := *r.P
	if r.PAdjusted != nil {
		pv = *r.PAdjusted
	}
	sig := pv < p.Alpha
	dir := c.Better
	if r.Kind == Other {
		rs.Better = max(dir, 0)
	}
	if dir == 0 {
		dir = -1
	}
	defer func() { r.Reason = rs }()
	if r.Delta == nil {
		// Base median is 0: no relative change.
		bc, hc := c.Base.Center, c.Head.Center
		rs.Base, rs.Head = &Range{bc, bc}, &Range{hc, hc}
		switch {
		case hc == bc:
			r.Status, rs.Code = Unchanged, ReasonZeroBoth
			rs.Head = nil
		case !sig:
			r.Status, rs.Code = Unchanged, ReasonNotSignificant
		default:
			r.Status, rs.Code = Regression, ReasonSignificant
			if (hc > bc) != (dir < 0) {
				r.Status = Improvement
			}
		}
		return
	}
	d := *r.Delta
	up := d >= p.Threshold-thresholdSlack
	down := d <= ImprovementThreshold(p.Threshold)+thresholdSlack
	switch {
	case sig && (up || down):
		r.Status, rs.Code = Improvement, ReasonSignificant
		if (up && dir < 0) || (down && dir > 0) {
			r.Status = Regression
		}
	case up || down:
		r.Status, rs.Code = Unchanged, ReasonNotSignificant
	case sig:
		r.Status, rs.Code = Unchanged, ReasonWithinThreshold
	default:
		r.Status, rs.Code = Unchanged, ReasonNoChange
	}
}

// MinP returns the smallest p-value the two-sided Mann–Whitney U test can
// give for sample sizes n1 and n2: 2/C(n1+n2, n1), reached when the samples
// do not overlap. It is 1 when a side is empty.
func MinP(n1, n2 int) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// incKey groups inconclusive rows with the same figures.
type incKey struct {
	rounds, baseN, headN int
	minP                 float64
	adjusted             bool
}

type noisy struct {
	bench Bench
	mde   float64
}

// warnings accumulates the facts of suite-level warnings.
type warnings struct {
	inconclusive     map[incKey][]Bench
	incOrder         []incKey
	fallback         map[int][]Bench    // time rows judged by the U test for want of rounds, by pairs
	tooNoisy         []noisy            // too-noisy time rows
	suspect          map[string][]Bench // benchmarks by suspicion code
	unstable         map[string][]Bench // unstable allocation rows by unit
	iters            map[string][]Bench // allocation rows compared at different b.N, by unit
	family, minCount int
	varyingAllocs    int // allocation rows whose values vary on a side
	// bytesMoved: the benchmark's B/op values are not background (they
	// move by more than one byte), so its allocs/op row cannot be.
	bytesMoved map[benchKey]bool
	// rates: the per-op amounts (base, head) of the rate rows that have
	// one on each side (rateAmounts).
	rates map[stats.Key][2]Range
}

func newWarnings() *warnings {
	return &warnings{
		inconclusive: map[incKey][]Bench{},
		fallback:     map[int][]Bench{},
		suspect:      map[string][]Bench{},
		unstable:     map[string][]Bench{},
		iters:        map[string][]Bench{},
		bytesMoved:   map[benchKey]bool{},
	}
}

func (w *warnings) list(p Policy) []Warning {
	var out []Warning
	for _, k := range w.incOrder {
		out = append(out, Warning{
			Code: WarnCannotJudge, Benchmarks: uniq(w.inconclusive[k]),
			Rounds: k.rounds, BaseN: k.baseN, HeadN: k.headN, Family: w.family,
			MinP: k.minP, Adjusted: k.adjusted, Alpha: p.Alpha, MinCount: w.minCount,
		})
	}
	for _, n := range slices.Sorted(maps.Keys(w.fallback)) {
		floor := math.Min(1, sequentialP(stats.SignedRankMinP(n), shiftLooks(p.Looks, p.ConfirmRounds), pairedFloor)*factor(w.family, p.Correction))
		out = append(out, Warning{
			Code: WarnUTestFallback, Benchmarks: uniq(w.fallback[n]),
			Rounds: n, Family: w.family, MinP: floor, Adjusted: true, Alpha: p.Alpha, MinCount: w.minCount,
		})
	}
	if len(w.tooNoisy) > 0 {
		lo, hi := w.tooNoisy[0].mde, w.tooNoisy[0].mde
		var names []Bench
		for _, t := range w.tooNoisy {
			lo, hi = math.Min(lo, t.mde), math.Max(hi, t.mde)
			names = append(names, t.bench)
		}
		out = append(out, Warning{Code: WarnTooNoisy, Benchmarks: uniq(names), Threshold: p.Threshold, Low: lo, High: hi})
	}
	if names := w.suspect[SuspectOptimizedAway]; len(names) > 0 {
		out = append(out, Warning{Code: WarnOptimizedAway, Benchmarks: uniq(names), Limit: MinTimePerOp})
	}
	if names := w.suspect[SuspectShortRuns]; len(names) > 0 {
		out = append(out, Warning{Code: WarnShortRuns, Benchmarks: uniq(names), Limit: MinRunTime})
	}
	for _, unit := range []string{"allocs/op", "B/op"} {
		if names := w.unstable[unit]; len(names) > 0 {
			out = append(out, Warning{Code: WarnAllocsVary, Unit: unit, Benchmarks: uniq(names)})
		}
	}
	for _, unit := range []string{"allocs/op", "B/op"} {
		if names := w.iters[unit]; len(names) > 0 {
			out = append(out, Warning{Code: WarnItersDiffer, Unit: unit, Benchmarks: uniq(names)})
		}
	}
	return out
}

// uniq returns the distinct benchmarks of bs in order.
func uniq(bs []Bench) []Bench {
	var out []Bench
	seen := map[Bench]bool{}
	for _, b := range bs {
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out
}

// matchFailure returns the failure that covers key, preferring head-side
// failures.
func matchFailure(failures []Failure, key stats.Key) (Failure, bool) {
	var found Failure
	ok := false
	for _, f := range failures {
		if f.Package != key.Package || !nameCovers(f.Name, key.Name) {
			continue
		}
		if !ok || (f.Side == SideHead && found.Side != SideHead) {
			found, ok = f, true
		}
	}
	return found, ok
}

// nameCovers reports whether a failure named name covers the benchmark
// row full: "Foo" covers "Foo", "Foo-8", "Foo/x" and "Foo/x-8"; "Foo-8"
// covers "Foo-8" and "Foo/x-8".
func nameCovers(name, full string) bool {
	name = strings.TrimPrefix(name, "Benchmark")
	if name == "" || name == full {
		return true
	}
	if base, procs, ok := policy.SplitProcs(name); ok {
		return strings.HasPrefix(full, base+"/") && strings.HasSuffix(full, "-"+procs)
	}
	if !strings.HasPrefix(full, name) {
		return false
	}
	rest := full[len(name):]
	if rest[0] == '/' {
		return true
	}
	b, _, ok := policy.SplitProcs(full)
	return ok && b == name
}
