package gate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/google/go-cmp/cmp"
)

// metricsRaw is ten interleaved rounds of one benchmark: time steady
// (±1 %), B/s 20 % lower on head at the same time (b.SetBytes counting
// less), bytes-out/op constant and raised, items/s steady.
func metricsRaw(head bool) string {
	var b strings.Builder
	b.WriteString("pkg: example.com/metrics\n")
	for r := range 10 {
		ns := 2600 * (1 + 0.01*math.Sin(float64(3*r+boolTo(head))))
		bytes, out := 4096.0, 4096.0
		if head {
			bytes, out = 4096*0.8, 4608
		}
		mbs := bytes / ns * 1e3 // MB/s: bytes per µs
		items := 64 / ns * 1e9
		fmt.Fprintf(&b, "round: %d\nBenchmarkEncode 10000 %.1f ns/op\t%.2f MB/s\t%g bytes-out/op\t%.0f items/s\t0 B/op\t0 allocs/op\n", r, ns, mbs, out, items)
	}
	return b.String()
}

func boolTo(b bool) int {
	if b {
		return 1
	}
	return 0
}

func judgeRaw(t *testing.T, base, head string, p Policy) Verdict {
	t.Helper()
	set, err := stats.Load(stats.Input{Name: "base.txt", R: strings.NewReader(base)}, stats.Input{Name: "head.txt", R: strings.NewReader(head)})
	if err != nil {
		t.Fatal(err)
	}
	return Judge(stats.CompareAlpha(set, 0.95, p.Alpha), nil, p)
}

func rowsOf(v Verdict) []string {
	var out []string
	for _, r := range v.Results {
		out = append(out, fmt.Sprintf("%s %s %s %s gated=%v", r.Name, r.Unit, r.Status, r.Direction(), r.Gated))
	}
	return out
}

// The case: MB/s −20 %, a constant metric raised, a rate steady:
// two regressions and nothing else, and the gate fails.
func TestCustomMetricsTwoRegressions(t *testing.T) {
	v := judgeRaw(t, metricsRaw(false), metricsRaw(true), DefaultPolicy())
	want := []string{
		"Encode sec/op unchanged lower gated=true",
		"Encode B/s regression higher gated=true",
		"Encode bytes-out/op regression lower gated=true",
		"Encode items/s unchanged higher gated=true",
		"Encode B/op unchanged lower gated=true",
		"Encode allocs/op unchanged lower gated=true",
	}
	if diff := cmp.Diff(want, rowsOf(v)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if v.Pass {
		t.Error("the gate passes two regressions")
	}
	// B/s on its bytes per op (4096 → 3276.8 in every run), exactly;
	// items/s (64 per op on both sides) takes time/op's status.
	for _, r := range v.Results {
		if r.Unit == "B/s" && (r.Test != "" || r.Reason.Code != ReasonAmountChange) {
			t.Errorf("B/s judged by %q (%s), want the bytes per op: %s", r.Test, r.Reason.Code, reasonText(r))
		}
		if r.Unit == "items/s" && r.Reason.Code != ReasonFollowsTime {
			t.Errorf("items/s: %s, want it to follow time/op: %s", r.Reason.Code, reasonText(r))
		}
	}
	// Swapped, the same changes are improvements.
	v = judgeRaw(t, metricsRaw(true), metricsRaw(false), DefaultPolicy())
	if n := v.Count(Improvement); n != 2 || v.Count(Regression) != 0 || !v.Pass {
		t.Errorf("swapped: %d improvements, %d regressions, pass %v; want 2, 0, true", n, v.Count(Regression), v.Pass)
	}
	// Without metrics in --fail-on the regressions are reported, not gated.
	v = judgeRaw(t, metricsRaw(false), metricsRaw(true), withoutMetrics(DefaultPolicy()))
	if !v.Pass || len(v.Regressions()) != 2 {
		t.Errorf("fail-on without metrics: pass %v with %d regressions; want a pass with 2", v.Pass, len(v.Regressions()))
	}
}

// The policy file's units entries: a direction, a threshold, an ignore.
func TestCustomMetricsPolicy(t *testing.T) {
	file, err := policy.Parse(".benchgate.yml", []byte(`
units:
  - match: 'bytes-out/op'
    ignore: true
  - match: 'B/s'
    threshold: 30%
  - match: 'items/s'
    direction: lower
`))
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultPolicy()
	p.File = file
	v := judgeRaw(t, metricsRaw(false), metricsRaw(true), p)
	want := []string{
		"Encode sec/op unchanged lower gated=true",
		"Encode B/s unchanged higher gated=true",
		"Encode bytes-out/op ignored lower gated=false",
		"Encode items/s unchanged lower gated=true",
		"Encode B/op unchanged lower gated=true",
		"Encode allocs/op unchanged lower gated=true",
	}
	if diff := cmp.Diff(want, rowsOf(v)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if !v.Pass {
		t.Error("the policy's threshold and ignore should pass")
	}
	// The bytes per op fell 20 %, within the units entry's 30 %: B/s
	// follows time/op (unchanged), saying so.
	for _, r := range v.Results {
		if r.Unit == "B/s" && (r.Reason.Code != ReasonFollowsTime || !strings.Contains(reasonText(r), "in every run (SetBytes), within ±30%: ")) {
			t.Errorf("B/s: %s, want within the 30%% threshold: %s", r.Reason.Code, reasonText(r))
		}
	}
	// A direction flipped by the policy: B/s lower is better, so its drop
	// is an improvement.
	file, _ = policy.Parse(".benchgate.yml", []byte("units:\n  - match: 'B/s'\n    direction: lower\n"))
	p.File = file
	v = judgeRaw(t, metricsRaw(false), metricsRaw(true), p)
	for _, r := range v.Results {
		if r.Unit == "B/s" && (r.Status != Improvement || r.Direction() != "lower") {
			t.Errorf("B/s with direction lower: %s %s, want an improvement", r.Status, r.Direction())
		}
	}
}
