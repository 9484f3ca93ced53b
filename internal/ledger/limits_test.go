package ledger

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// shrink sets the reading limits for one test.
func shrink(t *testing.T, bytes int64, entries, series, line int) {
	old := limits
	limits.bytes, limits.entries, limits.series, limits.line = bytes, entries, series, line
	t.Cleanup(func() { limits = old })
}

// lines renders n merges of the series names, each merge one line per
// series.
func lines(t *testing.T, merges int, names ...string) []byte {
	t.Helper()
	var es []Entry
	for i := range merges {
		for _, n := range names {
			es = append(es, sample(n, i))
		}
	}
	b, err := Marshal(es)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// onlyReader hides a reader's Seek.
type onlyReader struct{ io.Reader }

// A ledger past the byte limit is read from the first whole line of its
// last bytes: from a file by seeking there, from a stream by reading
// through and keeping the newest; the two agree, and Skipped says what
// was left out.
func TestReadTailBytes(t *testing.T) {
	data := lines(t, 100, "A")
	line := int64(bytes.IndexByte(data, '\n') + 1)
	shrink(t, 10*line+line/2, MaxEntries, MaxSeries, MaxLine)
	path := filepath.Join(t.TempDir(), "l.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seek, sk, err := ReadTail(f, "l.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(seek) != 10 || seek[9].Head.SHA != sample("A", 99).Head.SHA || seek[0].Head.SHA != sample("A", 90).Head.SHA {
		t.Fatalf("seeking: %d entries from %s, want the last 10", len(seek), seek[0].Head.SHA)
	}
	if sk.Bytes != int64(len(data))-10*line || sk.Entries != 0 {
		t.Errorf("seeking: skipped %+v, want %d bytes", sk, int64(len(data))-10*line)
	}
	stream, sk2, err := ReadTail(onlyReader{bytes.NewReader(data)}, "l.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(stream) != 10 || stream[0].Head.SHA != seek[0].Head.SHA || sk2.Entries != 90 || sk2.Bytes != 0 {
		t.Errorf("streaming: %d entries, skipped %+v; want the same 10, 90 entries dropped", len(stream), sk2)
	}
	if !strings.Contains(sk.String(), "oldest") || !strings.Contains(sk2.String(), "90 older entries") {
		t.Errorf("Skipped.String: %q, %q", sk, sk2)
	}
	// A limit that falls exactly on a line's start keeps that line.
	limits.bytes = 10 * line
	seek, _, err = ReadTail(bytes.NewReader(data), "l.jsonl")
	if err != nil || len(seek) != 10 {
		t.Errorf("a limit at a line's start: %d entries, %v; want 10", len(seek), err)
	}
	// Errors past the skipped part name the byte, not a line number.
	bad := append(bytes.Clone(data[:len(data)-int(line)]), []byte("{oops\n")...)
	if _, _, err := ReadTail(bytes.NewReader(bad), "l.jsonl"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("l.jsonl: the line at byte %d", int64(len(bad))-6)) {
		t.Errorf("a bad last line: %v", err)
	}
}

// Past the entry limit the oldest entries are dropped; past the series
// limit, every entry of the series recorded least recently; a line past
// the line limit is an error naming it.
func TestReadTailEntriesSeriesLine(t *testing.T) {
	shrink(t, MaxBytes, 25, MaxSeries, MaxLine)
	got, sk, err := Read2(lines(t, 10, "A", "B", "C"))
	if err != nil || len(got) != 25 || sk.Entries != 5 || got[24].Name != "C" {
		t.Errorf("entries: %d, skipped %+v, %v; want the newest 25", len(got), sk, err)
	}
	shrink(t, MaxBytes, MaxEntries, 2, MaxLine)
	// A is recorded last of all at merge 9, B and C before it: C's last
	// entry is the oldest of the three series' last entries.
	data := append(lines(t, 9, "A", "B", "C"), lines(t, 1, "B", "A")...)
	got, sk, err = Read2(data)
	if err != nil || sk.Series != 1 || sk.Entries != 9 {
		t.Fatalf("series: skipped %+v, %v; want C's 9 entries", sk, err)
	}
	for _, e := range got {
		if e.Name == "C" {
			t.Fatalf("series C kept")
		}
	}
	shrink(t, MaxBytes, MaxEntries, MaxSeries, 1000)
	long := sample("A", 0)
	long.Head.Subject = strings.Repeat("x", 2000)
	b, _ := Marshal([]Entry{sample("A", 1), long})
	if _, _, err := Read2(b); err == nil || !strings.Contains(err.Error(), "l.jsonl:2: a line longer than 1000 bytes") {
		t.Errorf("long line: %v", err)
	}
}

// Read2 reads data as a stream named l.jsonl.
func Read2(data []byte) ([]Entry, Skipped, error) {
	return ReadTail(onlyReader{bytes.NewReader(data)}, "l.jsonl")
}

// Validate bounds every figure the analysis uses: log ratio, interval and
// se within ±MaxLogRatio.
func TestValidateBounds(t *testing.T) {
	for _, edit := range []func(*Entry){
		func(e *Entry) { e.LogRatio, e.High = 800, 800.01 }, // round 3's L2
		func(e *Entry) { e.Low = -21 },
		func(e *Entry) { e.SE = 20.5 },
		func(e *Entry) { e.High = math.MaxFloat64 },
	} {
		e := sample("A", 0)
		edit(&e)
		if err := e.Validate(); err == nil || !strings.Contains(err.Error(), "within ±20") {
			t.Errorf("%+v: %v, want the bound", e, err)
		}
	}
	e := sample("A", 0)
	e.LogRatio, e.Low, e.High, e.SE = MaxLogRatio, MaxLogRatio, MaxLogRatio, MaxLogRatio
	if err := e.Validate(); err != nil {
		t.Errorf("at the bound: %v", err)
	}
}

// The windows tested are those within each series' last RecentMerges
// merges, whatever the series' length, and a level chained past
// float64's exponent stays finite.
func TestAnalysisBounded(t *testing.T) {
	var es []Entry
	for i := range 1500 {
		e := sample("A", i)
		e.LogRatio, e.Low, e.High, e.SE = MaxLogRatio, MaxLogRatio, MaxLogRatio, 0
		es = append(es, e)
	}
	h := Analyze(es, DefaultOptions())
	if want := RecentMerges * (RecentMerges + 1) / 2; h.Windows != want {
		t.Errorf("windows %d, want %d", h.Windows, want)
	}
	s := h.Series[0]
	for _, v := range append([]float64{s.Level, s.Low, s.High}, s.Recent(20)...) {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			t.Fatalf("level %v", v)
		}
	}
	if len(h.Creeps) != 1 || h.Creeps[0].Merges > RecentMerges || math.IsInf(h.Creeps[0].Change, 0) {
		t.Errorf("creeps %+v, want one within the last %d merges", h.Creeps, RecentMerges)
	}
}

// The analysis's memory is linear in the merges, not quadratic (round 3's
// M1: 3,000 merges of one series took 1.3 GB, every window kept): 4× the
// merges of exact series, where every window with a positive sum is
// significant, allocate less than 6× the bytes (keeping every window made
// it 16×). Counted, not timed.
func TestAnalysisMemoryLinear(t *testing.T) {
	alloc := func(merges int) uint64 {
		var es []Entry
		for i := range merges {
			for _, name := range []string{"A", "B"} {
				e := sample(name, i)
				e.Unit, e.Test, e.SE, e.P = "allocs/op", "exact", 0, nil
				e.LogRatio = 0.01
				e.Low, e.High = e.LogRatio, e.LogRatio
				es = append(es, e)
			}
		}
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		h := Analyze(es, DefaultOptions())
		runtime.ReadMemStats(&m1)
		if len(h.Creeps) == 0 {
			t.Fatalf("%d merges: no creep", merges)
		}
		return m1.TotalAlloc - m0.TotalAlloc
	}
	small, large := alloc(500), alloc(2000)
	t.Logf("bytes allocated: %d for 500 merges, %d for 2000 (%.1f×)", small, large, float64(large)/float64(small))
	if float64(large) > 6*float64(small) {
		t.Errorf("4× the merges allocated %.1f× the bytes: the analysis is not linear", float64(large)/float64(small))
	}
}

// Holm's step-down keeps at most 2 × maxCandidates p-values: past them it
// stops early (fewer rejections, the error rate kept), and says so.
func TestCandidatesBounded(t *testing.T) {
	old := maxCandidates
	maxCandidates = 100
	t.Cleanup(func() { maxCandidates = old })
	var ps pvalues
	peak := 0
	for i := range 1000 {
		ps.add(float64(1000-i) * 1e-9)
		peak = max(peak, len(ps.p))
	}
	rej, stopped := ps.holm(0.01, 1000)
	if peak > 2*maxCandidates || len(rej) != maxCandidates || !stopped || rej[0].p != 1e-9 || rej[len(rej)-1].p != float64(100)*1e-9 {
		t.Errorf("peak %d, %d rejections (stopped %v) from %v to %v; want at most %d kept, the %d smallest rejected",
			peak, len(rej), stopped, rej[0].p, rej[len(rej)-1].p, 2*maxCandidates, maxCandidates)
	}
	// An exact series whose windows all have p = 0 still gives its creep.
	var es []Entry
	for i := range 60 {
		e := sample("A", i)
		e.Unit, e.SE, e.LogRatio, e.Low, e.High = "allocs/op", 0, 0.01, 0.01, 0.01
		es = append(es, e)
	}
	h := Analyze(es, DefaultOptions())
	if !h.Stopped || len(h.Creeps) != 1 {
		t.Errorf("stopped %v, creeps %+v; want the step-down stopped and one creep", h.Stopped, h.Creeps)
	}
}
