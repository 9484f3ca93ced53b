package report

import "github.com/benchgate/benchgate/internal/gate"

// A Document is a report built once from facts ([Build],
// [BuildCalibration]) and written by [WriteText] for terminals and by
// [WriteMarkdown] for GitHub. It holds no Markdown and no escapes: every
// piece of text is a [Span] that says whether it is trusted.
type Document struct {
	// Title is the verdict line; Pass says which way it went.
	Title []Span
	Pass  bool
	// Head are the blocks under the title: the run's metadata, alerts,
	// notes.
	Head []Block
	// Sections are shown in order; when the Markdown must fit a size
	// limit, they get room in the order of their Priority and lose items
	// (rows, list items, outputs) from the end.
	Sections []*Section
	// Foot are the closing blocks: the legend, how to reproduce.
	Foot []Block
}

// A Section is a titled part of a document with one body of items.
type Section struct {
	Title []Span
	// Collapsed sections are folded away in Markdown (<details>) and
	// shown only by their title in the brief text report.
	Collapsed bool
	// Intro is shown before the body, when any of the body is shown.
	Intro []Block
	// Body is a *Table, *List, *Outputs or *Chart.
	Body Block
	// Priority orders the sections for room under a size limit: lower
	// first. What names the body's items in the note on what was cut
	// ("regressions"); Whole, when set, names a body that is shown whole
	// or not at all ("the chart of the largest changes"), and only when
	// every other section is complete.
	Priority int
	What     string
	Whole    string
}

// A Block is a Paragraph, *Table, *List, *Outputs or *Chart.
type Block interface {
	// items is the number of items that a size limit can drop.
	items() int
	// keep returns the block with only its first n items.
	keep(n int) Block
}

// A Paragraph is a line of spans; an Alert stands out (a quoted warning
// in Markdown, a marked line in text).
type Paragraph struct {
	Spans []Span
	Alert bool
}

// A Table has columns and rows in groups, each group under an optional
// title (the package).
type Table struct {
	Columns []Column
	Groups  []Group
}

// A Column of a table.
type Column struct {
	Title string
	Right bool // right-aligned
	// Optional columns are left out of the text table, highest first,
	// when it is wider than the terminal; 0: never.
	Optional int
	// Trail: when the text table is wider than the terminal, the cell
	// goes on a line of its own under the row.
	Trail bool
	// Markdown columns are only in Markdown (the status mark); Full
	// columns only in the full text report (the statistics and the
	// reason, which Markdown shows in each row's Detail).
	Markdown, Full bool
	// Short, when set, is the most runes of a name in a Markdown cell
	// (the full name is in the row's Detail); the text report never
	// shortens.
	Short int
}

// A Group of rows under a title.
type Group struct {
	Title []Span
	Rows  []Row
}

// A Row has one cell per column; a cell is a list of spans. Detail, when
// set, is shown under it (see [Detail]).
type Row struct {
	Cells  [][]Span
	Detail *Detail
}

// A List is a bulleted list.
type List struct {
	Items [][]Span
}

// Outputs are captured program outputs (untrusted), each under a heading.
type Outputs struct {
	Items []Output
}

// An Output is one benchmark's captured output.
type Output struct {
	Heading []Span
	Text    string
}

// A Chart is a bar chart of relative changes with their intervals; only
// Markdown draws it (Mermaid).
type Chart struct {
	Bars []Bar
	// Total is the number of rows that could have been drawn.
	Total int
}

// A Bar is one row of a chart: a label (untrusted), the row's status and
// its change with its interval at level Confidence, each as head/base − 1.
type Bar struct {
	Label                         string
	Status                        gate.Status
	Change, Low, High, Confidence float64
}

func (Paragraph) items() int        { return 0 }
func (p Paragraph) keep(int) Block  { return p }
func (l *List) items() int          { return len(l.Items) }
func (l *List) keep(n int) Block    { return &List{Items: l.Items[:min(n, len(l.Items))]} }
func (o *Outputs) items() int       { return len(o.Items) }
func (o *Outputs) keep(n int) Block { return &Outputs{Items: o.Items[:min(n, len(o.Items))]} }
func (c *Chart) items() int         { return 1 }
func (c *Chart) keep(n int) Block {
	if n < 1 {
		return &Chart{}
	}
	return c
}

func (t *Table) items() int {
	n := 0
	for _, g := range t.Groups {
		n += len(g.Rows)
	}
	return n
}

func (t *Table) keep(n int) Block {
	out := &Table{Columns: t.Columns}
	for _, g := range t.Groups {
		if n <= 0 {
			break
		}
		k := min(n, len(g.Rows))
		out.Groups = append(out.Groups, Group{Title: g.Title, Rows: g.Rows[:k]})
		n -= k
	}
	return out
}

// A SpanKind says what a span holds and so how a writer must treat it.
type SpanKind uint8

// The kinds of spans.
const (
	// SpanText is trusted prose, written by benchgate.
	SpanText SpanKind = iota
	// SpanName is untrusted text from the code measured: a benchmark,
	// package, unit or ref name. Markdown puts it in a code span (inert);
	// text neutralises its control and invisible characters.
	SpanName
	// SpanProse is untrusted running text (notes, messages that quote
	// names): escaped in Markdown, neutralised in text.
	SpanProse
	// SpanNum is a trusted figure ("+7.31%", "<0.001", "[+5.1%, +9.8%]").
	SpanNum
	// SpanCode is trusted code: a command, a path.
	SpanCode
	// SpanLink is Text pointing to URL.
	SpanLink
	// SpanMark is a symbol: "pass", "fail" or "warn".
	SpanMark
)

// Style is how a span stands out; writers may ignore it.
type Style uint8

// The styles, combined with |.
const (
	Strong Style = 1 << iota
	Good         // green on a terminal
	Bad          // red
	Warn         // yellow
)

// A Span is a piece of text of one kind.
type Span struct {
	Kind  SpanKind
	Text  string
	URL   string // Link
	Style Style
}

// The marks.
const (
	markPass = "pass"
	markFail = "fail"
	markWarn = "warn"
)

// line builds a list of spans.
type line []Span

func (l *line) text(s string) *line { *l = append(*l, Span{Kind: SpanText, Text: s}); return l }
func (l *line) name(s string) *line { *l = append(*l, Span{Kind: SpanName, Text: s}); return l }
func (l *line) num(s string) *line  { *l = append(*l, Span{Kind: SpanNum, Text: s}); return l }
func (l *line) add(s ...Span) *line { *l = append(*l, s...); return l }

func txt(s string) Span            { return Span{Kind: SpanText, Text: s} }
func strong(s string) Span         { return Span{Kind: SpanText, Text: s, Style: Strong} }
func nameSpan(s string) Span       { return Span{Kind: SpanName, Text: s} }
func numSpan(s string) Span        { return Span{Kind: SpanNum, Text: s} }
func codeText(s string) Span       { return Span{Kind: SpanCode, Text: s} }
func prose(s string) Span          { return Span{Kind: SpanProse, Text: s} }
func mark(m string, st Style) Span { return Span{Kind: SpanMark, Text: m, Style: st} }

// Plain joins the texts of spans as they are, for data (the JSON report)
// and logs that escape for themselves.
func Plain(spans []Span) string {
	n := 0
	for _, s := range spans {
		n += len(s.Text)
	}
	b := make([]byte, 0, n)
	for _, s := range spans {
		switch s.Kind {
		case SpanMark:
			if s.Text == markWarn {
				b = append(b, "⚠"...)
			}
		default:
			b = append(b, s.Text...)
		}
	}
	return string(b)
}
