package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
)

const rawBase = `goos: linux
pkg: example.com/m
round: 1
BenchmarkI 1 100 instructions/op
round: 2
BenchmarkI 1 100 instructions/op
`

const rawHead = `goos: linux
pkg: example.com/m
round: 1
BenchmarkI 1 150 instructions/op
round: 2
BenchmarkI 1 150 instructions/op
`

// TestLaneDefault gates instruction rows when the results hold them, unless
// a --fail-on list says otherwise, and leaves the Judge's policy as it was.
func TestLaneDefault(t *testing.T) {
	for _, gated := range []bool{true, false} {
		p := gate.DefaultPolicy()
		p.SetFailOn([]string{"time"})
		j := Judge{Policy: p, GateMeasuredInstructions: gated}
		v, err := j.Raw(Raw{Screen: [2]File{{"base.txt", []byte(rawBase)}, {"head.txt", []byte(rawHead)}}})
		if err != nil {
			t.Fatal(err)
		}
		if v.Pass == gated {
			t.Errorf("GateMeasuredInstructions %v: pass %v, want %v (+50%% instructions/op)", gated, v.Pass, !gated)
		}
		if j.Policy.FailOn[gate.Instructions] {
			t.Errorf("GateMeasuredInstructions %v: the Judge's own policy now gates instructions", gated)
		}
	}
}

// TestReadDir names the missing file of a directory that is not a run's.
func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadDir(dir, "out"); err == nil || !strings.Contains(err.Error(), "out/base.txt: no such file") {
		t.Errorf("ReadDir of an empty directory: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "base.txt"), []byte(rawBase), 0o644)
	os.WriteFile(filepath.Join(dir, "head.txt"), []byte(rawHead), 0o644)
	os.WriteFile(filepath.Join(dir, "confirm-base.txt"), []byte("screen-rounds: 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "confirm-head.txt"), []byte("screen-rounds: 3\n"), 0o644)
	if _, err := ReadDir(dir, "out"); err == nil || !strings.Contains(err.Error(), "screen-rounds 2 and 3 differ") {
		t.Errorf("ReadDir of confirmation files from two runs: %v", err)
	}
}
