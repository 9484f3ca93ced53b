package report

import (
	"slices"
	"strconv"

	"github.com/benchgate/benchgate/internal/english"
	"github.com/benchgate/benchgate/internal/gate"
)

// scalingCPUs returns every cpu value of ss, ascending.
func scalingCPUs(ss []gate.Scaling) []int {
	var cpus []int
	for _, s := range ss {
		cpus = append(cpus, s.CPUs...)
	}
	slices.Sort(cpus)
	return slices.Compact(cpus)
}

// scalingSection is the CPU scaling table, benchmarks whose scaling got
// worse first, grouped per package; nil when there is nothing to show.
func scalingSection(v gate.Verdict) *Section {
	ss := slices.Clone(v.Scaling)
	if len(ss) == 0 {
		return nil
	}
	slices.SortStableFunc(ss, func(a, b gate.Scaling) int { return boolRank(b.Worse) - boolRank(a.Worse) })
	cpus := scalingCPUs(ss)
	ref, refT := "cpu "+strconv.Itoa(ss[0].CPUs[0]), "t(cpu "+strconv.Itoa(ss[0].CPUs[0])+")"
	for _, s := range ss {
		if s.CPUs[0] != ss[0].CPUs[0] {
			ref, refT = "the smallest cpu value", "t(smallest cpu)"
		}
	}
	title := "CPU scaling: speed-up vs " + ref + " (" + english.Plural(len(ss), "benchmark", "benchmarks")
	if worse := len(v.ScalingWorse()); worse > 0 {
		title += ", " + strconv.Itoa(worse) + " worse"
	}
	gated := "a warning, not gated"
	if v.Policy.FailOnScaling {
		gated = "fails the gate"
	}
	intro := Paragraph{Spans: []Span{
		txt("Speed-up " + refT + " / t(cpu) of the medians, base → head. "), mark(markWarn, Warn),
		txt(": parallel scaling got worse, the symptom of contention or false sharing (" + gated +
			"): head/base at the largest cpu value exceeds head/base at the smallest by at least the threshold, and their 95% intervals do not overlap."),
	}}
	t := &Table{Columns: []Column{{Markdown: true}, {Title: "benchmark", Short: maxCellName}}}
	for _, c := range cpus {
		t.Columns = append(t.Columns, Column{Title: "cpu " + strconv.Itoa(c), Right: true})
	}
	t.Columns = append(t.Columns, Column{Title: "why", Trail: true, Full: true})
	idx := map[string]int{}
	for _, s := range ss {
		i, ok := idx[s.Package]
		if !ok {
			i = len(t.Groups)
			idx[s.Package] = i
			t.Groups = append(t.Groups, Group{Title: packageTitle(s.Package)})
		}
		t.Groups[i].Rows = append(t.Groups[i].Rows, scalingRow(s, cpus))
	}
	return &Section{Title: []Span{txt(title + ")")}, Intro: []Block{intro}, Body: t, Priority: prioScaling, What: "cpu scaling rows"}
}

// scalingRow is one benchmark's speed-ups at cpus.
func scalingRow(s gate.Scaling, cpus []int) Row {
	status := []Span(nil)
	if s.Worse {
		status = []Span{mark(markWarn, Warn)}
	}
	cells := [][]Span{status, {nameSpan(s.Name)}}
	for _, c := range cpus {
		i := slices.Index(s.CPUs, c)
		switch {
		case i < 0:
			cells = append(cells, one(none))
		case i == 0:
			cells = append(cells, one("1×"))
		default:
			cells = append(cells, one(times(s.Base[i])+" → "+times(s.Head[i])))
		}
	}
	why := scalingSpans(s)
	if s.Worse {
		why = append([]Span{mark(markWarn, Warn), txt(" ")}, why...)
	}
	// Markdown has no column for the reason: it is in the row's Detail.
	d := &Detail{Summary: []Span{nameSpan(s.Name), txt(": why")}, Reason: why}
	return Row{Cells: append(cells, why), Detail: d}
}
