package benchout

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testenv"
)

// wantUnits are the units every result of testdata/mod reports.
var wantUnits = []string{"sec/op", "B/s", "bytes-out/op", "items/s", "B/op", "allocs/op"}

// checkResults parses text as benchfmt and checks the results of
// testdata/mod: n of them, each with every unit, under pkg:.
func checkResults(t *testing.T, text []byte, n int) {
	t.Helper()
	rs := results(text)
	if len(rs) != n {
		t.Fatalf("%d results, want %d:\n%s", len(rs), n, text)
	}
	for _, r := range rs {
		if !strings.HasPrefix(r.Name.String(), "Encode") {
			t.Errorf("result %q, want Encode", r.Name)
		}
		if got := r.GetConfig("pkg"); got != "example.com/metrics" {
			t.Errorf("%s: pkg %q, want example.com/metrics", r.Name, got)
		}
		var units []string
		for _, v := range r.Values {
			units = append(units, v.Unit)
		}
		if strings.Join(units, " ") != strings.Join(wantUnits, " ") {
			t.Errorf("%s: units %v, want %v", r.Name, units, wantUnits)
		}
	}
}

// A recorded stream whose second result test2json cut over two events
// (testdata/README.md): both results come back, with their package.
func TestFromJSON(t *testing.T) {
	data, err := os.ReadFile("testdata/bench.json")
	if err != nil {
		t.Fatal(err)
	}
	if !IsJSON(data) {
		t.Fatal("IsJSON = false for a go test -json stream")
	}
	text, lines, err := FromJSON("bench.json", data)
	if err != nil {
		t.Fatal(err)
	}
	checkResults(t, text, 2)
	if n := strings.Count(string(text), "\n"); len(lines) != n {
		t.Fatalf("%d line numbers for %d lines", len(lines), n)
	}
	// The cut result is completed by the event on line 18 of the stream.
	for i, l := range strings.Split(string(text), "\n") {
		if strings.Contains(l, "8218") && lines[i] != 18 {
			t.Errorf("the cut result maps to line %d, want 18", lines[i])
		}
	}
	// The same results as the text go test prints (without -json).
	if strings.Contains(string(text), "=== RUN") || strings.Contains(string(text), "\nBenchmarkEncode\n") {
		t.Errorf("the -json mode's own lines are left in:\n%s", text)
	}
}

func TestIsJSON(t *testing.T) {
	for in, want := range map[string]bool{
		"":                                    false,
		"goos: linux\nBenchmarkX 1 2 ns/op\n": false,
		"\n\n  {\"Action\":\"start\"}\n":      true,
		"\ufeff{}":                            true,
		"BenchmarkX 1 2 ns/op {\n":            false,
	} {
		if got := IsJSON([]byte(in)); got != want {
			t.Errorf("IsJSON(%q) = %v, want %v", in, got, want)
		}
	}
}

// A line that is not an event is an error naming the stream's line.
func TestFromJSONErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"{\"Action\":\"start\"}\n\n{\"Action\":\"output\",\"Output\":\"x\n", `head.json:3: not a go test -json event: unexpected end of JSON input`},
		{"{\"Action\":\"start\"}\nBenchmarkX-2 1 2 ns/op\n", `head.json:2: not a go test -json event: invalid character 'B' looking for beginning of value`},
		{"{\"Action\":\"start\"}\n{\"Output\":\"x\"}\n", `head.json:2: not a go test -json event: no Action`},
	} {
		_, _, err := FromJSON("head.json", []byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("FromJSON(%q) = %v, want %s", tt.in, err, tt.want)
		}
	}
}

// The real thing: go test -json -bench on testdata/mod, read back.
func TestFromJSONLive(t *testing.T) {
	env := testenv.Env(t)
	cmd := exec.Command("go", "test", "-json", "-run", "^$", "-bench", ".", "-benchmem", "-count", "3", "-benchtime", "200x", ".")
	cmd.Dir, cmd.Env = "testdata/mod", env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go test -json: %v\n%s", err, out)
	}
	text, _, err := FromJSON("live.json", out)
	if err != nil {
		t.Fatal(err)
	}
	checkResults(t, text, 3)
}

// jsonLine is one go test -json output event.
func jsonLine(pkg, out string) string {
	b, _ := json.Marshal(map[string]string{"Action": "output", "Package": pkg, "Output": out})
	return string(b) + "\n"
}

// One line cut over many output events (round 3's L4: 80,000 events took
// 2.2 s, each event copying the whole pending text again) decodes in work
// linear in the events: the bytes allocated for 4× the events are about
// 4× (quadratic copying made them 16×). Counted, not timed.
func TestFromJSONLinear(t *testing.T) {
	alloc := func(events int) uint64 {
		var b strings.Builder
		for range events {
			b.WriteString(jsonLine("p", "a"))
		}
		b.WriteString(jsonLine("p", "\nBenchmarkX-2 \t 10\t 100 ns/op\n"))
		data := []byte(b.String())
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		text, _, err := FromJSON("h.json", data)
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), "BenchmarkX-2") || !strings.HasPrefix(string(text), strings.Repeat("a", events)) {
			t.Fatalf("%d events: the joined line and the result were not kept:\n%.200s", events, text)
		}
		return m1.TotalAlloc - m0.TotalAlloc
	}
	small, large := alloc(10_000), alloc(40_000)
	t.Logf("bytes allocated: %d for 10k events, %d for 40k (%.1f×)", small, large, float64(large)/float64(small))
	if float64(large) > 6*float64(small) {
		t.Errorf("4× the events allocated %.1f× the bytes (%d, %d): decoding is not linear", float64(large)/float64(small), small, large)
	}
}

// A stream's unfinished line may grow to MaxPendingLine bytes, not past it:
// the error names the event that passed it.
func TestFromJSONPendingBound(t *testing.T) {
	chunk := strings.Repeat("x", 64<<10)
	var b strings.Builder
	n := MaxPendingLine/len(chunk) + 1
	for range n {
		b.WriteString(jsonLine("example.com/p", chunk))
	}
	_, _, err := FromJSON("h.json", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("h.json:%d:", n)) || !strings.Contains(err.Error(), "example.com/p") {
		t.Fatalf("err = %v, want one naming h.json:%d and the package", err, n)
	}
	// Exactly at the bound, and a line completed before it, pass.
	b.Reset()
	for range n - 1 {
		b.WriteString(jsonLine("example.com/p", chunk))
	}
	b.WriteString(jsonLine("example.com/p", "\n"))
	b.WriteString(jsonLine("example.com/p", "BenchmarkX-2 \t 10\t 100 ns/op\n"))
	if _, _, err := FromJSON("h.json", []byte(b.String())); err != nil {
		t.Fatalf("a line of %d bytes: %v", (n-1)*len(chunk), err)
	}
}
