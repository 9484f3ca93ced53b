package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/benchgate/benchgate/internal/pipeline"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const hostileName = hostileLine

var writeFixture = flag.Bool("fixture", false, "regenerate the raw benchmark files of the report fixture in testdata")

// fixtureVerdict judges testdata/base.txt against testdata/head.txt: twelve
// interleaved rounds over two packages with a time regression, a paired
// regression hidden from the U test by drift, one extra allocation, a
// 0 → N allocation, an improvement (and its B/s), unchanged rows, a
// too-noisy row, an optimized-away benchmark, runs too short to time, an
// unstable allocation count, a benchmark with too few rounds on head
// (inconclusive), a new and a removed benchmark, a head-side failure and a
// hostile benchmark name; then confirms its time regressions with
// testdata/confirm-base.txt and confirm-head.txt, where the drifted one
// vanishes.
func fixtureVerdict(t testing.TB) (gate.Verdict, Meta) {
	t.Helper()
	if *writeFixture {
		generateFixture(t)
	}
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
	screen := gate.Judge(stats.CompareAlpha(set, 0.95, p.Alpha), failures, p)
	confirm, err := stats.Load(open("confirm-base.txt"), open("confirm-head.txt"))
	if err != nil {
		t.Fatal(err)
	}
	v := gate.Confirm(screen, gate.Judge(stats.CompareAlpha(confirm, 0.95, p.Alpha), nil, p))
	m := Meta{Tool: "benchgate v0.1.0", Record: pipeline.Record{
		BaseRef:   "main",
		HeadRef:   "feature/@octocat",
		BaseSHA:   "0123456789abcdef0123456789abcdef01234567",
		HeadSHA:   "89abcdef0123456789abcdef0123456789abcdef",
		Count:     12,
		Benchtime: "100ms",
		Seed:      42,
		RawBase:   "out/base.txt",
		RawHead:   "out/head.txt",
		Run:       pipeline.Facts{Skipped: []string{"example.com/docs: no test files"}},
		BaseGo:    "go1.26.8",
		HeadGo:    "go1.27.0",
	}}
	return v, m
}

const hostileLine = "Evil/<img_src=x_onerror=alert(1)>|@octocat_[link](x)_`code`_*b*-8"

// generateFixture writes the raw files of the fixture (go test -fixture).
func generateFixture(t testing.TB) {
	const rounds = 12
	// jit is a small deterministic jitter, ±0.4%.
	jit := func(r, k int) float64 { return 1 + 0.004*math.Sin(float64(r*7+k*13)) }
	rng := rand.New(rand.NewPCG(2026, 11))
	noisy := make([][2]float64, rounds)
	for r := range noisy {
		noisy[r] = [2]float64{math.Exp(0.12 * rng.NormFloat64()), math.Exp(0.12 * rng.NormFloat64())}
	}
	type bench struct {
		pkg, name  string
		iters      int
		ns         func(r int, head bool) float64
		bytes      func(r int, head bool) (b, allocs int)
		mbps       float64 // bytes processed per op, for MB/s
		base, head func(r int) bool
	}
	always := func(int) bool { return true }
	never := func(int) bool { return false }
	constNs := func(base, head float64, k int) func(int, bool) float64 {
		return func(r int, h bool) float64 {
			if h {
				return head * jit(r, k+1)
			}
			return base * jit(r, k)
		}
	}
	constB := func(bb, ba, hb, ha int) func(int, bool) (int, int) {
		return func(_ int, h bool) (int, int) {
			if h {
				return hb, ha
			}
			return bb, ba
		}
	}
	codec, store := "example.com/codec", "example.com/store"
	benches := []bench{
		{codec, "Encode/format=json-8", 100000, constNs(1000, 1100, 1), constB(512, 5, 512, 5), 0, always, always},
		{codec, "Decode-8", 50000, constNs(2000, 2000, 2), constB(64, 2, 80, 3), 0, always, always},
		{codec, "Parse-8", 80000, constNs(1500, 1500, 3), constB(0, 0, 256, 4), 0, always, always},
		{codec, "Hash-8", 200000, constNs(500, 400, 4), constB(0, 0, 0, 0), 1024, always, always},
		{codec, "Sort-8", 30000, constNs(3000, 3000, 5), constB(0, 0, 0, 0), 0, always, always},
		{codec, "Flaky-8", 40000, constNs(2500, 2500, 6), func(r int, h bool) (int, int) {
			if h && (r == 3 || r == 7) {
				return 128, 8
			}
			return 112, 7
		}, 0, always, always},
		{codec, "Old-8", 60000, constNs(800, 800, 7), constB(0, 0, 0, 0), 0, always, never},
		{codec, "Crash-8", 60000, constNs(900, 900, 8), constB(32, 1, 32, 1), 0, always, never},
		{codec, "New-8", 60000, constNs(700, 700, 9), constB(0, 0, 0, 0), 0, never, always},
		{codec, hostileLine, 90000, constNs(120, 120, 10), constB(0, 0, 0, 0), 0, always, always},
		// The machine drifts ±25% across rounds; head is 7% slower in
		// every round. Benchstat's U test sees the drift, not the change.
		{codec, "Drift-8", 20000, func(r int, h bool) float64 {
			v := 5000 * (1 + 0.25*math.Sin(1.3*float64(r))) * jit(r, 11)
			if h {
				v *= 1.07 * jit(r, 12)
			}
			return v
		}, constB(0, 0, 0, 0), 0, always, always},
		// ±12% noise per run and no change: too noisy to judge at 5%.
		{codec, "Noisy-8", 20000, func(r int, h bool) float64 {
			if h {
				return 4000 * noisy[r][1]
			}
			return 4000 * noisy[r][0]
		}, constB(0, 0, 0, 0), 0, always, always},
		// A quarter of a nanosecond, no allocation: the work is gone.
		{codec, "Empty-8", 1000000000, constNs(0.25, 0.25, 13), constB(0, 0, 0, 0), 0, always, always},
		// 100 iterations of 2 µs: 0.2 ms per run.
		{codec, "Tiny-8", 100, constNs(2000, 2000, 14), constB(16, 1, 16, 1), 0, always, always},
		// Only 3 rounds on head: no test can judge it.
		{codec, "Sparse-8", 30000, constNs(1000, 1300, 15), constB(0, 0, 0, 0), 0, always, func(r int) bool { return r < 3 }},
		{store, "Put-8", 70000, constNs(1200, 1200, 16), constB(48, 1, 48, 1), 0, always, always},
		{store, "Get-8", 70000, func(r int, h bool) float64 {
			v := 1000 * (1 + 0.15*math.Sin(float64(3*r+int(boolInt(h)))))
			if h {
				v *= 1.06
			}
			return v
		}, constB(48, 1, 48, 1), 0, always, always},
	}
	write := func(name string, head bool, list []bench, ns func(b bench, r int, head bool) float64) {
		var b strings.Builder
		b.WriteString("goos: linux\ngoarch: amd64\ncpu: Example CPU @ 2.00GHz\n")
		for r := range rounds {
			fmt.Fprintf(&b, "round: %d\n", r)
			pkg := ""
			for _, bn := range list {
				if (head && !bn.head(r)) || (!head && !bn.base(r)) {
					continue
				}
				if bn.pkg != pkg {
					pkg = bn.pkg
					fmt.Fprintf(&b, "pkg: %s\n", pkg)
				}
				v := ns(bn, r, head)
				prec := 1
				if v < 10 {
					prec = 4
				}
				line := fmt.Sprintf("Benchmark%-40s %10d %12.*f ns/op", bn.name, bn.iters, prec, v)
				if bn.mbps > 0 {
					line += fmt.Sprintf("\t%.2f MB/s", bn.mbps/v*1e3)
				}
				by, al := bn.bytes(r, head)
				line += fmt.Sprintf("\t%d B/op\t%d allocs/op", by, al)
				b.WriteString(line + "\n")
			}
		}
		if err := os.WriteFile(filepath.Join("testdata", name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plain := func(b bench, r int, head bool) float64 { return b.ns(r, head) }
	write("base.txt", false, benches, plain)
	write("head.txt", true, benches, plain)
	// The confirmation re-runs the time regressions, Encode and Drift:
	// Encode is 10% slower again, Drift's 7% does not recur.
	var again []bench
	for _, b := range benches {
		if b.name == "Encode/format=json-8" || b.name == "Drift-8" {
			again = append(again, b)
		}
	}
	confirm := func(b bench, r int, head bool) float64 {
		v := b.ns(r+rounds, head)
		if head && b.name == "Drift-8" {
			v /= 1.065
		}
		return v
	}
	write("confirm-base.txt", false, again, confirm)
	write("confirm-head.txt", true, again, confirm)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
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
		codec + "Flaky-8 allocs/op":           gate.Unstable, // 7–8 with B/op 112–128: a real allocation
		codec + "Flaky-8 B/op":                gate.Unstable,
		codec + "Old-8 sec/op":                gate.Removed,
		codec + "New-8 sec/op":                gate.New,
		codec + "Crash-8 sec/op":              gate.Failed,
		codec + hostileName + " sec/op":       gate.Unchanged,
		codec + "Drift-8 sec/op":              gate.Unchanged, // vanished on confirmation
		codec + "Noisy-8 sec/op":              gate.Unchanged,
		codec + "Empty-8 sec/op":              gate.Unchanged,
		codec + "Tiny-8 sec/op":               gate.Unchanged,
		codec + "Sparse-8 sec/op":             gate.Inconclusive,
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
	for _, r := range v.Results {
		key := r.Package + " " + r.Name + " " + r.Unit
		switch key {
		case codec + "Encode/format=json-8 sec/op":
			if r.Confirmed == nil || !*r.Confirmed || r.Test != gate.TestPaired {
				t.Errorf("Encode: confirmed %v, test %q", r.Confirmed, r.Test)
			}
		case codec + "Drift-8 sec/op":
			// The U test misses it; the paired test found it; it did not
			// recur on confirmation.
			if r.Confirmed == nil || *r.Confirmed || *r.Comparison.P < 0.1 || r.Confirmation == nil {
				t.Errorf("Drift: confirmed %v, benchstat p %v", r.Confirmed, *r.Comparison.P)
			}
		case codec + "Noisy-8 sec/op", store + "Get-8 sec/op":
			if !r.TooNoisy {
				t.Errorf("%s not too noisy (MDE %v)", key, r.MDE)
			}
		case codec + "Empty-8 sec/op":
			if len(r.Suspect) != 1 || r.Suspect[0].Code != gate.SuspectOptimizedAway {
				t.Errorf("Empty: %+v", r.Suspect)
			}
		case codec + "Tiny-8 sec/op":
			if len(r.Suspect) != 1 || r.Suspect[0].Code != gate.SuspectShortRuns {
				t.Errorf("Tiny: %+v", r.Suspect)
			}
		}
	}
	if v.MinCount != 12 || v.Family != 14 || !strings.HasPrefix(Inconclusive(v), "time/op not judged for 1 benchmark") {
		t.Errorf("MinCount %d, Family %d, Inconclusive %q", v.MinCount, v.Family, Inconclusive(v))
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
	golden(t, "report.txt", []byte(Text(v, m, TextOptions{})))
	golden(t, "report-narrow.txt", []byte(Text(v, m, TextOptions{Width: 100})))
	golden(t, "report-brief.txt", []byte(Text(v, m, TextOptions{Width: 100, Brief: true})))
	golden(t, "report-color.txt", []byte(Text(v, m, TextOptions{Color: true, Width: 100})))
	j, err := JSON(v, m)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json", j)
}

// TestMarkdownHostile renders the report of the fixture, whose names,
// ref and failure output are hostile, as GitHub would: every name is
// shown whole and exactly, in a code span; nothing becomes HTML, a link,
// a mention or a reference; tables keep their columns.
func TestMarkdownHostile(t *testing.T) {
	v, m := fixtureVerdict(t)
	for _, limit := range []int{0, 8000} {
		md := Markdown(v, m, Options{Marker: "<!-- benchgate:example -->", MaxChars: limit, DetailsURL: "https://github.com/o/r/actions/runs/1"})
		if !strings.HasPrefix(md, "<!-- benchgate:example -->\n") {
			t.Errorf("marker is not the first line:\n%s", md[:min(len(md), 200)])
		}
		r := checkGFM(t, md)
		for _, name := range []string{"feature/@octocat", "example.com/codec", "Encode/format=json-8"} {
			if !r.hasCode(name) {
				t.Errorf("MaxChars %d: %q is not shown as code", limit, name)
			}
		}
		if limit == 0 && !r.hasCode(hostileName) {
			t.Errorf("the hostile name is not shown whole as code: %q", r.code)
		}
		// The failure output is inside a fence longer than its backtick
		// runs, shown as it is.
		if !strings.Contains(md, "````text\npanic: runtime error") || !strings.Contains(r.html, "&lt;img src=x onerror=alert(1)&gt; @octocat\n") {
			t.Errorf("MaxChars %d: failure output is not in a 4-backtick fence:\n%s", limit, md)
		}
		if strings.Contains(md, "&#") && !strings.Contains(md, "need &#62;= 6") {
			t.Errorf("MaxChars %d: entities outside prose", limit)
		}
	}
}

// TestTextHostile: the text report shows the hostile names readably,
// with no escape, entity or invisible character.
func TestTextHostile(t *testing.T) {
	v, m := fixtureVerdict(t)
	evil := "Evil/\x1b[31mred\x1b[0m\u202eevil\u200b|@team/#01<img>-8"
	for i := range v.Results {
		if v.Results[i].Name == hostileName {
			v.Results[i].Name = evil
		}
	}
	m.Notes = append(m.Notes, Note{Code: NoteCommentFailed, Err: "note with \x1b]0;title\x07 and \u2066bidi\u2069"})
	for _, opt := range []TextOptions{{}, {Width: 80}, {Color: true, Width: 120}} {
		out := Text(v, m, opt)
		if strings.Contains(out, "&#") {
			t.Errorf("%+v: an HTML entity in the text report", opt)
		}
		plain := out
		if opt.Color {
			plain = regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out, "")
		}
		for _, r := range plain {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || Invisible(r) {
				t.Errorf("%+v: raw %U in the text report", opt, r)
			}
		}
		if want := "Evil/<U+001B>[31mred<U+001B>[0m<U+202E>evil<U+200B>|@team/#01<img>-8"; !strings.Contains(plain, want) {
			t.Errorf("%+v: the name is not shown readably:\n%s", opt, plain)
		}
		if !strings.Contains(strings.Join(strings.Fields(plain), " "), "note with <U+001B>]0;title<U+0007> and <U+2066>bidi<U+2069>") {
			t.Errorf("%+v: the note is not neutralised", opt)
		}
	}
}

// TestTextAligned: the columns of each text table line up. At a width,
// the reason goes under each row and every row of a table is as wide as
// its header (the last column is right-aligned); no line is wider than
// the terminal but those with the long hostile name.
func TestTextAligned(t *testing.T) {
	v, m := fixtureVerdict(t)
	out := Text(v, m, TextOptions{Width: 100})
	header := ""
	rows := 0
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "benchmark "):
			header = l
		case l == "":
			header = ""
		case header != "" && !strings.HasPrefix(l, "    ") && strings.Contains(l, "  "):
			rows++
			if textWidth(l) != textWidth(header) {
				t.Errorf("row not aligned with its header:\n%s\n%s", header, l)
			}
		}
		if textWidth(l) > 100 {
			t.Errorf("line of %d columns: %s", textWidth(l), l)
		}
	}
	if rows < 40 {
		t.Errorf("%d table rows checked", rows)
	}
}

func textWidth(s string) int { return width([]rune(s)) }

// summary is the summary of vals as the base side of a comparison.
func summary(vals ...float64) *stats.Summary {
	k := stats.Key{Name: "X", Unit: "sec/op"}
	return stats.CompareAlpha(&stats.Set{Keys: []stats.Key{k}, Base: map[stats.Key][]stats.Obs{k: obsOf(vals)}}, 0.95, 0.05)[0].Base
}

func obsOf(vals []float64) []stats.Obs {
	o := make([]stats.Obs, len(vals))
	for i, v := range vals {
		o[i] = stats.Obs{Value: v, Round: i, Iters: 1e6}
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

// plainCells are the figures of a row as plain text.
func plainCells(r gate.Result) [7]string {
	c := cellsOf(r)
	return [7]string{Plain(c.base), Plain(c.head), Plain(c.change), Plain(c.p), Plain(c.noise), Plain(c.benchstat), Plain(c.n)}
}

func TestAllocationCells(t *testing.T) {
	tests := []struct {
		name                    string
		base, head              []float64
		unit                    string
		wantBase, wantHead, dlt string
	}{
		{"one more", rep(2, 3), rep(3, 3), "allocs/op", "2", "3", "+1 (+50.00%)"},
		{"0 → N", rep(0, 3), rep(5, 3), "allocs/op", "0", "5", "+5 (from 0)"},
		{"N → 0", rep(5, 3), rep(0, 3), "allocs/op", "5", "0", "-5 (-100.00%)"},
		{"same", rep(4, 3), rep(4, 3), "allocs/op", "4", "4", "0"},
		{"bytes", rep(296120, 3), rep(296121, 3), "B/op", "296120", "296121", "+1 (+0.00%)"},
		{"varying head", rep(7, 3), []float64{7, 8, 7}, "allocs/op", "7", "7–8", "—"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gate.Result{Comparison: stats.Comparison{Key: stats.Key{Unit: tt.unit}, Base: summary(tt.base...), Head: summary(tt.head...)}, Kind: gate.KindOf(tt.unit)}
			if got, want := plainCells(r), [7]string{tt.wantBase, tt.wantHead, tt.dlt, "—", "—", "—", "3"}; got != want {
				t.Errorf("cells = %q, want %q", got, want)
			}
		})
	}
}

func TestTimeCells(t *testing.T) {
	c := stats.Comparison{Key: stats.Key{Unit: "sec/op"}, Base: summary(rep(1.234e-6, 6)...), Head: summary(1.3e-6, 1.31e-6, 1.32e-6, 1.29e-6, 1.3e-6, 1.28e-6)}
	d, p := c.Head.Center/c.Base.Center-1, 0.002
	c.Delta, c.P = &d, &p
	// Judged by the U test, unadjusted: benchstat's figures everywhere.
	got := plainCells(gate.Result{Comparison: c, Kind: gate.Time, Test: gate.TestUTest, Delta: &d, P: &p, PAdjusted: &p})
	want := [7]string{"1.234µ", "1.300µ", "+5.35%", "0.002", "—", "+5.35% p=0.002", "6"}
	if got != want {
		t.Errorf("U-test cells = %q, want %q", got, want)
	}
	// Judged by the paired test, adjusted: the paired figures, the
	// interval, noise and MDE, and benchstat's in their own column.
	pd, pp, adj, noise, mde := 0.052, 0.0005, 0.004, 0.012, 0.071
	c.Paired = &stats.Paired{N: 12, Ratio: 1.052, Low: 1.041, High: 1.063, P: pp}
	r := gate.Result{Comparison: c, Kind: gate.Time, Test: gate.TestPaired, Delta: &pd, P: &pp, PAdjusted: &adj, Noise: &noise, MDE: &mde, TooNoisy: true,
		Interval: &gate.Interval{Confidence: 0.999, Estimate: 0.052, Low: 0.041, High: 0.063}}
	want = [7]string{"1.234µ", "1.300µ", "+5.20% [+4.1, +6.3]", "0.004 (raw <0.001)", "⚠ 1.2% / 7.1%", "+5.35% p=0.002", "12"}
	if got := plainCells(r); got != want {
		t.Errorf("paired cells = %q, want %q", got, want)
	}
	// Short runs: the median's and the minimum's estimates beside the
	// gated one (the estimator's own is not repeated).
	c.Paired.Runs, c.Paired.Estimator, c.Paired.MedianRatio, c.Paired.MinRatio = 5, stats.Median, 1.052, 1.031
	r.Comparison = c
	if got := cellsOf(r).alt; got != "min +3.10%" {
		t.Errorf("short runs: other estimators %q", got)
	}
	c.Paired.Estimator = stats.P25
	r.Comparison = c
	if got := cellsOf(r).alt; got != "median +5.20%, min +3.10%" {
		t.Errorf("short runs, p25: other estimators %q", got)
	}
	if got := Plain(statSpans(r)); !strings.Contains(got, "base 1.234µ ± 0% · head 1.300µ ± 2% · ") || !strings.HasSuffix(got, " · other estimators median +5.20%, min +3.10%") {
		t.Errorf("short runs, p25: statistics %q", got)
	}
	c.Paired.Runs = 1
	r.Comparison = c
	// No interval at the family's level (too few rounds): none is shown,
	// not the 95% one.
	r.Interval = nil
	if got := plainCells(r)[2]; got != "+5.20%" {
		t.Errorf("unbounded interval: change %q", got)
	}
	c.Delta, c.P, c.Head, c.Paired = nil, nil, nil, nil
	got = plainCells(gate.Result{Comparison: c, Kind: gate.Time})
	want = [7]string{"1.234µ", "—", "—", "—", "—", "—", "6"}
	if got != want {
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
		cmps = append(cmps, stats.CompareAlpha(set, 0.95, 0.05)...)
	}
	// 5,000 benchmarks of 10 rounds: no correction, or nothing could be
	// judged (Holm over 5,000 needs 20 rounds).
	p := gate.DefaultPolicy()
	p.Correction = gate.NoCorrection
	return gate.Judge(cmps, nil, p)
}

func TestMarkdownFitsGitHubLimit(t *testing.T) {
	regs := map[int]bool{17: true, 2500: true, 4999: true}
	v := bigVerdict(5000, regs)
	if got := len(v.Regressions()); got != 3 {
		t.Fatalf("verdict has %d regressions, want 3", got)
	}
	const limit = 65536
	md := Markdown(v, Meta{Record: pipeline.Record{Count: 10}}, Options{MaxChars: limit, DetailsURL: "https://example.com/run/1", Marker: "<!-- benchgate -->"})
	if len(md) > limit {
		t.Errorf("report has %d bytes, limit %d", len(md), limit)
	}
	for i := range regs {
		if name := fmt.Sprintf("Benchmark%04d/case=%d-8", i, i); !strings.Contains(md, "| ❌ | `"+name+"` |") {
			t.Errorf("regression %s missing", name)
		}
	}
	if !strings.HasPrefix(md, "<!-- benchgate -->\n### ❌ benchgate: fail — 3 benchmarks block this change: `Benchmark0017/case=17-8` time +20.00%; ") ||
		!strings.Contains(md, "\n\n5000 benchmarks compared in 5000 rows: 3 regressions, 4997 unchanged\n") {
		t.Errorf("header:\n%s", md[:200])
	}
	if !strings.Contains(md, "not shown are ") || !strings.Contains(md, "of 4997 other rows, the chart of the largest changes. [Full report](https://example.com/run/1).") {
		t.Errorf("no cut note saying what was cut")
	}
	if !strings.Contains(md, "- Reproduce the numbers: `benchgate compare base.txt head.txt`; benchstat's (base, head, benchstat): `benchstat -ignore round base.txt head.txt`\n") {
		t.Errorf("reproduce line missing")
	}
	if strings.Count(md, "<details>") != strings.Count(md, "</details>") {
		t.Errorf("a details element not closed")
	}
	// Unlimited, everything is there.
	full := Markdown(v, Meta{}, Options{})
	if n := countRows(full, "Benchmark"); n != 5000 {
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
	shown := countRows(md, "Benchmark")
	if shown == 0 || shown == 2000 {
		t.Fatalf("%d of 2000 regressions shown", shown)
	}
	if want := fmt.Sprintf("not shown are %d of 2000 regressions, ", 2000-shown); !strings.Contains(md, want) || !strings.Contains(md, "the chart of the largest changes.") {
		t.Errorf("cut note does not say %q: %s", want, md[max(0, strings.Index(md, "Cut to fit")):])
	}
}

// countRows counts the Markdown table rows whose benchmark name starts
// with prefix.
func countRows(md, prefix string) int {
	return len(regexp.MustCompile("(?m)^\\|[^|\n]*\\| `"+regexp.QuoteMeta(prefix)).FindAllStringIndex(md, -1))
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
	want := "### ✅ benchgate: pass — no benchmark results\n\nno benchmark results\n\n<details><summary>How the run was made</summary>\n\n- base → head\n- threshold 5%, α=0.01\n- Reproduce the numbers: `benchgate compare base.txt head.txt`; benchstat's (base, head, benchstat): `benchstat -ignore round base.txt head.txt`\n\n</details>\n"
	if md != want {
		t.Errorf("got\n%s\nwant\n%s", md, want)
	}
}

func TestReproduceQuotesPaths(t *testing.T) {
	got := mdBlock(reproduce(Meta{Record: pipeline.Record{RawBase: "/tmp/my out/base.txt", RawHead: "it's/head.txt"}}))
	want := "Reproduce the numbers: `benchgate compare '/tmp/my out/base.txt' 'it'\\''s/head.txt'`; benchstat's (base, head, benchstat): `benchstat -ignore round '/tmp/my out/base.txt' 'it'\\''s/head.txt'`"
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
		Warnings []struct{ Code, Text string }
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

func TestJSONPairedFields(t *testing.T) {
	v, m := fixtureVerdict(t)
	out, err := JSON(v, m)
	if err != nil {
		t.Fatal(err)
	}
	type bench struct {
		Name, Unit, Status string
		Test               *string
		Delta, P           *float64
		PAdjusted          *float64 `json:"p_adjusted"`
		Benchstat          *struct{ Delta, P *float64 }
		Paired             *struct {
			N                   int
			Ratio, Low, High, P *float64
			Confidence, Noise   *float64
			Exact               bool
		}
		Noise, MDE   *float64
		TooNoisy     bool `json:"too_noisy"`
		Confirmed    *bool
		Confirmation *struct {
			Status string
			N      int
		}
		Suspect []struct{ Code, Message string }
	}
	var doc struct {
		Correction      string
		TimeComparisons int  `json:"time_comparisons"`
		MinCount        *int `json:"min_count"`
		Inconclusive    string
		Confirmed       bool
		Benchmarks      []bench
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Correction != "holm" || doc.TimeComparisons != 14 || doc.MinCount == nil || *doc.MinCount != 12 || doc.Inconclusive != Inconclusive(v) || !doc.Confirmed {
		t.Errorf("top level: %+v", doc)
	}
	byKey := map[string]bench{}
	for _, b := range doc.Benchmarks {
		byKey[b.Name+" "+b.Unit] = b
	}
	for i, r := range v.Results {
		b := doc.Benchmarks[i]
		if (b.PAdjusted == nil) != (r.PAdjusted == nil) || (r.PAdjusted != nil && *b.PAdjusted != *r.PAdjusted) {
			t.Errorf("%s %s: p_adjusted %v, want %v", r.Name, r.Unit, b.PAdjusted, r.PAdjusted)
		}
		if b.Suspect == nil {
			t.Errorf("%s %s: suspect is null", r.Name, r.Unit)
		}
	}
	// A paired regression: delta and p are the paired ones, benchstat's
	// are kept apart.
	enc := byKey["Encode/format=json-8 sec/op"]
	r := v.Results[0]
	if enc.Test == nil || *enc.Test != "paired" || *enc.Delta != r.Paired.Ratio-1 || *enc.P != r.Paired.P ||
		*enc.Benchstat.Delta != *r.Comparison.Delta || *enc.Benchstat.P != *r.Comparison.P {
		t.Errorf("Encode: %+v", enc)
	}
	if enc.Paired == nil || enc.Paired.N != 24 || !enc.Paired.Exact || *enc.Paired.Ratio != r.Paired.Ratio || enc.Paired.Low == nil || *enc.Noise != r.Paired.Noise || enc.MDE == nil {
		t.Errorf("Encode paired: %+v", enc.Paired)
	}
	if enc.Confirmed == nil || !*enc.Confirmed || enc.Confirmation == nil || enc.Confirmation.Status != "regression" || enc.Confirmation.N != 12 {
		t.Errorf("Encode confirmation: %v %+v", enc.Confirmed, enc.Confirmation)
	}
	if d := byKey["Drift-8 sec/op"]; d.Status != "unchanged" || d.Confirmed == nil || *d.Confirmed || *d.Benchstat.P < 0.1 {
		t.Errorf("Drift: %+v", d)
	}
	// Too few pairs for an interval: null bounds, no test.
	if sp := byKey["Sparse-8 sec/op"]; sp.Status != "inconclusive" || sp.Test != nil || sp.Paired == nil || sp.Paired.Low != nil || sp.Paired.High != nil || sp.MDE != nil {
		t.Errorf("Sparse: %+v", sp)
	}
	if n := byKey["Noisy-8 sec/op"]; !n.TooNoisy {
		t.Errorf("Noisy: %+v", n)
	}
	if e := byKey["Empty-8 sec/op"]; len(e.Suspect) != 1 || e.Suspect[0].Code != "optimized-away" {
		t.Errorf("Empty: %+v", e.Suspect)
	}
	// Exact checks: no p, no benchstat, no paired figures.
	if a := byKey["Decode-8 allocs/op"]; a.P != nil || a.PAdjusted != nil || a.Benchstat != nil || a.Paired != nil || a.Test != nil || a.Noise != nil {
		t.Errorf("Decode allocs: %+v", a)
	}
	// Custom metrics: the paired test, adjusted within their own family.
	if h := byKey["Hash-8 B/s"]; h.Test == nil || *h.Test != "paired" || h.P == nil || h.PAdjusted == nil || h.Benchstat == nil || h.Paired == nil {
		t.Errorf("Hash B/s: %+v", h)
	}
}

// TestOneWarningPerProblem: 30 benchmarks optimized away are one
// warning that names them; what each does is under its own row, once;
// benchstat's own messages on sample sizes are nowhere.
func TestOneWarningPerProblem(t *testing.T) {
	var cmps []stats.Comparison
	for i := range 30 {
		k := stats.Key{Package: "p", Name: fmt.Sprintf("Empty%02d-8", i), Unit: "sec/op"}
		obs := obsOf(rep(0.25e-9, 4))
		for i := range obs {
			obs[i].Iters = 1e9 // long enough runs: one suspicion per row
		}
		cmps = append(cmps, stats.CompareAlpha(&stats.Set{Keys: []stats.Key{k}, Base: map[stats.Key][]stats.Obs{k: obs}, Head: map[stats.Key][]stats.Obs{k: obs}}, 0.95, 0.05)...)
	}
	v := gate.Judge(cmps, nil, gate.DefaultPolicy())
	if len(cmps[0].Warnings) == 0 && len(cmps[0].Base.Warnings) == 0 {
		t.Fatal("the fixture has no benchstat message to leave out")
	}
	md := Markdown(v, Meta{}, Options{})
	if n := strings.Count(md, "0.25 ns/op (no allocation figures) on base and head"); n != 30 {
		t.Errorf("%d suspicion lines, want 30, one under each row", n)
	}
	if n := strings.Count(md, "almost certainly optimized away (no sink)"); n != 1 {
		t.Errorf("%d warnings that the benchmarks are optimized away, want 1:\n%s", n, md)
	}
	if !strings.Contains(md, "- 30 benchmarks run under 1 ns/op with 0 allocs/op: almost certainly optimized away (no sink): `Empty00-8`, `Empty01-8`, `Empty02-8`, `Empty03-8`, `Empty04-8` and 25 more\n") {
		t.Errorf("no summary warning:\n%s", md)
	}
	for _, leak := range []string{"need >=", "samples for confidence", "to detect a difference"} {
		if strings.Contains(md, leak) {
			t.Errorf("benchstat's message %q reaches the report", leak)
		}
	}
}

func TestFormatP(t *testing.T) {
	for p, want := range map[float64]string{0.0286: "0.029", 0.01: "0.010", 0.001: "0.001", 0.00099: "<0.001", 1: "1.000"} {
		if got := FormatP(p); got != want {
			t.Errorf("FormatP(%v) = %q, want %q", p, got, want)
		}
	}
	if !strings.HasPrefix(FormatP(0), "<") {
		t.Errorf("FormatP(0) = %q", FormatP(0))
	}
}

// Text renders v and m for a terminal: [Build] written by [WriteText].
func Text(v gate.Verdict, m Meta, opt TextOptions) string {
	var b strings.Builder
	_ = WriteText(&b, Build(v, m), opt)
	return b.String()
}
