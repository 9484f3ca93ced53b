package callgrind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/sandbox"
)

// dumpDir writes n copies of the sample profile as a run's profiles.
func dumpDir(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		name := filepath.Join(dir, fmt.Sprintf("%s.%d-01", outName, i+1))
		if err := os.WriteFile(name, []byte(sample), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Not profiles: neither counted nor read.
	os.WriteFile(filepath.Join(dir, "valgrind.log"), []byte(strings.Repeat("x", 10*len(sample))), 0o644)
	return dir
}

// A run's profiles are read within a number of files and a total size;
// beyond either, none is used and the error says which bound.
func TestReadDumpsBounded(t *testing.T) {
	dir := dumpDir(t, 3)
	size := int64(len(sample))
	for _, tc := range []struct {
		lim  dumpLimits
		want string // "": read
	}{
		{dumpLimits{files: 3, bytes: 3 * size}, ""},
		{dumpLimits{files: 2, bytes: 3 * size}, "more than 2 profiles: not read"},
		{dumpLimits{files: 3, bytes: 3*size - 1}, fmt.Sprintf("profiles larger than %d bytes (0 MiB) together: callgrind.out.3-01 and the rest not read", 3*size-1)},
		{dumpLimits{files: 3, bytes: size / 2}, fmt.Sprintf("profiles larger than %d bytes (0 MiB) together: callgrind.out.1-01 and the rest not read", size/2)},
	} {
		dumps, err := readDumps(dir, tc.lim)
		switch {
		case tc.want == "" && (err != nil || len(dumps) != 3):
			t.Errorf("%+v: %d dumps, %v; want 3", tc.lim, len(dumps), err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%+v: %v, want %q", tc.lim, err, tc.want)
		}
	}
}

// A program that prints without end under valgrind is stopped at
// sandbox.MaxOutput (its next write fails), and the benchmark fails with that
// reason, not at the timeout.
func TestOutputBounded(t *testing.T) {
	for _, redirect := range []string{"", " >&2"} {
		o := fakeValgrind(t, "yes 0123456789"+redirect+"\n")
		_, err := Measure(context.Background(), o, Bench{Binary: "/bin/true", Dir: t.TempDir(), Name: "BenchmarkX"}, 10)
		var e *Error
		want := fmt.Sprintf("the benchmark printed more than %d bytes (64 MiB) under valgrind: stopped\n", sandbox.MaxOutput)
		if !errors.As(err, &e) || e.Reason != Failed || !strings.HasPrefix(e.Msg, want) {
			t.Errorf("yes%s: %v, want a Failed *Error: %q", redirect, err, want)
		}
	}
}
