package runner

import (
	"fmt"
	"math"
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
		{"too short to split", 50_000, 1e-6, "19ms", 5, 10 * ms, 1, 20_000},
		{"--runs 1", 50_000, 1e-6, "100ms", 1, 10 * ms, 1, 100_000},
		{"a 5 ns/op benchmark", 1, 5e-9, "100ms", 5, 10 * ms, 5, 4_000_000},
		{"rounded to the series", 1, 1.1e-6, "100ms", 5, 10 * ms, 5, 20_000},
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

// TestRoundSeries: n is rounded to the nearest step of the series (within
// about 12 %), monotone, and exact below 20.
func TestRoundSeries(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want int
	}{{1, 1}, {7.4, 7}, {10, 10}, {11.5, 12}, {19.4, 19}, {22, 20}, {23, 25}, {19_000, 20_000}, {22_000, 20_000}, {23_000, 25_000}, {4_100_000, 4_000_000}, {9.1e9, math.MaxInt32}} {
		if got := roundSeries(c.x); got != c.want {
			t.Errorf("roundSeries(%g) = %d, want %d", c.x, got, c.want)
		}
	}
	prev := 0
	for x := 1.0; x < 1e7; x *= 1.01 {
		got := roundSeries(x)
		if got < prev {
			t.Fatalf("roundSeries(%g) = %d < %d: not monotone", x, got, prev)
		}
		if r := float64(got) / x; x >= 20 && (r < 0.88 || r > 1.135) {
			t.Fatalf("roundSeries(%g) = %d: %.2f× off", x, got, r)
		}
		prev = got
	}
}

// TestBatches: units share a process only with units of their package,
// -cpu value, N and runs, and sides; in their order; while the process's
// timed work stays within span; span 0 puts every unit alone; every unit
// is in exactly one batch.
func TestBatches(t *testing.T) {
	ms := time.Millisecond
	both := [2]bool{true, true}
	u := func(pkg, name string, cpu, n int, cost time.Duration) Unit {
		return Unit{Package: pkg, Name: name, CPU: cpu, N: n, Runs: 5, RoundN: 5 * n, Cost: cost, Sides: both}
	}
	units := []Unit{
		u("a", "BenchmarkX/1", 1, 100, 40*ms),
		u("a", "BenchmarkX/2", 1, 100, 40*ms),
		u("a", "BenchmarkX/3", 1, 100, 40*ms), // over the span with the first two: a batch of its own
		u("a", "BenchmarkY", 1, 200, 40*ms),   // another N
		u("a", "BenchmarkX/4", 2, 100, 40*ms), // another -cpu
		u("b", "BenchmarkX/1", 1, 100, 40*ms), // another package
		u("a", "BenchmarkZ", 1, 100, 40*ms),   // joins X/3
	}
	onlyHead := u("a", "BenchmarkNew", 1, 100, 10*ms)
	onlyHead.Sides = [2]bool{false, true}
	units = append(units, onlyHead) // on one side only: apart
	names := func(bs []batch) [][]string {
		var out [][]string
		for _, b := range bs {
			var ns []string
			for _, u := range b.units {
				ns = append(ns, fmt.Sprintf("%s.%s-%d", u.Package, u.Name, u.CPU))
			}
			out = append(out, ns)
		}
		return out
	}
	got := names(batches(units, 100*ms, 1))
	want := [][]string{
		{"a.BenchmarkX/1-1", "a.BenchmarkX/2-1"},
		{"a.BenchmarkX/3-1", "a.BenchmarkZ-1"},
		{"a.BenchmarkY-1"},
		{"a.BenchmarkX/4-2"},
		{"b.BenchmarkX/1-1"},
		{"a.BenchmarkNew-1"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("batches at 100 ms:\n got %v\nwant %v", got, want)
	}
	// Two processes a round: each holds half of every unit's runs, so
	// three units fit in 100 ms.
	if got := names(batches(units[:3], 100*ms, 2)); len(got) != 1 || len(got[0]) != 3 {
		t.Errorf("batches at 100 ms in 2 processes: %v, want the three X units in one", got)
	}
	for _, span := range []time.Duration{0, time.Nanosecond} {
		bs := batches(units, span, 1)
		if len(bs) != len(units) {
			t.Errorf("span %v: %d batches of %d units, want each alone", span, len(bs), len(units))
		}
	}
	var all []string
	for _, b := range names(batches(units, time.Hour, 1)) {
		all = append(all, b...)
	}
	if len(all) != len(units) {
		t.Errorf("units in batches: %v, want each of the %d once", all, len(units))
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
