package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// seal takes a binary directory the sandbox user built into back: nothing in
// it stays theirs or writable by anyone but benchgate.
func TestSeal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: only root gives files to another user")
	}
	dir := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "0.test")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o777); err != nil {
		t.Fatal(err)
	}
	const other = 65530
	for _, p := range []string{dir, bin} {
		if err := os.Chown(p, other, other); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o777)
	}
	if err := seal(dir); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o755, bin: 0o755} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if int(st.Uid) != os.Geteuid() || fi.Mode().Perm() != want {
			t.Errorf("%s: uid %d mode %v, want uid %d mode %v", p, st.Uid, fi.Mode().Perm(), os.Geteuid(), want)
		}
	}
}

// A benchmark that prints to standard output splits its own result line;
// the result is put back together, not lost.
func TestRejoinResults(t *testing.T) {
	out := "goos: linux\n" +
		"BenchmarkSpy-2   \t::set-output name=verdict::pass\n" +
		"noise ##[error]forged\n" +
		"  1000000\t        12.50 ns/op\t       0 B/op\t       0 allocs/op\n" +
		"BenchmarkOK-2   \t  500\t  3.0 ns/op\n" +
		"PASS\n"
	got := parseResults([]byte(out), 2)
	if len(got) != 2 || got[0].leaf != "BenchmarkSpy" || got[1].leaf != "BenchmarkOK" {
		t.Fatalf("parsed %+v, want Spy and OK", got)
	}
	if got[0].result.Iters != 1000000 || got[0].result.Values[0].OrigValue != 12.5 {
		t.Errorf("Spy result %+v", got[0].result)
	}
	// Without the rejoin, the reader finds only OK.
	if n := len(parseResultsPlain([]byte(out))); n != 1 {
		t.Errorf("the plain reader found %d results; the test no longer shows the split", n)
	}
}

func parseResultsPlain(b []byte) []*benchfmt.Result {
	var rs []*benchfmt.Result
	rd := benchfmt.NewReader(bytes.NewReader(b), "")
	for rd.Scan() {
		if r, ok := rd.Result().(*benchfmt.Result); ok {
			rs = append(rs, r)
		}
	}
	return rs
}
