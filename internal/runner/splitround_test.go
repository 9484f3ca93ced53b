package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testenv"
)

// TestSplitRoundOverhead checks the wall-time bound on the runs a round is
// split into: the extra processes' fixed overhead stays within
// maxSplitOverhead % of one run's wall time, on top of splitRound's rules.
func TestSplitRoundOverhead(t *testing.T) {
	ms := time.Millisecond
	us := time.Microsecond
	for _, tt := range []struct {
		name           string
		total          int
		cost           time.Duration
		maxRuns        int
		minRun         time.Duration
		overhead       time.Duration
		wantRuns, want int
	}{
		{"unknown overhead: splitRound", 1000, 100 * ms, 5, 10 * ms, 0, 5, 200},
		{"quiet start-up, default round", 1000, 100 * ms, 5, 10 * ms, 6500 * us, 5, 200},
		{"loaded start-up, default round", 1000, 100 * ms, 5, 10 * ms, 12500 * us, 5, 200},
		{"14 ms: still 5 (4×14 ≤ 57)", 1000, 100 * ms, 5, 10 * ms, 14 * ms, 5, 200},
		{"15 ms: 4 runs (4×15 > 57.5)", 1000, 100 * ms, 5, 10 * ms, 15 * ms, 4, 250},
		{"loaded start-up, 50 ms round", 1000, 50 * ms, 5, 10 * ms, 12500 * us, 3, 333},
		{"quiet start-up, 50 ms round", 1000, 50 * ms, 5, 10 * ms, 6500 * us, 5, 200},
		{"boundary, exactly 1.5×: 5 runs", 1000, 70 * ms, 5, 10 * ms, 10 * ms, 5, 200},
		{"just over 1.5×: 4 runs", 1000, 69 * ms, 5, 10 * ms, 10 * ms, 4, 250},
		{"50 ms of set-up a process", 1000, 100 * ms, 5, 10 * ms, 50 * ms, 2, 500},
		{"set-up longer than the work: one run", 1000, 100 * ms, 5, 10 * ms, 200 * ms, 1, 1000},
		{"minRun binds first", 1000, 30 * ms, 5, 10 * ms, 1 * ms, 3, 333},
		{"never more than asked for", 1000, time.Second, 5, 10 * ms, 1 * ms, 5, 200},
		{"--runs 10 with cheap processes", 1000, time.Second, 10, 10 * ms, 5 * ms, 10, 100},
		{"--runs 10, 10 ms processes", 1000, 100 * ms, 10, 10 * ms, 10 * ms, 6, 167},
		{"--runs 1", 1000, 100 * ms, 1, 10 * ms, 1 * ms, 1, 1000},
		{"no time/op", 1000, 0, 5, 10 * ms, 5 * ms, 1, 1000},
		{"at least one iteration a run", 3, 10 * time.Second, 5, 10 * ms, 1 * ms, 3, 1},
		{"huge overhead, no overflow", 1000, 100 * ms, 5, 10 * ms, 1 << 62, 1, 1000},
		{"huge cost, no overflow", 1 << 40, 1000 * time.Hour, 5, 10 * ms, 1 * ns(), 5, 1 << 40 / 5},
	} {
		runs, n := splitRoundOverhead(tt.total, tt.cost, tt.maxRuns, tt.minRun, tt.overhead)
		if runs != tt.wantRuns || n != tt.want {
			t.Errorf("%s: splitRoundOverhead(%d, %v, %d, %v, %v) = %d runs of %d, want %d of %d",
				tt.name, tt.total, tt.cost, tt.maxRuns, tt.minRun, tt.overhead, runs, n, tt.wantRuns, tt.want)
		}
		checkSplit(t, tt.total, tt.cost, tt.maxRuns, tt.minRun, tt.overhead, runs, n)
	}
}

func ns() time.Duration { return time.Nanosecond }

// TestSplitRoundOverheadGrid checks the contract over a grid: at least one
// run, never more than asked for, runs × n ≈ total, each bound kept, the
// most runs the bounds allow, and more overhead never means more runs.
func TestSplitRoundOverheadGrid(t *testing.T) {
	ms := time.Millisecond
	for _, maxRuns := range []int{1, 3, 5, 10} {
		for _, total := range []int{1, 2, 7, 1000, 123457} {
			for cost := time.Duration(0); cost <= 300*ms; cost += 7 * ms {
				prev := maxRuns + 1
				for overhead := time.Duration(0); overhead <= 120*ms; overhead += 500 * time.Microsecond {
					runs, n := splitRoundOverhead(total, cost, maxRuns, 10*ms, overhead)
					checkSplit(t, total, cost, maxRuns, 10*ms, overhead, runs, n)
					if runs > prev {
						t.Fatalf("splitRoundOverhead(%d, %v, %d, 10ms, %v) = %d runs, more than %d at less overhead",
							total, cost, maxRuns, overhead, runs, prev)
					}
					prev = runs
				}
			}
		}
	}
}

// checkSplit fails t unless runs of n iterations keep splitRoundOverhead's
// contract and no more runs would.
func checkSplit(t *testing.T, total int, cost time.Duration, maxRuns int, minRun, overhead time.Duration, runs, n int) {
	t.Helper()
	call := func() string {
		return fmt.Sprintf("splitRoundOverhead(%d, %v, %d, %v, %v)", total, cost, maxRuns, minRun, overhead)
	}
	if runs < 1 || n < 1 {
		t.Fatalf("%s = %d runs of %d: want at least one run of one iteration", call(), runs, n)
	}
	if runs > max(1, maxRuns) {
		t.Fatalf("%s = %d runs: more than asked for", call(), runs)
	}
	if d := runs*n - total; d > runs/2+1 || -d > runs/2+1 {
		t.Fatalf("%s = %d × %d: not the round's work", call(), runs, n)
	}
	ok := func(k int) bool { // does k runs keep every bound?
		if k > max(1, maxRuns) || k > total {
			return false
		}
		if k == 1 {
			return true
		}
		if time.Duration(k)*minRun > cost {
			return false
		}
		// (k−1)·overhead ≤ maxSplitOverhead % of (cost + overhead), in
		// exact arithmetic (float64 is exact for these magnitudes).
		return overhead == 0 || 100*float64(k-1)*float64(overhead) <= maxSplitOverhead*(float64(cost)+float64(overhead))
	}
	if !ok(runs) {
		t.Fatalf("%s = %d runs: breaks a bound", call(), runs)
	}
	if ok(runs + 1) {
		t.Fatalf("%s = %d runs: %d would keep every bound", call(), runs, runs+1)
	}
}

// TestRunsBoundedBySetup: a benchmark that pays 40 ms of set-up before its
// timer in every process would spend far more time setting up than timing
// in 5 short runs; the warm-up measures what a process costs and the unit
// makes fewer, longer runs, with the round's work unchanged.
func TestRunsBoundedBySetup(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds and runs real test binaries")
	}
	files := map[string]string{
		"go.mod": "module example.com/setup\n\ngo 1.26\n",
		"setup_test.go": `package setup

import (
	"testing"
	"time"
)

var sink int

func BenchmarkSetup(b *testing.B) {
	time.Sleep(40 * time.Millisecond) // set-up before the timer, paid by every process
	b.ResetTimer()
	for b.Loop() {
		for i := range 1000 {
			sink += i * i
		}
	}
}
`,
	}
	base, head := t.TempDir(), t.TempDir()
	testenv.WriteFiles(t, base, files)
	testenv.WriteFiles(t, head, files)
	var progress bytes.Buffer
	res, err := Run(context.Background(), Side{"base", base}, Side{"head", head}, Options{
		Count: 1, Benchtime: "100ms", Runs: 5, CPU: []int{1}, BinDir: t.TempDir(), Progress: &progress,
	}, io.Discard, io.Discard)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	if len(res.Units) != 1 {
		t.Fatalf("units %+v", res.Units)
	}
	u := res.Units[0]
	if u.Runs >= 5 || u.Runs < 1 {
		t.Errorf("%s: %d runs per side per round with 40 ms of set-up per process, want fewer than 5", u.ID(), u.Runs)
	}
	if got := u.Runs * u.N; got < u.RoundN-u.Runs || got > u.RoundN+u.Runs {
		t.Errorf("%d runs × %d iterations = %d, want the round's %d", u.Runs, u.N, got, u.RoundN)
	}
}

// TestRoundWork: a side's work per round is --benchtime's worth at the
// pilot's time/op, never more than the pilot ran, and Nx keeps its count.
func TestRoundWork(t *testing.T) {
	for _, c := range []struct {
		n         int
		perOp     float64
		benchtime string
		want      int
	}{
		{120_000, 1e-6, "100ms", 100_000},   // the pilot's 1.2× cut to 100ms
		{1_000_000, 1e-6, "100ms", 100_000}, // a pilot far past the goal
		{50_000, 1e-6, "100ms", 50_000},     // never more than the pilot ran
		{3, 0.5, "100ms", 1},                // at least one iteration
		{120_000, 1e-6, "500x", 120_000},    // a fixed count is kept
		{120_000, 0, "100ms", 120_000},      // no time/op: the pilot's
		{120_000, 1e-6, "bad", 120_000},
	} {
		if got := roundWork(c.n, c.perOp, c.benchtime); got != c.want {
			t.Errorf("roundWork(%d, %g, %q) = %d, want %d", c.n, c.perOp, c.benchtime, got, c.want)
		}
	}
}
