package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/english"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// This file shows the instruction lane's rows (instructions/op): counts
// with the spread of their repeats, the nearly exact rule's reasons, and a
// legend of what the lane sees.

// hasInstructions reports whether v has instruction rows.
func hasInstructions(v gate.Verdict) bool {
	for _, r := range v.Results {
		if r.Kind == gate.Instructions {
			return true
		}
	}
	return false
}

// instructionCells are the figures of an instruction row: each side's
// median count with the largest deviation of a repeat from it, and the
// change of the medians.
func instructionCells(r gate.Result, c rowCells) rowCells {
	cell := func(s *stats.Summary) []Span {
		if s == nil {
			return one(none)
		}
		text := countText(s.Center)
		if !s.Constant && s.Center != 0 {
			dev := math.Max(s.Max-s.Center, s.Center-s.Min) / math.Abs(s.Center)
			text += " ± " + strconv.FormatFloat(100*dev, 'f', 2, 64) + "%"
		}
		return one(text)
	}
	c.base, c.head = cell(r.Base), cell(r.Head)
	if r.Delta != nil {
		c.change = one(pct(*r.Delta))
	}
	return c
}

// countText formats an instruction count: whole numbers with thousands
// separators ("41,752,505"), one decimal below 100 ("7.0").
func countText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return none
	}
	if math.Abs(v) < 100 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', 0, 64)
	var b strings.Builder
	if v < 0 {
		b.WriteByte('-')
	}
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// countRange formats a side's range of counts: "7,019" or "7,018–7,021".
func countRange(r *gate.Range) string {
	if r == nil {
		return none
	}
	if r.Constant() {
		return countText(r.Min)
	}
	return countText(r.Min) + "–" + countText(r.Max)
}

// instructionWhy puts the reason of an instruction row in words.
func instructionWhy(rs gate.Reason, unit string) []Span {
	var l line
	ranges := func() {
		l.text("base ").num(countRange(rs.Base)).text(", head ").num(countRange(rs.Head))
	}
	thr := fmtNum(100*rs.Threshold) + "%"
	change := func() {
		if rs.Delta != nil {
			l.num(pct(*rs.Delta))
		} else {
			l.text("a change from ").num("0")
		}
	}
	switch rs.Code {
	case gate.ReasonRangesSeparated:
		change()
		if rs.Delta != nil {
			if *rs.Delta < 0 {
				l.text(" ≤ ").num("-" + thr)
			} else {
				l.text(" ≥ ").num("+" + thr)
			}
		}
		l.text(" and the repeats' ranges are apart (")
		ranges()
		l.text(" ").add(unitSpan(unit)).text(")")
	case gate.ReasonRangesOverlap:
		change()
		l.text(" but the repeats' ranges overlap (")
		ranges()
		l.text(" ").add(unitSpan(unit)).text("): they vary as much as the change; not judged")
	case gate.ReasonBelowThreshold:
		change()
		l.text(", within ").num("±" + thr).text(" (")
		ranges()
		l.text(")")
	case gate.ReasonUnavailable:
		switch rs.Side {
		case gate.SideBase, gate.SideHead:
			l.text("unavailable on " + rs.Side)
		default:
			l.text("unavailable")
		}
		if d := firstLine(rs.Detail, 300); d != "" {
			l.text(": ").add(prose(d))
		}
	}
	return l
}

// firstLine is the first line of s, cut to at most n runes.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// instructionWarning puts an instruction warning in words.
func instructionWarning(w gate.Warning) []Span {
	var l line
	n := len(w.Benchmarks)
	switch w.Code {
	case gate.WarnInstructionsVary:
		l.add(unitSpan(w.Unit)).text(" of " + english.Plural(n, "benchmark varies", "benchmarks vary") + " between repeats as much as the change: reported as unstable, not judged (a loop that makes system calls, or heavy allocation): ").
			add(nameList(w.Benchmarks, nil)...)
	case gate.WarnUnavailable:
		l.add(unitSpan(w.Unit)).text(" unavailable for " + english.Plural(n, "benchmark", "benchmarks") + " (each row says why; the other rows are judged): ").
			add(nameList(w.Benchmarks, nil)...)
	}
	return l
}

// instructionsLegend says how instruction rows are measured and judged,
// and what they do not see.
func instructionsLegend(p gate.Policy) Paragraph {
	return Paragraph{Spans: []Span{
		strong("instructions/op"), txt(" rows count the CPU instructions of one iteration of the benchmark loop under Valgrind's callgrind (GOMAXPROCS 1, garbage collector off), a few repeats per side; "),
		txt("base and head show the median with the largest deviation of a repeat from it. A change of at least "), numSpan(fmtNum(100*p.InstructionThreshold) + "%"),
		txt(" whose repeats' ranges do not overlap is a regression or an improvement. Instructions do not see cache misses, memory bandwidth, system calls and waiting, or garbage collection (off while counting): time/op does."),
	}}
}
