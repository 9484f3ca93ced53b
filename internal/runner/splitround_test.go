package runner

import (
	"slices"
	"testing"
	"time"
)

// TestPlanRuns: a round's work is --benchtime's worth at the pilot's time
// per op, split into at most Runs runs of at least MinRunTime each; a
// fixed Nx keeps its count, split.
func TestPlanRuns(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name      string
		pilotN    int
		perOp     float64
		benchtime string
		maxRuns   int
		minRun    time.Duration
		runs, n   int
	}{
		{"the default: 5 runs of 20 ms", 24_000, 1e-6, "100ms", 5, 10 * ms, 5, 20_000},
		{"each run keeps 10 ms: 3 runs", 50_000, 1e-6, "30ms", 5, 10 * ms, 3, 10_000},
		{"too short to split", 50_000, 1e-6, "19ms", 5, 10 * ms, 1, 19_000},
		{"--runs 1", 50_000, 1e-6, "100ms", 1, 10 * ms, 1, 100_000},
		{"a 5 ns/op benchmark", 1, 5e-9, "100ms", 5, 10 * ms, 5, 4_000_000},
		{"rounded to an iteration", 1, 1.1e-6, "100ms", 5, 10 * ms, 5, 18_182},
		{"slower than a run: one iteration each", 1, 0.03, "100ms", 5, 10 * ms, 3, 1},
		{"slower than the round: one run of one", 1, 0.5, "100ms", 5, 10 * ms, 1, 1},
		{"a fixed count, split", 1000, 1e-4, "1000x", 5, 10 * ms, 5, 200},
		{"a fixed count of fast runs keeps 10 ms each", 1000, 1e-6, "1000x", 5, 10 * ms, 1, 1000},
		{"a fixed count smaller than the runs", 3, 1, "3x", 5, 10 * ms, 3, 1},
		{"no time per op: one run of the pilot's", 1000, 0, "100ms", 5, 10 * ms, 1, 1000},
	} {
		runs, n := planRuns(c.pilotN, c.perOp, c.benchtime, c.maxRuns, c.minRun)
		if runs != c.runs || n != c.n {
			t.Errorf("%s: planRuns(%d, %g, %q, %d, %v) = %d runs of %d, want %d of %d", c.name, c.pilotN, c.perOp, c.benchtime, c.maxRuns, c.minRun, runs, n, c.runs, c.n)
		}
	}
}

// TestProcesses: a round's runs split among as many processes per side as
// cost at most splitBudget of its work together, at least one per
// maxProcessWork of work, at most one per run.
func TestProcesses(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name     string
		cost     time.Duration
		runs     int
		overhead time.Duration
		want     int
	}{
		{"no set-up, quiet, the default round", 100 * ms, 5, 6 * ms, 5},
		{"no set-up, the default round", 100 * ms, 5, 8 * ms, 4},
		{"no set-up, a 50 ms round", 50 * ms, 5, 6 * ms, 2},
		{"xxhash's set-up", 100 * ms, 5, 20 * ms, 1},
		{"a loaded machine", 100 * ms, 5, 40 * ms, 1},
		{"cheap processes: one a run", 100 * ms, 5, 1 * ms, 5},
		{"never more than the runs", 100 * ms, 3, 1 * ms, 3},
		{"a long round: at least one a 100 ms", time.Second, 5, 500 * ms, 5},
		{"a 300 ms round", 300 * ms, 5, 200 * ms, 3},
		{"unknown overhead", 100 * ms, 5, 0, 1},
		{"no work", 0, 5, 5 * ms, 1},
	} {
		if got := processes(Unit{Cost: c.cost, Runs: c.runs}, c.overhead); got != c.want {
			t.Errorf("%s: processes(cost %v, %d runs, overhead %v) = %d, want %d", c.name, c.cost, c.runs, c.overhead, got, c.want)
		}
	}
}

// TestCounts: a round's runs split among processes as evenly as can be.
func TestCounts(t *testing.T) {
	for _, c := range []struct {
		runs, procs int
		want        []int
	}{{5, 1, []int{5}}, {5, 2, []int{3, 2}}, {5, 5, []int{1, 1, 1, 1, 1}}, {2, 5, []int{1, 1}}, {1, 0, []int{1}}} {
		if got := counts(c.runs, c.procs); !slices.Equal(got, c.want) {
			t.Errorf("counts(%d, %d) = %v, want %v", c.runs, c.procs, got, c.want)
		}
	}
}
