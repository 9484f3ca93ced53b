package report

import (
	"io"
	"slices"
	"strings"
	"unicode"
)

// TextOptions controls the text writer.
type TextOptions struct {
	// Color writes ANSI colours and bold: for a terminal whose user did
	// not set NO_COLOR.
	Color bool
	// Width is the terminal's width in columns; 0: no limit (a file or a
	// pipe: one line per row).
	Width int
	// Brief writes the report's first layer, for a terminal: the
	// headline, the counts, the alerts and the tables of what changed
	// with five columns; collapsed sections by their title alone; no
	// Details. Otherwise (a file, a pipe, --verbose) every layer: each
	// table with its statistics and reasons, each row's Detail under it,
	// every section.
	Brief bool
}

// WriteText writes d for a terminal, in the manner of benchstat: the
// verdict first, then the run, then each section with its rows in columns
// aligned across the section's packages. Nothing is escaped and nothing
// is Markdown: untrusted text has its control characters (the ANSI escape
// among them) and invisible characters (zero-width, bidi) shown by their
// code point ("<U+001B>", "<U+202E>") and line breaks turned into spaces;
// nothing is shortened. With opt.Width > 0, text is wrapped to the width
// and a table wider than it moves its last column (the reason) to a line
// of its own under each row, then leaves out its optional columns
// (benchstat's figures, then noise / MDE) until it fits, if it can. The
// chart is left out (it is drawn only in Markdown). With opt.Brief, only
// the first layer (see [TextOptions]) and a line on how to see the rest.
func WriteText(w io.Writer, d *Document, opt TextOptions) error {
	t := &textWriter{opt: opt}
	t.para(d.Title, "", "")
	t.blank()
	for i, bl := range d.Head {
		if i > 0 {
			t.blank()
		}
		t.block(bl)
	}
	folded := false
	for _, s := range d.Sections {
		if _, ok := s.Body.(*Chart); ok {
			continue
		}
		t.blank()
		if opt.Brief && s.Collapsed {
			t.para(s.Title, "", "")
			folded = true
			continue
		}
		t.para(strongAll(s.Title), "", "")
		for _, in := range s.Intro {
			t.blank()
			t.block(in)
		}
		t.blank()
		t.block(s.Body)
	}
	for _, bl := range d.Foot {
		t.blank()
		t.block(bl)
	}
	if folded || (opt.Brief && hasDetails(d)) {
		t.blank()
		t.para([]Span{txt("Each row's statistics, where its change comes from and how to reproduce it, and the sections above shown by their title: "), codeText("--verbose"), txt(".")}, "", "")
	}
	_, err := io.WriteString(w, t.b.String())
	return err
}

type textWriter struct {
	opt TextOptions
	b   strings.Builder
}

func (t *textWriter) blank() { t.b.WriteByte('\n') }

func (t *textWriter) block(bl Block) {
	switch bl := bl.(type) {
	case Paragraph:
		indent := ""
		if bl.Alert {
			indent = "  "
		}
		t.para(bl.Spans, "", indent)
	case *List:
		for _, it := range bl.Items {
			t.para(it, "- ", "  ")
		}
	case *Table:
		t.table(bl)
	case *Outputs:
		for i, o := range bl.Items {
			if i > 0 {
				t.blank()
			}
			t.para(o.Heading, "", "")
			for _, l := range outputLines(o.Text) {
				t.b.WriteString(strings.TrimRight("    "+l, " \t") + "\n")
			}
		}
	}
}

// para writes spans as one paragraph, wrapped to the width: first is the
// first line's prefix, indent the others'.
func (t *textWriter) para(spans []Span, first, indent string) {
	rs := styled(spans)
	for i, l := range wrap(rs, t.opt.Width, width([]rune(first)), width([]rune(indent))) {
		if i == 0 {
			t.b.WriteString(first)
		} else {
			t.b.WriteString(indent)
		}
		t.write(l)
		t.b.WriteByte('\n')
	}
}

// write writes styled runes, with ANSI codes when colours are on.
func (t *textWriter) write(rs []srune) {
	cur := Style(0)
	for _, r := range rs {
		if t.opt.Color && r.st != cur {
			if cur != 0 {
				t.b.WriteString("\x1b[0m")
			}
			if r.st != 0 {
				t.b.WriteString(ansi(r.st))
			}
			cur = r.st
		}
		t.b.WriteRune(r.r)
	}
	if t.opt.Color && cur != 0 {
		t.b.WriteString("\x1b[0m")
	}
}

func ansi(st Style) string {
	var codes []string
	if st&Strong != 0 {
		codes = append(codes, "1")
	}
	switch {
	case st&Bad != 0:
		codes = append(codes, "31")
	case st&Good != 0:
		codes = append(codes, "32")
	case st&Warn != 0:
		codes = append(codes, "33")
	}
	return "\x1b[" + strings.Join(codes, ";") + "m"
}

// hasDetails reports whether a table of d has a row with a Detail.
func hasDetails(d *Document) bool {
	for _, s := range d.Sections {
		if tb, ok := s.Body.(*Table); ok {
			for _, g := range tb.Groups {
				for _, r := range g.Rows {
					if r.Detail != nil {
						return true
					}
				}
			}
		}
	}
	return false
}

// table writes a table with its columns aligned across groups: without
// its Markdown columns, and in a brief report without its full ones and
// its Details.
func (t *textWriter) table(tb *Table) {
	cols := len(tb.Columns)
	cells := make([][][]srune, 0, tb.items())
	for _, g := range tb.Groups {
		for _, r := range g.Rows {
			row := make([][]srune, cols)
			for i := range cols {
				if i < len(r.Cells) {
					row[i] = styled(r.Cells[i])
				}
			}
			cells = append(cells, row)
		}
	}
	widths := make([]int, cols)
	for i, c := range tb.Columns {
		widths[i] = width([]rune(c.Title))
	}
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], swidth(c))
		}
	}
	shown := make([]bool, cols)
	for i, c := range tb.Columns {
		shown[i] = !c.Markdown && !(c.Full && t.opt.Brief)
	}
	trail := -1
	total := func() int {
		n, k := 0, 0
		for i, w := range widths {
			if shown[i] {
				n += w
				k++
			}
		}
		return n + 2*max(k-1, 0)
	}
	if t.opt.Width > 0 && total() > t.opt.Width {
		for i, c := range tb.Columns {
			if c.Trail && trail < 0 && shown[i] {
				trail, shown[i] = i, false
			}
		}
		for total() > t.opt.Width {
			drop, most := -1, 0
			for i, c := range tb.Columns {
				if shown[i] && c.Optional > most {
					drop, most = i, c.Optional
				}
			}
			if drop < 0 {
				break
			}
			shown[drop] = false
		}
	}
	// A first cell too long for what is left of the line (a long name)
	// goes on a line of its own above its row, so that the other rows
	// keep to the width.
	overflow := map[int]bool{}
	f := 0 // the first column shown
	for f < cols-1 && !shown[f] {
		f++
	}
	if t.opt.Width > 0 && total() > t.opt.Width {
		avail := t.opt.Width - (total() - widths[f])
		w0 := width([]rune(tb.Columns[f].Title))
		for k, row := range cells {
			if n := swidth(row[f]); n > avail {
				overflow[k] = true
			} else {
				w0 = max(w0, n)
			}
		}
		widths[f] = w0
	}
	last := cols - 1
	for last > 0 && !shown[last] {
		last--
	}
	writeRow := func(row [][]srune) {
		first := true
		for i := 0; i <= last; i++ {
			if !shown[i] {
				continue
			}
			if !first {
				t.b.WriteString("  ")
			}
			first = false
			pad := strings.Repeat(" ", max(widths[i]-swidth(row[i]), 0))
			switch {
			case tb.Columns[i].Right:
				t.b.WriteString(pad)
				t.write(row[i])
			case i == last:
				t.write(row[i])
			default:
				t.write(row[i])
				t.b.WriteString(pad)
			}
		}
		t.b.WriteByte('\n')
	}
	header := make([][]srune, cols)
	for i, c := range tb.Columns {
		header[i] = styled([]Span{{Kind: SpanText, Text: c.Title, Style: Strong}})
	}
	k := 0
	for gi, g := range tb.Groups {
		if gi > 0 {
			t.blank()
		}
		if g.Title != nil {
			t.para(g.Title, "", "")
		}
		writeRow(header)
		for _, r := range g.Rows {
			row := cells[k]
			if overflow[k] {
				t.write(row[f])
				t.b.WriteByte('\n')
				row = slices.Clone(row)
				row[f] = nil
			}
			k++
			writeRow(row)
			if trail >= 0 && len(row[trail]) > 0 {
				for _, l := range wrap(row[trail], t.opt.Width, 4, 4) {
					t.b.WriteString("    ")
					t.write(l)
					t.b.WriteByte('\n')
				}
			}
			if r.Detail != nil && !t.opt.Brief {
				t.detail(r.Detail)
			}
		}
	}
}

// srune is a rune with its style.
type srune struct {
	r  rune
	st Style
}

// styled renders spans as styled runes: untrusted text neutralised, marks
// as plain symbols.
func styled(spans []Span) []srune {
	var out []srune
	for _, s := range spans {
		text := s.Text
		switch s.Kind {
		case SpanMark:
			switch s.Text {
			case markPass:
				text = "✓"
			case markFail:
				text = "✗"
			case markWarn:
				text = "!"
			default:
				text = ""
			}
		case SpanLink:
			text = s.Text + " (" + s.URL + ")"
		}
		for _, r := range neutral(text) {
			out = append(out, srune{r, s.Style})
		}
	}
	return out
}

// wrap breaks rs into lines of at most width columns at spaces (a word
// longer than a line stays whole); the first line has first columns
// taken, the others indent. width 0: one line.
func wrap(rs []srune, width, first, indent int) [][]srune {
	if width <= 0 || first+swidth(rs) <= width {
		return [][]srune{rs}
	}
	var lines [][]srune
	avail := width - first
	for len(rs) > 0 {
		if swidth(rs) <= avail {
			lines = append(lines, rs)
			break
		}
		// The last space at which the line still fits.
		cut, w := -1, 0
		for i, r := range rs {
			if r.r == ' ' && w <= avail {
				cut = i
			}
			w += runeWidth(r.r)
			if w > avail {
				break
			}
		}
		if cut <= 0 {
			// No space to break at: up to the next space.
			cut = len(rs)
			for i, r := range rs {
				if i > 0 && r.r == ' ' {
					cut = i
					break
				}
			}
		}
		lines = append(lines, rs[:cut])
		rs = rs[cut:]
		for len(rs) > 0 && rs[0].r == ' ' {
			rs = rs[1:]
		}
		avail = max(width-indent, 1)
	}
	return lines
}

func swidth(rs []srune) int {
	n := 0
	for _, r := range rs {
		n += runeWidth(r.r)
	}
	return n
}

func width(rs []rune) int {
	n := 0
	for _, r := range rs {
		n += runeWidth(r)
	}
	return n
}

// runeWidth is the number of terminal columns r takes: 0 for combining
// marks, 2 for wide East Asian characters and emoji, 1 otherwise.
func runeWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	case r >= 0x1100 && (r <= 0x115f || r == 0x2329 || r == 0x232a ||
		(r >= 0x2e80 && r <= 0xa4cf && r != 0x303f) ||
		(r >= 0xac00 && r <= 0xd7a3) ||
		(r >= 0xf900 && r <= 0xfaff) ||
		(r >= 0xfe30 && r <= 0xfe4f) ||
		(r >= 0xff00 && r <= 0xff60) ||
		(r >= 0xffe0 && r <= 0xffe6) ||
		(r >= 0x1f300 && r <= 0x1f64f) ||
		(r >= 0x1f900 && r <= 0x1f9ff) ||
		(r >= 0x20000 && r <= 0x3fffd)):
		return 2
	}
	return 1
}
