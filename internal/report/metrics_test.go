package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// A custom metric's row says its direction in every format: the unit cell
// in text and Markdown ("B/s ↑ better"), direction in the JSON.
func TestCustomMetricDirection(t *testing.T) {
	raw := func(mbs, out string) string {
		var b strings.Builder
		b.WriteString("pkg: example.com/m\n")
		for _, r := range []string{"0", "1", "2", "3", "4", "5"} {
			b.WriteString("round: " + r + "\nBenchmarkEncode 1000 1000 ns/op\t" + mbs + " MB/s\t" + out + " bytes-out/op\n")
		}
		return b.String()
	}
	set, err := stats.Load(stats.Input{Name: "base.txt", R: strings.NewReader(raw("100", "4096"))}, stats.Input{Name: "head.txt", R: strings.NewReader(raw("80", "4608"))})
	if err != nil {
		t.Fatal(err)
	}
	v := gate.Judge(stats.CompareAlpha(set, 0.95, 0.01), nil, gate.DefaultPolicy())
	if got := v.Count(gate.Regression); got != 2 {
		t.Fatalf("%d regressions, want 2 (constant MB/s down, bytes-out/op up)", got)
	}
	text := Text(v, Meta{}, TextOptions{})
	for _, want := range []string{"B/s ↑ better", "bytes-out/op ↓ better", "4096 → 4608 bytes-out/op in every round (lower is better)", "(higher is better)"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	md := Markdown(v, Meta{}, Options{})
	for _, want := range []string{"| B/s ↑ better |", "| `bytes-out/op` ↓ better |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	out, err := JSON(v, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Policy struct {
			FailOn []string `json:"fail_on"`
		} `json:"policy"`
		Benchmarks []struct{ Unit, Direction, Status string } `json:"benchmarks"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, b := range doc.Benchmarks {
		got[b.Unit] = b.Direction + " " + b.Status
	}
	for unit, want := range map[string]string{"sec/op": "lower unchanged", "B/s": "higher regression", "bytes-out/op": "lower regression"} {
		if got[unit] != want {
			t.Errorf("JSON %s: %q, want %q", unit, got[unit], want)
		}
	}
	if !strings.Contains(strings.Join(doc.Policy.FailOn, ","), "metrics") {
		t.Errorf("JSON fail_on %v lacks metrics", doc.Policy.FailOn)
	}
}
