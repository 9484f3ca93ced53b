package report

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
	"golang.org/x/perf/benchunit"
)

// Meta describes the run.
type Meta struct {
	Tool                               string // "benchgate vX"
	BaseRef, HeadRef, BaseSHA, HeadSHA string
	Count                              int // interleaved rounds
	Benchtime                          string
	// Runs is the most short runs a side made of a benchmark in one round
	// (--runs), Estimator how they were reduced to the round's value
	// (--estimator); 0 and "" take them from the verdict's paired rows.
	Runs             int
	Estimator        string
	Seed             int64
	RawBase, RawHead string // paths of the raw benchfmt files, "" if unknown
	Partial          bool   // the run was interrupted
	// Notes are lines about the run, in words (untrusted: they may quote
	// names).
	Notes []string
	// Warnings are the caller's warnings about the run, in words
	// (untrusted): shards that do not cover the suite, values the
	// statistics ignored.
	Warnings []string
	// BaseGo and HeadGo are the Go toolchains that built each side
	// ("go1.26.8", as go env GOVERSION reports it); "" if unknown.
	BaseGo, HeadGo string
	// Explain says where the changes of some rows come from (a "why"
	// under each, and their JSON explain).
	Explain []Why
	// Policy says which policy file was in force and what head's copy
	// would change; nil without one.
	Policy *PolicyInfo
}

// PolicyInfo is the policy file of a run, for the report.
type PolicyInfo struct {
	// Source says where the file in force was read (".benchgate.yml of
	// the base commit abc1234"); "" when base has none.
	Source string
	// HeadChanges are the differences of head's copy, in words
	// (untrusted: they quote head's patterns); HeadAffected the
	// benchmarks ("import/path.Name") whose settings they would change.
	// Neither applies to this run.
	HeadChanges, HeadAffected []string
	// HeadError is set when head's copy does not parse (its errors).
	HeadError string
}

// The priorities of the sections under a size limit: regressions are
// kept first, the chart is dropped first.
const (
	prioRegressions = iota
	prioFailures
	prioWarnings
	prioImprovements
	prioVanished
	prioScaling
	prioRest
	prioChart
)

// Build makes the report of a verdict and the metadata of its run: the
// verdict line, the run, alerts and notes; regressions (every regression,
// gated ones first, and every removal and inconclusive row that fails the
// gate), failures with their output, improvements, regressions that
// vanished on confirmation, a chart of the largest time/op changes, CPU
// scaling, every other row (collapsed in Markdown) and warnings; then a
// legend and how to reproduce the numbers. Rows are grouped per package.
func Build(v gate.Verdict, m Meta) *Document {
	d := &Document{Pass: v.Pass}
	d.Title = titleSpans(v)
	d.Head = headBlocks(v, m)

	var regs, imps, gone, rest []gate.Result
	for _, r := range v.Results {
		switch {
		case r.Status == gate.Regression || (r.Fails() && (r.Status == gate.Removed || r.Status == gate.Inconclusive)):
			regs = append(regs, r)
		case r.Status == gate.Improvement:
			imps = append(imps, r)
		case r.Confirmed != nil && !*r.Confirmed:
			gone = append(gone, r)
		default:
			rest = append(rest, r)
		}
	}
	// Gate-failing rows first within the regressions; the rest by status.
	slices.SortStableFunc(regs, func(a, b gate.Result) int { return boolRank(b.Fails()) - boolRank(a.Fails()) })
	slices.SortStableFunc(rest, func(a, b gate.Result) int { return restRank[a.Status] - restRank[b.Status] })
	fails := append(v.HeadFailures(), baseFailures(v.Failures)...)

	add := func(s *Section) {
		if s.Body.items() > 0 {
			d.Sections = append(d.Sections, s)
		}
	}
	add(&Section{Title: []Span{txt("Regressions (" + strconv.Itoa(len(regs)) + ")")}, Body: explained(resultTable(regs), regs, m), Priority: prioRegressions, What: "regressions"})
	add(&Section{Title: []Span{txt("Failures (" + strconv.Itoa(len(fails)) + ")")}, Body: failureOutputs(fails), Priority: prioFailures, What: "failures"})
	add(&Section{Title: []Span{txt("Improvements (" + strconv.Itoa(len(imps)) + ")")}, Body: explained(resultTable(imps), imps, m), Priority: prioImprovements, What: "improvements"})
	add(&Section{Title: []Span{txt("Vanished on confirmation (" + strconv.Itoa(len(gone)) + ")")}, Body: resultTable(gone), Priority: prioVanished, What: "vanished regressions"})
	if c := chartOf(v.Results); c != nil {
		add(&Section{Title: []Span{txt("Largest time/op changes")}, Intro: []Block{chartIntro(c)}, Body: c, Priority: prioChart, Whole: "the chart of the largest changes"})
	}
	if s := scalingSection(v); s != nil {
		add(s)
	}
	add(&Section{Title: []Span{txt(restSummary(rest))}, Collapsed: true, Body: resultTable(rest), Priority: prioRest, What: "other results"})
	add(&Section{Title: []Span{txt("Warnings")}, Body: warningList(v, m), Priority: prioWarnings, What: "warnings"})

	if len(v.Results) > 0 {
		d.Foot = append(d.Foot, legend())
		if hasInstructions(v) {
			d.Foot = append(d.Foot, instructionsLegend(v.Policy))
		}
	}
	d.Foot = append(d.Foot, reproduce(m))
	return d
}

func titleSpans(v gate.Verdict) []Span {
	t := []Span{mark(markPass, Good), txt(" "), {Kind: SpanText, Text: "benchgate: pass", Style: Strong | Good}}
	if !v.Pass {
		t = []Span{mark(markFail, Bad), txt(" "), {Kind: SpanText, Text: "benchgate: fail", Style: Strong | Bad}}
	}
	if c := headerCounts(v); c != "" {
		t = append(t, txt(" — "+c))
	}
	return t
}

func headBlocks(v gate.Verdict, m Meta) []Block {
	bs := []Block{Paragraph{Spans: metaLine(m, v)}}
	if m.GoDiffers() {
		bs = append(bs, Paragraph{Alert: true, Spans: []Span{
			mark(markWarn, Warn), txt(" "), strong("Different Go toolchains"), txt(": base was built with "), goVer(m.BaseGo),
			txt(" and head with "), goVer(m.HeadGo),
			txt(", so every change below includes the compiler's and the runtime's, not only the code's. (With GOTOOLCHAIN=auto, the "),
			codeText("go"), txt(" or "), codeText("toolchain"), txt(" line of go.mod selects the toolchain.)"),
		}})
	}
	if m.Partial {
		bs = append(bs, Paragraph{Alert: true, Spans: []Span{
			mark(markWarn, Warn), txt(" "), strong("Partial results"), txt(": the run was interrupted; only what was measured before is reported."),
		}})
	}
	for _, w := range v.Warnings {
		if w.Code == gate.WarnCannotJudge && !w.Confirmation {
			bs = append(bs, Paragraph{Alert: true, Spans: append([]Span{mark(markWarn, Warn), txt(" ")}, strongAll(warningSpans(w, nil))...)})
		}
	}
	bs = append(bs, policyBlocks(m.Policy)...)
	if len(m.Notes) > 0 {
		l := &List{}
		for _, n := range m.Notes {
			l.Items = append(l.Items, []Span{prose(n)})
		}
		bs = append(bs, l)
	}
	return bs
}

func strongAll(spans []Span) []Span {
	out := slices.Clone(spans)
	for i := range out {
		out[i].Style |= Strong
	}
	return out
}

// Inconclusive says in words why time rows could not be judged and what
// would work; "" when every time row could be judged.
func Inconclusive(v gate.Verdict) string {
	var parts []string
	for _, w := range v.Warnings {
		if w.Code == gate.WarnCannotJudge && !w.Confirmation {
			parts = append(parts, WarningText(w))
		}
	}
	return strings.Join(parts, "; ")
}

func headerCounts(v gate.Verdict) string {
	var parts []string
	add := func(n int, one, many string) {
		if n > 0 {
			parts = append(parts, plural(n, one, many))
		}
	}
	gated, ungated := 0, 0
	for _, r := range v.Regressions() {
		if r.Gated {
			gated++
		} else {
			ungated++
		}
	}
	removedGated, inconclusiveGated, confirmed, vanished, noisy := 0, 0, 0, 0, 0
	for _, r := range v.Results {
		if r.Status == gate.Removed && r.Fails() {
			removedGated++
		}
		if r.Status == gate.Inconclusive && r.Fails() {
			inconclusiveGated++
		}
		if r.Confirmed != nil {
			if *r.Confirmed {
				confirmed++
			} else {
				vanished++
			}
		}
		if r.TooNoisy {
			noisy++
		}
	}
	accepted := 0
	for _, r := range v.Regressions() {
		if r.Accepted != nil {
			accepted++
		}
	}
	ungated -= accepted
	add(gated, "regression", "regressions")
	add(removedGated, "removed benchmark failing the gate", "removed benchmarks failing the gate")
	add(len(v.HeadFailures()), "head failure", "head failures")
	add(len(baseFailures(v.Failures)), "base failure", "base failures")
	add(inconclusiveGated, "inconclusive benchmark failing the gate", "inconclusive benchmarks failing the gate")
	add(confirmed, "confirmed", "confirmed")
	add(vanished, "vanished on confirmation", "vanished on confirmation")
	add(v.Count(gate.Improvement), "improvement", "improvements")
	add(accepted, "accepted regression", "accepted regressions")
	add(ungated, "ungated regression", "ungated regressions")
	add(v.Count(gate.Inconclusive)-inconclusiveGated, "inconclusive", "inconclusive")
	add(len(v.ScalingWorse()), "benchmark scaling worse", "benchmarks scaling worse")
	add(noisy, "too noisy", "too noisy")
	add(v.Count(gate.Unstable), "unstable", "unstable")
	add(v.Count(gate.Unavailable), "unavailable", "unavailable")
	add(v.Count(gate.New), "new", "new")
	add(v.Count(gate.Removed), "removed", "removed")
	add(v.Count(gate.Ignored), "ignored", "ignored")
	add(v.Count(gate.Unchanged), "unchanged", "unchanged")
	if len(v.Results) == 0 && len(v.Failures) == 0 {
		return "no benchmark results"
	}
	return strings.Join(parts, ", ")
}

var hexSHA = regexp.MustCompile(`^[0-9a-fA-F]{4,64}$`)

func side(label, ref, sha string) []Span {
	l := line{txt(label)}
	if ref != "" {
		l.text(" ").add(Span{Kind: SpanName, Text: ref, Style: Strong})
	}
	if sha != "" {
		l.text(" ")
		if hexSHA.MatchString(sha) {
			l.add(codeText(sha[:min(len(sha), 7)]))
		} else {
			l.name(sha)
		}
	}
	return l
}

// runsOf returns the runs per side per round and the estimator of a run:
// Meta's, or, when unset, the most runs of the verdict's paired rows and
// their estimator.
func runsOf(m Meta, v gate.Verdict) (int, string) {
	runs, est := m.Runs, m.Estimator
	for _, r := range v.Results {
		if r.Paired != nil {
			if m.Runs == 0 {
				runs = max(runs, r.Paired.Runs)
			}
			if est == "" {
				est = r.Paired.Estimator.String()
			}
		}
	}
	if est == "" {
		est = stats.Median.String()
	}
	return runs, est
}

func metaLine(m Meta, v gate.Verdict) []Span {
	p := v.Policy
	l := line(side("base", m.BaseRef, m.BaseSHA))
	l.text(" → ").add(side("head", m.HeadRef, m.HeadSHA)...)
	sep := func() *line { return l.text(" · ") }
	if m.Count > 0 {
		sep().text(plural(m.Count, "round", "rounds"))
	}
	if m.Benchtime != "" {
		sep().text("benchtime ").name(m.Benchtime)
	}
	if runs, est := runsOf(m, v); runs > 1 {
		sep().text(strconv.Itoa(runs) + " runs per side per round, their " + est)
	}
	if m.Seed != 0 {
		sep().text("seed ").num(strconv.FormatInt(m.Seed, 10))
	}
	sep().text("threshold ").num(fmtNum(100*p.Threshold) + "%").text(", α=").num(fmtNum(p.Alpha))
	if hasInstructions(v) {
		sep().text("instructions/op threshold ").num(fmtNum(100*p.InstructionThreshold) + "%")
	}
	if corr := correctionName(v.Correction); corr != "" && v.Family > 1 {
		sep().text(corr + " over " + plural(v.Family, "time/op comparison", "time/op comparisons"))
	}
	if len(p.Looks) > 0 {
		sep().text("sequential looks after rounds ").num(joinInts(p.Looks))
	}
	if v.Confirmed {
		sep().text("promising time rows re-measured and decided on the pooled rounds")
	}
	if m.Tool != "" {
		sep().add(prose(m.Tool))
	}
	switch {
	case m.BaseGo == "" && m.HeadGo == "":
	case m.BaseGo == m.HeadGo:
		sep().text("Go: ").add(goVer(m.BaseGo)).text(" (both sides)")
	default:
		sep().text("Go: base ").add(goVer(m.BaseGo)).text(", head ").add(goVer(m.HeadGo))
	}
	return l
}

// correctionName is the name of a correction for people ("" for none).
func correctionName(c gate.Correction) string {
	switch c {
	case gate.Holm:
		return "Holm"
	case gate.BH:
		return "Benjamini–Hochberg"
	}
	return ""
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// restRank orders the collapsed rows: the most remarkable first, so that
// cutting removes unchanged rows first.
var restRank = map[gate.Status]int{
	gate.Failed: 0, gate.Inconclusive: 1, gate.Removed: 2, gate.New: 3, gate.Unstable: 4, gate.Unavailable: 4, gate.Regression: 5, gate.Improvement: 5, gate.Ignored: 6, gate.Unchanged: 7,
}

func baseFailures(fs []gate.Failure) []gate.Failure {
	var out []gate.Failure
	for _, f := range fs {
		if f.Side != gate.SideHead && f.Unit == "" { // the instruction lane's are unavailable rows
			out = append(out, f)
		}
	}
	return out
}

func restSummary(rest []gate.Result) string {
	counts := map[gate.Status]int{}
	for _, r := range rest {
		counts[r.Status]++
	}
	var parts []string
	for _, s := range []gate.Status{gate.Failed, gate.Inconclusive, gate.Removed, gate.New, gate.Unstable, gate.Unavailable, gate.Regression, gate.Improvement, gate.Ignored, gate.Unchanged} {
		if n := counts[s]; n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+string(s))
		}
	}
	return plural(len(rest), "other result", "other results") + ": " + strings.Join(parts, ", ")
}

// resultColumns are the columns of a table of results.
var resultColumns = []Column{
	{Title: "benchmark"},
	{Title: "unit"},
	{Title: "base", Right: true},
	{Title: "head", Right: true},
	{Title: "change", Right: true},
	{Title: "p (adj.)", Right: true},
	{Title: "noise / MDE", Right: true, Optional: 2},
	{Title: "benchstat", Right: true, Optional: 3},
	{Title: "n", Right: true, Optional: 1},
	{Title: "why", Trail: true},
}

// resultTable groups rows per package, packages in order of first
// appearance.
func resultTable(rows []gate.Result) *Table {
	t := &Table{Columns: resultColumns}
	idx := map[string]int{}
	for _, r := range rows {
		i, ok := idx[r.Package]
		if !ok {
			i = len(t.Groups)
			idx[r.Package] = i
			t.Groups = append(t.Groups, Group{Title: packageTitle(r.Package)})
		}
		t.Groups[i].Rows = append(t.Groups[i].Rows, resultRow(r))
	}
	return t
}

func packageTitle(pkg string) []Span {
	if pkg == "" {
		return []Span{strong("(no package)")}
	}
	return []Span{{Kind: SpanName, Text: pkg, Style: Strong}}
}

// resultRow is one row of a result table.
func resultRow(r gate.Result) Row {
	c := cellsOf(r)
	why := line(reasonSpans(r))
	switch {
	case r.Accepted != nil:
		why.text("; accepted on purpose by ").add(acceptedSpans(*r.Accepted)...)
	case !r.Gated && (r.Status == gate.Regression || r.Status == gate.Improvement):
		why.text(" (not gated)")
	}
	if r.Rule != nil && (r.Status != gate.Unchanged || r.Reason.Code == gate.ReasonWithinAllowance || r.Reason.Code == gate.ReasonWithinThreshold) {
		why.add(ruleSpans(*r.Rule)...)
	}
	for _, s := range r.Suspect {
		if label, ok := suspectLabel[s.Code]; ok {
			why.text(" ").add(mark(markWarn, Warn)).text(" " + label)
		}
	}
	style := Style(0)
	switch r.Status {
	case gate.Regression:
		style = Bad
	case gate.Improvement:
		style = Good
	}
	change := c.change
	for i := range change {
		change[i].Style |= style
	}
	return Row{Cells: [][]Span{{nameSpan(r.Name)}, {unitSpan(r.Unit)}, c.base, c.head, change, c.p, c.noise, c.benchstat, c.n, why}}
}

// suspectLabel is the short mark of a suspicion in the why column (the
// full message is under Warnings). Varying allocations are already the
// reason of their unstable row.
var suspectLabel = map[string]string{
	gate.SuspectOptimizedAway: "optimized away?",
	gate.SuspectShortRuns:     "runs too short",
}

// rowCells are the figures of a row.
type rowCells struct {
	base, head, change, p, noise, benchstat, n []Span
}

func one(s string) []Span { return []Span{numSpan(s)} }

func cellsOf(r gate.Result) rowCells {
	c := rowCells{change: one(none), p: one(none), noise: one(none), benchstat: one(none), n: one(sampleSizes(r))}
	if r.Kind == gate.Instructions {
		return instructionCells(r, c)
	}
	if exactKind(r.Kind) {
		c.base, c.head = one(exactCell(r.Base)), one(exactCell(r.Head))
		if r.Base != nil && r.Head != nil && r.Base.Constant && r.Head.Constant {
			d := r.Head.Min - r.Base.Min
			s := exact(d)
			if d > 0 {
				s = "+" + s
			}
			c.change = one(s)
		}
		return c
	}
	var centers []float64
	for _, s := range []*stats.Summary{r.Base, r.Head} {
		if s != nil {
			centers = append(centers, s.Center)
		}
	}
	scaler := benchunit.CommonScale(centers, benchunit.ClassOf(r.Unit))
	cell := func(s *stats.Summary) []Span {
		if s == nil {
			return one(none)
		}
		return one(scaler.Format(s.Center) + " ± " + s.PctRangeString())
	}
	c.base, c.head = cell(r.Base), cell(r.Head)
	if r.Delta != nil {
		s := pct(*r.Delta)
		if iv := r.Interval; iv != nil {
			s += " [" + pct1(iv.Low) + ", " + pct1(iv.High) + "]"
		}
		if pr := r.Paired; pr != nil && pr.Runs > 1 && r.Test == gate.TestPaired {
			// The other estimators of the rounds' runs, beside the gated one.
			var alt []string
			if pr.Estimator != stats.Median && pr.MedianRatio > 0 {
				alt = append(alt, "median "+pct(pr.MedianRatio-1))
			}
			if pr.Estimator != stats.Min && pr.MinRatio > 0 {
				alt = append(alt, "min "+pct(pr.MinRatio-1))
			}
			if len(alt) > 0 {
				s += " (" + strings.Join(alt, ", ") + ")"
			}
		}
		c.change = one(s)
	}
	if r.Paired != nil && (r.Test == gate.TestPaired || (r.Test == "" && r.Status == gate.Inconclusive)) {
		c.n = one(strconv.Itoa(r.Paired.N))
	}
	if r.P != nil {
		s := FormatP(*r.P)
		if r.PAdjusted != nil && FormatP(*r.PAdjusted) != s {
			s += " (" + FormatP(*r.PAdjusted) + ")"
		}
		c.p = one(s)
	}
	if r.Noise != nil {
		s := absPct1(*r.Noise)
		if r.MDE != nil {
			s += " / " + absPct1(*r.MDE)
		}
		c.noise = one(s)
		if r.TooNoisy {
			c.noise = []Span{mark(markWarn, Warn), txt(" "), numSpan(s)}
		}
	}
	if r.Base != nil && r.Head != nil && (r.Comparison.Delta != nil || r.Comparison.P != nil) {
		var parts []string
		if r.Comparison.Delta != nil {
			parts = append(parts, pct(*r.Comparison.Delta))
		}
		if r.Comparison.P != nil {
			parts = append(parts, pString(*r.Comparison.P))
		}
		c.benchstat = one(strings.Join(parts, " "))
	}
	return c
}

// exactKind reports whether rows of kind k are judged by exact checks.
func exactKind(k gate.Kind) bool { return k == gate.Allocs || k == gate.Bytes }

func exactCell(s *stats.Summary) string {
	switch {
	case s == nil:
		return none
	case s.Constant:
		return exact(s.Min)
	default:
		return exact(s.Min) + "–" + exact(s.Max)
	}
}

func sampleSizes(r gate.Result) string {
	switch {
	case r.Base != nil && r.Head != nil && r.Base.N != r.Head.N:
		return strconv.Itoa(r.Base.N) + "+" + strconv.Itoa(r.Head.N)
	case r.Base != nil:
		return strconv.Itoa(r.Base.N)
	case r.Head != nil:
		return strconv.Itoa(r.Head.N)
	}
	return none
}

func failureOutputs(fs []gate.Failure) *Outputs {
	o := &Outputs{}
	for _, f := range fs {
		h := line{{Kind: SpanText, Text: f.Side, Style: Strong}}
		h.text(" · ")
		if f.Package == "" {
			h.text("(no package)")
		} else {
			h.name(f.Package)
		}
		h.text(" · ")
		if f.Name == "" {
			h.text("(whole package)")
		} else {
			h.name(strings.TrimPrefix(f.Name, "Benchmark"))
		}
		o.Items = append(o.Items, Output{Heading: h, Text: f.Message})
	}
	return o
}

// maxSuspectLines is the number of per-row suspicion lines in the
// warnings.
const maxSuspectLines = 20

func warningList(v gate.Verdict, m Meta) *List {
	l := &List{}
	for _, w := range v.Warnings {
		l.Items = append(l.Items, warningSpans(w, v.Scaling))
	}
	for _, w := range m.Warnings {
		l.Items = append(l.Items, []Span{prose(w)})
	}
	// What each suspicious benchmark does wrong, for the first few (the
	// verdict's warnings above name them all; the JSON has every one).
	shown, more := 0, 0
	for _, r := range v.Results {
		for _, sp := range r.Suspect {
			if shown == maxSuspectLines {
				more++
				continue
			}
			shown++
			n := r.Name
			if r.Package != "" {
				n = r.Package + "." + n
			}
			l.Items = append(l.Items, append([]Span{nameSpan(n), txt(" "), unitSpan(r.Unit), txt(": ")}, suspicionSpans(sp, r.Unit)...))
		}
	}
	if more > 0 {
		l.Items = append(l.Items, []Span{txt("… and " + plural(more, "more suspicion", "more suspicions") + " (every one is in the JSON report)")})
	}
	// benchmath's per-row caveats, deduplicated.
	var msgs []string
	count := map[string]int{}
	for _, r := range v.Results {
		if exactKind(r.Kind) || r.Kind == gate.Instructions {
			continue // no interval or test is shown for exact checks
		}
		seen := map[string]bool{}
		for _, list := range [][]string{r.Warnings, summaryWarnings(r.Base), summaryWarnings(r.Head)} {
			for _, w := range list {
				if seen[w] {
					continue
				}
				seen[w] = true
				if count[w] == 0 {
					msgs = append(msgs, w)
				}
				count[w]++
			}
		}
	}
	for _, w := range msgs {
		l.Items = append(l.Items, []Span{prose(w), txt(" (" + plural(count[w], "row", "rows") + ")")})
	}
	return l
}

func summaryWarnings(s *stats.Summary) []string {
	if s == nil {
		return nil
	}
	return s.Warnings
}

// legend explains the columns of the tables.
func legend() Paragraph {
	return Paragraph{Spans: []Span{
		txt("Columns: "), strong("change"), txt(" is head/base − 1: for time/op measured in interleaved rounds the paired (Hodges–Lehmann) estimate of the rounds' values (each side's short runs of a round reduced by the estimator; the median's and the minimum's estimates in brackets) with its interval at the level one benchmark must reach after the correction (simultaneous over the time/op rows: an interval beyond the threshold is a significant change), otherwise the change of the medians; "),
		strong("p (adj.)"), txt(" the p-value the row was judged on (paired Wilcoxon signed-rank, or benchstat's U test), adjusted for the number of time/op comparisons; "),
		strong("noise / MDE"), txt(" the round-to-round noise of the ratio and the smallest change this run could detect ("), mark(markWarn, Warn), txt(": larger than the threshold); "),
		strong("benchstat"), txt(" the change of the medians and the U-test p, as benchstat prints them."),
	}}
}

func reproduce(m Meta) Paragraph {
	base, head := m.RawBase, m.RawHead
	if base == "" {
		base = "base.txt"
	}
	if head == "" {
		head = "head.txt"
	}
	return Paragraph{Spans: []Span{
		txt("Reproduce the numbers: "), codeText("benchgate compare " + shellQuote(base) + " " + shellQuote(head)),
		txt("; benchstat's (base, head, benchstat): "), codeText("benchstat -ignore round " + shellQuote(base) + " " + shellQuote(head)),
	}}
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=+-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// chartOf returns the chart of the largest time/op changes, or nil when
// fewer than 2 rows have a paired estimate with an interval. Names shared
// by rows of different packages are qualified with the package's last
// element.
func chartOf(results []gate.Result) *Chart {
	rows, total := chartRows(results)
	if len(rows) < 2 {
		return nil
	}
	count := map[string]int{}
	for _, r := range rows {
		count[r.Name]++
	}
	c := &Chart{Total: total}
	for _, r := range rows {
		name := r.Name
		if count[name] > 1 && r.Package != "" {
			name = path.Base(r.Package) + "." + name
		}
		c.Bars = append(c.Bars, Bar{Label: name, Change: r.Paired.Ratio - 1, Low: r.Paired.Low - 1, High: r.Paired.High - 1})
	}
	return c
}

func chartIntro(c *Chart) Paragraph {
	s := "Bars: the size of the paired change head/base − 1 in % (red: slower, green: faster); grey lines: the bounds of its 95% interval. "
	if c.Total > len(c.Bars) {
		s += "The " + strconv.Itoa(len(c.Bars)) + " largest of " + strconv.Itoa(c.Total) + " time/op rows, "
	} else {
		s += "All " + strconv.Itoa(c.Total) + " time/op rows with a paired interval, "
	}
	return Paragraph{Spans: []Span{txt(s + "regressions first, then improvements.")}}
}

// acceptedSpans says who accepted a regression and how: "@login (label
// NAME, added at abc1234)", or only how when nobody verified who (a
// trailer in a local run, --accept). The trailer or label is untrusted
// text.
func acceptedSpans(a gate.Acceptance) []Span {
	var l line
	if a.By == "" {
		l.add(nameSpan(a.Via))
		return l
	}
	l.add(prose(a.By)).text(" (").add(nameSpan(a.Via)).text(")")
	return l
}

// ruleSpans names the policy rule of a row: where it is and its reason.
func ruleSpans(r gate.RuleRef) []Span {
	var l line
	l.text(" [rule ").add(nameSpan(r.Source))
	if r.Reason != "" {
		l.text(": ").add(prose(r.Reason))
	}
	l.text("]")
	return l
}

// policyBlocks says which policy file was in force and what head's copy
// would change (it does not apply to this run: a pull request cannot
// loosen its own gate).
func policyBlocks(p *PolicyInfo) []Block {
	if p == nil {
		return nil
	}
	var bs []Block
	if p.Source != "" {
		bs = append(bs, Paragraph{Spans: []Span{txt("Policy: "), nameSpan(p.Source), txt(" (docs/policy.md).")}})
	}
	if p.HeadError != "" {
		bs = append(bs, Paragraph{Alert: true, Spans: []Span{
			mark(markFail, Bad), txt(" "), strong("Head's policy file does not parse"),
			txt(": after this change is merged every run would stop on it (exit 2), so it fails the gate: "), prose(p.HeadError),
		}})
	}
	if len(p.HeadChanges) > 0 {
		spans := []Span{mark(markWarn, Warn), txt(" "), strong("Head changes the policy file"),
			txt(": this run used base's; the changes take effect once merged: ")}
		for i, c := range p.HeadChanges {
			if i > 0 {
				spans = append(spans, txt("; "))
			}
			spans = append(spans, prose(c))
		}
		if n := len(p.HeadAffected); n > 0 {
			spans = append(spans, txt(". They would change the settings of "+plural(n, "benchmark", "benchmarks")+": "))
			for i, b := range p.HeadAffected {
				if i > 0 {
					spans = append(spans, txt(", "))
				}
				if i == 20 {
					spans = append(spans, txt("and "+strconv.Itoa(n-20)+" more"))
					break
				}
				spans = append(spans, Span{Kind: SpanName, Text: b})
			}
		}
		bs = append(bs, Paragraph{Alert: true, Spans: append(spans, txt("."))})
	}
	return bs
}
