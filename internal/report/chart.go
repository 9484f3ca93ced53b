package report

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/gate"
)

// maxChartRows is the most rows the chart shows.
const maxChartRows = 15

// maxChartLabel is the longest benchmark name in a chart label, in runes.
const maxChartLabel = 40

// chartPalette colors the chart's series: slower (red), faster (green),
// and the two interval lines (grey).
const chartPalette = "#cf222e, #1a7f37, #6e7781, #6e7781"

// chartable reports whether r has a paired estimate with a bounded
// interval, which the chart can show.
func chartable(r gate.Result) bool {
	return r.Kind == gate.Time && r.Status != gate.Failed && r.Paired != nil &&
		r.Paired.Ratio > 0 && r.Paired.Low > 0 && !math.IsInf(r.Paired.High, 0)
}

// chartRows returns the rows the chart shows, in its order, and how many
// rows were candidates: regressions, then improvements, then the rest,
// each by decreasing size of the paired change, at most maxChartRows.
func chartRows(results []gate.Result) ([]gate.Result, int) {
	var rows []gate.Result
	for _, r := range results {
		if chartable(r) {
			rows = append(rows, r)
		}
	}
	rank := func(s gate.Status) int {
		switch s {
		case gate.Regression:
			return 0
		case gate.Improvement:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(rows, func(a, b gate.Result) int {
		if ra, rb := rank(a.Status), rank(b.Status); ra != rb {
			return ra - rb
		}
		da, db := math.Abs(math.Log(a.Paired.Ratio)), math.Abs(math.Log(b.Paired.Ratio))
		switch {
		case da > db:
			return -1
		case da < db:
			return 1
		}
		return 0
	})
	return rows[:min(len(rows), maxChartRows)], len(rows)
}

// chartMarkdown renders a chart as Mermaid.
//
// Mermaid's xychart draws every bar from the axis minimum, not from 0, so
// signed changes would be drawn as bars whose length means nothing. The
// chart shows the size of each change instead, on an axis from 0, as two
// bar series, slower and faster (one of them 0 in each row, so that
// stacked and overlaid series render alike), with the interval of the
// size as two lines; each label carries the signed change. Labels must be
// distinct, or Mermaid merges their categories.
func chartMarkdown(c *Chart) string {
	seen := map[string]int{}
	var labels, slower, faster, low, high []string
	top := 0.0
	for _, bar := range c.Bars {
		label := mermaidText(bar.Label, maxChartLabel)
		seen[label]++
		if n := seen[label]; n > 1 {
			label += " (" + strconv.Itoa(n) + ")"
		}
		est := 100 * bar.Change
		lo, hi := 100*bar.Low, 100*bar.High
		labels = append(labels, `"`+label+" "+chartPct(bar.Change)+`"`)
		s, f := 0.0, 0.0
		if est > 0 {
			s = est
		} else {
			f = -est
		}
		aLo, aHi := math.Min(math.Abs(lo), math.Abs(hi)), math.Max(math.Abs(lo), math.Abs(hi))
		if lo <= 0 && hi >= 0 {
			aLo = 0 // the interval holds no change at all
		}
		slower, faster = append(slower, chartNum(s)), append(faster, chartNum(f))
		low, high = append(low, chartNum(aLo)), append(high, chartNum(aHi))
		top = math.Max(top, math.Max(aHi, math.Max(s, f)))
	}
	var b strings.Builder
	b.WriteString("```mermaid\n")
	b.WriteString(`%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "` + chartPalette + `"}}}}%%` + "\n")
	b.WriteString("xychart-beta horizontal\n")
	b.WriteString("    title \"Largest time/op changes (%)\"\n")
	b.WriteString("    x-axis [" + strings.Join(labels, ", ") + "]\n")
	b.WriteString("    y-axis \"change (%)\" 0 --> " + chartNum(niceCeil(top)) + "\n")
	for _, series := range []struct {
		kind string
		vals []string
	}{{"bar", slower}, {"bar", faster}, {"line", low}, {"line", high}} {
		b.WriteString("    " + series.kind + " [" + strings.Join(series.vals, ", ") + "]\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// chartPct formats a change for a label: "+7.3%", "-20.0%", "±0.0%"
// when it rounds to zero.
func chartPct(d float64) string {
	if math.Abs(d) < 0.0005 {
		return "±0.0%"
	}
	return pct1(d)
}

// chartNum formats a chart value with one decimal.
func chartNum(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// niceCeil returns the smallest of 1, 2, 2.5, 5 times a power of ten that
// is at least v (and at least 1).
func niceCeil(v float64) float64 {
	if !(v > 1) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
