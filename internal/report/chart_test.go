package report

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// hostileMermaid are names that try to break out of a Mermaid label, the
// diagram or the code fence.
var hostileMermaid = []string{
	`a"] --> B[x`,
	"```",
	"x\n```\n<img src=x onerror=alert(1)>",
	"%%{init: {\"theme\": \"dark\"}}%%",
	"#quot;#35;&quot;",
	"a;b:c{d}e|f`g`",
	"bidi\u202eevil",
	"bad\xffutf8",
}

func TestMermaidText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Encode/format=json-8", "Encode/format=json-8"},
		{"Sort/n=1,000 (x+y)_z.w", "Sort/n=1,000 (x+y)_z.w"},
		{`a"] --> B[x`, "a__ --_ B_x"},
		{"```", "___"},
		{"a\nb\r\nc", "a_b__c"},
		{"%%{init}%%", "___init___"},
		{"#quot;", "_quot_"},
		{"größe-8", "größe-8"},
		{"bidi\u202eevil\u2066", "bidi_evil_"},
		{"bad\xffutf8", "bad_utf8"},
		{strings.Repeat("x", 50), strings.Repeat("x", 39) + "…"},
	}
	for _, tt := range tests {
		if got := chartText(tt.in, 40); got != tt.want {
			t.Errorf("chartText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

var mermaidSafe = regexp.MustCompile(`^[\pL\pN /=.,_+()…-]*$`)

func FuzzMermaidText(f *testing.F) {
	for _, s := range hostileMermaid {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := chartText(in, 40)
		if !utf8.ValidString(out) || !mermaidSafe.MatchString(out) || utf8.RuneCountInString(out) > 40 {
			t.Fatalf("chartText(%q) = %q", in, out)
		}
	})
}

// pairedRow is a time row with a paired estimate ratio, a ±1% interval
// at 95% and, in its table, a ±2% one at 99.9%.
func pairedRow(pkg, name string, status gate.Status, ratio float64) gate.Result {
	d := ratio - 1
	return gate.Result{
		Comparison: stats.Comparison{
			Key:    stats.Key{Package: pkg, Name: name, Unit: "sec/op"},
			Base:   summary(rep(1e-6, 10)...),
			Head:   summary(rep(ratio*1e-6, 10)...),
			Paired: &stats.Paired{N: 10, Ratio: ratio, Low: ratio * 0.99, High: ratio * 1.01, Confidence: 0.95},
		},
		Kind: gate.Time, Status: status, Test: gate.TestPaired, Delta: &d,
		Interval: &gate.Interval{Confidence: 0.999, Estimate: d, Low: ratio*0.98 - 1, High: ratio*1.02 - 1},
	}
}

// mermaidBlock returns the body of the only ```mermaid block of md.
func mermaidBlock(t *testing.T, md string) string {
	t.Helper()
	if n := strings.Count(md, "```mermaid\n"); n != 1 {
		t.Fatalf("%d mermaid blocks, want 1:\n%s", n, md)
	}
	body := md[strings.Index(md, "```mermaid\n")+len("```mermaid\n"):]
	end := strings.Index(body, "\n```\n")
	if end < 0 {
		t.Fatalf("mermaid block not closed:\n%s", md)
	}
	return body[:end]
}

// chartSeries parses the x-axis labels and the series of a chart body.
func chartSeries(t *testing.T, body string) (labels []string, series map[string][][]float64) {
	t.Helper()
	series = map[string][][]float64{}
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "x-axis ["):
			list := strings.TrimSuffix(strings.TrimPrefix(line, "x-axis ["), "]")
			for _, l := range strings.Split(list, ", ") {
				if len(l) < 2 || l[0] != '"' || l[len(l)-1] != '"' || strings.Count(l, `"`) != 2 {
					t.Fatalf("label %s is not one quoted string", l)
				}
				labels = append(labels, l[1:len(l)-1])
			}
		case strings.HasPrefix(line, "bar ["), strings.HasPrefix(line, "line ["):
			kind, list, _ := strings.Cut(line, " ")
			var vals []float64
			if err := json.Unmarshal([]byte(list), &vals); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			series[kind] = append(series[kind], vals)
		}
	}
	return labels, series
}

func TestChartHostileNames(t *testing.T) {
	var results []gate.Result
	for i, name := range hostileMermaid {
		results = append(results, pairedRow("example.com/"+name, name, gate.Regression, 1.1+0.01*float64(i)))
	}
	results = append(results, pairedRow("p", "Fine-8", gate.Improvement, 0.8))
	v := gate.Verdict{Results: results, Policy: gate.DefaultPolicy()}
	md := Markdown(v, Meta{}, Options{})
	body := mermaidBlock(t, md)
	// Nothing of the names escapes the fence, the labels or the code
	// spans of the tables.
	r := checkGFM(t, md)
	for _, name := range hostileMermaid {
		if !r.hasCode(neutral(name)) {
			t.Errorf("%q is not shown as code", name)
		}
	}
	for i, line := range strings.Split(body, "\n") {
		if strings.ContainsAny(line, "`\r\u202e") || (i > 0 && strings.Contains(line, "%%")) {
			t.Errorf("chart line %d is unsafe: %q", i, line)
		}
	}
	labels, series := chartSeries(t, body)
	if len(labels) != len(results) || len(series["bar"]) != 9+chartMasks || len(series["line"]) != 1 {
		t.Fatalf("%d labels, %d bar and %d line series:\n%s", len(labels), len(series["bar"]), len(series["line"]), body)
	}
	for _, s := range append(series["bar"], series["line"]...) {
		if len(s) != len(labels) {
			t.Errorf("series of %d values for %d labels", len(s), len(labels))
		}
	}
	seen := map[string]bool{}
	for _, l := range labels {
		i := strings.LastIndexByte(l, ' ')
		if seen[l] || i < 0 || !mermaidSafe.MatchString(l[:i]) {
			t.Errorf("label %q is repeated or unsafe", l)
		}
		seen[l] = true
	}
	if want := `"a__ --_ B_x +10.00%"`; !strings.Contains(body, want) {
		t.Errorf("chart lacks the sanitized label %s:\n%s", want, body)
	}
}

func TestChartRowsAndOrder(t *testing.T) {
	var results []gate.Result
	// 12 unchanged rows with growing changes, 5 regressions, 3
	// improvements, a failed row (not drawn) and a row without an
	// interval in its table (drawn as its mark).
	for i := range 12 {
		results = append(results, pairedRow("p", fmt.Sprintf("Same%02d-8", i), gate.Unchanged, 1+0.001*float64(i)))
	}
	for i := range 5 {
		results = append(results, pairedRow("p", fmt.Sprintf("Slow%d-8", i), gate.Regression, 1.06+0.02*float64(i)))
	}
	for i := range 3 {
		results = append(results, pairedRow("p", fmt.Sprintf("Fast%d-8", i), gate.Improvement, 0.9-0.05*float64(i)))
	}
	failed := pairedRow("p", "Crash-8", gate.Failed, 3)
	noInterval := pairedRow("p", "Sparse-8", gate.Inconclusive, 1.015)
	noInterval.Interval = nil
	results = append(results, failed, noInterval)
	md := Markdown(gate.Verdict{Results: results, Policy: gate.DefaultPolicy()}, Meta{}, Options{})
	body := mermaidBlock(t, md)
	labels, series := chartSeries(t, body)
	want := []string{
		"Slow4-8 +14.00%", "Slow3-8 +12.00%", "Slow2-8 +10.00%", "Slow1-8 +8.00%", "Slow0-8 +6.00%",
		"Fast2-8 -20.00%", "Fast1-8 -15.00%", "Fast0-8 -10.00%",
		"Sparse-8 +1.50%", "Same11-8 +1.10%", "Same10-8 +1.00%", "Same09-8 +0.90%", "Same08-8 +0.80%", "Same07-8 +0.70%", "Same06-8 +0.60%",
	}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Errorf("labels\n got  %q\n want %q", labels, want)
	}
	// The axis goes through 0 to nice values beyond the intervals (the
	// table's: ±2%): Fast2's -21.6%, Slow4's +16.28%.
	if !strings.Contains(body, `" -25.0 --> 20.0`+"\n") {
		t.Errorf("y-axis:\n%s", body)
	}
	if len(series["bar"]) != 9+chartMasks || len(series["line"]) != 1 {
		t.Fatalf("%d bar and %d line series:\n%s", len(series["bar"]), len(series["line"]), body)
	}
	// What a reader sees along a row's bar: the color of the last series
	// whose bar (from the axis minimum, -25) reaches a point.
	colors := []string{"slower", "faster", "other", "mark", "mark", "mark", "slower", "faster", "other"}
	seen := func(row int, x float64) string {
		c := "none"
		for i, s := range series["bar"] {
			if s[row] >= x {
				c = "background"
				if i < len(colors) {
					c = colors[i]
				}
			}
		}
		return c
	}
	for _, tt := range []struct {
		row  int
		want map[float64]string
	}{
		// Slow4: +14% in [+11.72, +16.28]; red, marked at +14, nothing beyond.
		{0, map[float64]string{-24: "background", 0: "background", 11: "background", 12: "slower", 13.5: "slower", 14: "mark", 15: "slower", 16.2: "slower", 17: "none"}},
		// Fast2: -20% in [-21.6, -18.4]: left of 0, green.
		{5, map[float64]string{-24: "background", -21.5: "faster", -20: "mark", -19: "faster", -18: "none", 0: "none"}},
		// Sparse: +1.5%, no interval in its table: the mark alone.
		{8, map[float64]string{-1: "background", 1.5: "mark", 2: "none"}},
		// Same11: +1.1% in [-0.92, +3.12]: grey across 0.
		{9, map[float64]string{-1.5: "background", -0.5: "other", 0: "other", 1.1: "mark", 2: "other", 3.2: "none"}},
	} {
		for x, want := range tt.want {
			if got := seen(tt.row, x); got != want {
				t.Errorf("%s at %v: %s, want %s", labels[tt.row], x, got, want)
			}
		}
	}
	for _, v := range series["line"][0] {
		if v != 0 {
			t.Errorf("the line is not at 0: %v", series["line"][0])
			break
		}
	}
	// The caption names the intervals' level, the table's.
	if !strings.Contains(md, "as in its table's brackets (99.9%)") || !strings.Contains(md, "A row without an interval in its table has the mark alone.") {
		t.Errorf("caption does not give the table's level:\n%s", md)
	}
}

func TestChartNeedsTwoRows(t *testing.T) {
	one := []gate.Result{pairedRow("p", "A-8", gate.Regression, 1.2)}
	if md := Markdown(gate.Verdict{Results: one, Policy: gate.DefaultPolicy()}, Meta{}, Options{}); strings.Contains(md, "mermaid") {
		t.Errorf("chart with one row:\n%s", md)
	}
	// A second time row without pairs does not count.
	c := stats.Comparison{Key: stats.Key{Package: "p", Name: "B-8", Unit: "sec/op"}, Base: summary(rep(1e-6, 10)...), Head: summary(rep(2e-6, 10)...)}
	two := append(one, gate.Result{Comparison: c, Kind: gate.Time, Status: gate.Regression, Test: gate.TestUTest})
	if md := Markdown(gate.Verdict{Results: two, Policy: gate.DefaultPolicy()}, Meta{}, Options{}); strings.Contains(md, "mermaid") {
		t.Errorf("chart with one paired row:\n%s", md)
	}
	two[1] = pairedRow("p", "B-8", gate.Unchanged, 1.001)
	if md := Markdown(gate.Verdict{Results: two, Policy: gate.DefaultPolicy()}, Meta{}, Options{}); !strings.Contains(md, "```mermaid\n") {
		t.Errorf("no chart with two paired rows:\n%s", md)
	}
}

// TestChartIsDroppedFirst checks that the chart gives way before any row
// is cut, and that the cut line says so.
func TestChartIsDroppedFirst(t *testing.T) {
	var results []gate.Result
	for i := range 4 {
		results = append(results, pairedRow("p", fmt.Sprintf("Slow%d-8", i), gate.Regression, 1.1+0.01*float64(i)))
		results = append(results, pairedRow("p", fmt.Sprintf("Same%d-8", i), gate.Unchanged, 1.001))
	}
	v := gate.Verdict{Results: results, Policy: gate.DefaultPolicy()}
	full := Markdown(v, Meta{}, Options{})
	d := Build(v, Meta{})
	var pic string
	for _, s := range d.Sections {
		if _, ok := s.Body.(*Chart); ok {
			pic = mdSection(s, 1)
		}
	}
	if !strings.Contains(full, pic) || pic == "" {
		t.Fatalf("full report lacks the chart")
	}
	noChart := strings.Replace(full, pic, "", 1)
	note := "\n**Cut to fit the size limit:** not shown are the chart of the largest changes.\n"
	// Markdown reserves room for the longest cut line.
	reserve := len(cutNote(d.Sections, nil, ""))
	for _, limit := range []int{len(full) + reserve, len(full) + reserve - 1, len(noChart) + reserve, len(noChart) + reserve - 1} {
		md := Markdown(v, Meta{}, Options{MaxChars: limit})
		if len(md) > limit {
			t.Errorf("MaxChars %d: %d bytes", limit, len(md))
		}
		hasChart := strings.Contains(md, "```mermaid")
		rows := countRows(md, "Slow") + countRows(md, "Same")
		switch {
		case limit >= len(full)+reserve:
			if !hasChart || md != full {
				t.Errorf("MaxChars %d (the full size): report differs from the unlimited one", limit)
			}
		case limit >= len(noChart)+reserve:
			if hasChart || rows != 8 || !strings.Contains(md, note) {
				t.Errorf("MaxChars %d: chart %v, %d of 8 rows, note %v; want the chart dropped, every row, the note", limit, hasChart, rows, strings.Contains(md, note))
			}
		default:
			if hasChart || rows == 8 || countRows(md, "Slow") != 4 {
				t.Errorf("MaxChars %d: chart %v, %d rows; want no chart, some rows cut, every regression", limit, hasChart, rows)
			}
		}
	}
}
