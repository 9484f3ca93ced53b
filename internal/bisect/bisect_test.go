package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fake is a path whose commits each add a known log change to benchmark
// units; a comparison returns the summed change with an interval of
// half-width width/sqrt(rounds) (narrower with more rounds).
type fake struct {
	steps  map[int]map[Key]float64 // commit index -> unit -> log change
	width  float64
	index  map[string]int
	calls  []string
	rounds []int
}

func newFake(n int, width float64, steps map[int]map[Key]float64) (*fake, []Commit) {
	f := &fake{steps: steps, width: width, index: map[string]int{}}
	var path []Commit
	for i := range n {
		c := Commit{SHA: fmt.Sprintf("%040d", i), Subject: fmt.Sprintf("commit %d", i)}
		f.index[c.SHA] = i
		path = append(path, c)
	}
	return f, path
}

var (
	encode = Key{"example.com/m", "BenchmarkEncode", "sec/op"}
	decode = Key{"example.com/m", "BenchmarkDecode", "sec/op"}
	allocs = Key{"example.com/m", "BenchmarkEncode", "allocs/op"}
)

func (f *fake) Compare(_ context.Context, a, b Commit, rounds int) ([]Change, error) {
	i, j := f.index[a.SHA], f.index[b.SHA]
	f.calls = append(f.calls, fmt.Sprintf("%d-%d", i, j))
	f.rounds = append(f.rounds, rounds)
	sum := map[Key]float64{encode: 0, decode: 0}
	for k := i + 1; k <= j; k++ {
		for key, d := range f.steps[k] {
			sum[key] += d
		}
	}
	var out []Change
	for _, key := range []Key{encode, decode, allocs} {
		d, ok := sum[key]
		if !ok && key != allocs {
			continue
		}
		w := f.width / math.Sqrt(float64(rounds))
		c := Change{Key: key, Change: math.Expm1(d), Low: math.Expm1(d - w), High: math.Expm1(d + w), Known: true}
		if key == allocs {
			c.Low, c.High = c.Change, c.Change
		}
		out = append(out, c)
	}
	return out, nil
}

func TestRunFindsACreepsCulprits(t *testing.T) {
	l4 := math.Log(1.04)
	f, path := newFake(13, 0.03, map[int]map[Key]float64{
		3:  {encode: l4},
		7:  {encode: l4 * 1.5},
		11: {encode: l4 * 0.75},
	})
	res, err := Run(context.Background(), f, path, Options{Rounds: 10, MaxRounds: 40, Resolution: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Culprits {
		got = append(got, fmt.Sprintf("%s %s %.3f", c.Commit.Subject, c.Benchmark, c.Change.Change))
	}
	want := []string{"commit 7 BenchmarkEncode 0.061", "commit 3 BenchmarkEncode 0.040", "commit 11 BenchmarkEncode 0.030"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("culprits (-want +got):\n%s", d)
	}
	if res.Steps != len(f.calls) {
		t.Errorf("Steps = %d, made %d comparisons", res.Steps, len(f.calls))
	}
	if len(res.Undecided) != 0 {
		t.Errorf("undecided: %v", res.Undecided)
	}
	if f.calls[0] != "0-12" {
		t.Errorf("first comparison %s, want the ends 0-12", f.calls[0])
	}
}

func TestRunNoChangeIsOneStep(t *testing.T) {
	f, path := newFake(8, 0.03, nil)
	res, err := Run(context.Background(), f, path, Options{Rounds: 10, MaxRounds: 40, Resolution: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps != 1 || len(res.Culprits) != 0 {
		t.Errorf("steps %d, culprits %v; want 1 step, none", res.Steps, res.Culprits)
	}
}

// An interval too wide to decide is measured again with twice the rounds,
// not guessed; at MaxRounds it is reported undecided.
func TestRunMeasuresMoreWhenUndecided(t *testing.T) {
	// width 0.1/sqrt(10) = 0.032 > Resolution: undecided at 10 rounds;
	// at 40 rounds 0.016 < 0.02 decides "unchanged".
	f, path := newFake(2, 0.1, nil)
	res, err := Run(context.Background(), f, path, Options{Rounds: 10, MaxRounds: 40, Resolution: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int{10, 20, 40}, f.rounds); d != "" {
		t.Errorf("rounds (-want +got):\n%s", d)
	}
	if len(res.Undecided) != 0 {
		t.Errorf("undecided after 40 rounds: %v", res.Undecided)
	}

	f, path = newFake(2, 0.1, nil)
	res, err = Run(context.Background(), f, path, Options{Rounds: 10, MaxRounds: 20, Resolution: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int{10, 20}, f.rounds); d != "" {
		t.Errorf("rounds (-want +got):\n%s", d)
	}
	if len(res.Undecided) != 2 || res.Undecided[0].To.SHA != path[1].SHA {
		t.Errorf("undecided = %+v, want both time units of the one stretch", res.Undecided)
	}
}

// Exact units (allocations) are found like time units, and a benchmark
// unchanged at the ends is not followed into the halves.
func TestRunExactUnitAndFollowedKeys(t *testing.T) {
	f, path := newFake(5, 0.01, map[int]map[Key]float64{2: {allocs: math.Log(2)}})
	res, err := Run(context.Background(), f, path, Options{Rounds: 10, MaxRounds: 10, Resolution: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Culprits) != 1 || res.Culprits[0].Commit.Subject != "commit 2" || res.Culprits[0].Unit != "allocs/op" {
		t.Fatalf("culprits = %+v, want commit 2's allocs/op", res.Culprits)
	}
	if d := cmp.Diff([]string{"0-4", "0-2", "2-4", "0-1", "1-2"}, f.calls); d != "" {
		t.Errorf("comparisons (-want +got):\n%s", d)
	}
}

func TestRunProgressCountsDown(t *testing.T) {
	f, path := newFake(9, 0.01, map[int]map[Key]float64{5: {decode: 0.1}})
	var steps []Step
	_, err := Run(context.Background(), f, path, Options{Rounds: 10, MaxRounds: 10, Resolution: 0.02, Progress: func(s Step) { steps = append(steps, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) == 0 || steps[0].Remaining == 0 || steps[len(steps)-1].Remaining != 0 {
		t.Errorf("steps %+v: want the first with steps left and the last with none", steps)
	}
	for i, s := range steps {
		if s.N != i+1 {
			t.Errorf("step %d numbered %d", i+1, s.N)
		}
	}
}

func TestRunErrors(t *testing.T) {
	f, path := newFake(1, 0.01, nil)
	if _, err := Run(context.Background(), f, path, Options{}); !errors.Is(err, ErrPath) {
		t.Errorf("one commit: %v, want ErrPath", err)
	}
	boom := errors.New("boom")
	_, err := Run(context.Background(), failing{boom}, []Commit{{SHA: "a"}, {SHA: "b"}}, Options{Rounds: 1})
	if !errors.Is(err, boom) {
		t.Errorf("comparer error: %v, want it wrapped", err)
	}
}

type failing struct{ err error }

func (f failing) Compare(context.Context, Commit, Commit, int) ([]Change, error) { return nil, f.err }
