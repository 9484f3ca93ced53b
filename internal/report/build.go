package report

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/english"
	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/stats"
	"golang.org/x/perf/benchunit"
)

// Meta is what a report says besides the verdict: the run's record (the
// commits, the settings and the facts its stages learned, made once by
// package pipeline), the tool that wrote the report, and the ledger's
// trends of the rows that gate or changed (docs/ledger.md; nil without a
// ledger).
type Meta struct {
	pipeline.Record
	Tool   string // "benchgate vX"
	Trends []Trend
	// Notes are what publishing the report could not do (the action's
	// pull request comment), and Deprecated the old action inputs the
	// workflow still sets: both for the job summary, not the comment.
	Notes      []Note
	Deprecated []config.DeprecatedInput
}

// The priorities of the sections under a size limit: how the run was
// made (a few lines; its legend, last, is cut first) and the regressions
// are kept first, the chart is dropped first.
const (
	prioRun = iota
	prioRegressions
	prioFailures
	prioWarnings
	prioImprovements
	prioScaling
	prioRest
	prioChart
)

// Build makes the report of a verdict and the metadata of its run, in
// layers: the headline (the verdict and what decides it, in words) and a
// line of counts; the alerts a reader can act on; the rows that gate
// (every regression, gated ones first, and every removal and
// inconclusive row that fails the gate), failures with their output and
// improvements, each row with a Detail (its statistics, where the change
// comes from, the command that reproduces it); then, collapsed, every
// other row (unchanged, too noisy, unstable, new, removed, vanished on
// confirmation), the chart of the largest time/op changes, the warnings
// and how the run was made. Rows are grouped per package.
func Build(v gate.Verdict, m Meta) *Document {
	d := &Document{Pass: v.Pass}
	d.Title = headline(v)
	d.Head = headBlocks(v, m)

	var regs, imps, rest []gate.Result
	for _, r := range v.Results {
		switch {
		case r.Status == gate.Regression || (r.Fails() && (r.Status == gate.Removed || r.Status == gate.Inconclusive)):
			regs = append(regs, r)
		case r.Status == gate.Improvement:
			imps = append(imps, r)
		default:
			rest = append(rest, r)
		}
	}
	// Gate-failing rows first within the regressions; the rest by status.
	slices.SortStableFunc(regs, func(a, b gate.Result) int { return boolRank(b.Fails()) - boolRank(a.Fails()) })
	slices.SortStableFunc(rest, func(a, b gate.Result) int { return restRankOf(a) - restRankOf(b) })
	fails := append(v.HeadFailures(), baseFailures(v.Failures)...)

	add := func(s *Section) {
		if s.Body.items() > 0 {
			d.Sections = append(d.Sections, s)
		}
	}
	add(&Section{Title: []Span{txt("Regressions (" + strconv.Itoa(len(regs)) + ")")}, Body: detailed(resultTable(regs, false), regs, m), Priority: prioRegressions, What: "regressions"})
	add(&Section{Title: []Span{txt("Failures (" + strconv.Itoa(len(fails)) + ")")}, Body: failureOutputs(fails), Priority: prioFailures, What: "failures"})
	add(&Section{Title: []Span{txt("Improvements (" + strconv.Itoa(len(imps)) + ")")}, Body: detailed(resultTable(imps, false), imps, m), Priority: prioImprovements, What: "improvements"})
	if s := scalingSection(v); s != nil {
		add(s)
	}
	add(&Section{Title: []Span{txt(restSummary(rest))}, Collapsed: true, Body: detailed(resultTable(rest, true), rest, m), Priority: prioRest, What: "other results"})
	if c := chartOf(v.Results); c != nil {
		add(&Section{Title: []Span{txt("Chart of the largest time/op changes")}, Collapsed: true, Intro: []Block{chartIntro(c)}, Body: c, Priority: prioChart, Whole: "the chart of the largest changes"})
	}
	if l := warningList(v, m); len(l.Items) > 0 {
		add(&Section{Title: []Span{txt("Warnings (" + strconv.Itoa(len(l.Items)) + ")")}, Collapsed: true, Body: l, Priority: prioWarnings, What: "warnings"})
	}
	add(&Section{Title: []Span{txt("How the run was made")}, Collapsed: true, Body: runList(v, m), Priority: prioRun, What: "lines on the run"})
	return d
}

// headline is the verdict and what decides it: the rows and failures
// that fail the gate, by name ("benchgate: fail — 2 regressions block
// this PR: Parse time +8.1%; Encode +1 allocs/op"), or that nothing
// does.
func headline(v gate.Verdict) []Span {
	t := []Span{mark(markPass, Good), txt(" "), {Kind: SpanText, Text: "benchgate: pass", Style: Strong | Good}}
	if !v.Pass {
		t = []Span{mark(markFail, Bad), txt(" "), {Kind: SpanText, Text: "benchgate: fail", Style: Strong | Bad}}
	}
	if len(v.Results) == 0 && len(v.Failures) == 0 {
		return append(t, txt(" — no benchmark results"))
	}
	var blocking []gate.Result
	for _, r := range v.Results {
		if r.Fails() && r.Status != gate.Failed { // a failed row is its failure's
			blocking = append(blocking, r)
		}
	}
	heads := v.HeadFailures()
	if len(blocking) == 0 && len(heads) == 0 {
		if v.Pass {
			return append(t, txt(" — nothing blocks this PR"))
		}
		return t
	}
	// The blocking rows, per benchmark: "Decode-8 +16 B/op, +1 allocs/op".
	type item struct {
		name    string
		changes [][]Span
	}
	var items []*item
	idx := map[string]*item{}
	addItem := func(pkg, name string, change []Span) {
		k := pkg + "\x00" + name
		it, ok := idx[k]
		if !ok {
			it = &item{name: name}
			idx[k] = it
			items = append(items, it)
		}
		it.changes = append(it.changes, change)
	}
	for _, r := range blocking {
		addItem(r.Package, r.Name, blockingChange(r))
	}
	for _, f := range heads {
		addItem(f.Package, strings.TrimPrefix(f.Name, "Benchmark"), []Span{txt("failed on head")})
	}
	t = append(t, txt(" — "+blockingCount(blocking, len(heads))+" this PR: "))
	const shown = 3
	for i, it := range items {
		if i == shown {
			t = append(t, txt("; and "+english.Plural(len(items)-shown, "more benchmark", "more benchmarks")))
			break
		}
		if i > 0 {
			t = append(t, txt("; "))
		}
		if it.name == "" {
			t = append(t, txt("(whole package)"))
		} else {
			t = append(t, nameSpan(it.name))
		}
		for j, c := range it.changes {
			if j > 0 {
				t = append(t, txt(","))
			}
			t = append(t, txt(" "))
			t = append(t, c...)
		}
	}
	return t
}

// blockingCount says what blocks: "2 regressions block", "1 regression
// and 1 head failure block".
func blockingCount(rows []gate.Result, headFailures int) string {
	regs, other := 0, 0
	for _, r := range rows {
		if r.Status == gate.Regression {
			regs++
		} else {
			other++
		}
	}
	var parts []string
	if regs > 0 {
		parts = append(parts, english.Plural(regs, "regression", "regressions"))
	}
	if other > 0 {
		parts = append(parts, english.Plural(other, "failing row", "failing rows"))
	}
	if headFailures > 0 {
		parts = append(parts, english.Plural(headFailures, "head failure", "head failures"))
	}
	verb := " block"
	if regs+other+headFailures == 1 {
		verb = " blocks"
	}
	return strings.Join(parts, " and ") + verb
}

// blockingChange is a failing row's change in a few words: "time
// +8.1%", "+1 allocs/op", "removed".
func blockingChange(r gate.Result) []Span {
	bad := func(s string) Span { return Span{Kind: SpanNum, Text: s, Style: Bad} }
	switch {
	case r.Status == gate.Removed:
		return []Span{txt("removed")}
	case r.Status == gate.Inconclusive:
		return []Span{unitSpan(r.Unit), txt(" could not be judged")}
	case exactKind(r.Kind) && r.Base != nil && r.Head != nil:
		return []Span{bad(signed(r.Head.Min - r.Base.Min)), txt(" "), unitSpan(r.Unit)}
	case r.Kind == gate.Time && r.Delta != nil:
		return []Span{txt("time "), bad(pct1(*r.Delta))}
	case r.Delta != nil:
		return []Span{unitSpan(r.Unit), txt(" "), bad(pct1(*r.Delta))}
	}
	return []Span{unitSpan(r.Unit)}
}

// headBlocks are the line of counts and the alerts a reader can act on,
// each once: different toolchains, an interrupted run, time rows that
// could not be judged, a policy file that head breaks or changes.
func headBlocks(v gate.Verdict, m Meta) []Block {
	bs := []Block{Paragraph{Spans: []Span{txt(headerCounts(v))}}}
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
	bs = append(bs, deprecatedAlert(m.Deprecated)...)
	return append(bs, policyAlerts(m.Policy)...)
}

// runList is how the run was made: the sides, the rounds, the policy,
// the toolchains, the caller's notes, what the columns mean and how to
// reproduce the verdict.
func runList(v gate.Verdict, m Meta) *List {
	l := &List{}
	for _, it := range metaItems(m, v) {
		l.Items = append(l.Items, it)
	}
	if p := m.Policy; p != nil && p.Source != "" {
		l.Items = append(l.Items, []Span{txt("Policy: "), nameSpan(p.Source), txt(" (docs/policy.md).")})
	}
	l.Items = append(l.Items, runItems(m.Run)...)
	for _, n := range m.Notes {
		l.Items = append(l.Items, []Span{prose(NoteText(n))})
	}
	l.Items = append(l.Items, reproduce(m).Spans)
	if len(v.Results) > 0 {
		l.Items = append(l.Items, legend().Spans)
		if hasInstructions(v) {
			l.Items = append(l.Items, instructionsLegend(v.Policy).Spans)
		}
	}
	return l
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
			parts = append(parts, english.Plural(n, one, many))
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
// the most runs of the verdict's paired rows and their estimator.
func runsOf(v gate.Verdict) (int, string) {
	runs, est := 0, ""
	for _, r := range v.Results {
		if r.Paired != nil {
			runs = max(runs, r.Paired.Runs)
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

// metaItems are the run's settings, one item each: the sides, the
// rounds, the benchtime, the runs, the seed, the thresholds, the
// correction, the looks, the confirmation, the tool and the toolchains.
func metaItems(m Meta, v gate.Verdict) [][]Span {
	p := v.Policy
	var items [][]Span
	item := func(spans ...Span) { items = append(items, spans) }
	sides := line(side("base", m.BaseRef, m.BaseSHA))
	sides.text(" → ").add(side("head", m.HeadRef, m.HeadSHA)...)
	item(sides...)
	if m.Count > 0 {
		item(txt(english.Plural(m.Count, "round", "rounds")))
	}
	if m.Benchtime != "" {
		item(txt("benchtime "), nameSpan(m.Benchtime))
	}
	if runs, est := runsOf(v); runs > 1 {
		item(txt(strconv.Itoa(runs) + " runs per side per round, their " + est))
	}
	if m.Seed != 0 {
		item(txt("seed "), numSpan(strconv.FormatInt(m.Seed, 10)))
	}
	item(txt("threshold "), numSpan(fmtNum(100*p.Threshold)+"%"), txt(", α="), numSpan(fmtNum(p.Alpha)))
	if hasInstructions(v) {
		item(txt("instructions/op threshold "), numSpan(fmtNum(100*p.InstructionThreshold)+"%"))
	}
	if corr := correctionName(v.Correction); corr != "" && v.Family > 1 {
		item(txt(corr + " over " + english.Plural(v.Family, "time/op comparison", "time/op comparisons")))
	}
	if len(p.Looks) > 0 {
		item(txt("sequential looks after rounds "), numSpan(joinInts(p.Looks)))
	}
	if v.Confirmed {
		item(txt("promising time rows re-measured and decided on the pooled rounds"))
	}
	if m.Tool != "" {
		item(prose(m.Tool))
	}
	switch {
	case m.BaseGo == "" && m.HeadGo == "":
	case m.BaseGo == m.HeadGo:
		item(txt("Go: "), goVer(m.BaseGo), txt(" (both sides)"))
	default:
		item(txt("Go: base "), goVer(m.BaseGo), txt(", head "), goVer(m.HeadGo))
	}
	return items
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
	gate.Failed: 0, gate.Inconclusive: 1, gate.Removed: 2, gate.New: 3, gate.Unstable: 4, gate.Unavailable: 4, gate.Regression: 5, gate.Improvement: 5, gate.Ignored: 7, gate.Unchanged: 8,
}

// restRankOf ranks a collapsed row: a regression that vanished on
// confirmation and a row too noisy to judge before the unchanged ones.
func restRankOf(r gate.Result) int {
	switch {
	case r.Confirmed != nil && !*r.Confirmed:
		return 6
	case r.TooNoisy:
		return 6
	}
	return restRank[r.Status]
}

// statusWord is a collapsed row's status in a word or two.
func statusWord(r gate.Result) string {
	switch {
	case r.Confirmed != nil && !*r.Confirmed:
		return "vanished"
	case r.TooNoisy && r.Status == gate.Unchanged:
		return "too noisy"
	}
	return string(r.Status)
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
	counts := map[string]int{}
	var order []string
	for _, r := range rest {
		w := statusWord(r)
		if counts[w] == 0 {
			order = append(order, w)
		}
		counts[w]++
	}
	parts := make([]string, len(order))
	for i, w := range order {
		parts[i] = strconv.Itoa(counts[w]) + " " + w
	}
	return english.Plural(len(rest), "other result", "other results") + ": " + strings.Join(parts, ", ")
}

// resultColumns are the columns of a table of results: in Markdown the
// status and the five that say what changed (the rest is in each row's
// Detail); in the brief text report those five; in the full one all but
// the status.
func resultColumns(rest bool) []Column {
	status := Column{Markdown: true}
	if rest {
		status.Title = "status"
	}
	return []Column{
		status,
		{Title: "benchmark", Short: maxCellName},
		{Title: "unit"},
		{Title: "base", Right: true},
		{Title: "head", Right: true},
		{Title: "change", Right: true},
		{Title: "p (adj.)", Right: true, Full: true},
		{Title: "noise / MDE", Right: true, Optional: 2, Full: true},
		{Title: "benchstat", Right: true, Optional: 3, Full: true},
		{Title: "n", Right: true, Optional: 1, Full: true},
		{Title: "why", Trail: true, Full: true},
	}
}

// maxCellName is the most runes of a benchmark name in a Markdown table
// cell: with it a row of six columns fits a 760 px column.
const maxCellName = 32

// resultTable groups rows per package, packages in order of first
// appearance; rest says the rows are the collapsed ones (a status word,
// not a mark).
func resultTable(rows []gate.Result, rest bool) *Table {
	t := &Table{Columns: resultColumns(rest)}
	idx := map[string]int{}
	for _, r := range rows {
		i, ok := idx[r.Package]
		if !ok {
			i = len(t.Groups)
			idx[r.Package] = i
			t.Groups = append(t.Groups, Group{Title: packageTitle(r.Package)})
		}
		t.Groups[i].Rows = append(t.Groups[i].Rows, resultRow(r, rest))
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
func resultRow(r gate.Result, rest bool) Row {
	c := cellsOf(r)
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
	status := []Span{statusMark(r)}
	if rest {
		status = []Span{txt(statusWord(r))}
	}
	return Row{Cells: [][]Span{status, {nameSpan(r.Name)}, unitCell(r), c.base, c.head, change, c.p, c.noise, c.benchstat, c.n, rowReason(r)}}
}

// unitCell is a row's unit; a custom metric's says its direction ("B/s ↑
// better", "bytes-out/op ↓ better"): time, allocations and bytes are
// always lower-is-better, a custom unit may be either.
func unitCell(r gate.Result) []Span {
	if r.Kind != gate.Other {
		return []Span{unitSpan(r.Unit)}
	}
	arrow := " ↓ better"
	if r.Direction() == "higher" {
		arrow = " ↑ better"
	}
	return []Span{unitSpan(r.Unit), txt(arrow)}
}

// statusMark marks a row of the primary tables: fails the gate, a
// regression that does not (ungated, accepted), an improvement.
func statusMark(r gate.Result) Span {
	switch {
	case r.Fails():
		return mark(markFail, Bad)
	case r.Status == gate.Improvement:
		return mark(markPass, Good)
	}
	return mark(markWarn, Warn)
}

// rowReason says why a row has its status: the reason, its acceptance or
// that it is not gated, the policy rule, the suspicions.
func rowReason(r gate.Result) []Span {
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
	return why
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
	// spread are base and head with their spread ("1.001µ ± 0%"), alt
	// the other estimators' changes ("median +1.02%, min +0.98%"): for
	// the row's Detail.
	spread [2]string
	alt    string
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
			c.change = one(s + " exact")
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
		return one(scaler.Format(s.Center))
	}
	c.base, c.head = cell(r.Base), cell(r.Head)
	for i, s := range []*stats.Summary{r.Base, r.Head} {
		if s != nil {
			c.spread[i] = scaler.Format(s.Center) + " ± " + s.PctRangeString()
		}
	}
	if r.Delta != nil {
		s := pct(*r.Delta)
		if iv := r.Interval; iv != nil {
			s += " [" + strings.TrimSuffix(pct1(iv.Low), "%") + ", " + strings.TrimSuffix(pct1(iv.High), "%") + "]"
		}
		if r.Reason.Code == gate.ReasonAmountChange {
			s += " exact" // the rate's per-op amount: the change judged
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
			c.alt = strings.Join(alt, ", ")
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
	for _, w := range runWarnings(m.Run) {
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
		l.Items = append(l.Items, []Span{txt("… and " + english.Plural(more, "more suspicion", "more suspicions") + " (every one is in the JSON report)")})
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
		l.Items = append(l.Items, []Span{prose(w), txt(" (" + english.Plural(count[w], "row", "rows") + ")")})
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
		txt("Columns: "), strong("change"), txt(" is head/base − 1: for time/op measured in interleaved rounds the paired (Hodges–Lehmann) estimate of the rounds' values (each side's short runs of a round reduced by the estimator; the other estimators' in the row's statistics) with its interval in brackets at the level one benchmark must reach after the correction (simultaneous over the time/op rows: an interval beyond the threshold is a significant change), otherwise the change of the medians; for allocations the difference, exact when it is the same in every round; "),
		strong("p (adj.)"), txt(" the p-value the row was judged on (paired Wilcoxon signed-rank, or benchstat's U test), adjusted for the number of time/op comparisons; "),
		strong("noise / MDE"), txt(" the round-to-round noise of the ratio and the smallest change this run could detect ("), mark(markWarn, Warn), txt(": larger than the threshold); "),
		strong("benchstat"), txt(" the change of the medians and the U-test p, as benchstat prints them."),
	}}
}

func reproduce(m Meta) Paragraph {
	if d := m.RawDir; d != "" {
		base, head := path.Join(d, "base.txt"), path.Join(d, "head.txt")
		return Paragraph{Spans: []Span{
			txt("Reproduce the verdict: "), codeText("benchgate compare " + explain.Quote(d)),
			txt("; benchstat's numbers: "), codeText("benchstat -ignore round " + explain.Quote(base) + " " + explain.Quote(head)),
		}}
	}
	base, head := rawFiles(m)
	return Paragraph{Spans: []Span{
		txt("Reproduce the numbers: "), codeText("benchgate compare " + explain.Quote(base) + " " + explain.Quote(head)),
		txt("; benchstat's (base, head, benchstat): "), codeText("benchstat -ignore round " + explain.Quote(base) + " " + explain.Quote(head)),
	}}
}

// rawFiles are the paths of the run's raw files, "base.txt" and
// "head.txt" when unknown.
func rawFiles(m Meta) (string, string) {
	if d := m.RawDir; d != "" {
		return path.Join(d, "base.txt"), path.Join(d, "head.txt")
	}
	base, head := m.RawBase, m.RawHead
	if base == "" {
		base = "base.txt"
	}
	if head == "" {
		head = "head.txt"
	}
	return base, head
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

// policyAlerts are the alerts on head's copy of the policy file: it does
// not parse, or it changes the policy (it does not apply to this run: a
// pull request cannot loosen its own gate). The file in force is in the
// run's list.
func policyAlerts(p *pipeline.PolicyInfo) []Block {
	if p == nil {
		return nil
	}
	var bs []Block
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
			spans = append(spans, txt(". They would change the settings of "+english.Plural(n, "benchmark", "benchmarks")+": "))
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
