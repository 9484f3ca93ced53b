package report

import (
	"github.com/benchgate/benchgate/internal/english"
	"math"
	"time"

	"github.com/benchgate/benchgate/internal/gate"
)

// Trend is a row's history from the ledger of paired changes
// (docs/ledger.md): the caller fills it for the rows that gate or changed,
// and the report shows it in the row's Detail. The row is the one with
// the same Package, Name (as the verdict has it) and Unit.
type Trend struct {
	Package, Name, Unit string
	// Levels are the chained change after each of the last merges the
	// ledger recorded, oldest first (fractions: 0.03 is +3 % since the
	// first of them); Merges is how many of them there are.
	Levels []float64
	// Scale is the smallest range of levels that spans the sparkline's
	// height (the threshold), so that noise stays flat; 0: the levels'
	// own range.
	Scale float64
	// Creep is the running creep of the benchmark; nil for none.
	Creep *Creep
}

// Creep is a benchmark's running creep: windows of merges whose summed
// change passed the threshold (docs/ledger.md).
type Creep struct {
	// Change is the change from the creep's first merge to the last one
	// recorded (a fraction).
	Change float64
	// First is the head commit of the creep's first merge; Since its time.
	First string
	Since time.Time
}

// trend returns the trend of r, nil if it has none.
func (m Meta) trend(r gate.Result) *Trend {
	for i := range m.Trends {
		t := &m.Trends[i]
		if t.Package == r.Package && t.Name == r.Name && t.Unit == r.Unit {
			return t
		}
	}
	return nil
}

// sparkBlocks are the eight heights of a sparkline.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws levels as block characters, lowest to highest, over
// their range or scale if that is larger (centred on the levels' range);
// a flat series is a row of middle blocks. Any levels draw: a value that
// is not finite, or a range too wide for float64, is a middle block.
func Sparkline(levels []float64, scale float64) string {
	if len(levels) == 0 {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range levels {
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi > lo && hi-lo < scale {
		mid := lo/2 + hi/2
		lo, hi = mid-scale/2, mid+scale/2
	}
	top := len(sparkBlocks) - 1
	out := make([]rune, len(levels))
	for i, v := range levels {
		k := top / 2
		// Halved, the differences of any two finite float64s are finite.
		if f := (v/2 - lo/2) / (hi/2 - lo/2); hi > lo && !math.IsNaN(f) && !math.IsInf(f, 0) {
			k = min(top, max(0, int(math.Round(f*float64(top)))))
		}
		out[i] = sparkBlocks[k]
	}
	return string(out)
}

// trendSpans is the Detail's trend line: "Trend (last 12 merges):
// ▁▂▂▄▅▇ +3.2% (ledger)".
func trendSpans(t *Trend) []Span {
	n := len(t.Levels)
	if n == 0 {
		return nil
	}
	// The levels are relative to the first merge's base: the change over
	// the ones shown is the last over the one before the first.
	total := t.Levels[n-1]
	return []Span{
		strong("Trend"), txt(" (the ledger's last " + english.Plural(n, "merge", "merges") + "): "),
		codeText(Sparkline(t.Levels, t.Scale)), txt(" "), numSpan(pct1(total)),
	}
}

// creepSpans is the one line about a running creep, shown with the row:
// "this PR adds +2.1% to a creep of +7.9% since abc1234 (2026-11-20)".
func creepSpans(r gate.Result, c *Creep) []Span {
	d := 0.0
	if r.Delta != nil {
		d = *r.Delta
	}
	lead := []Span{txt("this PR adds "), numSpan(pct1(d)), txt(" to")}
	if worse := (d > 0) == (r.Better <= 0); d != 0 && !worse {
		lead = []Span{txt("this PR takes back "), numSpan(absPct1(math.Abs(d))), txt(" of")}
	}
	spans := append(lead, txt(" a creep of "), Span{Kind: SpanNum, Text: pct1(c.Change), Style: Warn},
		txt(" since "), nameSpan(shortSHA(c.First)))
	if !c.Since.IsZero() {
		spans = append(spans, txt(" ("+c.Since.UTC().Format(time.DateOnly)+")"))
	}
	return spans
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

// addTrend puts t into d: the trend line before the command that
// reproduces the row, the creep line after the summary.
func addTrend(d *Detail, r gate.Result, t *Trend) {
	if t == nil {
		return
	}
	if t.Creep != nil {
		d.Summary = append(d.Summary, txt(" · "))
		d.Summary = append(d.Summary, creepSpans(r, t.Creep)...)
	}
	if sp := trendSpans(t); sp != nil {
		// Before the last line, the command that reproduces the row.
		at := max(0, len(d.Body)-1)
		d.Body = append(d.Body[:at], append([]Block{Paragraph{Spans: sp}}, d.Body[at:]...)...)
	}
}
