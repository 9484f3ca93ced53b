package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/safefile"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/google/go-cmp/cmp"
)

func sample(name string, i int) Entry {
	p := 0.002
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	return Entry{
		V: Version, Recorded: t0.Add(time.Duration(i) * time.Hour),
		Base:    Commit{SHA: fmt.Sprintf("%040x", i), Time: t0.Add(time.Duration(i) * time.Minute), Subject: "base"},
		Head:    Commit{SHA: fmt.Sprintf("%040x", i+1), Time: t0.Add(time.Duration(i+1) * time.Minute), Subject: "head \"quoted\""},
		Package: "example.com/m", Name: name, Unit: "sec/op", Direction: Lower,
		Change: 0.0404, LogRatio: 0.0396, Low: 0.03, High: 0.05, Confidence: 0.95, SE: 0.005,
		Test: "paired", N: 20, P: &p, Status: "unchanged", BaseMedian: 1e-6, HeadMedian: 1.04e-6,
		Go: "go1.24.0", Machine: machine.Info{CPU: "AMD EPYC", Cores: 2, Kernel: "linux 6.1", Arch: "amd64", Level: "v1", Go: "go1.24.0"},
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	want := []Entry{sample("Encode", 0), sample("Decode", 0)}
	if err := Append(path, want[:1]); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, want[1:]); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// The schema: field names are the contract with the data branch and the
// history page; a renamed field fails here.
func TestSchema(t *testing.T) {
	b, err := Marshal([]Entry{sample("Encode", 0)})
	if err != nil {
		t.Fatal(err)
	}
	line := string(b)
	for _, f := range []string{`"v":1`, `"recorded":"2026-11-01T10:00:00Z"`, `"base":{"sha":"`, `"head":{"sha":"`, `"time":`, `"subject":`,
		`"package":"example.com/m"`, `"name":"Encode"`, `"unit":"sec/op"`, `"direction":"lower"`, `"change":0.0404`,
		`"log_ratio":0.0396`, `"low":0.03`, `"high":0.05`, `"confidence":0.95`, `"se":0.005`, `"test":"paired"`, `"n":20`,
		`"p":0.002`, `"status":"unchanged"`, `"base_median":0.000001`, `"head_median":0.00000104`, `"go":"go1.24.0"`,
		`"machine":{"cpu":"AMD EPYC","cores":2,"kernel":"linux 6.1","arch":"amd64","level":"v1","go":"go1.24.0"}`} {
		if !strings.Contains(line, f) {
			t.Errorf("line lacks %s:\n%s", f, line)
		}
	}
	if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
		t.Errorf("want one line, got %q", line)
	}
}

func TestReadErrorsNameTheLine(t *testing.T) {
	good, _ := Marshal([]Entry{sample("A", 0)})
	bad := sample("B", 0)
	bad.V = 2
	badLine, _ := jsonLine(bad)
	for _, tc := range []struct{ in, want string }{
		{string(good) + "\n{not json\n", "l.jsonl:3: "},
		{string(good) + badLine + "\n", "l.jsonl:2: version 2: want 1"},
		{strings.Replace(string(good), `"direction":"lower"`, `"direction":"sideways"`, 1), `l.jsonl:1: direction "sideways"`},
	} {
		_, err := Read(strings.NewReader(tc.in), "l.jsonl")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read: got %v, want %q", err, tc.want)
		}
	}
}

func jsonLine(e Entry) (string, error) {
	e2 := e
	e2.V = Version
	b, err := Marshal([]Entry{e2})
	return strings.Replace(strings.TrimSpace(string(b)), `"v":1`, fmt.Sprintf(`"v":%d`, e.V), 1), err
}

// Two processes' worth of writers appending at once lose no line and
// interleave none.
func TestAppendConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				batch := []Entry{sample(fmt.Sprintf("W%d", w), i), sample(fmt.Sprintf("W%d", w), i)}
				if err := Append(path, batch); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != writers*each*2 {
		t.Fatalf("got %d entries, want %d", len(got), writers*each*2)
	}
	// A batch's two lines are adjacent.
	for i := 0; i < len(got); i += 2 {
		if got[i].Name != got[i+1].Name || got[i].Base.SHA != got[i+1].Base.SHA {
			t.Fatalf("batch split at entry %d: %s then %s", i, got[i].Name, got[i+1].Name)
		}
	}
}

func TestAppendRefusesLinkAndMendsTornLine(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, nil, 0o644)
	link := filepath.Join(dir, "ledger.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	err := Append(link, []Entry{sample("A", 0)})
	if !errors.Is(err, safefile.ErrSymlink) {
		t.Errorf("append through a link: got %v, want ErrSymlink", err)
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Errorf("target written through the link: %q", b)
	}

	torn := filepath.Join(dir, "torn.jsonl")
	os.WriteFile(torn, []byte(`{"v":1,"trunc`), 0o644)
	if err := Append(torn, []Entry{sample("A", 0)}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(torn)
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) != 2 || !bytes.HasPrefix(lines[1], []byte(`{"v":1,"recorded"`)) {
		t.Errorf("torn tail not mended: %q", b)
	}
}

func TestMarshalRefusesInvalid(t *testing.T) {
	e := sample("A", 0)
	e.Low = 0.05
	e.High = 0.03
	if _, err := Marshal([]Entry{e}); err == nil {
		t.Error("Marshal accepted an interval that does not hold the log ratio")
	}
}

func TestNames(t *testing.T) {
	rows := func(names ...string) []gate.Result {
		var out []gate.Result
		for _, n := range names {
			r := gate.Result{}
			r.Package, r.Name, r.Unit = "p", n, "sec/op"
			out = append(out, r)
		}
		return out
	}
	got := Names(rows("BenchmarkEncode/1k-8", "Decode-8", "Par-1", "Par-4", "Odd-x"))
	want := []string{"Encode/1k", "Decode", "Par-1", "Par-4", "Odd-x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}

// FromVerdict: rows without both sides are left out; a rate is
// higher-is-better; constant allocations are exact (se 0).
func TestFromVerdict(t *testing.T) {
	side := func(v ...float64) *stats.Summary {
		s := &stats.Summary{Center: v[0], Low: v[0], High: v[0], Confidence: 0.95, N: len(v), Min: v[0], Max: v[0], Constant: true}
		return s
	}
	row := func(name, unit string, kind gate.Kind, status gate.Status, better int, b, h *stats.Summary) gate.Result {
		r := gate.Result{Kind: kind, Status: status}
		r.Package, r.Name, r.Unit, r.Better, r.Base, r.Head = "p", name, unit, better, b, h
		return r
	}
	v := gate.Verdict{Results: []gate.Result{
		row("A-2", "allocs/op", gate.Allocs, gate.Regression, -1, side(3, 3, 3), side(4, 4, 4)),
		row("A-2", "B/s", gate.Other, gate.Unchanged, 1, side(100, 100), side(90, 90)),
		row("New-2", "allocs/op", gate.Allocs, gate.New, -1, nil, side(1)),
		row("Zero-2", "allocs/op", gate.Allocs, gate.Regression, -1, side(0, 0), side(2, 2)),
	}}
	got := FromVerdict(v, Run{Head: Commit{SHA: "h"}}, 0.95)
	if len(got) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(got), got)
	}
	a, r := got[0], got[1]
	if a.Name != "A" || a.Test != "exact" || a.SE != 0 || math.Abs(a.Change-1.0/3) > 1e-12 || a.Direction != Lower || a.Status != "regression" {
		t.Errorf("allocs entry %+v", a)
	}
	if r.Direction != Higher || math.Abs(r.Change+0.1) > 1e-12 || r.Test != "utest" {
		t.Errorf("rate entry %+v", r)
	}
}

// Two processes appending to one ledger at once (the test binary run
// twice as a helper) lose no line and split no batch.
func TestAppendTwoProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	const each = 100
	var cmds []*exec.Cmd
	for _, name := range []string{"P1", "P2"} {
		c := exec.Command(os.Args[0], "-test.run=^TestAppendHelper$", "-test.count=1")
		c.Env = append(os.Environ(), "LEDGER_HELPER_PATH="+path, "LEDGER_HELPER_NAME="+name, fmt.Sprintf("LEDGER_HELPER_N=%d", each))
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("helper: %v", err)
		}
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2*each*2 {
		t.Fatalf("got %d entries, want %d", len(got), 2*each*2)
	}
	n := map[string]int{}
	for i := 0; i < len(got); i += 2 {
		if got[i].Name != got[i+1].Name {
			t.Fatalf("batch split at entry %d", i)
		}
		n[got[i].Name]++
	}
	if n["P1"] != each || n["P2"] != each {
		t.Errorf("batches per writer %v, want %d each", n, each)
	}
}

// TestAppendHelper is TestAppendTwoProcesses's writer process.
func TestAppendHelper(t *testing.T) {
	path := os.Getenv("LEDGER_HELPER_PATH")
	if path == "" {
		t.Skip("helper process of TestAppendTwoProcesses")
	}
	var n int
	fmt.Sscan(os.Getenv("LEDGER_HELPER_N"), &n)
	name := os.Getenv("LEDGER_HELPER_NAME")
	for i := range n {
		if err := Append(path, []Entry{sample(name, i), sample(name, i)}); err != nil {
			t.Fatal(err)
		}
	}
}
