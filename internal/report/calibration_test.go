package report

import (
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/runner"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// calibrationFixture is a calibration of three benchmarks, one of them
// too noisy, one with a hostile name, with one false alarm.
func calibrationFixture() (Calibration, Meta) {
	alarm := gate.Result{
		Comparison: stats.Comparison{Key: stats.Key{Package: "example.com/p", Name: "Flaky-8", Unit: "allocs/op"}},
		Kind:       gate.Allocs, Status: gate.Regression,
		Reason: gate.Reason{Code: gate.ReasonExactChange, Base: &gate.Range{Min: 1, Max: 1}, Head: &gate.Range{Min: 2, Max: 2}},
	}
	c := Calibration{
		Rev: "HEAD", SHA: "0123456789abcdef0123456789abcdef01234567", Rounds: 10, Benchtime: "100ms", Alpha: 0.01, Correction: "holm",
		Benchmarks: []CalibrationBench{
			{Package: "example.com/p", Name: "Encode-8", Center: 1.2e-6, Noise: 0.004, MDE: 0.011, MDERecommended: 0.012},
			{Package: "example.com/p", Name: "Noisy-8", Center: 3.4e-3, Noise: 0.09, MDE: math.Inf(1), MDERecommended: 0.21},
			{Package: "example.com/p", Name: hostileLine, Center: 5e-9, Noise: 0.01, MDE: 0.02, MDERecommended: 0.025},
		},
		Alarms:    []gate.Result{alarm},
		Recommend: Recommendation{Count: 12, Threshold: 0.03, Benchtime: "100ms", Asked: 0.05, Reached: true, TooNoisy: []string{"Noisy-8"}},
	}
	res := &runner.Result{Elapsed: 62 * time.Second, BuildTime: 2 * time.Second, ProcessTime: 55 * time.Second, RunTime: 50 * time.Second, Processes: 40, Work: 30 * time.Second}
	return c, Meta{Record: pipeline.Record{Run: pipeline.Facts{Timing: &pipeline.Timing{Runner: res}}}}
}

func TestCalibrationGolden(t *testing.T) {
	c, m := calibrationFixture()
	md := CalibrationMarkdown(c, m)
	golden(t, "calibration.md", []byte(md))
	var txt strings.Builder
	if err := WriteText(&txt, BuildCalibration(c, m), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "calibration.txt", []byte(txt.String()))
	j, err := CalibrationJSON(c)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "calibration.json", j)

	r := checkGFM(t, md)
	if !r.hasCode(hostileLine) && !r.hasCode("example.com/p."+hostileLine) {
		t.Errorf("the hostile name is not shown whole as code: %q", r.code)
	}
	for _, want := range []string{"**Recommended:** `--count 12 --threshold 3.0% --benchtime 100ms`: 12 rounds detect a 3.0% change", "`Flaky-8` allocs/op: 1 → 2 allocs/op in every round"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	for _, want := range []string{`"mde": -1`, `"reason": "12 rounds detect a 3.0% change in 90% of the benchmarks at α=0.01 over 3 benchmarks (holm)"`, `"alarms": [
    "Flaky-8 allocs/op: 1 → 2 allocs/op in every round"`} {
		if !strings.Contains(string(j), want) {
			t.Errorf("JSON lacks %s:\n%s", want, j)
		}
	}
	// Not reached, and a longer benchtime.
	c.Recommend.Reached, c.Recommend.Longer, c.Recommend.Benchtime = false, true, "200ms"
	if got, want := Plain(recommendSpans(c)), "no count up to 100 reaches a 5.0% threshold at this noise; 12 rounds reach 3.0%: raise --threshold, use a longer --benchtime, or exclude the noisiest benchmarks; that many rounds is slow: a longer --benchtime (200ms) usually lowers the noise, so calibrate again with it"; got != want {
		t.Errorf("reason\n got  %q\n want %q", got, want)
	}
}
