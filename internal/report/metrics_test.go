package report

import (
	"encoding/json"
	"fmt"
	"strconv"
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

// A rate judged on its bytes per op says so alike in every format: the
// change column's "exact", the reason's words, and in the JSON the code,
// the amounts, the threshold, no test and no p; a rate that follows
// time/op carries time/op's p.
func TestRateAmountRow(t *testing.T) {
	raw := func(bytes float64, ns []string) string {
		var b strings.Builder
		b.WriteString("pkg: example.com/m\n")
		for r, n := range ns {
			t, _ := strconv.ParseFloat(n, 64)
			fmt.Fprintf(&b, "round: %d\nBenchmarkEncode 1000 %s ns/op\t%.2f MB/s\t%.0f items/s\n", r, n, bytes/t*1e3, 64/t*1e9)
		}
		return b.String()
	}
	// time/op jitters by up to 2× a round; the bytes per op fall 20 %.
	base := []string{"2611", "4873", "2590", "3302", "6127", "2604", "2977", "5411", "2633", "3890"}
	head := []string{"4702", "2598", "3129", "2615", "2847", "5936", "2621", "3355", "4410", "2589"}
	set, err := stats.Load(stats.Input{Name: "base.txt", R: strings.NewReader(raw(4096, base))}, stats.Input{Name: "head.txt", R: strings.NewReader(raw(3276, head))})
	if err != nil {
		t.Fatal(err)
	}
	v := gate.Judge(stats.CompareAlpha(set, 0.95, 0.01), nil, gate.DefaultPolicy())
	words := "the bytes per op went 4.000Ki → 3.199Ki in every run (SetBytes): -20.02% ≤ -4.76% (higher is better); time/op is judged on its own row"
	text := Text(v, Meta{}, TextOptions{})
	for _, want := range []string{"-20.02% exact", words} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if md := Markdown(v, Meta{}, Options{}); !strings.Contains(md, words) {
		t.Errorf("Markdown lacks the reason:\n%s", md)
	}
	out, err := JSON(v, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Benchmarks []struct {
			Unit, Status string
			Test         *string
			P            *float64
			Reason       struct {
				Code       string
				Text       string
				Threshold  *float64
				Base, Head *struct{ Min, Max float64 }
			}
		}
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	var tp *float64
	for _, b := range doc.Benchmarks {
		if b.Unit == "sec/op" {
			tp = b.P
		}
	}
	for _, b := range doc.Benchmarks {
		switch b.Unit {
		case "B/s":
			rs := b.Reason
			if b.Status != "regression" || rs.Code != "amount-change" || rs.Text != words || b.Test != nil || b.P != nil ||
				rs.Threshold == nil || *rs.Threshold != 0.05 || rs.Base == nil || rs.Head == nil || rs.Base.Max < 4096 || rs.Head.Min > 3276 {
				t.Errorf("JSON B/s: %s %+v test %v p %v", b.Status, rs, b.Test, b.P)
			}
		case "items/s":
			if b.Reason.Code != "follows-time" || tp == nil || b.P == nil || *b.P != *tp {
				t.Errorf("JSON items/s: %s p %v, want follows-time with time/op's p %v", b.Reason.Code, b.P, tp)
			}
		}
	}
}
