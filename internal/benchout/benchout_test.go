package benchout

import (
	"bytes"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// A benchmark that prints to standard output splits its own result line;
// the result is put back together, not lost.
func TestRejoin(t *testing.T) {
	out := "goos: linux\n" +
		"BenchmarkSpy-2   \t::set-output name=verdict::pass\n" +
		"noise ##[error]forged\n" +
		"  1000000\t        12.50 ns/op\t       0 B/op\t       0 allocs/op\n" +
		"BenchmarkOK-2   \t  500\t  3.0 ns/op\n" +
		"PASS\n"
	got := results(Rejoin([]byte(out)))
	if len(got) != 2 || got[0].Name.String() != "Spy-2" || got[1].Name.String() != "OK-2" {
		t.Fatalf("parsed %d results, want Spy-2 and OK-2", len(got))
	}
	if got[0].Iters != 1000000 || got[0].Values[0].OrigValue != 12.5 {
		t.Errorf("Spy result %+v", got[0])
	}
	// Without the rejoin, the reader finds only OK.
	if n := len(results([]byte(out))); n != 1 {
		t.Errorf("the plain reader found %d results; the test no longer shows the split", n)
	}
}

func results(b []byte) []*benchfmt.Result {
	var rs []*benchfmt.Result
	rd := benchfmt.NewReader(bytes.NewReader(b), "")
	for rd.Scan() {
		if r, ok := rd.Result().(*benchfmt.Result); ok {
			rs = append(rs, r.Clone())
		}
	}
	return rs
}
