package report

import (
	"encoding/json"
	"github.com/benchgate/benchgate/internal/pipeline"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// hostileFunc and hostileFile are a function and a file name a pull
// request could put in a profile: the profiles come from its code.
const (
	hostileFunc = "example.com/codec.(*P).w`<img src=x onerror=alert(1)>|@octocat"
	hostileFile = "x/</summary><img src=x>|@team #12\u202e.go"
)

// explainedFixture is the fixture with explanations: the first allocs/op
// regression (a site in the module with a hostile name, one outside it
// with a caller), the first time regression (two functions) and a row
// that could not be profiled (the first B/op regression).
func explainedFixture(t *testing.T) (gate.Verdict, Meta, [3]gate.Result) {
	t.Helper()
	v, m := fixtureVerdict(t)
	var rows [3]gate.Result
	var found [3]bool
	for _, r := range v.Regressions() {
		k := map[gate.Kind]int{gate.Allocs: 0, gate.Time: 1, gate.Bytes: 2}[r.Kind]
		if (r.Kind == gate.Allocs || r.Kind == gate.Time || r.Kind == gate.Bytes) && !found[k] {
			rows[k], found[k] = r, true
		}
	}
	if found != [3]bool{true, true, true} {
		t.Fatalf("fixture lacks an allocs/op, time or B/op regression: %v", found)
	}
	m.Explain = []explain.Why{
		{Package: rows[0].Package, Name: rows[0].Name, Unit: rows[0].Unit, Changed: 3, Base: 2, Head: 3, Ops: [2]int64{1000, 1000},
			Explain: explain.Explanation{Sites: []explain.Site{
				{Function: hostileFunc, File: hostileFile, Line: 42, Base: 0, Head: 1},
				{Function: "strings.Clone", File: "/usr/local/go/src/strings/clone.go", Line: 27, Base: 1, Head: 0.5,
					Caller: &explain.Frame{Function: "example.com/codec.Decode", File: "codec.go", Line: 9}},
			}},
			Notes:   []string{"head: the sites add up to 3 allocs/op where testing reports 4 @octocat"},
			Command: "go tool pprof -top -lines -nodefraction=0 -sample_index=alloc_objects -diff_base out/base.pprof out/head.test out/head.pprof"},
		{Package: rows[1].Package, Name: rows[1].Name, Unit: rows[1].Unit, Changed: 2, Base: 1e-6, Head: 1.1e-6, Ops: [2]int64{3000, 3000}, Runs: 3,
			Explain: explain.Explanation{Functions: []explain.Func{
				{Function: "example.com/codec.encodeValue", File: "encode.go", Line: 17, Base: 2e-7, Head: 3e-7, CumBase: 4e-7, CumHead: 5e-7, ShareBase: 0.2, ShareHead: 0.27},
				{Function: "runtime.mallocgc", File: "/usr/local/go/src/runtime/malloc.go", Line: 1000, Base: 1e-7, Head: 9e-8, CumBase: 1e-7, CumHead: 9e-8, ShareBase: 0.1, ShareHead: 0.08},
			}}},
		{Package: rows[2].Package, Name: rows[2].Name, Unit: rows[2].Unit, Err: "head side: profiling: exit status 2 <img src=x> @octocat"},
	}
	return v, m, rows
}

// TestWhyMarkdown: each explained regression gets a folded "why" under
// its table, its top site or function in the summary; hostile function
// and file names stay inert, in code, whole; the command and the notes
// are shown.
func TestWhyMarkdown(t *testing.T) {
	v, m, rows := explainedFixture(t)
	md := Markdown(v, m, Options{})
	r := checkGFM(t, md)
	if n := strings.Count(md, "<details><summary>Why "); n != 3 {
		t.Errorf("%d why blocks, want 3:\n%s", n, md)
	}
	for _, name := range []string{shortFunc(hostileFunc), hostileFile[:strings.IndexRune(hostileFile, '\u202e')] + "<U+202E>.go:42", "codec.go:9", "codec.Decode", "strings.Clone", "strings/clone.go:27", "codec.encodeValue", "encode.go:17"} {
		if !r.hasCode(name) {
			t.Errorf("%q is not shown whole as code; code spans: %q", name, r.code)
		}
	}
	// The summary: the row, the change and where (in <code> elements,
	// HTML-escaped: no Markdown is read inside <summary>).
	sum := regexp.MustCompile(`<details><summary>Why <code>` + regexp.QuoteMeta(rows[0].Name) + `</code> allocs/op: \+1 at <code>x/&lt;/summary&gt;&lt;img src=x&gt;\|@team #12&lt;U\+202E&gt;\.go:42</code> \(<code>codec\.\(\*P\)\.w` + "`" + `&lt;img src=x onerror=alert\(1\)&gt;\|@octocat</code>\)</summary>`)
	if !sum.MatchString(md) {
		t.Errorf("no summary with the top site:\n%s", md)
	}
	for _, want := range []string{
		"| +1 | 0 | 1 |", "| -0.5 | 1 | 0.5 |",
		"add up to 2 → 3 allocs/op (+1); 1 more site changed",
		"`go tool pprof -top -lines -nodefraction=0 -sample_index=alloc_objects -diff_base out/base.pprof out/head.test out/head.pprof`",
		"| +100.00n | 200.00n → 300.00n | 20% → 27% |",
		"3 runs × 1000 ops",
		"Why <code>" + rows[1].Name + "</code> sec/op: <code>codec.encodeValue</code> +100.00n sec/op flat (<code>encode.go:17</code>)",
		"Why <code>" + rows[2].Name + "</code> B/op: not explained</summary>",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	// Untrusted prose (the note, the error) is escaped.
	if strings.Contains(r.text, "@octocat") && !strings.Contains(r.text, "@\u200boctocat") {
		t.Errorf("a mention in the text")
	}
	// Under a size limit a row goes with its why, never half of it.
	for _, limit := range []int{3000, 6000} {
		cut := Markdown(v, m, Options{MaxChars: limit})
		out := checkGFM(t, cut).html
		if len(cut) > limit || strings.Count(out, "<details>") != strings.Count(out, "</details>") {
			t.Errorf("cut to %d: %d bytes, %d <details>, %d </details>", limit, len(cut), strings.Count(out, "<details>"), strings.Count(out, "</details>"))
		}
	}
}

// TestWhyText: the why goes right under its row, indented, names
// neutralised.
func TestWhyText(t *testing.T) {
	v, m, rows := explainedFixture(t)
	for _, opt := range []TextOptions{{}, {Width: 100}} {
		out := Text(v, m, opt)
		lines := strings.Split(out, "\n")
		found := false
		for i, l := range lines {
			if !strings.HasPrefix(l, "    Why "+rows[0].Name+" allocs/op: +1 at ") {
				continue
			}
			found = true
			if !strings.Contains(l, "<U+202E>") {
				t.Errorf("%+v: the bidi override is not shown by its code point: %q", opt, l)
			}
			// (At a width, a first cell too long for it goes on a line
			// of its own: the hostile names are long.)
			if i+2 >= len(lines) || !strings.HasPrefix(lines[i+1], "      ") || !strings.Contains(lines[i+1]+lines[i+2], "change  base  head  where") {
				t.Errorf("%+v: no indented site table under the summary:\n%s", opt, strings.Join(lines[i:min(i+6, len(lines))], "\n"))
			}
		}
		if !found {
			t.Errorf("%+v: no why under %s allocs/op:\n%s", opt, rows[0].Name, out)
		}
		for _, r := range out {
			if r == '\u202e' || r == 0x1b {
				t.Errorf("%+v: raw %U in the text report", opt, r)
			}
		}
		if !strings.Contains(out, "The profiling pass failed: head side: profiling: exit status 2") {
			t.Errorf("%+v: the failed profile's reason is missing", opt)
		}
	}
}

// TestWhyJSON: explained rows carry explain, exactly as measured; others
// and the failed one null.
func TestWhyJSON(t *testing.T) {
	v, m, rows := explainedFixture(t)
	b, err := JSON(v, m)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Benchmarks []struct {
			Package, Name, Unit string
			Explain             *json.RawMessage `json:"explain"`
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, bm := range doc.Benchmarks {
		if bm.Explain != nil {
			got[bm.Package+" "+bm.Name+" "+bm.Unit] = string(*bm.Explain)
		}
	}
	key := func(r gate.Result) string { return r.Package + " " + r.Name + " " + r.Unit }
	if len(got) != 2 || !strings.Contains(got[key(rows[0])], `"caller": {`) || !strings.Contains(got[key(rows[1])], `"functions": [`) {
		t.Fatalf("explain fields: %q", got)
	}
	var e explain.Explanation
	if err := json.Unmarshal([]byte(got[key(rows[0])]), &e); err != nil {
		t.Fatal(err)
	}
	if len(e.Sites) != 2 || e.Sites[0].Function != hostileFunc || e.Sites[0].File != hostileFile || e.Sites[0].Line != 42 || e.Sites[0].Head != 1 || e.Functions != nil {
		t.Errorf("sites: %+v", e)
	}
}

// TestWhyInstructions: an instructions/op regression's why lists the
// functions whose own instructions per op changed, from the lane's counts,
// with the function and its line in the summary; in JSON, functions.
func TestWhyInstructions(t *testing.T) {
	delta := 0.05
	r := gate.Result{Kind: gate.Instructions, Status: gate.Regression, Gated: true, Delta: &delta}
	r.Package, r.Name, r.Unit = "example.com/lib", "Grow", "instructions/op"
	r.Base, r.Head = &stats.Summary{Center: 12020, N: 3}, &stats.Summary{Center: 12621, N: 3}
	v := gate.Verdict{Results: []gate.Result{r}}
	m := Meta{Record: pipeline.Record{Explain: []explain.Why{{Package: r.Package, Name: r.Name, Unit: r.Unit, Changed: 2, Base: 12019.6, Head: 12620.4, Ops: [2]int64{8238, 8238}, Runs: 3,
		Explain: explain.Explanation{Functions: []explain.Func{
			{Function: "example.com/lib.Work", File: "lib.go", Line: 10, Base: 12007, Head: 12607, CumBase: 12007, CumHead: 12607, ShareBase: 0.999, ShareHead: 0.999},
			{Function: "example.com/lib.BenchmarkGrow", File: "lib_test.go", Line: 7, Base: 12, Head: 13, CumBase: 12019, CumHead: 12620},
		}},
		Command: "go tool pprof -top -nodefraction=0 -diff_base out/base.pprof out/head.pprof"}}}}
	md := Markdown(v, m, Options{})
	checkGFM(t, md)
	for _, want := range []string{
		"<details><summary>Why <code>Grow</code> <code>instructions/op</code>: <code>lib.Work</code> +600 instructions/op flat (<code>lib.go:10</code>)</summary>",
		"| +600 | 12007 → 12607 | 100% → 100% |",
		"| +1 | 12 → 13 |",
		"3 runs × 2746 ops",
		"12020 → 12620 instructions/op in all",
		"Counted, not sampled",
		"`go tool pprof -top -nodefraction=0 -diff_base out/base.pprof out/head.pprof`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	b, err := JSON(v, m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"functions": [`) || !strings.Contains(string(b), `"function": "example.com/lib.Work"`) || strings.Contains(string(b), `"sites"`) {
		t.Errorf("JSON explain:\n%s", b)
	}
}

// TestFuncPackage: the import path of a profile's function name, so that
// a -trimpath file outside the module ("runtime/mgc.go" of a runtime
// function) is shown by its name alone in the functions' table.
func TestFuncPackage(t *testing.T) {
	for fn, want := range map[string]string{
		"runtime.(*spanInlineMarkBits).init":         "runtime",
		"testing.(*B).Loop":                          "testing",
		"example.com/m/codec.Decode":                 "example.com/m/codec",
		"example.com/m/codec.(*T).M.func1":           "example.com/m/codec",
		"example.com/m.F[go.shape.*example.com/x.T]": "example.com/m",
		"main": "main",
	} {
		if got := funcPackage(fn); got != want {
			t.Errorf("funcPackage(%q) = %q, want %q", fn, got, want)
		}
	}
}

// TestClip: a long name keeps its two ends within the limit; a short one
// is left whole.
func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"lib.Slow", 34, "lib.Slow"},
		{"runtime.(*gcControllerState).findRunnableGCWorker", 34, "runtime.(*gcCont…dRunnableGCWorker"},
		{"mgcmark_greenteagc.go:113", 26, "mgcmark_greenteagc.go:113"},
	} {
		got := clip(tc.in, tc.n)
		if got != tc.want || len([]rune(got)) > tc.n {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
