package report

import (
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/gate"
)

// Options controls the Markdown writer.
type Options struct {
	// MaxChars is the largest output, in bytes; 0 means unlimited.
	// GitHub comments allow 65536 characters.
	MaxChars int
	// DetailsURL is linked as the full report when items are cut.
	DetailsURL string
	// Marker is written verbatim first, e.g. "<!-- benchgate:key -->".
	Marker string
}

// Markdown renders v and m as GitHub Markdown: [Build] written by
// [WriteMarkdown].
func Markdown(v gate.Verdict, m Meta, opt Options) string {
	var b strings.Builder
	_ = WriteMarkdown(&b, Build(v, m), opt)
	return b.String()
}

// WriteMarkdown writes d as GitHub Markdown, for a pull request comment or
// a job summary.
//
// Only untrusted spans are escaped. A [SpanName] becomes a code span whose
// fence is longer than any run of backticks in it, with "|" written "\|"
// inside a table (GitHub splits table rows before it reads code spans):
// nothing in a code span is Markdown, HTML, a link, a mention or a
// reference. [SpanProse] goes through [Escape]. In both, invisible characters
// (zero-width, bidi) are shown by their code point ("<U+200B>") and
// control characters are replaced; names longer than 200 runes and prose
// longer than 1000 are shortened with "…". Captured output goes into a
// fenced code block that it cannot close (at most 20 lines of 300
// runes). The chart is Mermaid, whose labels keep only letters, digits
// and a few safe characters.
//
// With opt.MaxChars > 0 the whole text fits in MaxChars bytes (GitHub
// counts characters; a byte count is never smaller). Sections get room in
// the order of their priority and lose items from their end (rows, list
// items, outputs), never text from the middle of an item: regressions are
// kept complete, then failures, warnings, improvements, vanished
// regressions, the CPU scaling rows and the collapsed rows are added
// while they fit; the chart only when everything else fits with it. A
// line then says how many of each were cut, linking opt.DetailsURL (an
// http or https URL) when set. Only if the title and the run's lines
// alone do not fit is the text cut. The minimum useful MaxChars is about
// 1,000.
func WriteMarkdown(w io.Writer, d *Document, opt Options) error {
	top := mdTop(d, opt.Marker)
	footer := ""
	for _, b := range d.Foot {
		footer += "\n" + mdBlock(b) + "\n"
	}
	keep := make([]int, len(d.Sections))
	for i, s := range d.Sections {
		keep[i] = s.Body.items()
	}
	if opt.MaxChars > 0 {
		budget := opt.MaxChars - len(top) - len(footer) - len(cutNote(d.Sections, nil, opt.DetailsURL))
		if budget < 0 {
			_, err := io.WriteString(w, truncateBytes(top, opt.MaxChars))
			return err
		}
		keep = fit(d.Sections, budget)
	}
	var b strings.Builder
	b.WriteString(top)
	for i, s := range d.Sections {
		b.WriteString(mdSection(s, keep[i]))
	}
	for i, s := range d.Sections {
		if keep[i] < s.Body.items() {
			b.WriteString(cutNote(d.Sections, keep, opt.DetailsURL))
			break
		}
	}
	b.WriteString(footer)
	_, err := io.WriteString(w, b.String())
	return err
}

// fit returns how many items of each section fit in budget bytes: the
// sections in the order of their priority each get the most items that
// fit in what is left; a section shown whole only if all others are
// complete.
func fit(secs []*Section, budget int) []int {
	keep := make([]int, len(secs))
	complete := true
	for _, i := range byPriority(secs) {
		s := secs[i]
		total := s.Body.items()
		if s.Whole != "" {
			if complete && len(mdSection(s, total)) <= budget {
				keep[i] = total
				budget -= len(mdSection(s, total))
			}
			continue
		}
		// The largest n whose rendering fits: the size grows with n.
		lo, hi := 0, total
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if len(mdSection(s, mid)) <= budget {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		keep[i] = lo
		budget -= len(mdSection(s, lo))
		complete = complete && lo == total
	}
	return keep
}

// byPriority returns the indexes of secs in the order of their priority.
func byPriority(secs []*Section) []int {
	order := make([]int, len(secs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return secs[a].Priority - secs[b].Priority })
	return order
}

// cutNote says what was cut. With keep nil it is the longest note, which
// WriteMarkdown reserves room for.
func cutNote(secs []*Section, keep []int, detailsURL string) string {
	var parts []string
	for _, i := range byPriority(secs) {
		s := secs[i]
		total, shown := s.Body.items(), 0
		if keep != nil {
			shown = keep[i]
		}
		switch {
		case shown >= total:
		case s.Whole != "":
			parts = append(parts, s.Whole)
		default:
			parts = append(parts, strconv.Itoa(total-shown)+" of "+strconv.Itoa(total)+" "+s.What)
		}
	}
	out := "\n**Cut to fit the size limit:** not shown are " + strings.Join(parts, ", ") + "."
	if u := safeURL(detailsURL); u != "" {
		out += " [Full report](" + u + ")."
	}
	return out + "\n"
}

func mdTop(d *Document, marker string) string {
	var b strings.Builder
	if marker != "" {
		b.WriteString(strings.NewReplacer("\n", " ", "\r", " ").Replace(marker))
		b.WriteString("\n")
	}
	title := slices.Clone(d.Title)
	for i := range title {
		title[i].Style &^= Strong // a heading already
	}
	b.WriteString("### " + mdSpans(title, false) + "\n\n")
	for i, bl := range d.Head {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(mdBlock(bl))
		if _, ok := bl.(Paragraph); ok {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// mdSection renders a section with its first n items; "" when n is 0.
func mdSection(s *Section, n int) string {
	if n <= 0 {
		return ""
	}
	var b strings.Builder
	if s.Collapsed {
		b.WriteString("\n<details><summary>" + Escape(Plain(s.Title)) + "</summary>\n")
	} else {
		b.WriteString("\n#### " + mdSpans(s.Title, false) + "\n")
	}
	for _, in := range s.Intro {
		b.WriteString("\n" + mdBlock(in) + "\n")
	}
	b.WriteString("\n" + mdBlock(s.Body.keep(n)))
	if s.Collapsed {
		b.WriteString("\n</details>\n")
	}
	return b.String()
}

func mdBlock(bl Block) string {
	var b strings.Builder
	switch bl := bl.(type) {
	case Paragraph:
		if bl.Alert {
			b.WriteString("> ")
		}
		b.WriteString(mdSpans(bl.Spans, false))
	case *List:
		for _, it := range bl.Items {
			b.WriteString("- " + mdSpans(it, false) + "\n")
		}
	case *Table:
		b.WriteString(mdTable(bl))
	case *Outputs:
		for i, o := range bl.Items {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(mdSpans(o.Heading, false) + "\n\n" + codeBlock(o.Text))
		}
	case *Chart:
		if len(bl.Bars) > 0 {
			b.WriteString(chartMarkdown(bl))
		}
	}
	return b.String()
}

// mdTable renders a table without its full-report columns, names in
// cells shortened to their column's Short, one table per group with the
// group's Details under it.
func mdTable(t *Table) string {
	var b strings.Builder
	var cols []int
	header, align := "|", "|"
	for i, c := range t.Columns {
		if c.Full {
			continue
		}
		cols = append(cols, i)
		header += " " + c.Title + " |"
		if c.Right {
			align += "--:|"
		} else {
			align += ":--|"
		}
	}
	for i, g := range t.Groups {
		if i > 0 {
			b.WriteString("\n")
		}
		if g.Title != nil {
			b.WriteString(mdSpans(g.Title, false) + "\n\n")
		}
		b.WriteString(header + "\n" + align + "\n")
		for _, r := range g.Rows {
			b.WriteString("|")
			for _, k := range cols {
				var cell []Span
				if k < len(r.Cells) {
					cell = shortNames(r.Cells[k], t.Columns[k].Short)
				}
				b.WriteString(" " + mdCell(cell) + " |")
			}
			b.WriteString("\n")
		}
		for _, r := range g.Rows {
			if r.Detail != nil {
				b.WriteString(mdDetail(r.Detail))
			}
		}
	}
	return b.String()
}

// shortNames returns cell with its names shortened to n runes ("…"
// last); n 0: as it is.
func shortNames(cell []Span, n int) []Span {
	if n <= 0 {
		return cell
	}
	out := slices.Clone(cell)
	for i, s := range out {
		if s.Kind == SpanName {
			out[i].Text = truncate(s.Text, n)
		}
	}
	return out
}

// mdCell renders a table cell: "—" for an empty one.
func mdCell(spans []Span) string {
	if s := mdSpans(spans, true); s != "" {
		return s
	}
	return none
}

// mdSpans renders spans; inTable escapes "|" in code spans. Runs of
// Strong spans are bold together.
func mdSpans(spans []Span, inTable bool) string {
	var b strings.Builder
	for i := 0; i < len(spans); {
		if spans[i].Style&Strong == 0 || spans[i].Kind == SpanMark {
			b.WriteString(mdSpan(spans[i], inTable))
			i++
			continue
		}
		j := i
		var run strings.Builder
		for j < len(spans) && spans[j].Style&Strong != 0 && spans[j].Kind != SpanMark {
			run.WriteString(mdSpan(spans[j], inTable))
			j++
		}
		// Emphasis cannot start or end with a space.
		s := run.String()
		lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
		trail := s[len(strings.TrimRight(s, " ")):]
		if core := strings.TrimSpace(s); core != "" {
			b.WriteString(lead + "**" + core + "**" + trail)
		} else {
			b.WriteString(s)
		}
		i = j
	}
	return b.String()
}

func mdSpan(s Span, inTable bool) string {
	switch s.Kind {
	case SpanName:
		return mdName(s.Text, inTable)
	case SpanProse:
		return Escape(truncate(s.Text, maxProse))
	case SpanCode:
		return codeSpan(s.Text)
	case SpanLink:
		if u := safeURL(s.URL); u != "" {
			return "[" + s.Text + "](" + u + ")"
		}
		return s.Text
	case SpanMark:
		switch s.Text {
		case markPass:
			return "✅"
		case markFail:
			return "❌"
		case markWarn:
			return "⚠️"
		}
		return ""
	}
	return s.Text
}

// maxProse is the longest untrusted prose shown, in runes.
const maxProse = 1000

// mdName renders an untrusted name as an inline code span: shortened to
// maxInline runes, control characters and invisible ones shown by their
// code point, "|" escaped in a table, the fence longer than any run of
// backticks inside.
func mdName(s string, inTable bool) string {
	s = neutral(truncate(s, maxInline))
	if s == "" {
		return ""
	}
	if inTable {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		(strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// safeURL returns u fit for a Markdown link destination, or "" if it is not
// an absolute http or https URL.
func safeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return ""
	}
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E", "\n", "", "\r", "").Replace(p.String())
}

func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
