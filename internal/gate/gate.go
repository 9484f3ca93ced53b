// Package gate judges benchmark comparisons against a policy and returns a
// verdict: a status and a one-sentence reason for every (package,
// benchmark, unit) row, and whether the gate passes.
//
// # Rules
//
// Every row gets one [Status]:
//
//   - new / removed: the key exists only on head / only on base. A removed
//     row fails the gate only with Policy.FailOnRemoved; a new row never
//     does.
//   - failed: a [Failure] names the row's benchmark (see "Failures").
//   - time (sec/op, [Time]): a regression when delta ≥ +Threshold AND
//     p < Alpha; an improvement when delta ≤ −Threshold AND p < Alpha;
//     otherwise unchanged, and the reason says why (not significant, or
//     significant but smaller than the threshold). p is benchstat's
//     two-sided Mann–Whitney U p-value and delta the relative change of
//     the medians.
//   - allocations (allocs/op [Allocs], B/op [Bytes]): exact checks. When
//     every sample on each side has the same value, any increase is a
//     regression and any decrease an improvement, whatever the p-value: one
//     extra allocation fails with 3 rounds or with 30. 0 → N is a regression
//     of +N (never a percentage or a division by zero). When the values of
//     either side vary between rounds the row is unstable: the reason gives
//     the range, and it never fails the gate.
//   - other units (B/s, custom b.ReportMetric units, [Other]): the time rule
//     (significance and threshold), in the unit's own direction (higher is
//     better for B/s and for units ending in "/s"; lower is better
//     otherwise), reported but never gated.
//
// The gate fails when any row fails ([Result.Fails]: a gated row that is a
// regression, a failure or a removal) or when a head-side Failure exists
// and Policy.FailOnFailure is set.
//
// # Boundaries
//
// Significance is strict: p < Alpha. A p-value exactly equal to Alpha is
// not significant. (benchstat prints a delta rather than "~" when p == α;
// benchgate follows the "p < alpha" of its specification, the stricter
// reading, which matters because the U test's p-values are discrete and
// can land exactly on a round α.) The
// threshold is inclusive: a delta of exactly +Threshold is large enough;
// to absorb floating-point rounding of ratios such as 1.05/1.00 - 1,
// deltas within 1e-9 of the threshold count as equal to it.
//
// When the base median of a time row is 0 there is no relative delta: a
// significant rise from 0 is a regression (an unbounded relative change)
// and 0 → 0 is unchanged.
//
// A two-sided U test with n1 and n2 samples cannot produce a p-value below
// 2/C(n1+n2, n1) ([MinP]): with 4 rounds per side that is 0.029, so at
// α = 0.01 no time regression can ever be detected. Such rows are unchanged
// with a reason that says they cannot be judged, and the verdict carries a
// warning naming the smallest count that would work ([MinCount]).
//
// # Failures
//
// A [Failure] is a benchmark (or, with an empty Name, a whole package)
// that crashed, failed or timed out on one side. Failure.Name is matched
// against row names like benchfmt names: a leading "Benchmark" is ignored;
// "Foo" covers "Foo", "Foo-8" and sub-benchmarks "Foo/x-8"; "Foo-8" covers
// "Foo-8" and "Foo/x-8" but not "Foo-4". Matching
// rows get status failed; they and the failure count toward the verdict
// only for head-side failures with Policy.FailOnFailure. Base-side failures
// are reported, never gated.
//
// # Warnings
//
// Verdict.Warnings are suite-level caveats, aggregated so that a suite of
// 5,000 benchmarks yields a few lines: time rows whose sample sizes cannot
// reach Alpha, allocation rows that vary between rounds, allocation rows
// compared at different iteration counts (b.N). Per-row caveats from
// benchmath stay in each Result's Comparison.
package gate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/stats"
	"golang.org/x/perf/benchunit"
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
)

// Kind classifies a unit by how it is judged.
type Kind string

// The kinds of units.
const (
	Time   Kind = "time"   // sec/op
	Allocs Kind = "allocs" // allocs/op
	Bytes  Kind = "bytes"  // B/op
	Other  Kind = "other"  // B/s, custom units
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
	}
	return Other
}

// Policy says what the gate checks.
type Policy struct {
	// Threshold is the smallest relative time change that counts
	// (0.05 = 5%).
	Threshold float64
	// Alpha is the significance level: p < Alpha is significant.
	Alpha float64
	// FailOn lists the kinds whose regressions fail the gate. Other is
	// never gated, whatever FailOn says.
	FailOn map[Kind]bool
	// FailOnFailure makes a head-side benchmark failure fail the gate.
	FailOnFailure bool
	// FailOnRemoved makes a benchmark missing on head fail the gate.
	FailOnRemoved bool
}

// DefaultPolicy returns the default policy: a 5% threshold at α = 0.01;
// time, allocs/op and B/op regressions and head-side failures fail the
// gate; new and removed benchmarks do not.
func DefaultPolicy() Policy {
	return Policy{
		Threshold:     0.05,
		Alpha:         0.01,
		FailOn:        map[Kind]bool{Time: true, Allocs: true, Bytes: true},
		FailOnFailure: true,
	}
}

// Validate reports a policy that cannot be applied.
func (p Policy) Validate() error {
	if !(p.Threshold >= 0) || math.IsInf(p.Threshold, 0) {
		return fmt.Errorf("threshold must be a finite number >= 0, got %v", p.Threshold)
	}
	if !(p.Alpha > 0 && p.Alpha < 1) {
		return fmt.Errorf("alpha must be in (0, 1), got %v", p.Alpha)
	}
	return nil
}

// The sides of a Failure.
const (
	SideBase = "base"
	SideHead = "head"
)

// Failure is a benchmark that did not produce results on one side.
type Failure struct {
	// Package is the import path; Name the benchmark name (with or
	// without the "Benchmark" prefix; "" for the whole package).
	Package, Name string
	// Side is SideBase or SideHead.
	Side string
	// Message is the first lines of the benchmark's output.
	Message string
}

// Result is the judgement of one comparison.
type Result struct {
	stats.Comparison
	Kind   Kind
	Status Status
	// Gated reports whether the row counts toward the verdict: a judged
	// row of a kind in Policy.FailOn (never unstable, new or Other rows),
	// a removed row with Policy.FailOnRemoved, a row failed on head with
	// Policy.FailOnFailure. Only gated regressions, removals and failures
	// fail the gate (Fails).
	Gated bool
	// Reason is one short sentence saying why the row has its status.
	Reason string
}

// Fails reports whether the row fails the gate.
func (r Result) Fails() bool {
	return r.Gated && (r.Status == Regression || r.Status == Failed || r.Status == Removed)
}

// Verdict is the outcome of Judge.
type Verdict struct {
	Pass     bool
	Results  []Result
	Failures []Failure
	Warnings []string
	Policy   Policy
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

// HeadFailures returns the failures on the head side.
func (v Verdict) HeadFailures() []Failure {
	var out []Failure
	for _, f := range v.Failures {
		if f.Side == SideHead {
			out = append(out, f)
		}
	}
	return out
}

// Judge applies p to every comparison and failure. Results keep the order
// of cmps.
func Judge(cmps []stats.Comparison, failures []Failure, p Policy) Verdict {
	v := Verdict{
		Results:  make([]Result, 0, len(cmps)),
		Failures: failures,
		Policy:   p,
	}
	var w warnings
	w.init()
	for _, c := range cmps {
		f, failed := matchFailure(failures, c.Key)
		if !failed {
			v.Results = append(v.Results, judge(c, p, &w))
			continue
		}
		r := Result{Comparison: c, Kind: KindOf(c.Unit), Status: Failed}
		if f.Side == SideHead {
			r.Gated = p.FailOnFailure
			r.Reason = "the head run failed (see failures)"
		} else {
			r.Reason = "the base run failed (see failures); not gated"
		}
		v.Results = append(v.Results, r)
	}
	v.Warnings = w.list(p)
	v.Pass = true
	for _, r := range v.Results {
		if r.Fails() {
			v.Pass = false
		}
	}
	if p.FailOnFailure && len(v.HeadFailures()) > 0 {
		v.Pass = false
	}
	return v
}

func judge(c stats.Comparison, p Policy, w *warnings) Result {
	r := Result{Comparison: c, Kind: KindOf(c.Unit)}
	gatedKind := r.Kind != Other && p.FailOn[r.Kind]
	switch {
	case c.Base == nil && c.Head == nil:
		r.Status, r.Reason = Unchanged, "no samples on either side"
	case c.Base == nil:
		r.Status, r.Reason = New, "only on head"
	case c.Head == nil:
		r.Status, r.Reason = Removed, "only on base"
		r.Gated = p.FailOnRemoved
	case r.Kind == Allocs || r.Kind == Bytes:
		judgeExact(&r, w)
		r.Gated = gatedKind && r.Status != Unstable
	default:
		judgeSignificance(&r, p, w)
		r.Gated = gatedKind
	}
	return r
}

// judgeExact applies the exact allocation check.
func judgeExact(r *Result, w *warnings) {
	b, h := r.Base, r.Head
	if !sameIters(b.Values, h.Values) {
		w.iters[r.Unit]++
	}
	if !b.Constant || !h.Constant {
		r.Status = Unstable
		var parts []string
		if !b.Constant {
			parts = append(parts, "base varies "+exactRange(b))
		}
		if !h.Constant {
			parts = append(parts, "head varies "+exactRange(h))
		}
		r.Reason = strings.Join(parts, " and ") + " " + r.Unit + " between rounds: not judged exactly"
		w.unstable[r.Unit]++
		return
	}
	bv, hv := b.Min, h.Min
	switch {
	case hv > bv:
		r.Status = Regression
	case hv < bv:
		r.Status = Improvement
	default:
		r.Status = Unchanged
		r.Reason = exact(bv) + " " + r.Unit + " on both sides in every round"
		return
	}
	r.Reason = exact(bv) + " → " + exact(hv) + " " + r.Unit + " in every round"
}

func exactRange(s *stats.Summary) string { return exact(s.Min) + "–" + exact(s.Max) }

// exact formats an allocation figure exactly ("3", "1024", "2.5").
func exact(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

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

// thresholdSlack absorbs floating-point rounding in deltas such as
// 1.05/1.00 - 1 = 0.050000000000000044 or 3.15/3 - 1 = 0.04999999999999982.
const thresholdSlack = 1e-9

// judgeSignificance applies the p-value and threshold rule.
func judgeSignificance(r *Result, p Policy, w *warnings) {
	c := r.Comparison
	if c.P == nil {
		r.Status, r.Reason = Unchanged, "no test applies"
		return
	}
	pv := *c.P
	sig := pv < p.Alpha
	dir := c.Better
	dirNote := ""
	if r.Kind == Other {
		switch dir {
		case 1:
			dirNote = " (higher is better)"
		case 0:
			dirNote = " (direction unknown: lower assumed better)"
		}
	}
	if dir == 0 {
		dir = -1
	}
	if r.Kind == Time && !sig {
		if m := MinP(c.Base.N, c.Head.N); m >= p.Alpha {
			r.Status = Unchanged
			r.Reason = fmt.Sprintf("cannot be judged: with %s the smallest possible p is %s ≥ α=%s", sizes(c.Base.N, c.Head.N), FormatP(m), fmtNum(p.Alpha))
			w.tooSmall[[2]int{c.Base.N, c.Head.N}]++
			return
		}
	}
	pStr := "p=" + FormatP(pv)
	if pv < 0.001 {
		pStr = "p" + FormatP(pv) // "p<0.001"
	}
	if c.Delta == nil {
		// Base median is 0: no relative change.
		bc, hc := c.Base.Center, c.Head.Center
		change := fmtValue(bc, c.Unit) + " → " + fmtValue(hc, c.Unit)
		switch {
		case hc == bc:
			r.Status, r.Reason = Unchanged, fmtValue(bc, c.Unit)+" on both sides"
		case !sig:
			r.Status, r.Reason = Unchanged, fmt.Sprintf("%s but %s ≥ α=%s: not significant", change, pStr, fmtNum(p.Alpha))
		default:
			r.Status = Regression
			if (hc > bc) != (dir < 0) {
				r.Status = Improvement
			}
			r.Reason = fmt.Sprintf("%s < α=%s and %s%s", pStr, fmtNum(p.Alpha), change, dirNote)
		}
		return
	}
	d := *c.Delta
	up := d >= p.Threshold-thresholdSlack
	down := d <= -p.Threshold+thresholdSlack
	big := up || down
	pct, thr := fmtPct(d), fmtNum(100*p.Threshold)
	switch {
	case sig && big:
		worse := (up && dir < 0) || (down && dir > 0)
		if worse {
			r.Status = Regression
		} else {
			r.Status = Improvement
		}
		cmp := "≥ +" + thr + "%"
		if down {
			cmp = "≤ -" + thr + "%"
		}
		r.Reason = fmt.Sprintf("%s < α=%s and %s %s%s", pStr, fmtNum(p.Alpha), pct, cmp, dirNote)
	case big:
		r.Status = Unchanged
		r.Reason = fmt.Sprintf("%s but %s ≥ α=%s: not significant", pct, pStr, fmtNum(p.Alpha))
	case sig:
		r.Status = Unchanged
		r.Reason = fmt.Sprintf("%s is significant (%s) but within ±%s%%", pct, pStr, thr)
	default:
		r.Status = Unchanged
		r.Reason = fmt.Sprintf("%s, %s: no significant change", pct, pStr)
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

// MinCount returns the smallest number of samples per side with which the
// U test can reach p < alpha (at most 1000).
func MinCount(alpha float64) int {
	n := 1
	for n < 1000 && MinP(n, n) >= alpha {
		n++
	}
	return n
}

// FormatP formats a p-value for people: three decimals, "<0.001" below.
func FormatP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

func sizes(n1, n2 int) string {
	if n1 == n2 {
		return fmt.Sprintf("n=%d per side", n1)
	}
	return fmt.Sprintf("n=%d+%d", n1, n2)
}

// fmtNum formats a policy figure without trailing zeros ("0.01", "5").
func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// fmtPct formats a delta fraction as a signed percentage ("+7.3%").
func fmtPct(d float64) string { return fmt.Sprintf("%+.1f%%", 100*d) }

func fmtValue(v float64, unit string) string {
	if v == 0 {
		return "0 " + unit
	}
	return benchunit.Scale(v, benchunit.ClassOf(unit)) + " " + unit
}

// warnings accumulates suite-level warnings.
type warnings struct {
	tooSmall map[[2]int]int // time rows that cannot reach alpha, by sample sizes
	unstable map[string]int // unstable allocation rows by unit
	iters    map[string]int // allocation rows compared at different b.N, by unit
}

func (w *warnings) init() {
	if w.tooSmall == nil {
		w.tooSmall = map[[2]int]int{}
		w.unstable = map[string]int{}
		w.iters = map[string]int{}
	}
}

func (w *warnings) list(p Policy) []string {
	var out []string
	sizesList := make([][2]int, 0, len(w.tooSmall))
	for k := range w.tooSmall {
		sizesList = append(sizesList, k)
	}
	slices.SortFunc(sizesList, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	for _, k := range sizesList {
		out = append(out, fmt.Sprintf("time/op cannot be judged for %s: with %s the smallest possible p is %s ≥ α=%s; use --count ≥ %d",
			plural(w.tooSmall[k], "benchmark"), sizes(k[0], k[1]), FormatP(MinP(k[0], k[1])), fmtNum(p.Alpha), MinCount(p.Alpha)))
	}
	for _, unit := range []string{"allocs/op", "B/op"} {
		if n := w.unstable[unit]; n > 0 {
			out = append(out, fmt.Sprintf("%s of %s vary between rounds: reported as unstable, not judged exactly", unit, plural(n, "benchmark")))
		}
	}
	for _, unit := range []string{"allocs/op", "B/op"} {
		if n := w.iters[unit]; n > 0 {
			out = append(out, fmt.Sprintf("%s of %s were measured at different iteration counts on base and head; allocation figures are only exactly comparable at the same b.N (-benchtime=Nx)", unit, plural(n, "benchmark")))
		}
	}
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
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
	if base, procs, ok := splitProcs(name); ok {
		return strings.HasPrefix(full, base+"/") && strings.HasSuffix(full, "-"+procs)
	}
	if !strings.HasPrefix(full, name) {
		return false
	}
	rest := full[len(name):]
	if rest[0] == '/' {
		return true
	}
	b, _, ok := splitProcs(full)
	return ok && b == name
}

// splitProcs splits a "-GOMAXPROCS" suffix off a benchmark name.
func splitProcs(name string) (base, procs string, ok bool) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return name, "", false
	}
	for _, r := range name[i+1:] {
		if r < '0' || r > '9' {
			return name, "", false
		}
	}
	return name[:i], name[i+1:], true
}
