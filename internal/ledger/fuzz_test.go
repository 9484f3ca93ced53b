package ledger_test

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/historypage"
	"github.com/benchgate/benchgate/internal/ledger"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

// FuzzRead: any ledger is read without a panic, in time, within the
// limits, to entries that each validate and that round-trip through
// Marshal; its analysis has finite levels, encodes as JSON, and draws as a
// sparkline and a history page (round 3's L2: a valid line of log_ratio
// 800 made a level +Inf, which panicked the sparkline and failed JSON;
// M1: a long series took memory quadratic in its merges).
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"v":1,"head":{"sha":"a"},"name":"X","unit":"sec/op","direction":"lower","log_ratio":0.1,"low":0,"high":0.2,"se":0.05,"change":0.1,"n":10}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var (
			entries []ledger.Entry
			err     error
			h       ledger.History
			js      []byte
			jsErr   error
			page    error
			spark   []string
		)
		testenv.Within(t, 20*time.Second, func() {
			entries, _, err = ledger.ReadTail(bytes.NewReader(data), "l.jsonl")
			if err != nil {
				return
			}
			h = ledger.Analyze(entries, ledger.DefaultOptions())
			js, jsErr = json.Marshal(h)
			page = historypage.Write(io.Discard, h, historypage.Options{RepoURL: "https://github.com/o/r"})
			for _, s := range h.Series {
				spark = append(spark, report.Sparkline(s.Recent(20), 0.05))
			}
		})
		if err != nil {
			return
		}
		if len(entries) > ledger.MaxEntries {
			t.Fatalf("%d entries", len(entries))
		}
		for _, e := range entries {
			if err := e.Validate(); err != nil {
				t.Fatalf("an entry read does not validate: %v", err)
			}
		}
		b, err := ledger.Marshal(entries)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		again, err := ledger.Read(bytes.NewReader(b), "again.jsonl")
		if err != nil {
			t.Fatalf("Read(Marshal(entries)): %v", err)
		}
		if d := cmp.Diff(entries, again); d != "" && len(entries) > 0 {
			t.Fatalf("round trip (-read +again):\n%s", d)
		}
		if jsErr != nil || !json.Valid(js) {
			t.Fatalf("the analysis as JSON: %v", jsErr)
		}
		if page != nil {
			t.Fatalf("the history page: %v", page)
		}
		for _, s := range h.Series {
			for _, v := range append([]float64{s.Level, s.Low, s.High}, s.Recent(20)...) {
				if math.IsInf(v, 0) || math.IsNaN(v) {
					t.Fatalf("%s: level %v", s.Key, v)
				}
			}
		}
		for _, c := range h.Creeps {
			if math.IsInf(c.Change, 0) || math.IsNaN(c.Change) || c.Merges > ledger.RecentMerges {
				t.Fatalf("creep %+v", c)
			}
		}
		if len(spark) != len(h.Series) {
			t.Fatal("sparklines missing")
		}
	})
}
