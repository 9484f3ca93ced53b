package report

import (
	"bytes"
	"fmt"
	"github.com/benchgate/benchgate/internal/pipeline"
	"math"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// heldOutVerdict is the synthetic pull request of the report's layout
// check: 8 interleaved rounds over 10 benchmarks in one package, 4
// regressions (2 of time, 2 of allocations), 4 improvements, one
// benchmark added and one removed; the gate's count advice among the
// notes, and an explanation of one allocation regression.
func heldOutVerdict(t testing.TB) (gate.Verdict, Meta) {
	t.Helper()
	type bench struct {
		name               string
		ns, headNs         float64
		allocs, headAllocs int
		base, head         bool
	}
	benches := []bench{
		{"Parse", 1500, 1622, 4, 4, true, true},              // time +8.1%
		{"Encode", 900, 900, 3, 4, true, true},               // +1 alloc/op
		{"Decode/format=json", 2100, 2310, 6, 6, true, true}, // time +10%
		{"Marshal", 700, 700, 2, 5, true, true},              // +3 allocs/op
		{"Hash", 500, 400, 0, 0, true, true},                 // time −20%
		{"Compress", 3000, 2700, 8, 8, true, true},           // time −10%
		{"Unmarshal", 1200, 1200, 9, 6, true, true},          // −3 allocs/op
		{"Scan", 800, 800, 2, 1, true, true},                 // −1 alloc/op
		{"Legacy", 600, 0, 1, 0, true, false},                // removed
		{"Stream", 0, 950, 0, 2, false, true},                // added
	}
	var base, head strings.Builder
	for _, b := range []*strings.Builder{&base, &head} {
		b.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/shop/codec\n")
	}
	for r := range 8 {
		for _, b := range []*strings.Builder{&base, &head} {
			fmt.Fprintf(b, "round: %d\n", r)
		}
		for k, be := range benches {
			jit := 1 + 0.004*math.Sin(float64(r*7+k*13))
			if be.base {
				fmt.Fprintf(&base, "Benchmark%s-2 100000 %.1f ns/op 64 B/op %d allocs/op\n", be.name, be.ns*jit, be.allocs)
			}
			if be.head {
				jit2 := 1 + 0.004*math.Sin(float64(r*5+k*11))
				fmt.Fprintf(&head, "Benchmark%s-2 100000 %.1f ns/op 64 B/op %d allocs/op\n", be.name, be.headNs*jit2, be.headAllocs)
			}
		}
	}
	set, err := stats.Load(stats.Input{Name: "base.txt", R: bytes.NewReader([]byte(base.String()))},
		stats.Input{Name: "head.txt", R: bytes.NewReader([]byte(head.String()))})
	if err != nil {
		t.Fatal(err)
	}
	p := gate.DefaultPolicy()
	v := gate.Judge(stats.CompareAlpha(set, 0.95, p.Alpha), nil, p)
	m := Meta{Tool: "benchgate v0.1.0", Record: pipeline.Record{
		BaseRef: "main", HeadRef: "feature/faster-parse",
		BaseSHA: "0123456789abcdef0123456789abcdef01234567", HeadSHA: "89abcdef0123456789abcdef0123456789abcdef",
		Count: 8, Benchtime: "100ms", Seed: 7, RawDir: "benchgate-out",
		Run:    pipeline.Facts{CountAdvice: &gate.Warning{Code: gate.WarnCountTooLow, Count: 8, Family: 10, Alpha: 0.01, Correction: gate.Holm, MinP: 0.0039, MinCount: 11, UTest: true}},
		BaseGo: "go1.26.8", HeadGo: "go1.26.8",
		Explain: []explain.Why{{
			Package: "example.com/shop/codec", Name: "Encode-2", Unit: "allocs/op",
			Explain: explain.Explanation{Sites: []explain.Site{{
				Function: "example.com/shop/codec.(*Encoder).grow", File: "encode.go", Line: 88, Base: 0, Head: 1,
			}}},
			Changed: 1, Base: 3, Head: 4, Ops: [2]int64{10000, 10000}, Runs: 1,
			Command: "go tool pprof -sample_index=alloc_objects -top benchgate-out/explain/Encode-2.head.mem",
		}},
	}}
	return v, m
}

// TestHeldOutVerdict checks the fixture is the pull request it says.
func TestHeldOutVerdict(t *testing.T) {
	v, _ := heldOutVerdict(t)
	if n := len(v.Regressions()); n != 4 {
		t.Errorf("regressions: %d, want 4", n)
	}
	for s, want := range map[gate.Status]int{gate.Improvement: 4, gate.New: 3, gate.Removed: 3} {
		if n := v.Count(s); n != want {
			t.Errorf("%s rows: %d, want %d", s, n, want)
		}
	}
}

// The held-out pull request's terminal report fits a 100-column terminal,
// brief and verbose: no line is wider.
func TestHeldOutTerminalFits(t *testing.T) {
	v, m := heldOutVerdict(t)
	for _, brief := range []bool{true, false} {
		out := Text(v, m, TextOptions{Width: 100, Brief: brief})
		for l := range strings.Lines(out) {
			l = strings.TrimRight(l, "\n")
			if w := textWidth(l); w > 100 {
				t.Errorf("brief %v: a line of %d columns: %s", brief, w, l)
			}
		}
	}
}
