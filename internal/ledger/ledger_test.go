package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/safefile"
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
