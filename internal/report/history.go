package report

import (
	"strconv"
	"time"

	"github.com/benchgate/benchgate/internal/ledger"
)

// trendLength is how many of the last merges a level sparkline shows.
const trendLength = 20

// BuildHistory makes the report of a ledger's analysis (benchgate
// history): the creeps first, with the merges that made them; each
// benchmark's level since its first recorded merge, with its interval and
// a sparkline of the last merges; then, folded, the merges themselves.
// The document passes when there is no creep.
func BuildHistory(h ledger.History) *Document {
	merges := mergeList(h)
	d := &Document{Pass: len(h.Creeps) == 0}
	d.Title = []Span{mark(markPass, Good), txt(" "), {Kind: SpanText, Text: "benchgate history: no creep", Style: Strong | Good}}
	if !d.Pass {
		d.Title = []Span{mark(markWarn, Warn), txt(" "), {Kind: SpanText, Text: "benchgate history: " + plural(len(h.Creeps), "creep", "creeps"), Style: Strong | Warn}}
	}
	d.Head = []Block{Paragraph{Spans: []Span{txt(plural(len(h.Series), "benchmark unit", "benchmark units") + " over " +
		plural(len(merges.Items), "merge", "merges") + "; a creep is a window of consecutive merges whose summed regression is at least "),
		numSpan(absPct1(h.Options.Threshold)), txt(", significant at α " + strconv.FormatFloat(h.Options.Alpha, 'g', -1, 64) +
			" with Holm's correction over all " + plural(h.Windows, "window", "windows") + " of all benchmarks (docs/ledger.md).")}}}
	if len(h.Creeps) > 0 {
		d.Sections = append(d.Sections, &Section{Title: []Span{txt("Creeps (" + strconv.Itoa(len(h.Creeps)) + ")")}, Body: creepTable(h.Creeps), What: "creeps"})
	}
	if len(h.Series) > 0 {
		d.Sections = append(d.Sections, &Section{Title: []Span{txt("Levels (" + strconv.Itoa(len(h.Series)) + ")")}, Body: levelTable(h.Series, h.Options.Threshold), Priority: 1, What: "benchmarks"})
	}
	if len(merges.Items) > 0 {
		d.Sections = append(d.Sections, &Section{Title: []Span{txt("Merges (" + strconv.Itoa(len(merges.Items)) + ")")}, Collapsed: true, Body: merges, Priority: 2, What: "merges"})
	}
	return d
}

// groupOf returns the group of pkg in t, adding it.
func groupOf(t *Table, idx map[string]int, pkg string) *Group {
	g, ok := idx[pkg]
	if !ok {
		g = len(t.Groups)
		idx[pkg] = g
		var title []Span
		if pkg != "" {
			title = []Span{nameSpan(pkg)}
		}
		t.Groups = append(t.Groups, Group{Title: title})
	}
	return &t.Groups[g]
}

func creepTable(cs []ledger.Creep) *Table {
	t := &Table{Columns: []Column{{Title: "benchmark"}, {Title: "unit"}, {Title: "creep", Right: true}, {Title: "interval", Right: true, Optional: 2},
		{Title: "merges", Right: true}, {Title: "from", Optional: 1}, {Title: "to", Optional: 1}, {Title: "largest steps", Trail: true}}}
	idx := map[string]int{}
	for _, c := range cs {
		g := groupOf(t, idx, c.Package)
		var steps []Span
		for i, k := range c.Contributors {
			if i > 0 {
				steps = append(steps, txt(", "))
			}
			steps = append(steps, nameSpan(shortSHA(k.SHA)), txt(" "), numSpan(pct1(k.Change)))
		}
		g.Rows = append(g.Rows, Row{Cells: [][]Span{
			{nameSpan(c.Name)}, {unitSpan(c.Unit)}, {{Kind: SpanNum, Text: pct1(c.Change), Style: Warn}},
			{numSpan(pct1(c.Low) + " … " + pct1(c.High))}, {numSpan(strconv.Itoa(c.Merges))},
			{nameSpan(shortSHA(c.First))}, {nameSpan(shortSHA(c.Last))}, steps,
		}})
	}
	return t
}

func levelTable(ss []ledger.Series, scale float64) *Table {
	t := &Table{Columns: []Column{{Title: "benchmark"}, {Title: "unit"}, {Title: "level", Right: true}, {Title: "interval", Right: true, Optional: 2},
		{Title: "merges", Right: true}, {Title: "last " + strconv.Itoa(trendLength), Optional: 1}}}
	idx := map[string]int{}
	for _, s := range ss {
		g := groupOf(t, idx, s.Package)
		levels := make([]float64, 0, trendLength)
		for _, m := range s.Merges[max(0, len(s.Merges)-trendLength):] {
			levels = append(levels, m.Level)
		}
		g.Rows = append(g.Rows, Row{Cells: [][]Span{
			{nameSpan(s.Name)}, {unitSpan(s.Unit)}, {numSpan(pct1(s.Level))}, {numSpan(pct1(s.Low) + " … " + pct1(s.High))},
			{numSpan(strconv.Itoa(len(s.Merges)))}, {codeText(Sparkline(levels, scale))},
		}})
	}
	return t
}

// mergeList lists the ledger's merges once each, in ledger order: short
// SHA, date and subject (untrusted: the commit's author wrote it).
func mergeList(h ledger.History) *List {
	l := &List{}
	seen := map[string]bool{}
	for _, s := range h.Series {
		for _, m := range s.Merges {
			if seen[m.Head.SHA] {
				continue
			}
			seen[m.Head.SHA] = true
			it := []Span{nameSpan(shortSHA(m.Head.SHA))}
			if !m.Head.Time.IsZero() {
				it = append(it, txt(" "+m.Head.Time.UTC().Format(time.DateOnly)))
			}
			if m.Head.Subject != "" {
				it = append(it, txt(" "), prose(m.Head.Subject))
			}
			l.Items = append(l.Items, it)
		}
	}
	return l
}
