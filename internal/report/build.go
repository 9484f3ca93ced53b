package report

import (
	"math"
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
	// Request is what the headline calls the change judged: "PR" on a
	// pull request, "MR" on a merge request; "" (a local run, compare, a
	// push) says "this change".
	Request string
}

// subject is the change judged, for the headline: "this PR", "this
// change".
func (m Meta) subject() string {
	if m.Request == "" {
		return "this change"
	}
	return "this " + m.Request
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
	prioBlind
	prioScaling
	prioRest
	prioChart
)

// Build makes the report of a verdict and the metadata of its run, in
// layers: the headline (the verdict and what decides it, in words) and a
// line of counts; the alerts a reader can act on; the rows that gate
// (every regression, gated ones first, and every removal and
// inconclusive row that fails the gate), failures with their output and
// improvements, and the time rows that could not see a change (too noisy,
// too few rounds), each row with a Detail (its statistics, where the
// change comes from, the command that reproduces it); then, collapsed,
// every other row (unchanged, unstable, new, removed, not confirmed on
// re-run), the chart of the largest time/op changes, the warnings
// and how the run was made. Rows are grouped per package.
func Build(v gate.Verdict, m Meta) *Document {
	d := &Document{Pass: v.Pass}
	d.Title = headline(v, m)
	d.Head = headBlocks(v, m)

	var regs, imps, blind, rest []gate.Result
	for _, r := range v.Results {
		switch {
		case r.Status == gate.Regression || (r.Fails() && (r.Status == gate.Removed || r.Status == gate.Inconclusive)):
			regs = append(regs, r)
		case r.Status == gate.Improvement:
			imps = append(imps, r)
		case isBlind(r):
			blind = append(blind, r)
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
	add(&Section{Title: []Span{txt(blindTitle(blind, v.Policy.Threshold))}, Body: detailed(resultTable(blind, false), blind, m), Priority: prioBlind, What: "rows that could not see a change"})
	if s := scalingSection(v); s != nil {
		add(s)
	}
	add(&Section{Title: []Span{txt("Other rows (" + strconv.Itoa(len(rest)) + ")")}, Collapsed: true, Body: detailed(resultTable(rest, true), rest, m), Priority: prioRest, What: "other rows"})
	if c := chartOf(v.Results); c != nil {
		add(&Section{Title: []Span{txt("Chart of the largest time/op changes")}, Collapsed: true, Intro: []Block{chartIntro(c)}, Body: c, Priority: prioChart, Whole: "the chart of the largest changes"})
	}
	if l := warningList(v, m); len(l.Items) > 0 {
		add(&Section{Title: []Span{txt("Warnings (" + strconv.Itoa(len(l.Items)) + ")")}, Collapsed: true, Body: l, Priority: prioWarnings, What: "warnings"})
	}
	add(&Section{Title: []Span{txt("How the run was made")}, Collapsed: true, Body: runList(v, m), Priority: prioRun, What: "lines on the run"})
	return d
}

// headline is the verdict and what decides it: the benchmarks and
// failures that fail the gate, by name ("benchgate: fail — 2 benchmarks
// block this PR: Parse time +8.12%; Encode +1 allocs/op"), or that
// nothing does, and then, on a pass, the time/op rows that could not
// have seen a change ("5 of 5 time/op rows too noisy to see 5%").
// Changes are rounded as the tables round them.
func headline(v gate.Verdict, m Meta) []Span {
	t := []Span{mark(markPass, Good), txt(" "), {Kind: SpanText, Text: "benchgate: pass", Style: Strong | Good}}
	if !v.Pass {
		t = []Span{mark(markFail, Bad), txt(" "), {Kind: SpanText, Text: "benchgate: fail", Style: Strong | Bad}}
	}
	if len(v.Results) == 0 && len(v.Failures) == 0 {
		return append(t, txt(" — no benchmark results"))
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
	for _, r := range v.Results {
		if r.Fails() && r.Status != gate.Failed { // a failed row is its failure's
			addItem(r.Package, r.Name, blockingChange(r))
		}
	}
	for _, f := range v.HeadFailures() {
		if v.Policy.FailOnFailure {
			addItem(f.Package, strings.TrimPrefix(f.Name, "Benchmark"), []Span{txt("failed on head")})
		}
	}
	if !v.Policy.FailOnFailure {
		for _, r := range v.Results {
			if r.Status == gate.Failed && r.Fails() { // a required benchmark's
				if _, ok := idx[r.Package+"\x00"+r.Name]; !ok {
					addItem(r.Package, r.Name, []Span{txt("failed on head")})
				}
			}
		}
	}
	if v.Policy.FailOnScaling {
		for _, s := range v.ScalingWorse() {
			last := len(s.CPUs) - 1
			addItem(s.Package, s.Name, []Span{txt("scales worse (cpu " + strconv.Itoa(s.CPUs[last]) + ": "), numSpan(times(s.Base[last]) + " → " + times(s.Head[last])), txt(")")})
		}
	}
	// What fails the gate without a row.
	var others [][]Span
	for _, w := range v.Warnings {
		switch {
		case w.Code == gate.WarnRequiredMissing && w.Gated:
			others = append(others, []Span{txt("no benchmark on head matches the required "), nameSpan(w.Detail), txt(" ("), nameSpan(w.Source), txt(")")})
		case w.Code == gate.WarnHeadPolicyInvalid && w.Gated:
			others = append(others, []Span{txt("head's policy file does not parse")})
		}
	}
	if len(items) == 0 && len(others) == 0 {
		if !v.Pass {
			return t
		}
		if v.Count(gate.SameBinary) == len(v.Results) && len(v.Failures) == 0 {
			return append(t, txt(" — nothing to measure: the test binaries run the same code on both sides"))
		}
		what := "no regression found"
		if len(v.Regressions()) > 0 {
			what = "nothing blocks " + m.subject() // accepted or not gated
		}
		return append(append(t, txt(" — "+what)), blindSpans(v)...)
	}
	t = append(t, txt(" — "))
	if len(items) > 0 {
		verb := " block "
		if len(items) == 1 {
			verb = " blocks "
		}
		t = append(t, txt(english.Plural(len(items), "benchmark", "benchmarks")+verb+m.subject()+": "))
	}
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
	for i, o := range others {
		if i > 0 || len(items) > 0 {
			t = append(t, txt("; "))
		}
		t = append(t, o...)
	}
	return t
}

// isBlind reports whether r is a time/op row that could not have seen a
// change of its threshold ([gate.Verdict.Blind]).
func isBlind(r gate.Result) bool {
	return r.Kind == gate.Time && (r.Status == gate.Inconclusive || r.Status == gate.Unchanged && r.TooNoisy)
}

// blindTitle is the title of the section of the rows that could not see
// a change: "Could not see a 5% change (5)".
// threshold is the policy's; a row whose rule sets another says "a change
// of their threshold".
func blindTitle(rows []gate.Result, threshold float64) string {
	what := "a " + fmtNum(100*threshold) + "% change"
	for _, r := range rows {
		if r.Status != gate.Inconclusive && r.Reason.Threshold != threshold { // an inconclusive row's reason has none
			what = "a change of their threshold"
		}
	}
	return "Could not see " + what + " (" + strconv.Itoa(len(rows)) + ")"
}

// blindSpans says, after a pass, which time/op rows could not have seen a
// change: "; 5 of 5 time/op rows too noisy to see 5% (the smallest change
// they could see: 37.2% to 690.1%)", "; 1 of 14 time/op rows not judged
// (too few rounds)"; nothing when every row could.
func blindSpans(v gate.Verdict) []Span {
	judged, blind := timeRows(v)
	if len(blind) == 0 {
		return nil
	}
	var noisy []gate.Result
	notJudged := 0
	for _, r := range blind {
		if r.Status == gate.Inconclusive {
			notJudged++
		} else {
			noisy = append(noisy, r)
		}
	}
	var l line
	of := strconv.Itoa(judged)
	if n := len(noisy); n > 0 {
		thr := noisy[0].Reason.Threshold
		same := true
		lo, hi, inf := math.Inf(1), 0.0, 0
		for _, r := range noisy {
			same = same && r.Reason.Threshold == thr
			switch {
			case r.MDE == nil || math.IsInf(*r.MDE, 1):
				inf++
			default:
				lo, hi = math.Min(lo, *r.MDE), math.Max(hi, *r.MDE)
			}
		}
		l.text("; ").num(strconv.Itoa(n)).text(" of " + of + " time/op " + plural(judged, "row", "rows") + " too noisy to see ")
		if same {
			l.num(fmtNum(100*thr) + "%")
		} else {
			l.text("their threshold")
		}
		they := "they"
		if n == 1 {
			they = "it"
		}
		switch {
		case inf == n:
			l.text(" (" + they + " could see no change at all)")
		case lo == hi:
			l.text(" (the smallest change " + they + " could see: ").num(absPct1(lo))
		default:
			l.text(" (the smallest change " + they + " could see: ").num(absPct1(lo) + " to " + absPct1(hi))
		}
		switch {
		case inf == n:
		case inf > 0:
			l.text(", or none)")
		default:
			l.text(")")
		}
	}
	if notJudged > 0 {
		l.text("; ").num(strconv.Itoa(notJudged))
		if len(noisy) == 0 {
			l.text(" of " + of + " time/op " + plural(judged, "row", "rows"))
		}
		l.text(" not judged (too few rounds)")
	}
	return l
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// blockingChange is a failing row's change in a few words, rounded as
// its table cell: "time +8.12%", "+1 allocs/op", "removed".
func blockingChange(r gate.Result) []Span {
	bad := func(s string) Span { return Span{Kind: SpanNum, Text: s, Style: Bad} }
	switch {
	case r.Status == gate.Removed:
		return []Span{txt("removed")}
	case r.Status == gate.Inconclusive:
		return []Span{unitSpan(r.Unit), txt(" not judged")}
	case exactKind(r.Kind) && r.Base != nil && r.Head != nil:
		return []Span{bad(signed(r.Head.Min - r.Base.Min)), txt(" "), unitSpan(r.Unit)}
	case r.Kind == gate.Time && r.Delta != nil:
		return []Span{txt("time "), bad(pct(*r.Delta))}
	case r.Delta != nil:
		return []Span{unitSpan(r.Unit), txt(" "), bad(pct(*r.Delta))}
	}
	return []Span{unitSpan(r.Unit)}
}

// headBlocks are the line of counts and the alerts a reader can act on,
// each once: different toolchains, an interrupted run, time rows that
// could not be judged, a policy file that head breaks or changes.
func headBlocks(v gate.Verdict, m Meta) []Block {
	bs := []Block{Paragraph{Spans: []Span{txt(tallyOf(v).String())}}}
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
		item(txt(corr + "'s correction for " + english.Plural(v.Family, "time/op row", "time/op rows") + " compared"))
	}
	if len(p.Looks) > 0 {
		item(txt("early stops allowed after rounds "), numSpan(joinInts(p.Looks)))
	}
	if v.Confirmed {
		item(txt("time rows that looked like a change re-run on fresh rounds and decided on all their rounds"))
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
	gate.Failed: 0, gate.Inconclusive: 1, gate.Removed: 2, gate.New: 3, gate.Unstable: 4, gate.Unavailable: 4, gate.Regression: 5, gate.Improvement: 5, gate.Ignored: 7, gate.Unchanged: 8, gate.SameBinary: 9,
}

// restRankOf ranks a collapsed row: a regression that vanished on
// confirmation and a row too noisy to judge before the unchanged ones.
func restRankOf(r gate.Result) int {
	switch {
	case notConfirmed(r):
		return 6
	case r.TooNoisy:
		return 6
	}
	return restRank[r.Status]
}

// statusWord is a collapsed row's status in a word or two.
func statusWord(r gate.Result) string {
	switch {
	case notConfirmed(r):
		return "not confirmed"
	case r.TooNoisy && r.Status == gate.Unchanged:
		return "too noisy"
	case r.Status == gate.Inconclusive:
		return "not judged"
	}
	one, _ := wordsOf(r.Status)
	return one
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
		{Title: "base median", Right: true},
		{Title: "head median", Right: true},
		{Title: "change", Right: true},
		{Title: "p", Right: true, Full: true},
		{Title: "noise / visible", Right: true, Optional: 2, Full: true},
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
	// paired is the paired change with its interval when the change
	// cell shows the medians' change instead of the interval.
	paired string
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
			c.change = one(exactChange(r.Base.Min, r.Head.Min))
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
		if md, ok := mediansDisagree(r); ok {
			// The columns are medians, the change the paired one: the
			// row shows both changes, the interval going to the
			// statistics (one line in a pull request's column).
			c.paired = s
			s = pct(*r.Delta) + " (medians " + pct(md) + ")"
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
		// The adjusted p first, as the reasons say it.
		s := FormatP(*r.P)
		if r.PAdjusted != nil && FormatP(*r.PAdjusted) != s {
			s = FormatP(*r.PAdjusted) + " (raw " + s + ")"
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

// exactChange is an exact change with its percentage, as benchstat
// prints it: "+16 (+25.00%)", "0", "+256 (from 0)".
func exactChange(base, head float64) string {
	d := head - base
	switch {
	case d == 0:
		return "0"
	case base == 0:
		return signed(d) + " (from 0)"
	}
	return signed(d) + " (" + pct(d/base) + ")"
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
		return strconv.Itoa(r.Base.N) + " base, " + strconv.Itoa(r.Head.N) + " head"
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

// warningList is the warnings, one per problem: the verdict's (each
// names its benchmarks; what one benchmark does wrong is under its row),
// but the time rows that could not be judged, an alert above; then the
// caller's.
func warningList(v gate.Verdict, m Meta) *List {
	l := &List{}
	for _, w := range v.Warnings {
		if w.Code == gate.WarnCannotJudge && !w.Confirmation {
			continue // the alert under the headline
		}
		l.Items = append(l.Items, warningSpans(w, v.Scaling))
	}
	for _, w := range runWarnings(m.Run) {
		l.Items = append(l.Items, []Span{prose(w)})
	}
	return l
}

// legend explains the columns of the tables.
func legend() Paragraph {
	return Paragraph{Spans: []Span{
		txt("Columns: "), strong("base median"), txt(" and "), strong("head median"), txt(" are each side's median (for allocations the value of every round, or their range); "),
		strong("change"), txt(" is head/base − 1: for time/op measured in interleaved rounds the paired change, the middle of the rounds' own changes (each round's head over its base, so that the machine's drift during the run falls on both sides; the Hodges–Lehmann estimate), which can differ from the medians' change when the machine drifted, with its interval in brackets at the level one benchmark must reach after the correction for many benchmarks (an interval beyond the threshold is a significant change); otherwise the change of the medians; for allocations the difference and its percentage, the same in every round; "),
		strong("p"), txt(" the p-value the row was judged on (paired Wilcoxon signed-rank test, or benchstat's U test), adjusted for the number of time/op rows compared, with the raw p in brackets when they differ; "),
		strong("noise / visible"), txt(" the round-to-round noise of the change and the smallest change this run could see (found 80% of the time; "), mark(markWarn, Warn), txt(": larger than the threshold, too noisy to judge); "),
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
// fewer than 2 rows have a paired change; each with the interval of its
// table, when it has one. Names shared by rows of different packages are
// qualified with the package's last element.
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
		b := Bar{Label: name, Status: r.Status, Change: r.Paired.Ratio - 1}
		b.Low, b.High = b.Change, b.Change
		if iv := r.Interval; iv != nil && iv.Low > -1 && !math.IsInf(iv.High, 0) {
			b.Low, b.High, b.Confidence = iv.Low, iv.High, iv.Confidence
		}
		c.Bars = append(c.Bars, b)
	}
	return c
}

func chartIntro(c *Chart) Paragraph {
	lo, hi, without := 1.0, 0.0, 0
	for _, b := range c.Bars {
		if b.Confidence == 0 {
			without++
			continue
		}
		lo, hi = math.Min(lo, b.Confidence), math.Max(hi, b.Confidence)
	}
	s := "Each row's paired change is marked, red slower, green faster, grey neither; left of 0 is faster. "
	if without < len(c.Bars) {
		level := confPct(lo)
		if confPct(hi) != level {
			level += " to " + confPct(hi)
		}
		s = "Each bar is a row's interval, as in its table's brackets (" + level + "), with its paired change marked: red slower, green faster, grey neither; left of 0 is faster. "
		if without > 0 {
			s += "A row without an interval in its table has the mark alone. "
		}
	}
	if c.Total > len(c.Bars) {
		s += "The " + strconv.Itoa(len(c.Bars)) + " largest of " + strconv.Itoa(c.Total) + " time/op rows with a paired change, "
	} else {
		s += "All " + strconv.Itoa(c.Total) + " time/op rows with a paired change, "
	}
	return Paragraph{Spans: []Span{txt(s + "regressions first, then improvements.")}}
}

// confPct formats a confidence level: "99.93%", "95%".
func confPct(c float64) string {
	return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(100*c, 'f', 2, 64), "0"), ".") + "%"
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
