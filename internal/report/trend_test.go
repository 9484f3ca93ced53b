package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/gate"
)

func TestSparkline(t *testing.T) {
	for _, tc := range []struct {
		in    []float64
		scale float64
		want  string
	}{
		{nil, 0, ""},
		{[]float64{0, 0, 0}, 0.05, "▄▄▄"},
		{[]float64{0, 0.01, 0.02, 0.07}, 0, "▁▂▃█"},
		{[]float64{0, 0.01, 0.02, 0.07}, 0.05, "▁▂▃█"},
		{[]float64{0.05, -0.02}, 0, "█▁"},
		// Noise of ±0.1 % at a 5 % scale moves one step at most.
		{[]float64{0, 0.001, -0.001, 0}, 0.05, "▅▅▄▅"},
		// Any levels draw (round 3's L2: a level of +Inf indexed the
		// blocks at int(NaN) and panicked before the comment was written).
		{[]float64{0.01, math.Inf(1)}, 0.05, "▄▄"},
		{[]float64{0, math.NaN(), 0.1}, 0.05, "▁▄█"},
		{[]float64{-math.MaxFloat64, math.MaxFloat64}, 0, "▁█"},
		{[]float64{math.Inf(-1), math.Inf(1)}, 0.05, "▄▄"},
		{[]float64{1e304, 0}, math.Inf(1), "▄▄"},
	} {
		if got := Sparkline(tc.in, tc.scale); got != tc.want {
			t.Errorf("Sparkline(%v, %v) = %q, want %q", tc.in, tc.scale, got, tc.want)
		}
	}
}

// A time regression with a trend and a running creep: the creep line
// follows the row's summary, the sparkline is in its Detail; a row
// without a trend, and the report without trends, have neither.
func TestTrendMarkdown(t *testing.T) {
	v, m := fixtureVerdict(t)
	var row gate.Result
	for _, r := range v.Regressions() {
		if r.Kind == gate.Time && r.Delta != nil && *r.Delta > 0 {
			row = r
			break
		}
	}
	if row.Name == "" {
		t.Fatal("fixture has no time regression")
	}
	plain := markdownOf(t, v, m)
	if strings.Contains(plain, "creep") || strings.Contains(plain, "Trend") {
		t.Fatalf("report without trends mentions them:\n%s", plain)
	}
	m.Trends = []Trend{{
		Package: row.Package, Name: row.Name, Unit: row.Unit,
		Levels: []float64{0, 0.01, 0.04, 0.04, 0.079},
		Creep:  &Creep{Change: 0.079, First: "abcdef0123456789abcdef0123456789abcdef01", Since: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)},
	}}
	md := markdownOf(t, v, m)
	want := "this PR adds " + pct1(*row.Delta) + " to a creep of +7.9% since <code>abcdef0</code> (2026-11-20)"
	if !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q:\n%s", want, md)
	}
	if !strings.Contains(md, "<summary>") || !strings.Contains(md[strings.Index(md, want)-400:strings.Index(md, want)], "<summary>") {
		t.Errorf("creep line is not in a row's summary")
	}
	if !strings.Contains(md, "**Trend** (the ledger's last 5 merges): `▁▂▅▅█` +7.9%") {
		t.Errorf("markdown lacks the trend line:\n%s", md)
	}
	if n := strings.Count(md, "creep of"); n != 1 {
		t.Errorf("%d creep lines, want 1 (only the row with a trend)", n)
	}
	if lines := strings.Count(md, "\n") - strings.Count(plain, "\n"); lines > 2 {
		t.Errorf("trends added %d lines to the comment, want at most 2", lines)
	}
}

// An improvement of a creeping benchmark takes back part of it.
func TestCreepTakesBack(t *testing.T) {
	d := -0.02
	r := gate.Result{Delta: &d}
	r.Better = -1
	got := Plain(creepSpans(r, &Creep{Change: 0.06, First: "0123456789"}))
	if got != "this PR takes back 2.0% of a creep of +6.0% since 0123456" {
		t.Errorf("got %q", got)
	}
}

func markdownOf(t *testing.T, v gate.Verdict, m Meta) string {
	t.Helper()
	var b strings.Builder
	if err := WriteMarkdown(&b, Build(v, m), Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
