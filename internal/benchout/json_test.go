package benchout

import (
	"os"
	"os/exec"
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
