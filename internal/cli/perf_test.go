package cli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/stats"

	"github.com/benchgate/benchgate/internal/testenv"
)

// suite returns raw base and head files of n benchmarks × rounds, three
// units each, with a few planted regressions, as the runner writes them.
func suite(n, rounds int) (base, head []byte) {
	rng := rand.New(rand.NewPCG(7, 7))
	var b, h bytes.Buffer
	for _, w := range []*bytes.Buffer{&b, &h} {
		w.WriteString("Unit allocs/op assume=exact\nUnit B/op assume=exact\ngoos: linux\ngoarch: amd64\n")
	}
	for r := 1; r <= rounds; r++ {
		for _, w := range []*bytes.Buffer{&b, &h} {
			fmt.Fprintf(w, "round: %d\n", r)
		}
		for i := range n {
			pkg := fmt.Sprintf("example.com/big/p%02d", i/100)
			ns := 100 + float64(i%97)*10
			slow := 1.0
			extra := 0
			if i%1000 == 17 {
				slow = 1.3
			}
			if i%1000 == 555 {
				extra = 1
			}
			fmt.Fprintf(&b, "pkg: %s\nBenchmarkB%04d/size=%d-8 10000 %.2f ns/op 64 B/op 2 allocs/op\n", pkg, i, i%7, ns*(1+0.02*rng.NormFloat64()))
			fmt.Fprintf(&h, "pkg: %s\nBenchmarkB%04d/size=%d-8 10000 %.2f ns/op 64 B/op %d allocs/op\n", pkg, i, i%7, ns*slow*(1+0.02*rng.NormFloat64()), 2+extra)
		}
	}
	return b.Bytes(), h.Bytes()
}

func analyze(base, head []byte) (gate.Verdict, error) {
	set, err := stats.Load(stats.Input{Name: "base.txt", R: bytes.NewReader(base)}, stats.Input{Name: "head.txt", R: bytes.NewReader(head)})
	if err != nil {
		return gate.Verdict{}, err
	}
	p := gate.DefaultPolicy()
	return gate.Judge(stats.CompareAlpha(set, 0.95, p.Alpha), nil, p), nil
}

// BenchmarkAnalyze5000 parses and judges 5,000 benchmarks × 20 rounds
// (15,000 result rows, 300,000 samples per side).
func BenchmarkAnalyze5000(b *testing.B) {
	base, head := suite(5000, 20)
	b.SetBytes(int64(len(base) + len(head)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := analyze(base, head); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRender5000 renders the Markdown comment (cut to GitHub's limit),
// the job summary and the JSON report of that verdict.
func BenchmarkRender5000(b *testing.B) {
	base, head := suite(5000, 20)
	v, err := analyze(base, head)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = report.Markdown(v, report.Meta{}, report.Options{MaxChars: 65536})
		_ = report.Markdown(v, report.Meta{}, report.Options{MaxChars: 1 << 20})
		if _, err := report.JSON(v, report.Meta{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLargeSuiteReport: 5,000 benchmarks render within GitHub's limits
// (65,536 characters for a comment, 1 MiB for a job summary) with every
// regression present.
func TestLargeSuiteReport(t *testing.T) {
	testenv.Heavy(t)
	base, head := suite(5000, 12)
	v, err := analyze(base, head)
	if err != nil {
		t.Fatal(err)
	}
	regs := v.Regressions()
	if len(regs) < 10 {
		t.Fatalf("%d regressions planted-and-found, want at least 10 (5 slower, 5 allocating)", len(regs))
	}
	for _, limit := range []int{65536, 1 << 20} {
		md := report.Markdown(v, report.Meta{}, report.Options{MaxChars: limit})
		if len(md) > limit {
			t.Errorf("report is %d bytes, limit %d", len(md), limit)
		}
		for _, r := range regs {
			if !strings.Contains(md, report.Escape(r.Name)) {
				t.Errorf("limit %d: regression %s %s missing from the report", limit, r.Name, r.Unit)
			}
		}
	}
}
