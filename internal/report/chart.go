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

// chartable reports whether r has a paired change, which the chart
// draws (with the interval of its table, when it has one).
func chartable(r gate.Result) bool {
	return r.Kind == gate.Time && r.Status != gate.Failed && r.Paired != nil && r.Paired.Ratio > 0 && !math.IsInf(r.Paired.Ratio, 0)
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

// The colors of the chart's series: a slower row's interval and mark
// (red), a faster one's (green), another's (grey), the background (the
// chart's own, white) and the line at 0.
var (
	chartIntervals  = [3]string{"#ff8182", "#6fdd8b", "#afb8c1"}
	chartMarks      = [3]string{"#cf222e", "#1a7f37", "#424a53"}
	chartBackground = "#ffffff"
	chartInk        = "#1f2328"
	chartZero       = "#57606a"
)

// chartMasks is how many times the background is painted over the bars'
// left part: once leaves their antialiased edges showing.
const chartMasks = 3

// chartMarkdown renders a chart as Mermaid: one horizontal bar per row,
// from its interval's low end to its high end, on an axis through 0
// (improvements left of it), with the change marked on the bar and a
// line at 0.
//
// Mermaid's xychart draws every bar of every series from the axis
// minimum, later series over earlier ones: at a point of the axis one
// sees the last series whose bar reaches it. So each row is drawn as
// bars painted over each other: its interval's color to the high end,
// its mark's to the change plus half a mark, the interval's again to the
// change less half a mark, and the background's to the low end, which
// leaves the interval with the mark on it. Each color is a series per
// status (a row's value in the others is the axis minimum: nothing), and
// the theme's background is the one the last bars paint, on light and
// dark pages alike. Each label carries the signed change; labels must be
// distinct, or Mermaid merges their categories.
func chartMarkdown(c *Chart) string {
	lo, hi := 0.0, 0.0
	for _, bar := range c.Bars {
		lo, hi = math.Min(lo, 100*bar.Low), math.Max(hi, 100*bar.High)
	}
	// The axis goes through 0, to nice values beyond the intervals.
	if lo < 0 {
		lo = -niceCeil(-lo)
	}
	if hi > 0 || lo == 0 {
		hi = niceCeil(hi)
	}
	half := (hi - lo) / 200 // the mark is 1% of the axis wide
	seen := map[string]int{}
	var labels []string
	// Per status: to the high end, to the mark's right edge, to its left
	// edge; then the background to the low end.
	series := make([][]string, 9+chartMasks)
	for _, bar := range c.Bars {
		label := chartText(bar.Label, maxChartLabel)
		seen[label]++
		if n := seen[label]; n > 1 {
			label += " (" + strconv.Itoa(n) + ")"
		}
		labels = append(labels, `"`+label+" "+chartPct(bar.Change)+`"`)
		est, l, h := 100*bar.Change, 100*bar.Low, 100*bar.High
		k := 2
		switch bar.Status {
		case gate.Regression:
			k = 0
		case gate.Improvement:
			k = 1
		}
		for i := range series {
			v := lo // nothing
			switch {
			case i == k:
				v = h
			case i == 3+k:
				v = math.Min(est+half, hi)
			case i == 6+k:
				v = math.Max(est-half, lo)
			case i >= 9:
				v = math.Max(math.Min(l, est-half), lo) // the whole mark shows
			}
			series[i] = append(series[i], chartNum(v))
		}
	}
	zero := make([]string, len(c.Bars))
	for i := range zero {
		zero[i] = "0"
	}
	palette := append(append(append([]string{}, chartIntervals[:]...), chartMarks[:]...), chartIntervals[:]...)
	for range chartMasks {
		palette = append(palette, chartBackground)
	}
	palette = append(palette, chartZero)
	theme := `"plotColorPalette": "` + strings.Join(palette, ", ") + `", "backgroundColor": "` + chartBackground + `"`
	for _, k := range []string{"titleColor", "xAxisLabelColor", "xAxisTitleColor", "yAxisLabelColor", "yAxisTitleColor"} {
		theme += `, "` + k + `": "` + chartInk + `"`
	}
	for _, k := range []string{"xAxisTickColor", "xAxisLineColor", "yAxisTickColor", "yAxisLineColor"} {
		theme += `, "` + k + `": "` + chartZero + `"`
	}
	var b strings.Builder
	b.WriteString("```mermaid\n")
	b.WriteString(`%%{init: {"themeVariables": {"xyChart": {` + theme + `}}}}%%` + "\n")
	b.WriteString("xychart-beta horizontal\n")
	b.WriteString("    title \"Largest time/op changes (%), with their intervals\"\n")
	b.WriteString("    x-axis [" + strings.Join(labels, ", ") + "]\n")
	b.WriteString("    y-axis \"change (%): faster ← 0 → slower\" " + chartNum(lo) + " --> " + chartNum(hi) + "\n")
	for _, s := range series {
		b.WriteString("    bar [" + strings.Join(s, ", ") + "]\n")
	}
	b.WriteString("    line [" + strings.Join(zero, ", ") + "]\n")
	b.WriteString("```\n")
	return b.String()
}

// chartPct formats a change for a label as the tables do: "+7.31%",
// "-20.02%", "±0.00%" when it rounds to zero.
func chartPct(d float64) string {
	if math.Abs(d) < 0.00005 {
		return "±0.00%"
	}
	return pct(d)
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
