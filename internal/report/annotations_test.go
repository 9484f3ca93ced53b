package report

import (
	"testing"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/stats"
)

func annRow(name, unit string, kind gate.Kind) gate.Result {
	r := gate.Result{Kind: kind, Status: gate.Regression, Gated: true}
	r.Package, r.Name, r.Unit = "example.com/m", name, unit
	r.Base, r.Head = &stats.Summary{Center: 1}, &stats.Summary{Center: 2}
	return r
}

// The annotations of explained regressions point at the top site (for a
// site outside the module, the module's line that called it) or the top
// function, relative to the module; a row that could not be explained
// has none. (cli places them in the workspace: TestPlaceAnnotations.)
func TestWhyAnnotations(t *testing.T) {
	delta := 1.0
	reg := func(name, unit string, kind gate.Kind) gate.Result {
		r := annRow(name, unit, kind)
		r.Delta = &delta
		return r
	}
	v := gate.Verdict{Results: []gate.Result{
		reg("Join", "allocs/op", gate.Allocs), reg("Mix", "sec/op", gate.Time), reg("Evil", "allocs/op", gate.Allocs), reg("Lost", "B/op", gate.Bytes),
		reg("Grow", "instructions/op", gate.Instructions),
	}}
	m := Meta{Record: pipeline.Record{Explain: []explain.Why{
		{Package: "example.com/m", Name: "Join", Unit: "allocs/op", Explain: explain.Explanation{Sites: []explain.Site{{
			Function: "strings.Clone", File: "/usr/local/go/src/strings/clone.go", Line: 27, Base: 0, Head: 1,
			Caller: &explain.Frame{Function: "example.com/m.Join", File: "mix.go", Line: 22}}}}},
		{Package: "example.com/m", Name: "Mix", Unit: "sec/op", Explain: explain.Explanation{Functions: []explain.Func{{
			Function: "example.com/m.Mix", File: "mix.go", Line: 12, Base: 1e-7, Head: 4e-7}}}},
		{Package: "example.com/m", Name: "Evil", Unit: "allocs/op", Explain: explain.Explanation{Sites: []explain.Site{{
			Function: "example.com/m.Evil", File: "../../etc/passwd", Line: 1, Head: 1}}}},
		{Package: "example.com/m", Name: "Lost", Unit: "B/op", Err: "profiling failed"},
		{Package: "example.com/m", Name: "Grow", Unit: "instructions/op", Explain: explain.Explanation{Functions: []explain.Func{{
			Function: "example.com/m.Work\u200b", File: "lib.go", Line: 10, Base: 12000, Head: 12600, ShareBase: 1, ShareHead: 1}}}},
	}}}
	var got []Annotation
	for _, a := range Annotations(v, m) {
		if a.File != "" {
			got = append(got, a)
		}
	}
	if len(got) != 4 {
		t.Fatalf("%d annotations, want 4: %+v", len(got), got)
	}
	want := []struct {
		file  string
		line  int
		title string
	}{
		{"mix.go", 22, "benchgate: Join +1 allocs/op here"},
		{"mix.go", 12, "benchgate: Mix sec/op: example.com/m.Mix got slower"},
		{"../../etc/passwd", 1, "benchgate: Evil +1 allocs/op here"},
		{"lib.go", 10, "benchgate: Grow instructions/op: example.com/m.Work<U+200B> runs more instructions"},
	}
	for i, w := range want {
		a := got[i]
		if a.Level != Notice || a.File != w.file || a.Line != w.line || a.Title != w.title {
			t.Errorf("annotation %d: %+v, want %s:%d %q", i, a, w.file, w.line, w.title)
		}
	}
	if msg := got[0].Message; msg != "mix.go:22: 0 → 1 allocs/op in strings.Clone (/usr/local/go/src/strings/clone.go:27), called here by example.com/m.Join; the regression of example.com/m.Join allocs/op" {
		t.Errorf("message: %q", msg)
	}
	// A function's name comes from the code measured: its invisible
	// characters are shown.
	if msg := got[3].Message; msg != "example.com/m.Work<U+200B>: 12000 → 12600 instructions/op of its own code (100% → 100% of the count), the largest change in the instruction counts; the regression of example.com/m.Grow instructions/op" {
		t.Errorf("message: %q", msg)
	}
}
