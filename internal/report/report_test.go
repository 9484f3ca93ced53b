package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const hostileName = "Evil/<img_src=x_onerror=alert(1)>|@octocat_[link](x)_`code`_*b*-8"

// fixtureVerdict judges testdata/base.txt against testdata/head.txt: six
// interleaved rounds over two packages with one time regression, one extra
// allocation, a 0 → N allocation, an improvement (and its B/s), unchanged
// rows, an unstable allocation count, a new and a removed benchmark, a
// head-side failure and a hostile benchmark name.
func fixtureVerdict(t testing.TB) (gate.Verdict, Meta) {
	t.Helper()
	open := func(name string) stats.Input {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return stats.Input{Name: name, R: bytes.NewReader(b)}
	}
	set, err := stats.Load(open("base.txt"), open("head.txt"))
	if err != nil {
		t.Fatal(err)
	}
	p := gate.DefaultPolicy()
	failures := []gate.Failure{{
		Package: "example.com/codec",
		Name:    "BenchmarkCrash",
		Side:    gate.SideHead,
		Message: "panic: runtime error: index out of range [3] with length 3\n\n" +
			"goroutine 7 [running]:\n```\n</details>\n<img src=x onerror=alert(1)> @octocat\n" +
			"example.com/codec.BenchmarkCrash(0xc000124000)\n\t/src/codec_test.go:42 +0x1d\n",
	}}
	v := gate.Judge(stats.CompareAlpha(set, 0.95, p.Alpha), failures, p)
	m := Meta{
		Tool:      "benchgate v0.1.0",
		BaseRef:   "main",
		HeadRef:   "feature/@octocat",
		BaseSHA:   "0123456789abcdef0123456789abcdef01234567",
		HeadSHA:   "89abcdef0123456789abcdef0123456789abcdef",
		Count:     6,
		Benchtime: "100ms",
		Seed:      42,
		RawBase:   "out/base.txt",
		RawHead:   "out/head.txt",
		Notes:     []string{"1 package without benchmarks skipped: example.com/docs"},
	}
	return v, m
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", name, diff)
	}
}

func TestFixtureVerdict(t *testing.T) {
	// The golden files are only as good as the verdict they show: check
	// that the fixture has what it is meant to have.
	v, _ := fixtureVerdict(t)
	got := map[string]gate.Status{}
	for _, r := range v.Results {
		got[r.Package+" "+r.Name+" "+r.Unit] = r.Status
	}
	codec, store := "example.com/codec ", "example.com/store "
	want := map[string]gate.Status{
		codec + "Encode/format=json-8 sec/op": gate.Regression,
		codec + "Decode-8 allocs/op":          gate.Regression,
		codec + "Decode-8 B/op":               gate.Regression,
		codec + "Parse-8 allocs/op":           gate.Regression,
		codec + "Parse-8 B/op":                gate.Regression,
		codec + "Hash-8 sec/op":               gate.Improvement,
		codec + "Hash-8 B/s":                  gate.Improvement,
		codec + "Sort-8 sec/op":               gate.Unchanged,
		codec + "Flaky-8 allocs/op":           gate.Unstable,
		codec + "Flaky-8 B/op":                gate.Unstable,
		codec + "Old-8 sec/op":                gate.Removed,
		codec + "New-8 sec/op":                gate.New,
		codec + "Crash-8 sec/op":              gate.Failed,
		codec + hostileName + " sec/op":       gate.Unchanged,
		store + "Get-8 sec/op":                gate.Unchanged,
		store + "Put-8 sec/op":                gate.Unchanged,
	}
	for k, s := range want {
		if got[k] != s {
			t.Errorf("%s: status %q, want %q", k, got[k], s)
		}
	}
	if v.Pass {
		t.Error("fixture verdict passes, want fail")
	}
}

func TestGolden(t *testing.T) {
	v, m := fixtureVerdict(t)
	golden(t, "report.md", []byte(Markdown(v, m, Options{Marker: "<!-- benchgate:example -->"})))
	cut := Markdown(v, m, Options{MaxChars: 4000, DetailsURL: "https://github.com/o/r/actions/runs/1", Marker: "<!-- benchgate:example -->"})
	if len(cut) > 4000 {
		t.Errorf("cut report has %d bytes, limit 4000", len(cut))
	}
	golden(t, "report-cut.md", []byte(cut))
	j, err := JSON(v, m)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json", j)
}

// dangerous are substrings that must never appear in a report built from
// hostile input.
var dangerous = []string{"<img", "@octocat", "[link](x)", "`code`", "*b*", "</details>\n<img"}

func TestMarkdownHostile(t *testing.T) {
	v, m := fixtureVerdict(t)
	md := Markdown(v, m, Options{Marker: "<!-- benchgate:example -->"})
	if !strings.HasPrefix(md, "<!-- benchgate:example -->\n") {
		t.Errorf("marker is not the first line:\n%s", md[:min(len(md), 200)])
	}
	// Outside the fenced failure output, no dangerous text survives.
	outside := stripFences(t, md)
	for _, d := range dangerous {
		if strings.Contains(outside, d) {
			t.Errorf("report contains %q outside code blocks", d)
		}
	}
	// Every table row has exactly the 9 pipes of its 8 columns.
	for _, line := range strings.Split(outside, "\n") {
		if strings.HasPrefix(line, "|") {
			if n := strings.Count(line, "|"); n != 9 {
				t.Errorf("table row with %d pipes: %s", n, line)
			}
		}
	}
	// The hostile name is shown (escaped), not dropped.
	if !strings.Contains(md, Escape(hostileName)) {
		t.Errorf("escaped hostile name missing")
	}
	// The failure output is inside a fence longer than its backtick runs.
	if !strings.Contains(md, "````text\npanic: runtime error") {
		t.Errorf("failure output is not in a 4-backtick fence:\n%s", md)
	}
}

// stripFences removes fenced code blocks (opening fence of n ≥ 3 backticks
// up to a line of at least n backticks), failing on an unclosed fence.
func stripFences(t *testing.T, md string) string {
	t.Helper()
	var out []string
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		if fence == "" {
			if strings.HasPrefix(line, "```") {
				fence = line[:len(line)-len(strings.TrimLeft(line, "`"))]
				continue
			}
			out = append(out, line)
			continue
		}
		if strings.HasPrefix(line, fence) && strings.Trim(line, "`") == "" {
			fence = ""
		}
	}
	if fence != "" {
		t.Fatalf("unclosed code fence %q", fence)
	}
	return strings.Join(out, "\n")
}

func summary(vals ...float64) *stats.Summary {
	s := stats.Summarize(obsOf(vals), 0.95)
	return s
}

func obsOf(vals []float64) []stats.Obs {
	o := make([]stats.Obs, len(vals))
	for i, v := range vals {
		o[i] = stats.Obs{Value: v, Round: i, Iters: 1}
	}
	return o
}

func rep(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestAllocationCells(t *testing.T) {
	tests := []struct {
		name                    string
		base, head              []float64
		unit                    string
		wantBase, wantHead, dlt string
	}{
		{"one more", rep(2, 3), rep(3, 3), "allocs/op", "2", "3", "+1"},
		{"0 → N", rep(0, 3), rep(5, 3), "allocs/op", "0", "5", "+5"},
		{"N → 0", rep(5, 3), rep(0, 3), "allocs/op", "5", "0", "-5"},
		{"same", rep(4, 3), rep(4, 3), "allocs/op", "4", "4", "0"},
		{"bytes", rep(296120, 3), rep(296121, 3), "B/op", "296120", "296121", "+1"},
		{"varying head", rep(7, 3), []float64{7, 8, 7}, "allocs/op", "7", "7–8", "—"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gate.Result{Comparison: stats.Comparison{Key: stats.Key{Unit: tt.unit}, Base: summary(tt.base...), Head: summary(tt.head...)}, Kind: gate.KindOf(tt.unit)}
			b, h, d, p := cells(r)
			if got, want := [4]string{b, h, d, p}, [4]string{tt.wantBase, tt.wantHead, tt.dlt, "—"}; got != want {
				t.Errorf("cells = %q, want %q", got, want)
			}
		})
	}
}

func TestTimeCells(t *testing.T) {
	c := stats.Comparison{Key: stats.Key{Unit: "sec/op"}, Base: summary(rep(1.234e-6, 6)...), Head: summary(1.3e-6, 1.31e-6, 1.32e-6, 1.29e-6, 1.3e-6, 1.28e-6)}
	d, p := c.Head.Center/c.Base.Center-1, 0.002
	c.Delta, c.P = &d, &p
	b, h, dl, ps := cells(gate.Result{Comparison: c, Kind: gate.Time})
	if got, want := [4]string{b, h, dl, ps}, [4]string{"1.234µ ± 0%", "1.300µ ± 2%", "+5.35%", "0.002"}; got != want {
		t.Errorf("cells = %q, want %q", got, want)
	}
	c.Delta, c.P, c.Head = nil, nil, nil
	b, h, dl, ps = cells(gate.Result{Comparison: c, Kind: gate.Time})
	if got, want := [4]string{b, h, dl, ps}, [4]string{"1.234µ ± 0%", "—", "—", "—"}; got != want {
		t.Errorf("one-sided cells = %q, want %q", got, want)
	}
}

// bigVerdict is a verdict of n unchanged time rows over 50 packages, with
// the rows listed in regs turned into regressions.
func bigVerdict(n int, regs map[int]bool) gate.Verdict {
	var cmps []stats.Comparison
	for i := range n {
		base := []float64{1e-6, 1.01e-6, 0.99e-6, 1.02e-6, 0.98e-6, 1e-6, 1.01e-6, 0.99e-6, 1.02e-6, 0.98e-6}
		head := append([]float64(nil), base...)
		if regs[i] {
			for j := range head {
				head[j] *= 1.2
			}
		}
		k := stats.Key{Package: fmt.Sprintf("example.com/pkg%02d", i%50), Name: fmt.Sprintf("Benchmark%04d/case=%d-8", i, i), Unit: "sec/op"}
		set := &stats.Set{Keys: []stats.Key{k}, Base: map[stats.Key][]stats.Obs{k: obsOf(base)}, Head: map[stats.Key][]stats.Obs{k: obsOf(head)}}
		cmps = append(cmps, stats.Compare(set, 0.95)...)
	}
	return gate.Judge(cmps, nil, gate.DefaultPolicy())
}

func TestMarkdownFitsGitHubLimit(t *testing.T) {
	regs := map[int]bool{17: true, 2500: true, 4999: true}
	v := bigVerdict(5000, regs)
	if got := len(v.Regressions()); got != 3 {
		t.Fatalf("verdict has %d regressions, want 3", got)
	}
	const limit = 65536
	md := Markdown(v, Meta{Count: 10}, Options{MaxChars: limit, DetailsURL: "https://example.com/run/1", Marker: "<!-- benchgate -->"})
	if len(md) > limit {
		t.Errorf("report has %d bytes, limit %d", len(md), limit)
	}
	for i := range regs {
		if name := Escape(fmt.Sprintf("Benchmark%04d/case=%d-8", i, i)); !strings.Contains(md, "| "+name+" |") {
			t.Errorf("regression %s missing", name)
		}
	}
	if !strings.HasPrefix(md, "<!-- benchgate -->\n### ❌ benchgate: fail — 3 regressions, 4997 unchanged") {
		t.Errorf("header:\n%s", md[:200])
	}
	if !strings.Contains(md, "not shown are ") || !strings.Contains(md, "of 4997 other results. [Full report](https://example.com/run/1).") {
		t.Errorf("no cut note saying what was cut")
	}
	if !strings.HasSuffix(md, "Reproduce the numbers: `benchstat -ignore round base.txt head.txt`\n") {
		t.Errorf("reproduce line missing at the end")
	}
	if strings.Count(md, "<details>") != 1 || strings.Count(md, "</details>") != 1 {
		t.Errorf("details element not closed exactly once")
	}
	// Unlimited, everything is there.
	full := Markdown(v, Meta{}, Options{})
	if n := strings.Count(full, "\n| Benchmark"); n != 5000 {
		t.Errorf("unlimited report has %d rows, want 5000", n)
	}
	if strings.Contains(full, "not shown") {
		t.Errorf("unlimited report says something was cut")
	}
}

func TestMarkdownCutsRegressionsOnlyWhenTheyAloneDoNotFit(t *testing.T) {
	regs := map[int]bool{}
	for i := range 2000 {
		regs[i] = true
	}
	v := bigVerdict(2000, regs)
	md := Markdown(v, Meta{}, Options{MaxChars: 65536})
	if len(md) > 65536 {
		t.Errorf("report has %d bytes", len(md))
	}
	shown := strings.Count(md, "\n| Benchmark")
	if shown == 0 || shown == 2000 {
		t.Fatalf("%d of 2000 regressions shown", shown)
	}
	if want := fmt.Sprintf("not shown are %d of 2000 regressions.", 2000-shown); !strings.Contains(md, want) {
		t.Errorf("cut note does not say %q", want)
	}
}

func TestMarkdownTinyLimit(t *testing.T) {
	v, m := fixtureVerdict(t)
	for _, limit := range []int{1, 50, 300, 1000} {
		md := Markdown(v, m, Options{MaxChars: limit, Marker: "<!-- x -->"})
		if len(md) > limit {
			t.Errorf("MaxChars %d: %d bytes", limit, len(md))
		}
	}
}

func TestMarkdownEmptyVerdict(t *testing.T) {
	md := Markdown(gate.Judge(nil, nil, gate.DefaultPolicy()), Meta{}, Options{})
	want := "### ✅ benchgate: pass — no benchmark results\n\nbase → head · threshold 5%, α=0.01\n\nReproduce the numbers: `benchstat -ignore round base.txt head.txt`\n"
	if md != want {
		t.Errorf("got\n%s\nwant\n%s", md, want)
	}
}

func TestReproduceQuotesPaths(t *testing.T) {
	got := reproduce(Meta{RawBase: "/tmp/my out/base.txt", RawHead: "it's/head.txt"})
	want := "Reproduce the numbers: `benchstat -ignore round '/tmp/my out/base.txt' 'it'\\''s/head.txt'`\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSafeURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/o/r/actions/runs/1": "https://github.com/o/r/actions/runs/1",
		"https://x.test/a (b)":                  "https://x.test/a%20%28b%29",
		"javascript:alert(1)":                   "",
		"/relative":                             "",
		"":                                      "",
	} {
		if got := safeURL(in); got != want {
			t.Errorf("safeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJSON(t *testing.T) {
	v, m := fixtureVerdict(t)
	out, err := JSON(v, m)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict    string
		Benchmarks []struct {
			Name, Unit, Kind, Status string
			Base, Head               *struct {
				Center    float64
				Low, High *float64
				N         int
			}
			Delta *float64
			P     *float64
		}
		Failures []struct{ Side, Message string }
		Warnings []string
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Verdict != "fail" || len(doc.Benchmarks) != len(v.Results) || len(doc.Failures) != 1 {
		t.Fatalf("verdict %q, %d benchmarks, %d failures", doc.Verdict, len(doc.Benchmarks), len(doc.Failures))
	}
	for i, b := range doc.Benchmarks {
		r := v.Results[i]
		switch {
		case b.Kind == "allocs" || b.Kind == "bytes":
			if b.P != nil {
				t.Errorf("%s %s: p = %v, want null for an exact check", b.Name, b.Unit, *b.P)
			}
		case r.P != nil:
			if b.P == nil || *b.P != *r.P {
				t.Errorf("%s %s: p = %v, want %v", b.Name, b.Unit, b.P, *r.P)
			}
		}
		if (b.Delta == nil) != (r.Delta == nil) || (b.Delta != nil && *b.Delta != *r.Delta) {
			t.Errorf("%s %s: delta %v, want %v", b.Name, b.Unit, b.Delta, r.Delta)
		}
		if (b.Base == nil) != (r.Base == nil) || (b.Head == nil) != (r.Head == nil) {
			t.Errorf("%s %s: base/head presence differs", b.Name, b.Unit)
		}
		if b.Base != nil && b.Base.N != r.Base.N {
			t.Errorf("%s %s: base n %d, want %d", b.Name, b.Unit, b.Base.N, r.Base.N)
		}
	}
	// n=6 gives a finite 95% interval; n=5 does not: low/high become null.
	c := stats.Comparison{Key: stats.Key{Name: "X", Unit: "sec/op"}, Base: summary(1, 2, 3, 4, 5), Head: summary(1, 2, 3, 4, 5)}
	if !math.IsInf(c.Base.Low, -1) {
		t.Fatalf("fixture: Low = %v, want -Inf", c.Base.Low)
	}
	nan := math.NaN()
	c.Delta = &nan
	c.Head.High = math.Inf(1)
	out, err = JSON(gate.Verdict{Results: []gate.Result{{Comparison: c, Kind: gate.Time, Status: gate.Unchanged}}}, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"low": null`, `"high": 5`, `"high": null`, `"delta": null`, `"center": 3`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("JSON lacks %s:\n%s", want, out)
		}
	}
}

func TestJSONEmptyArrays(t *testing.T) {
	out, err := JSON(gate.Verdict{Pass: true}, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"benchmarks", "failures", "warnings", "notes"} {
		if _, ok := doc[k].([]any); !ok {
			t.Errorf("%s = %v, want an array", k, doc[k])
		}
	}
	if doc["verdict"] != "pass" {
		t.Errorf("verdict = %v", doc["verdict"])
	}
}
