package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testenv"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/perf/benchfmt"
)

func TestSplitRegexp(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [][]string
	}{
		{".", [][]string{{"."}}},
		{"A/b", [][]string{{"A", "b"}}},
		{"A|B/c", [][]string{{"A"}, {"B", "c"}}},
		{"A[/|]x/(b|c)", [][]string{{"A[/|]x", "(b|c)"}}},
		{`A\/b`, [][]string{{`A\/b`}}},
	} {
		if diff := cmp.Diff(tc.want, splitRegexp(tc.in)); diff != "" {
			t.Errorf("splitRegexp(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestPatternFor(t *testing.T) {
	for _, tc := range []struct {
		expr, top, want string
	}{
		{".", "BenchmarkSum", "^BenchmarkSum$"},
		{"Sum", "BenchmarkSum", "^BenchmarkSum$"},
		{"Sum", "BenchmarkSizes", ""},
		{"Sizes/n=8", "BenchmarkSizes", "^BenchmarkSizes$/n=8"},
		{"Sum|Sizes/a", "BenchmarkSizes", "^BenchmarkSizes$/a"},
		{"S|Sizes/a", "BenchmarkSizes", "^BenchmarkSizes$|^BenchmarkSizes$/a"},
	} {
		f, err := parseBenchFilter(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.patternFor(tc.top); got != tc.want {
			t.Errorf("patternFor(%q, %q) = %q, want %q", tc.expr, tc.top, got, tc.want)
		}
	}
	if _, err := parseBenchFilter("Sum/("); err == nil || !strings.Contains(err.Error(), "--bench") {
		t.Errorf("invalid regexp: err = %v, want one naming --bench", err)
	}
}

func TestLeafPatternMatchesOnlyItsLeaf(t *testing.T) {
	// Each level of a leaf pattern must match exactly that level's name, the
	// way testing applies it, and nothing else.
	names := []string{"BenchmarkSizes/n=8", "BenchmarkSizes/a_b", `BenchmarkSizes/x|y`, "BenchmarkSizes/p/q", "BenchmarkSizes/n=80"}
	for _, leaf := range names {
		alts := splitRegexp(leafPattern(leaf))
		if len(alts) != 1 {
			t.Fatalf("leafPattern(%q) has %d alternatives", leaf, len(alts))
		}
		for _, other := range names {
			got := matchLevels(t, alts[0], strings.Split(other, "/"))
			if want := other == leaf; got != want {
				t.Errorf("leafPattern(%q) matches %q = %v, want %v", leaf, other, got, want)
			}
		}
	}
}

func matchLevels(t *testing.T, pats, levels []string) bool {
	t.Helper()
	if len(levels) != len(pats) {
		return false
	}
	for i, p := range pats {
		if !regexp.MustCompile(p).MatchString(levels[i]) {
			return false
		}
	}
	return true
}

func readResults(t *testing.T, name string, b []byte) []*benchfmt.Result {
	t.Helper()
	var res []*benchfmt.Result
	rd := benchfmt.NewReader(bytes.NewReader(b), name)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			res = append(res, rec.Clone())
		case *benchfmt.SyntaxError:
			t.Errorf("%s: %v", name, rec)
		}
	}
	return res
}

// TestRunRealModule measures the module in testdata/mod against a copy of
// itself whose BenchmarkFlaky panics, with a real go test.
func TestRunRealModule(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds and runs real test binaries")
	}
	base := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	head := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	if err := os.WriteFile(filepath.Join(head, "FLAKY"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var baseOut, headOut, progress bytes.Buffer
	logs := t.TempDir()
	res, err := Run(context.Background(), Side{"base", base}, Side{"head", head}, Options{
		Count:     3,
		Benchtime: "5ms",
		// One run per side per round: with the default, a machine slow
		// enough to make a pilot cost over twice the shortest run splits
		// a round in two, and the processes below are more.
		Runs:     1,
		CPU:      []int{2},
		Seed:     7,
		BinDir:   t.TempDir(),
		LogDir:   logs,
		Progress: &progress,
	}, &baseOut, &headOut)
	if err != nil {
		t.Fatalf("Run: %v\nprogress:\n%s", err, progress.String())
	}
	// Time accounting: every process is counted, the counted runs are a
	// part of it, and building took time.
	if !(res.RunTime > 0 && res.ProcessTime > res.RunTime && res.BuildTime > 0 && res.Elapsed > res.ProcessTime+res.BuildTime/2) {
		t.Errorf("timing: run %v, process %v, build %v, elapsed %v", res.RunTime, res.ProcessTime, res.BuildTime, res.Elapsed)
	}
	// The stages: calibrating and the rounds took time, the rounds held
	// the counted runs, and their timed work is a part of those runs
	// (each process also starts up and runs the benchmark once at N=1).
	if !(res.DiscoverTime > 0 && res.MeasureTime >= res.RunTime && res.Work > 0 && res.Work < res.RunTime && res.Elapsed > res.DiscoverTime+res.MeasureTime) {
		t.Errorf("stages: discover %v, measure %v, work %v, counted %v, elapsed %v", res.DiscoverTime, res.MeasureTime, res.Work, res.RunTime, res.Elapsed)
	}
	// 2 packages × 2 sides listed; one pilot per package and side, and
	// head's of mod, where Flaky panics, again for each of its 3
	// functions alone (so that the panic is charged to Flaky alone); no
	// warm-up; 3 rounds of one process per unit and side, less Flaky's
	// head.
	if want := 4 + 4 + 3 + 3*13; res.Processes != want {
		t.Errorf("%d benchmark processes, want %d", res.Processes, want)
	}
	if res.Rounds != 3 || res.Partial {
		t.Errorf("rounds = %d, partial = %v; want 3, false", res.Rounds, res.Partial)
	}
	var ids []string
	for _, u := range res.Units {
		ids = append(ids, u.ID())
		if u.N <= 0 {
			t.Errorf("%s: calibrated N = %d", u.ID(), u.N)
		}
	}
	wantIDs := []string{
		"example.com/mod.Sum-2",
		"example.com/mod.Sizes/n=8-2",
		"example.com/mod.Sizes/a_b-2",
		"example.com/mod.Sizes/x|y-2",
		"example.com/mod.Sizes/p/q-2",
		"example.com/mod.Flaky-2",
		"example.com/mod/sub.ReadData-2",
	}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
	if len(res.Failures) != 1 || res.Failures[0].Side != "head" || res.Failures[0].Name != "Flaky-2" ||
		!strings.Contains(res.Failures[0].Message, "flaky benchmark exploded") {
		t.Errorf("failures = %+v, want one head failure of Flaky-2 showing the panic", res.Failures)
	}
	if !strings.Contains(strings.Join(res.Skipped, "\n"), "example.com/mod/nobench") {
		// nobench has no test files at all, so it is not even built; make
		// sure it is not reported as a unit either.
		for _, id := range ids {
			if strings.Contains(id, "nobench") {
				t.Errorf("nobench measured: %s", id)
			}
		}
	}

	// Both sides ran every unit at the same N in every round; head lacks
	// the failed benchmark.
	perSide := func(name string, b []byte) map[string][]string {
		got := map[string][]string{}
		for _, r := range readResults(t, name, b) {
			round, _ := r.GetConfig("round"), 0
			pkg := r.GetConfig("pkg")
			got[pkg+"."+r.Name.String()] = append(got[pkg+"."+r.Name.String()], round)
			if _, ok := r.Value("allocs/op"); !ok {
				t.Errorf("%s %s: no allocs/op (benchmem missing)", name, r.Name)
			}
		}
		return got
	}
	b, h := perSide("base.txt", baseOut.Bytes()), perSide("head.txt", headOut.Bytes())
	for _, id := range wantIDs {
		want := []string{"1", "2", "3"}
		if diff := cmp.Diff(want, b[id]); diff != "" {
			t.Errorf("base rounds of %s (-want +got):\n%s", id, diff)
		}
		if id == "example.com/mod.Flaky-2" {
			if len(h[id]) != 0 {
				t.Errorf("head has results for the failing benchmark: %v", h[id])
			}
			continue
		}
		if diff := cmp.Diff(want, h[id]); diff != "" {
			t.Errorf("head rounds of %s (-want +got):\n%s", id, diff)
		}
	}
	iters := map[string]int{}
	for _, r := range readResults(t, "base.txt", baseOut.Bytes()) {
		iters[r.Name.String()] = r.Iters
	}
	for _, r := range readResults(t, "head.txt", headOut.Bytes()) {
		if iters[r.Name.String()] != r.Iters {
			t.Errorf("%s: head N = %d, base N = %d; want equal", r.Name, r.Iters, iters[r.Name.String()])
		}
	}
	if !strings.Contains(baseOut.String(), "Unit allocs/op assume=exact") {
		t.Errorf("base.txt lacks the exact-allocations unit metadata")
	}
	for _, side := range []string{"base", "head"} {
		if _, err := os.Stat(filepath.Join(logs, "build-"+side+".log")); err != nil {
			t.Errorf("build log: %v", err)
		}
	}
	if !strings.Contains(progress.String(), "round 3 of 3") {
		t.Errorf("progress does not show the last round:\n%s", progress.String())
	}
}

func TestRunBuildFailure(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds real test binaries")
	}
	base := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	head := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	if err := os.WriteFile(filepath.Join(head, "broken.go"), []byte("package mod\n\nfunc Broken() int { return \"x\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Side{"base", base}, Side{"head", head}, Options{Count: 1, BinDir: t.TempDir()}, &bytes.Buffer{}, &bytes.Buffer{})
	var be *BuildError
	if !errors.As(err, &be) || be.Side != "head" || !strings.Contains(be.Output, "broken.go") {
		t.Fatalf("err = %v, want a head BuildError showing the compiler output", err)
	}
}

func TestRunNoBenchmarks(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds real test binaries")
	}
	base := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	_, err := Run(context.Background(), Side{"base", base}, Side{"head", base}, Options{Bench: "NoSuchThing", Count: 1, BinDir: t.TempDir()}, &bytes.Buffer{}, &bytes.Buffer{})
	if !errors.Is(err, ErrNoBenchmarks) {
		t.Fatalf("err = %v, want ErrNoBenchmarks", err)
	}
}

func TestRunCancelled(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds real test binaries")
	}
	base := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	var baseOut bytes.Buffer
	res, err := Run(ctx, Side{"base", base}, Side{"head", base}, Options{Bench: "Sum", Count: 50, Benchtime: "1ms", BinDir: t.TempDir(),
		onRun: func(side, round int, u Unit, iters int) {
			if round == 2 {
				cancel()
			}
		}}, &baseOut, &bytes.Buffer{})
	if !errors.Is(err, context.Canceled) || res == nil || !res.Partial {
		t.Fatalf("err = %v, res = %+v; want context.Canceled and a partial result", err, res)
	}
	if res.Rounds < 1 || res.Rounds >= 50 {
		t.Errorf("rounds = %d, want between 1 and 49", res.Rounds)
	}
	if !strings.Contains(baseOut.String(), "round: 1") {
		t.Errorf("round 1 was not written before cancellation:\n%s", baseOut.String())
	}
}

// TestRunShortRuns checks the design of a round: every unit makes Runs
// short runs per side at the same N, in one process per side (base and
// head back to back, in a random order), the round's iterations per side
// are the fixed count's, the raw files keep one result line per run under
// the round's "round: N" line, and Runs 1 is one run per side per round.
func TestRunShortRuns(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds and runs real test binaries")
	}
	base := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	head := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	type run struct {
		side, round int
		id          string
		iters       int
	}
	measure := func(runs int) (*Result, []run, string, string) {
		var trace []run
		var baseOut, headOut, progress bytes.Buffer
		res, err := Run(context.Background(), Side{"base", base}, Side{"head", head}, Options{
			Bench:      "Sum|ReadData",
			Count:      3,
			Benchtime:  "1000x", // a fixed round: 1000 iterations per side
			Runs:       runs,
			CPU:        []int{2},
			Seed:       11,
			BinDir:     t.TempDir(),
			Progress:   &progress,
			minRunTime: time.Microsecond,
			onRun: func(side, round int, u Unit, iters int) {
				trace = append(trace, run{side, round, u.ID(), iters})
			},
		}, &baseOut, &headOut)
		if err != nil {
			t.Fatalf("Run: %v\n%s", err, progress.String())
		}
		return res, trace, baseOut.String(), headOut.String()
	}

	res, trace, baseTxt, headTxt := measure(0) // the default, DefaultRuns
	if len(res.Units) != 2 {
		t.Fatalf("units %+v, want Sum and ReadData", res.Units)
	}
	for _, u := range res.Units {
		if u.Runs != DefaultRuns || u.RoundN != 1000 || u.N != 200 {
			t.Errorf("%s: %d runs of %d (round %d); want %d of 200, the fixed 1000 split", u.ID(), u.Runs, u.N, u.RoundN, DefaultRuns)
		}
	}
	// The processes: 2 packages × 2 sides listed, piloted 2 × 2, no
	// warm-up, then the rounds' (counted from the trace below).
	want := 4 + 4
	if !(res.RoundTime > 0) {
		t.Errorf("round time estimate %v, want > 0", res.RoundTime)
	}
	// Each unit's runs in a round are consecutive: per process one side's
	// share of the runs, the processes in pairs of the two sides.
	type key struct {
		round int
		id    string
	}
	sides := map[key][]int{}
	iters := map[key][2]int{}
	var seen []key
	orders := map[int]int{}
	for i, r := range trace {
		k := key{r.round, r.id}
		if len(sides[k]) == 0 {
			seen = append(seen, k)
		} else if prev := trace[i-1]; prev.round != r.round || prev.id != r.id {
			t.Errorf("round %d: the runs of %s are not consecutive", r.round, r.id)
		}
		sides[k] = append(sides[k], r.side)
		it := iters[k]
		it[r.side] += r.iters
		iters[k] = it
	}
	if len(seen) != 3*2 {
		t.Errorf("%d (round, unit) groups, want 6", len(seen))
	}
	for _, k := range seen {
		s := sides[k]
		if len(s) != 2*DefaultRuns {
			t.Errorf("round %d, %s: %d runs, want %d per side", k.round, k.id, len(s), DefaultRuns)
			continue
		}
		// The runs of a round: P processes per side in pairs, each
		// pair one side's share of the runs, then the other's, for some
		// P (as the processes' cost allows).
		split := 0
		for p := 1; p <= DefaultRuns && split == 0; p++ {
			at, ok := 0, true
			var firsts []int
			for _, c := range counts(DefaultRuns, p) {
				first := s[at]
				ok = ok && slices.Equal(s[at:at+c], slices.Repeat([]int{first}, c)) && slices.Equal(s[at+c:at+2*c], slices.Repeat([]int{1 - first}, c))
				firsts = append(firsts, first)
				at += 2 * c
			}
			if ok {
				split = p
				for _, f := range firsts {
					orders[f]++
				}
			}
		}
		if split == 0 {
			t.Errorf("round %d, %s: runs %v are not processes in pairs of one side's share, then the other's", k.round, k.id, s)
		}
		want += 2 * split
		if it := iters[k]; it[0] != 1000 || it[1] != 1000 {
			t.Errorf("round %d, %s: %v iterations per side, want 1000", k.round, k.id, it)
		}
	}
	if orders[0] == 0 || orders[1] == 0 {
		t.Errorf("first sides %v: want base first in some pairs and head first in others", orders)
	}
	if res.Processes != want {
		t.Errorf("%d processes, want %d", res.Processes, want)
	}
	// The raw files: one result per run, grouped under the round lines.
	for _, f := range []struct{ name, text string }{{"base.txt", baseTxt}, {"head.txt", headTxt}} {
		perRound := map[string]int{}
		for _, r := range readResults(t, f.name, []byte(f.text)) {
			perRound[r.GetConfig("pkg")+"."+r.Name.String()+" round "+r.GetConfig("round")]++
			if r.Iters != 200 {
				t.Errorf("%s: %s ran %d iterations, want 200", f.name, r.Name, r.Iters)
			}
		}
		want := map[string]int{}
		for _, id := range []string{"example.com/mod.Sum-2", "example.com/mod/sub.ReadData-2"} {
			for _, round := range []string{"1", "2", "3"} {
				want[id+" round "+round] = DefaultRuns
			}
		}
		if diff := cmp.Diff(want, perRound); diff != "" {
			t.Errorf("%s: results per round (-want +got):\n%s", f.name, diff)
		}
		if got := strings.Count(f.text, "\nround: "); got < 3 {
			t.Errorf("%s: %d round lines, want one before each round", f.name, got)
		}
	}
	benchstatIgnoresRound(t, baseTxt, headTxt)

	// --runs 1: one run of the whole round per side.
	res, trace, _, _ = measure(1)
	for _, u := range res.Units {
		if u.Runs != 1 || u.N != 1000 || u.RoundN != 1000 {
			t.Errorf("runs 1: %s: %d runs of %d, want 1 of 1000", u.ID(), u.Runs, u.N)
		}
	}
	if len(trace) != 3*2*2 {
		t.Errorf("runs 1: %d counted runs, want 12", len(trace))
	}
}

// benchstatIgnoresRound runs `benchstat -ignore round base.txt head.txt` on
// the raw files, when benchstat can be built offline, and checks that it
// pools each side's runs into one row per benchmark.
func benchstatIgnoresRound(t *testing.T, base, head string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "benchstat")
	build := exec.Command("go", "build", "-o", bin, "golang.org/x/perf/cmd/benchstat")
	build.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOPROXY=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Logf("benchstat not checked: cannot build it offline: %v\n%s", err, out)
		return
	}
	for name, text := range map[string]string{"base.txt": base, "head.txt": head} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-ignore", "round", "base.txt", "head.txt")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	s := string(out)
	for _, want := range []string{"Sum-2", "ReadData-2", "sec/op"} {
		if !strings.Contains(s, want) {
			t.Errorf("benchstat output lacks %q:\n%s", want, s)
		}
	}
	// 15 runs a side, pooled: a confidence interval and a p-value, no
	// "need >= 6 samples" and no split by round.
	if strings.Contains(s, "need >=") || strings.Contains(s, "round:") || strings.Count(s, "Sum-2") != 3 {
		t.Errorf("benchstat did not pool the runs of all rounds:\n%s", s)
	}
}

// Build builds both sides' binaries and runs none of them: the caller
// seals the sandbox between Build and Discover.
func TestBuildRunsNothing(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds real test binaries")
	}
	base := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	bins := t.TempDir()
	s, err := Build(context.Background(), Side{"base", base}, Side{"head", base}, Options{Count: 1, BinDir: bins})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	var built []string
	for _, side := range []string{"base", "head"} {
		m, _ := filepath.Glob(filepath.Join(bins, side, "*.test"))
		built = append(built, m...)
	}
	if len(built) != 4 {
		t.Errorf("Build left binaries %v, want both packages' on both sides", built)
	}
	if n := s.Result().Processes; n != 0 {
		t.Errorf("%d test binaries ran in Build", n)
	}
	units, err := s.Discover(context.Background())
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	if s.Result().Processes == 0 || len(units) == 0 {
		t.Errorf("Discover ran %d processes and found %d units, want some of each", s.Result().Processes, len(units))
	}
	if len(s.Units()) != 0 {
		t.Errorf("Units before Prepare: %v, want none", s.Units())
	}
	if err := s.Prepare(context.Background(), units[:1]); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	if got := s.Units(); len(got) != 1 || got[0] != units[0] {
		t.Errorf("Units after Prepare(units[:1]) = %v, want %v", got, units[:1])
	}
}
