package shard

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/runner"
	"github.com/google/go-cmp/cmp"
)

// Cost distributions of benchmark suites.

// calibrated is what the runner's pilot gives at the default --benchtime:
// testing aims the last pilot run at 1.2×benchtime, so costs are 100 to
// 130 ms whatever the machine's speed.
func calibrated(rng *rand.Rand) time.Duration {
	return time.Duration(float64(100*time.Millisecond) * (1 + 0.3*rng.Float64()))
}

// slow are benchmarks whose single operation outlasts --benchtime (N = 1):
// 0.3 to 6 s, scaling with the machine.
func slow(rng *rand.Rand) time.Duration {
	return time.Duration(float64(300*time.Millisecond) * math.Pow(20, rng.Float64()))
}

// withSlow mixes calibrated benchmarks with a fraction of slow ones.
func withSlow(frac float64) func(*rand.Rand) time.Duration {
	return func(rng *rand.Rand) time.Duration {
		if rng.Float64() < frac {
			return slow(rng)
		}
		return calibrated(rng)
	}
}

// logUniform spreads costs over four decades, 100 µs to 1 s: a fixed
// --benchtime Nx.
func logUniform(rng *rand.Rand) time.Duration {
	return time.Duration(float64(100*time.Microsecond) * math.Pow(10, 4*rng.Float64()))
}

func genItems(rng *rand.Rand, k int, cost func(*rand.Rand) time.Duration) []Item {
	items := make([]Item, k)
	for i := range items {
		items[i] = Item{ID: fmt.Sprintf("example.com/p%d.Bench%d/size=%d-4", rng.IntN(10), rng.IntN(1000), i), Cost: cost(rng)}
	}
	return items
}

// Perturbations: what another machine's pilot might measure instead.

// eachBy changes every cost independently by up to ±frac.
func eachBy(frac float64) func(*rand.Rand, []Item) []Item {
	return func(rng *rand.Rand, items []Item) []Item {
		out := slices.Clone(items)
		for i := range out {
			out[i].Cost = time.Duration(float64(out[i].Cost) * (1 - frac + 2*frac*rng.Float64()))
		}
		return out
	}
}

// machine makes the slow benchmarks (those above 150 ms) up to ±20% slower
// or faster together, as another machine is, and every cost up to ±5%
// independently; calibrated costs do not follow the machine's speed.
func machine(rng *rand.Rand, items []Item) []Item {
	s := 0.8 + 0.4*rng.Float64()
	out := slices.Clone(items)
	for i := range out {
		c := float64(out[i].Cost)
		if out[i].Cost > 150*time.Millisecond {
			c *= s
		}
		out[i].Cost = time.Duration(c * (0.95 + 0.1*rng.Float64()))
	}
	return out
}

func TestPartitionIsAPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	dists := map[string]func(*rand.Rand) time.Duration{
		"calibrated":  calibrated,
		"10% slow":    withSlow(0.1),
		"log-uniform": logUniform,
		"zero":        func(*rand.Rand) time.Duration { return 0 },
	}
	for name, dist := range dists {
		for _, k := range []int{0, 1, 2, 7, 60, 500} {
			for _, n := range []int{1, 2, 3, 4, 7, 16} {
				items := genItems(rng, k, dist)
				units := unitsOf(items)
				got := map[string]int{}
				for i := 1; i <= n; i++ {
					for _, u := range Assign(units, Spec{Index: i, Count: n}) {
						got[u.ID()]++
					}
				}
				for _, u := range units {
					if got[u.ID()] != 1 {
						t.Fatalf("%s, %d units, %d shards: %s assigned %d times", name, k, n, u.ID(), got[u.ID()])
					}
				}
				if len(got) != k {
					t.Fatalf("%s, %d units, %d shards: %d assigned", name, k, n, len(got))
				}
				// The guarantee of greedy least-loaded placement, on the
				// quantized costs the partition sees.
				w := weights(items)
				load := make([]int64, n)
				var total, largest int64
				for i, s := range Partition(items, n) {
					load[s-1] += w[i]
					total += w[i]
					largest = max(largest, w[i])
				}
				if k > 0 && float64(slices.Max(load)) > float64(total)/float64(n)+float64(largest) {
					t.Errorf("%s, %d units, %d shards: max load %d > average %g + largest %d", name, k, n, slices.Max(load), float64(total)/float64(n), largest)
				}
			}
		}
	}
}

func TestPartitionDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	items := genItems(rng, 300, withSlow(0.1))
	want := Partition(items, 5)
	// The order of the input does not matter.
	perm := rng.Perm(len(items))
	shuffled := make([]Item, len(items))
	for i, j := range perm {
		shuffled[i] = items[j]
	}
	got := Partition(shuffled, 5)
	for i, j := range perm {
		if got[i] != want[j] {
			t.Fatalf("item %s: shard %d after shuffling, %d before", items[j].ID, got[i], want[j])
		}
	}
	// Scaling every cost (a uniformly faster machine) changes nothing.
	scaled := slices.Clone(items)
	for i := range scaled {
		scaled[i].Cost = scaled[i].Cost * 3 / 2
	}
	if diff := cmp.Diff(want, Partition(scaled, 5)); diff != "" {
		t.Errorf("scaled costs changed the partition (-want +got):\n%s", diff)
	}
}

// TestPartitionExamples pins small partitions down exactly.
func TestPartitionExamples(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name  string
		items []Item
		n     int
		want  []int
	}{
		{"no items", nil, 3, []int{}},
		{"one shard", []Item{{"b", ms}, {"a", 9 * ms}}, 1, []int{1, 1}},
		{"equal costs: round-robin by ID", []Item{{"d", ms}, {"c", ms}, {"b", ms}, {"a", ms}}, 2, []int{2, 1, 2, 1}},
		{"zero costs: by ID", []Item{{"b", 0}, {"a", 0}, {"c", 0}}, 2, []int{2, 1, 1}},
		{
			// Median 100 ms: the three 100 ms units are dealt first (a, b,
			// c to 1, 2, 3), then the 1 s unit (class 4, weight 5.7) to the
			// least loaded shard with the lowest number, then the 10 ms
			// units (class -5, weight 0.1) to the least loaded.
			"a heavy unit and light ones",
			[]Item{{"a", 100 * ms}, {"b", 100 * ms}, {"c", 100 * ms}, {"heavy", time.Second}, {"x", 10 * ms}, {"y", 10 * ms}},
			3,
			[]int{1, 2, 3, 1, 2, 3},
		},
		{"n above the count", []Item{{"a", ms}, {"b", ms}}, 4, []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Partition(tt.items, tt.n)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Partition (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCostClass(t *testing.T) {
	const m = 1000
	tests := []struct {
		c    int64
		want int
	}{
		{0, 0}, {-5, 0},
		{500, 0}, {1000, 0}, {1999, 0}, // [m/2, 2m)
		{2000, 1}, {2828, 1}, {2829, 2}, {3999, 2}, {4000, 3}, {5656, 3}, {5657, 4},
		{499, -1}, {354, -1}, {353, -2}, {250, -2}, {249, -3},
		{1, -18},
		{math.MaxInt64, maxClass},
	}
	for _, tt := range tests {
		if got := costClass(tt.c, m); got != tt.want {
			t.Errorf("costClass(%d, %d) = %d, want %d", tt.c, m, got, tt.want)
		}
	}
	// Weights grow with the class.
	for k := -maxClass; k < maxClass; k++ {
		if classWeight(k) > classWeight(k+1) || (classWeight(k) == classWeight(k+1) && classWeight(k) > 1) {
			t.Errorf("classWeight(%d) = %d, classWeight(%d) = %d", k, classWeight(k), k+1, classWeight(k+1))
		}
	}
	if got, want := classWeight(1), int64(math.Round(unit*math.Pow(2, 1.25))); got != want {
		t.Errorf("classWeight(1) = %d, want %d", got, want)
	}
	if got, want := classWeight(-1), int64(unit*math.Pow(2, -1.25)); got != want {
		t.Errorf("classWeight(-1) = %d, want %d", got, want)
	}
}

// stabilityScenarios are the measurements the package documentation
// quotes: how often another machine's pilot costs give exactly the same
// partition. min is the rate this test insists on (the seed is fixed, so
// the rates are reproducible).
var stabilityScenarios = []struct {
	name    string
	k, n    int
	cost    func(*rand.Rand) time.Duration
	perturb func(*rand.Rand, []Item) []Item
	min     float64
}{
	{"calibrated, each ±20%", 30, 4, calibrated, eachBy(0.2), 1},
	{"calibrated, each ±20%", 300, 4, calibrated, eachBy(0.2), 1},
	{"calibrated, each ±20%", 3000, 8, calibrated, eachBy(0.2), 1},
	{"2% slow, each ±20%", 30, 4, withSlow(0.02), eachBy(0.2), 0.95},
	{"2% slow, each ±20%", 300, 4, withSlow(0.02), eachBy(0.2), 0},
	{"2% slow, machine ±20%", 30, 4, withSlow(0.02), machine, 0.95},
	{"2% slow, machine ±20%", 300, 4, withSlow(0.02), machine, 0},
	{"10% slow, each ±20%", 30, 4, withSlow(0.1), eachBy(0.2), 0.8},
	{"10% slow, each ±5%", 30, 4, withSlow(0.1), eachBy(0.05), 0.9},
	{"10% slow, machine ±20%", 300, 4, withSlow(0.1), machine, 0},
	{"log-uniform, each ±20%", 30, 4, logUniform, eachBy(0.2), 0},
	{"log-uniform, each ±5%", 30, 4, logUniform, eachBy(0.05), 0},
}

func TestPartitionStability(t *testing.T) {
	const trials = 500
	for _, sc := range stabilityScenarios {
		rng := rand.New(rand.NewPCG(3, uint64(sc.k)))
		same, moved := 0, 0.0
		for range trials {
			items := genItems(rng, sc.k, sc.cost)
			a := Partition(items, sc.n)
			b := Partition(sc.perturb(rng, items), sc.n)
			if slices.Equal(a, b) {
				same++
			}
			d := 0
			for i := range a {
				if a[i] != b[i] {
					d++
				}
			}
			moved += float64(d) / float64(sc.k)
		}
		rate := float64(same) / trials
		t.Logf("%-26s %5d units, %d shards: partition unchanged in %5.1f%% of %d trials; %4.1f%% of units moved on average",
			sc.name, sc.k, sc.n, 100*rate, trials, 100*moved/trials)
		if rate < sc.min {
			t.Errorf("%s, %d units: unchanged in %.1f%%, want at least %.1f%%", sc.name, sc.k, 100*rate, 100*sc.min)
		}
	}
}

// TestPartitionBalance measures the balance of the measured (unquantized)
// costs, which the partition sees only through their classes: the worst
// shard's cost over the average, and how often it exceeds the average by
// more than the largest unit.
func TestPartitionBalance(t *testing.T) {
	const trials = 300
	for _, sc := range []struct {
		name   string
		k, n   int
		cost   func(*rand.Rand) time.Duration
		within float64 // required fraction of trials within average + largest
	}{
		{"calibrated", 30, 4, calibrated, 1},
		{"calibrated", 300, 4, calibrated, 0.9}, // equal weights: count-balanced
		{"10% slow", 30, 4, withSlow(0.1), 1},
		{"10% slow", 300, 4, withSlow(0.1), 1},
		{"log-uniform", 30, 4, logUniform, 1},
		{"log-uniform", 300, 4, logUniform, 1},
		{"log-uniform", 300, 16, logUniform, 1},
	} {
		rng := rand.New(rand.NewPCG(4, uint64(sc.k)))
		worst, sum, ok := 0.0, 0.0, 0
		for range trials {
			items := genItems(rng, sc.k, sc.cost)
			load := make([]time.Duration, sc.n)
			var total, largest time.Duration
			for i, s := range Partition(items, sc.n) {
				load[s-1] += items[i].Cost
				total += items[i].Cost
				largest = max(largest, items[i].Cost)
			}
			avg := float64(total) / float64(sc.n)
			r := float64(slices.Max(load)) / avg
			worst, sum = max(worst, r), sum+r
			if float64(slices.Max(load)) <= avg+float64(largest) {
				ok++
			}
		}
		t.Logf("%-12s %4d units, %2d shards: costliest shard / average shard: mean %.3f, worst %.3f; within average + largest unit in %5.1f%% of %d trials",
			sc.name, sc.k, sc.n, sum/trials, worst, 100*float64(ok)/trials, trials)
		if float64(ok)/trials < sc.within {
			t.Errorf("%s, %d units: within average + largest in %.1f%%, want %.1f%%", sc.name, sc.k, 100*float64(ok)/trials, 100*sc.within)
		}
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

// unitsOf turns items made by genItems back into runner units with the
// same IDs.
func unitsOf(items []Item) []runner.Unit {
	units := make([]runner.Unit, len(items))
	for i, it := range items {
		pkg, rest, _ := strings.Cut(it.ID, ".")
		units[i] = runner.Unit{Package: pkg, Name: "Benchmark" + strings.TrimSuffix(rest, "-4"), CPU: 4, Cost: it.Cost}
	}
	return units
}
