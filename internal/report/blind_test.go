package report

import (
	"bytes"
	"fmt"
	"github.com/benchgate/benchgate/internal/pipeline"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// blindVerdict is the audit's "multi" repository (ux.md, round 3), held
// out from the report's design: a small module of 5 benchmarks that
// sleep a random time, run with --count 5 (and the confirmation's 10
// fresh rounds to come, which is what makes them judgeable at all).
// Every time/op row is far too noisy to see 5%; one of them happens to
// read +86%. Nothing else changes: allocations are the same on both
// sides.
func blindVerdict(t testing.TB) (gate.Verdict, Meta) {
	t.Helper()
	rng := rand.New(rand.NewPCG(30, 4))
	var base, head strings.Builder
	for _, b := range []*strings.Builder{&base, &head} {
		b.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/multi\n")
	}
	for r := range 5 {
		for _, b := range []*strings.Builder{&base, &head} {
			fmt.Fprintf(b, "round: %d\n", r)
		}
		for k, name := range []string{"A", "B", "C", "D", "E"} {
			max := 200e3 * float64(k+1) // ns: sleeps of up to 0.2 to 1 ms
			// A sleep of a random time: half its maximum on average, a
			// spread of ±100% from round to round; C's head rounds read
			// +86% by chance.
			bv := max * (0.1 + 0.9*rng.Float64())
			hv := max * (0.1 + 0.9*rng.Float64())
			if name == "C" {
				hv = bv * 1.86 * math.Exp(0.6*rng.NormFloat64())
			}
			fmt.Fprintf(&base, "Benchmark%s-2 10 %.0f ns/op 8 B/op 1 allocs/op\n", name, bv)
			fmt.Fprintf(&head, "Benchmark%s-2 10 %.0f ns/op 8 B/op 1 allocs/op\n", name, hv)
		}
	}
	set, err := stats.Load(stats.Input{Name: "base.txt", R: strings.NewReader(base.String())},
		stats.Input{Name: "head.txt", R: bytes.NewReader([]byte(head.String()))})
	if err != nil {
		t.Fatal(err)
	}
	p := gate.DefaultPolicy()
	p.ConfirmRounds = 10
	v := gate.Judge(stats.CompareAlpha(set, 0.95, p.Alpha), nil, p)
	m := Meta{Record: pipeline.Record{BaseRef: "HEAD~1", HeadRef: "HEAD", BaseSHA: "ca6339e01f1a0123456789abcdef0123456789ab", HeadSHA: "e82d8d3ba5250123456789abcdef0123456789ab", Count: 5, Benchtime: "2ms", Seed: 1209693045, RawDir: "benchgate-out", BaseGo: "go1.26.8", HeadGo: "go1.26.8"}, Tool: "benchgate v0.1.0"}
	return v, m
}

// TestBlindPass: a pass that could see nothing says so in its headline,
// with the smallest change it could see, in every format.
func TestBlindPass(t *testing.T) {
	v, m := blindVerdict(t)
	judged, blind := timeRows(v)
	if !v.Pass || judged != 5 || len(blind) != 5 || v.Count(gate.Regression)+v.Count(gate.Improvement) != 0 {
		t.Fatalf("the fixture is not a blind pass: pass %v, %d of %d time rows blind, statuses %v", v.Pass, len(blind), judged, statuses(v))
	}
	c := find(v, "C-2", "sec/op")
	if c.Delta == nil || *c.Delta < 0.5 {
		t.Errorf("C-2 reads %v, want a large change that nobody can see", c.Delta)
	}
	lo, hi := math.Inf(1), 0.0
	for _, r := range blind {
		lo, hi = math.Min(lo, *r.MDE), math.Max(hi, *r.MDE)
	}
	want := fmt.Sprintf("benchgate: pass — no regression found; 5 of 5 time/op rows too noisy to see 5%% (the smallest change they could see: %s to %s)", absPct1(lo), absPct1(hi))
	md := Markdown(v, m, Options{})
	text := Text(v, m, TextOptions{})
	js, err := JSON(v, m)
	if err != nil {
		t.Fatal(err)
	}
	for what, out := range map[string]string{"Markdown": md, "text": text, "JSON": string(js)} {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %q:\n%.600s", what, want, out)
		}
	}
	if !strings.Contains(string(js), `"headline": "`+want+`",`) || !strings.Contains(string(js), `"blind": 5,`) {
		t.Errorf("JSON lacks the blind count:\n%.400s", js)
	}
	if !strings.Contains(md, "\n5 benchmarks compared in 15 rows: 5 too noisy, 10 unchanged\n") {
		t.Errorf("Markdown's line of counts:\n%.600s", md)
	}
	golden(t, "blind.md", []byte(Markdown(v, m, Options{Marker: "<!-- benchgate -->"})))
	golden(t, "blind.txt", []byte(text))
}

func statuses(v gate.Verdict) map[gate.Status]int {
	out := map[gate.Status]int{}
	for _, r := range v.Results {
		out[r.Status]++
	}
	return out
}

func find(v gate.Verdict, name, unit string) gate.Result {
	for _, r := range v.Results {
		if r.Name == name && r.Unit == unit {
			return r
		}
	}
	return gate.Result{}
}
