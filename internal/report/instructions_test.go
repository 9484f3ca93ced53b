package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// instructionVerdict judges a time row, its instruction row (+2.5 %), and
// an instruction row the lane could not count on head.
func instructionVerdict() gate.Verdict {
	sum := func(vals ...float64) *stats.Summary { return summary(vals...) }
	cmps := []stats.Comparison{
		{Key: stats.Key{Package: "example.com/m", Name: "Sum-2", Unit: "sec/op"}, Base: sum(rep(1e-6, 6)...), Head: sum(rep(1e-6, 6)...)},
		{Key: stats.Key{Package: "example.com/m", Name: "Sum", Unit: gate.InstructionsUnit}, Base: sum(41752505, 41863737, 41800000), Head: sum(42900000, 42950000, 42800000)},
	}
	p := gate.DefaultPolicy()
	p.FailOn[gate.Instructions] = true
	return gate.Judge(cmps, []gate.Failure{{Package: "example.com/m", Name: "Read", Side: gate.SideHead, Unit: gate.InstructionsUnit,
		Message: "unavailable: valgrind aborted (signal: aborted)\nvalgrind --tool=callgrind x.test\n==1== Callgrind: threads.c:247 (vgCallgrind_post_signal): Assertion failed"}}, p)
}

func TestInstructionCells(t *testing.T) {
	v := instructionVerdict()
	r := v.Results[1]
	if r.Kind != gate.Instructions || r.Status != gate.Regression {
		t.Fatalf("row %+v", r)
	}
	want := [7]string{"41,800,000 ± 0.15%", "42,900,000 ± 0.23%", "+2.63%", "—", "—", "—", "3"}
	if got := plainCells(r); got != want {
		t.Errorf("cells %q, want %q", got, want)
	}
	for v, want := range map[float64]string{7.04: "7.0", 1293.3: "1,293", 999.6: "1,000", 100: "100", 123456789: "123,456,789", -2500: "-2,500"} {
		if got := countText(v); got != want {
			t.Errorf("countText(%v) = %q, want %q", v, got, want)
		}
	}
}

// The report shows instruction rows after their benchmark's time row, an
// unavailable row with its reason, the lane's legend and no benchmath
// caveats for them (three repeats give no interval).
func TestInstructionReport(t *testing.T) {
	v := instructionVerdict()
	doc := Build(v, Meta{})
	var md strings.Builder
	if err := WriteMarkdown(&md, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{
		"| ❌ | `Sum` | `instructions/op` | 41,800,000 ± 0.15% | 42,900,000 ± 0.23% | +2.63% |",
		"**Decided**: +2.63% ≥ +1% and the repeats' ranges are apart (base 41,752,505–41,863,737, head 42,800,000–42,950,000 `instructions/op`)",
		"| unavailable | `Read` | `instructions/op` | — | — | — |",
		"**Decided**: unavailable on head: valgrind aborted (signal: aborted)",
		"**instructions/op** rows count the CPU instructions",
		"1 unavailable",
		"`instructions/op` unavailable for 1 benchmark",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "need >= 6 samples") {
		t.Errorf("Markdown shows benchmath's caveats for instruction rows:\n%s", out)
	}

	js, err := JSON(v, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var doc2 struct {
		Policy struct {
			InstructionsThreshold float64  `json:"instructions_threshold"`
			FailOn                []string `json:"fail_on"`
		}
		Benchmarks []struct {
			Name, Unit, Kind, Status string
			Benchstat                *struct{}
			Warnings                 []string
			Reason                   struct {
				Code, Side, Detail, Text string
				Threshold                *float64
			}
		}
		Failures []struct{}
	}
	if err := json.Unmarshal(js, &doc2); err != nil {
		t.Fatal(err)
	}
	if doc2.Policy.InstructionsThreshold != 0.01 || !strings.Contains(strings.Join(doc2.Policy.FailOn, ","), "instructions") {
		t.Errorf("policy %+v", doc2.Policy)
	}
	if len(doc2.Benchmarks) != 3 || len(doc2.Failures) != 0 {
		t.Fatalf("%d benchmarks, %d failures", len(doc2.Benchmarks), len(doc2.Failures))
	}
	sum, read := doc2.Benchmarks[1], doc2.Benchmarks[2]
	if sum.Unit != "instructions/op" || sum.Kind != "instructions" || sum.Status != "regression" || sum.Reason.Code != "ranges-separated" ||
		sum.Reason.Threshold == nil || *sum.Reason.Threshold != 0.01 || sum.Benchstat != nil || len(sum.Warnings) != 0 {
		t.Errorf("Sum: %+v", sum)
	}
	if read.Status != "unavailable" || read.Reason.Code != "unavailable" || read.Reason.Side != "head" || !strings.Contains(read.Reason.Detail, "Assertion failed") {
		t.Errorf("Read: %+v", read)
	}
}
