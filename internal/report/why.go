package report

import (
	"html"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchgate/benchgate/internal/english"
	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"golang.org/x/perf/benchunit"
)

// A Detail is shown under a table row: indented in text, folded
// (<details>) under the row's table in Markdown.
type Detail struct {
	Summary []Span
	// Reason says why the row has its status: shown first in Markdown,
	// where the table has no column for it (the text report's has).
	Reason []Span
	Body   []Block
}

// why returns the explanation of r, nil if it has none.
func (m Meta) why(r gate.Result) *explain.Why {
	for i := range m.Explain {
		w := &m.Explain[i]
		if w.Package == r.Package && w.Name == r.Name && w.Unit == r.Unit {
			return w
		}
	}
	return nil
}

// explanation is r's explain field in the JSON report.
func (m Meta) explanation(r gate.Result) *explain.Explanation {
	w := m.why(r)
	if w == nil || w.Err != "" {
		return nil
	}
	e := w.Explain
	if e.Sites == nil && e.Functions == nil {
		if r.Kind == gate.Time || r.Kind == gate.Instructions {
			e.Functions = []explain.Func{}
		} else {
			e.Sites = []explain.Site{}
		}
	}
	return &e
}

// detailed gives the rows of t (resultTable(rows, …)) their Detail:
// every row but the unchanged and ignored ones that nothing explains.
func detailed(t *Table, rows []gate.Result, m Meta) *Table {
	idx := map[string]int{}
	next := make([]int, len(t.Groups))
	for _, r := range rows {
		g, ok := idx[r.Package]
		if !ok {
			g = len(idx)
			idx[r.Package] = g
		}
		k := next[g]
		next[g]++
		w := m.why(r)
		// A plain row has no Detail, unless its name is shortened in
		// Markdown (the Detail shows it whole).
		plain := (r.Status == gate.Unchanged || r.Status == gate.Ignored || r.Status == gate.SameBinary) && !r.TooNoisy && r.Confirmed == nil && len(r.Suspect) == 0 &&
			utf8.RuneCountInString(r.Name) <= maxCellName
		if (w == nil && plain) || g >= len(t.Groups) || k >= len(t.Groups[g].Rows) {
			continue
		}
		t.Groups[g].Rows[k].Detail = rowDetail(r, w, m)
	}
	return t
}

// rowDetail is the Detail of a row: why it has its status, its
// statistics, where its change comes from (w, when explained) and the
// commands that reproduce it.
func rowDetail(r gate.Result, w *explain.Why, m Meta) *Detail {
	d := &Detail{}
	if w != nil {
		d = whyDetail(r, w)
	} else {
		d.Summary = []Span{nameSpan(r.Name), txt(" "), unitSpan(r.Unit), txt(": the statistics and how to reproduce")}
	}
	d.Reason = append([]Span{strong("Decided"), txt(": ")}, rowReason(r)...)
	if st := statSpans(r); len(st) > 0 {
		d.Body = append(d.Body, Paragraph{Spans: st})
	}
	for _, sp := range r.Suspect {
		d.Body = append(d.Body, Paragraph{Alert: true, Spans: append([]Span{mark(markWarn, Warn), txt(" ")}, suspicionSpans(sp, r.Unit)...)})
	}
	d.Body = append(d.Body, Paragraph{Spans: []Span{strong("Reproduce"), txt(": "), nameSpan(rowCommand(r, m))}})
	addTrend(d, r, m.trend(r))
	return d
}

// statSpans are a row's statistics in one line: each side with its
// spread, the rounds, p and adjusted p, noise and MDE, benchstat's change
// and p, the other estimators' changes.
func statSpans(r gate.Result) []Span {
	c := cellsOf(r)
	l := line{strong("Statistics"), txt(": ")}
	first := true
	item := func(label string, spans []Span) {
		if len(spans) == 0 || (len(spans) == 1 && (spans[0].Text == none || spans[0].Text == "")) {
			return
		}
		if !first {
			l.text(" · ")
		}
		first = false
		l.text(label)
		l.add(spans...)
	}
	cellOr := func(spread string, cell []Span) []Span {
		if spread != "" {
			return one(spread)
		}
		return cell
	}
	item("base ", cellOr(c.spread[0], c.base))
	item("head ", cellOr(c.spread[1], c.head))
	if c.paired != "" {
		item("paired change ", one(c.paired))
	}
	item("rounds ", c.n)
	item("p ", c.p)
	item("noise / visible ", c.noise)
	item("benchstat ", c.benchstat)
	if c.alt != "" {
		item("other estimators ", one(c.alt))
	}
	if first {
		return nil
	}
	return l
}

// safeFilterName matches names that benchstat's -filter takes unquoted.
var safeFilterName = regexp.MustCompile(`^[A-Za-z0-9_./=,+-]+$`)

// rowCommand is the command that shows one row's figures as benchstat
// computes them: the raw files filtered to the row's benchmark (when its
// name needs no quoting), or whole.
func rowCommand(r gate.Result, m Meta) string {
	base, head := rawFiles(m)
	cmd := "benchstat -ignore round "
	if safeFilterName.MatchString(r.Name) && (r.Package == "" || safeFilterName.MatchString(r.Package)) {
		f := ".fullname:" + r.Name
		if r.Package != "" {
			f = "pkg:" + r.Package + " " + f
		}
		cmd += "-filter " + explain.Quote(f) + " "
	}
	return cmd + explain.Quote(base) + " " + explain.Quote(head)
}

// whyDetail is the collapsed "why" of a row.
func whyDetail(r gate.Result, w *explain.Why) *Detail {
	d := &Detail{}
	var sum line
	sum.text("Why ").name(r.Name).text(" ").add(unitSpan(r.Unit)).text(": ")
	switch {
	case w.Err != "":
		sum.text("not explained")
		d.Body = append(d.Body, Paragraph{Spans: []Span{txt("The profiling pass failed: "), prose(w.Err)}})
	case r.Kind == gate.Time:
		whyFuncs(&sum, d, w)
	case r.Kind == gate.Instructions:
		whyCounts(&sum, d, w)
	default:
		whySites(&sum, d, r, w)
	}
	d.Summary = sum
	for _, n := range w.Notes {
		d.Body = append(d.Body, Paragraph{Alert: true, Spans: []Span{mark(markWarn, Warn), txt(" "), prose(n)}})
	}
	if w.Command != "" {
		times := "×" + strconv.FormatInt(w.Ops[1], 10) + " ops"
		if w.Ops[0] != w.Ops[1] {
			times = "× the ops: " + strconv.FormatInt(w.Ops[0], 10) + " base, " + strconv.FormatInt(w.Ops[1], 10) + " head"
		}
		d.Body = append(d.Body, Paragraph{Spans: []Span{txt("Reproduce (figures " + times + "): "), codeText(w.Command)}})
	}
	return d
}

// whySites adds an allocation row's sites to d and its largest change to
// the summary.
func whySites(sum *line, d *Detail, r gate.Result, w *explain.Why) {
	unit := r.Unit
	sites := w.Explain.Sites
	if len(sites) == 0 {
		sum.text("no allocation site of the benchmark changed")
	} else {
		s := sites[0]
		sum.num(signed(s.Head - s.Base)).text(" at ").add(siteSpans(s)...)
	}
	t := &Table{Columns: []Column{
		{Title: "change", Right: true}, {Title: "base", Right: true}, {Title: "head", Right: true},
		{Title: "where"}, {Title: "function"},
	}}
	g := Group{}
	for _, s := range sites {
		where, fn := []Span{nameSpan(position(shortFile(s.File), s.Line))}, []Span{nameSpan(shortFunc(s.Function))}
		if s.Caller != nil {
			where = []Span{nameSpan(position(shortFile(s.Caller.File), s.Caller.Line))}
			fn = []Span{nameSpan(shortFunc(s.Caller.Function)), txt(", in "), nameSpan(shortFunc(s.Function)), txt(" ("), nameSpan(position(shortFile(s.File), s.Line)), txt(")")}
		}
		g.Rows = append(g.Rows, Row{Cells: [][]Span{one(signed(s.Head - s.Base)), one(perOp(s.Base)), one(perOp(s.Head)), where, fn}})
	}
	if len(g.Rows) > 0 {
		t.Groups = append(t.Groups, g)
		d.Body = append(d.Body, t)
	}
	var p line
	p.text("The benchmark's allocation sites add up to ").num(perOp(w.Base) + " → " + perOp(w.Head)).text(" ").add(unitSpan(unit)).
		text(" (" + signedWord(w.Head-w.Base) + ")")
	if more := w.Changed - len(sites); more > 0 {
		p.text("; " + english.Plural(more, "more site", "more sites") + " changed")
	}
	p.text(". Exact: every allocation of ").num(strconv.FormatInt(w.Ops[1], 10) + " ops").
		text(" per side recorded (-test.memprofilerate=1), the loop's alone (a run of twice as many ops minus this one).")
	d.Body = append(d.Body, Paragraph{Spans: p})
}

// funcsLane is how whyFuncs words one lane's functions: a time row's
// sampled seconds, or an instructions/op row's counted instructions.
type funcsLane struct {
	unit   string               // "sec/op", "instructions/op"
	value  func(float64) string // a figure per op
	none   string               // the summary when no function changed
	legend string               // what the figures are, before the source
	source string               // where they come from, after the runs
	caveat string               // the paragraph's last sentence
}

// whyFuncs adds a time row's functions to d and the first to the
// summary.
func whyFuncs(sum *line, d *Detail, w *explain.Why) {
	var vals []float64
	for _, f := range w.Explain.Functions {
		vals = append(vals, f.Base, f.Head, math.Abs(f.Head-f.Base), math.Abs(f.CumHead-f.CumBase))
	}
	vals = append(vals, w.Base, w.Head)
	sc := benchunit.CommonScale(vals, benchunit.ClassOf("sec/op"))
	whyFunctions(sum, d, w, funcsLane{
		unit: "sec/op",
		value: func(v float64) string {
			if v == 0 {
				return "0"
			}
			return sc.Format(v)
		},
		none:   "no function's time per op changed in the profiles",
		legend: "Seconds per op: flat in the function's own code (not what it calls); share of its side's CPU time. From CPU profiles of ",
		source: " per side, base and head alternating, after the timed rounds: ",
		caveat: ". Sampled at 100 Hz, whole processes: the order, not the last digit, is the point.",
	})
}

// whyCounts adds an instructions/op row's functions to d and the first
// to the summary: the lane's per-function counts, exact.
func whyCounts(sum *line, d *Detail, w *explain.Why) {
	whyFunctions(sum, d, w, funcsLane{
		unit:   "instructions/op",
		value:  func(v float64) string { return perOp(math.Round(v)) },
		none:   "no function's instructions per op changed in the counts",
		legend: "Instructions per op: flat in the function's own code (not what it calls); share of its side's instructions. From the instruction counts (",
		source: " per side under callgrind, the loop alone): ",
		caveat: ". Counted, not sampled: the figures are exact; functions that changed by less than half an instruction per op (the runtime's background) are left out.",
	})
}

// whyFunctions adds the functions of w to d, in lane's words, and the
// first to the summary.
func whyFunctions(sum *line, d *Detail, w *explain.Why, lane funcsLane) {
	fs := w.Explain.Functions
	change := func(d float64) string {
		switch v := lane.value(math.Abs(d)); {
		case v == "0":
			return "0"
		case d > 0:
			return "+" + v
		case d < 0:
			return "-" + v
		}
		return "0"
	}
	if len(fs) == 0 {
		sum.text(lane.none)
	} else {
		f := fs[0]
		sum.name(shortFunc(f.Function)).text(" ").num(change(f.Head-f.Base) + " " + lane.unit).text(" flat")
		if f.File != "" {
			sum.text(" (").name(position(shortFile(f.File), f.Line)).text(")")
		}
	}
	// Five columns, so that the table fits a pull request's column; the
	// cumulative figures are pprof's (the command below).
	t := &Table{Columns: []Column{
		{Title: "flat change", Right: true}, {Title: "base → head", Right: true},
		{Title: "share", Right: true}, {Title: "function"}, {Title: "where"},
	}}
	g := Group{}
	for _, f := range fs {
		where := []Span(nil)
		if f.File != "" {
			// The function names the package: a file outside the
			// module needs no directory (absolute, or as -trimpath
			// names it, under its package's import path).
			file := f.File
			if path.IsAbs(file) || path.Dir(file) == funcPackage(f.Function) {
				file = path.Base(file)
			}
			where = []Span{nameSpan(clip(position(file, f.Line), 26))}
		}
		share := absPct(f.ShareBase) + " → " + absPct(f.ShareHead)
		g.Rows = append(g.Rows, Row{Cells: [][]Span{one(change(f.Head - f.Base)), one(lane.value(f.Base) + " → " + lane.value(f.Head)), one(share),
			{nameSpan(clip(shortFunc(f.Function), 34))}, where}})
	}
	if len(g.Rows) > 0 {
		t.Groups = append(t.Groups, g)
		d.Body = append(d.Body, t)
	}
	var p line
	p.text(lane.legend).
		num(english.Plural(w.Runs, "run", "runs") + " × " + strconv.FormatInt(w.Ops[1]/int64(max(w.Runs, 1)), 10) + " ops").
		text(lane.source).num(lane.value(w.Base) + " → " + lane.value(w.Head)).text(" " + lane.unit + " in all")
	if more := w.Changed - len(fs); more > 0 {
		p.text("; " + english.Plural(more, "more function", "more functions") + " changed")
	}
	p.text(lane.caveat)
	d.Body = append(d.Body, Paragraph{Spans: p})
}

// siteSpans names a site for the summary: its line (or its caller's,
// the line to change, when the site is outside the module) and function.
func siteSpans(s explain.Site) []Span {
	if s.Caller != nil {
		return []Span{nameSpan(position(s.Caller.File, s.Caller.Line)), txt(" ("), nameSpan(shortFunc(s.Caller.Function)), txt(", in "), nameSpan(shortFunc(s.Function)), txt(")")}
	}
	return []Span{nameSpan(position(s.File, s.Line)), txt(" ("), nameSpan(shortFunc(s.Function)), txt(")")}
}

// position is "file:line", or the file alone without a line.
func position(file string, line int64) string {
	if file == "" {
		file = "?"
	}
	if line <= 0 {
		return file
	}
	return file + ":" + strconv.FormatInt(line, 10)
}

// shortFunc drops a function's import path but its last element, as go
// tool pprof does: "example.com/m/codec.(*Parser).word" is
// "codec.(*Parser).word".
func shortFunc(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 && !strings.Contains(fn[:i], "(") {
		return fn[i+1:]
	}
	return fn
}

// clip shortens a name of the functions' table to at most n characters,
// its middle left out ("…"), so that a sampled runtime function's long
// name cannot widen the table past a pull request's column; the pprof
// command under the table gives every name whole.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// funcPackage is the import path of a function's package, as profiles
// name functions: "runtime" of "runtime.(*mheap).alloc", "example.com/m/x"
// of "example.com/m/x.F[...]".
func funcPackage(fn string) string {
	if i := strings.IndexByte(fn, '['); i >= 0 {
		fn = fn[:i]
	}
	i := strings.LastIndex(fn, "/") + 1
	if dot := strings.IndexByte(fn[i:], '.'); dot >= 0 {
		return fn[:i+dot]
	}
	return fn
}

// shortFile keeps the last directory and the name of a file outside the
// module ("/usr/local/go/src/strings/clone.go" is "strings/clone.go").
func shortFile(file string) string {
	if !path.IsAbs(file) {
		return file
	}
	return path.Join(path.Base(path.Dir(file)), path.Base(file))
}

// perOp formats a per-op figure: whole numbers as such, others with up to
// three decimals.
func perOp(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', 3, 64), "0"), ".")
}

// signed is perOp with a sign: "+1", "-0.5".
func signed(v float64) string {
	if v > 0 {
		return "+" + perOp(v)
	}
	return perOp(v)
}

func signedWord(v float64) string {
	if v == 0 {
		return "no change"
	}
	return signed(v)
}

// absPct formats a share: "45%".
func absPct(v float64) string { return strconv.FormatFloat(100*v, 'f', 0, 64) + "%" }

// mdDetail renders a Detail as a folded block.
func mdDetail(d *Detail) string {
	var b strings.Builder
	b.WriteString("\n<details><summary>" + mdSummary(d.Summary) + "</summary>\n")
	if d.Reason != nil {
		b.WriteString("\n" + mdSpans(d.Reason, false) + "\n")
	}
	for _, bl := range d.Body {
		b.WriteString("\n" + strings.TrimRight(mdBlock(bl), "\n") + "\n")
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

// mdSummary renders spans inside an HTML element on one line (a
// <summary>, raw HTML to GitHub: no Markdown is read there, and a line
// break would end it): a name in a <code> element, neutralised (see
// [WriteText]) and HTML-escaped, where GitHub finds no mention or
// reference; prose through [Escape]; the rest HTML-escaped.
func mdSummary(spans []Span) string {
	var b strings.Builder
	for _, s := range spans {
		switch s.Kind {
		case SpanName:
			if t := neutral(truncate(s.Text, maxInline)); t != "" {
				b.WriteString("<code>" + html.EscapeString(t) + "</code>")
			}
		case SpanProse:
			b.WriteString(Escape(truncate(s.Text, maxProse)))
		case SpanMark:
			b.WriteString(mdSpan(s, false))
		default:
			b.WriteString(html.EscapeString(neutral(s.Text)))
		}
	}
	return b.String()
}

// detail writes a Detail under its row, indented.
func (t *textWriter) detail(d *Detail) {
	if len(d.Body) == 0 {
		return // its Reason is the row's own column in text
	}
	t.para(d.Summary, "    ", "      ")
	sub := &textWriter{opt: t.opt}
	if sub.opt.Width > 0 {
		sub.opt.Width = max(sub.opt.Width-6, 20)
	}
	for _, bl := range d.Body {
		sub.block(bl)
	}
	for _, l := range strings.SplitAfter(sub.b.String(), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		t.b.WriteString("      " + l)
	}
}
