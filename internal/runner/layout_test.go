package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/affected"
	"github.com/benchgate/benchgate/internal/testenv"
)

// gridModule is a module whose BenchmarkGrid pays a set-up in its body
// (before its sub-benchmarks, as cespare/xxhash's benchmarks fill a 10 MB
// input for every size) and appends a line to SETUP_LOG each time that
// body runs. Alloc allocates allocs (a variable, so that base and head
// differ only in it) objects of 64 bytes per op.
func gridModule(allocs int) map[string]string {
	return map[string]string{
		"go.mod": "module example.com/grid\n\ngo 1.26\n",
		"grid.go": `package grid

var allocs = ` + strconv.Itoa(allocs) + `

var sink []byte

// Alloc allocates allocs objects of 64 bytes.
func Alloc() {
	for range allocs {
		sink = make([]byte, 64)
	}
}

// Work is a fixed integer loop.
func Work(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}
`,
		"grid_test.go": `package grid

import (
	"os"
	"testing"
)

var sum uint64

func BenchmarkGrid(b *testing.B) {
	if f, err := os.OpenFile(os.Getenv("SETUP_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.WriteString("setup\n")
		f.Close()
	}
	input := make([]byte, 4<<20) // the set-up
	for i := range input {
		input[i] = byte(i)
	}
	for _, name := range []string{"a", "b"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				sum += Work(2000) + uint64(input[len(name)])
			}
		})
	}
}

func BenchmarkAlloc(b *testing.B) {
	for b.Loop() {
		Alloc()
	}
}
`,
	}
}

// TestCountRuns runs each unit's round in one process per side with its
// runs inside (-test.count): every unit still gets Runs result lines per
// side per round, at the same N on both sides; allocations stay exact (0
// on base, 1 on head, 64 B, in every run: the 0 → 1 case); and the
// benchmark function's set-up runs once per process, not once per run.
func TestCountRuns(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds and runs real test binaries")
	}
	base, head := t.TempDir(), t.TempDir()
	testenv.WriteFiles(t, base, gridModule(0))
	testenv.WriteFiles(t, head, gridModule(1))
	logs := t.TempDir()
	setupLog := filepath.Join(logs, "setup.log")
	var baseOut, headOut, progress bytes.Buffer
	counted, gridProcs := 0, 0
	res, err := Run(context.Background(), Side{"base", base}, Side{"head", head}, Options{
		Count: 3, Benchtime: "20ms", Runs: 4, CPU: []int{1}, Seed: 3, BinDir: t.TempDir(), Progress: &progress,
		Env:        testenv.EnvWith("SETUP_LOG=" + setupLog),
		minRunTime: time.Millisecond,
		onProcess: func(side, round int, u Unit, runs int) {
			counted++
			if strings.HasPrefix(u.Name, "BenchmarkGrid/") {
				gridProcs++
			}
		},
	}, &baseOut, &headOut)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	if len(res.Units) != 3 {
		t.Fatalf("units %+v, want Grid/a, Grid/b and Alloc", res.Units)
	}
	for _, u := range res.Units {
		if u.Runs != 4 {
			t.Errorf("%s: %d runs, want 4", u.ID(), u.Runs)
		}
	}
	// Lines per unit, round and side; N equal across sides and rounds;
	// allocations constant within a side.
	type key struct{ name, round string }
	for side, out := range map[string][]byte{"base": baseOut.Bytes(), "head": headOut.Bytes()} {
		lines := map[key]int{}
		iters := map[string]int{}
		for _, r := range readResults(t, side, out) {
			lines[key{r.Name.String(), r.GetConfig("round")}]++
			if n, ok := iters[r.Name.String()]; ok && n != r.Iters {
				t.Errorf("%s %s: N %d and %d in one run", side, r.Name, n, r.Iters)
			}
			iters[r.Name.String()] = r.Iters
			if r.Name.String() == "Alloc" {
				a, _ := r.Value("allocs/op")
				bs, _ := r.Value("B/op")
				want := map[string]float64{"base": 0, "head": 1}[side]
				if a != want || bs != 64*want {
					t.Errorf("%s %s round %s: %v allocs/op, %v B/op, want exactly %v and %v", side, r.Name, r.GetConfig("round"), a, bs, want, 64*want)
				}
			}
		}
		for _, u := range res.Units {
			name := strings.TrimPrefix(u.Name, "Benchmark")
			for _, round := range []string{"1", "2", "3"} {
				if n := lines[key{name, round}]; n != 4 {
					t.Errorf("%s %s round %s: %d result lines, want 4", side, name, round, n)
				}
			}
			if iters[name] != u.N {
				t.Errorf("%s %s: N %d, want the calibrated %d", side, name, iters[name], u.N)
			}
		}
	}
	// The set-up ran in the pilots (one per side) and once per counted
	// process of a grid unit (one or two a round and side, as their cost
	// allows), where a process per run would have paid it 2 + 3 × 2 × 2
	// × 4 times.
	data, err := os.ReadFile(setupLog)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "setup\n"); n != 2+gridProcs || gridProcs < 3*2*2 || gridProcs >= 3*2*2*4 {
		t.Errorf("BenchmarkGrid's set-up ran %d times for %d counted processes, want once per process", n, gridProcs)
	}
	// The counted processes, after each side's listing and pilot.
	if want := 2 + 2 + counted; res.Processes != want || counted < 3*2*3 {
		t.Errorf("%d processes, %d counted; want %d", res.Processes, counted, want)
	}
}

// TestSameBinary builds a real module in two git worktrees of a
// repository whose head commit changes one package's code, another
// package's README, a third package's testdata and adds a comment line
// above a fourth one's code: the worktrees' paths do not enter the
// binaries (-trimpath), so the package whose sources did not change builds
// byte-identical binaries, and the commented one binaries that differ in
// their line tables only; both are listed, not measured, with a row for
// every benchmark and unit; the package whose code changed and the one
// whose testdata changed are measured.
func TestSameBinary(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds real test binaries in git worktrees")
	}
	repo := t.TempDir()
	files := map[string]string{
		"go.mod":           "module example.com/three\n\ngo 1.26\n",
		"a/a.go":           "package a\n\nfunc F(n int) int { return n * 3 }\n",
		"a/README.md":      "# a\n",
		"a/a_test.go":      benchFile("a", "F(7)", true),
		"b/b.go":           "package b\n\nfunc F(n int) int { return n * 3 }\n",
		"b/b_test.go":      benchFile("b", "F(7)", false),
		"c/c.go":           "package c\n\nfunc F(n int) int { return n * 3 }\n",
		"c/c_test.go":      benchFile("c", "F(7)", false),
		"c/testdata/input": "1\n",
		"d/d.go":           "package d\n\nfunc F(n int) int { return n * 3 }\n",
		"d/d_test.go":      benchFile("d", "F(7)", false),
	}
	testenv.WriteFiles(t, repo, files)
	env := testenv.Env(t)
	testenv.Git(t, env, repo, "init", "-q", "-b", "main")
	testenv.Git(t, env, repo, "add", "-A")
	testenv.Git(t, env, repo, "commit", "-q", "-m", "base")
	testenv.WriteFiles(t, repo, map[string]string{
		"a/README.md":      "# a\n\nMore words.\n",
		"b/b.go":           "package b\n\nfunc F(n int) int { return n*3 + 1 }\n",
		"c/testdata/input": "2\n",
		"d/d.go":           "// Package d multiplies.\npackage d\n\nfunc F(n int) int { return n * 3 }\n",
	})
	testenv.Git(t, env, repo, "commit", "-q", "-am", "head")
	trees := t.TempDir()
	baseDir, headDir := filepath.Join(trees, "base-worktree"), filepath.Join(trees, "somewhere", "else", "head")
	testenv.Git(t, env, repo, "worktree", "add", "-q", "--detach", baseDir, "HEAD~1")
	testenv.Git(t, env, repo, "worktree", "add", "-q", "--detach", headDir, "HEAD")
	changed := strings.Fields(testenv.Git(t, env, repo, "diff", "--name-only", "HEAD~1", "HEAD"))
	var progress bytes.Buffer
	bins := t.TempDir()
	s, err := Build(context.Background(), Side{"base", baseDir}, Side{"head", headDir}, Options{
		Count: 2, Benchtime: "5ms", CPU: []int{1}, BinDir: bins, Progress: &progress,
		SkipIdentical: func(b, h string) bool {
			return !affected.DataChanged(changed, baseDir, b) && !affected.DataChanged(changed, headDir, h)
		},
	})
	if err != nil {
		t.Fatalf("Build: %v\n%s", err, progress.String())
	}
	// The binaries themselves: a's and c's are the same bytes, b's not.
	same, err := sameBinaries(s.built)
	if err != nil {
		t.Fatal(err)
	}
	if !same["example.com/three/a"] || !same["example.com/three/c"] || !same["example.com/three/d"] || same["example.com/three/b"] {
		t.Errorf("test binaries with the same code: %v, want a, c (-trimpath) and d (a comment), not b", same)
	}
	binaries := map[string][2]string{}
	for i := range s.built {
		for _, p := range s.built[i] {
			b := binaries[p.ImportPath]
			b[i] = p.Binary
			binaries[p.ImportPath] = b
		}
	}
	for p, wantBytes := range map[string]bool{"example.com/three/a": true, "example.com/three/d": false} {
		if eq, err := sameFile(binaries[p][0], binaries[p][1]); err != nil || eq != wantBytes {
			t.Errorf("%s: byte-identical binaries %v (%v), want %v", p, eq, err, wantBytes)
		}
	}
	units, err := s.Discover(context.Background())
	if err != nil {
		t.Fatalf("Discover: %v\n%s", err, progress.String())
	}
	var measured []string
	for _, u := range units {
		measured = append(measured, u.Package+"."+u.Name)
	}
	if got := strings.Join(measured, " "); got != "example.com/three/b.BenchmarkF example.com/three/c.BenchmarkF" {
		t.Errorf("measured %s; want b's (code changed) and c's (testdata changed)", got)
	}
	res := s.Result()
	if strings.Join(res.SamePackages, " ") != "example.com/three/a example.com/three/d" {
		t.Errorf("same-binary packages %v, want a and d", res.SamePackages)
	}
	var rows []string
	for _, su := range res.Same {
		rows = append(rows, su.Package+"."+su.Name+" "+strings.Join(su.Units, ","))
	}
	if got := strings.Join(rows, "; "); got != "example.com/three/a.F sec/op,B/op,allocs/op; example.com/three/a.G/sub sec/op,B/op,allocs/op; example.com/three/d.F sec/op,B/op,allocs/op" {
		t.Errorf("same-binary rows %q, want a's two benchmarks and d's one with their units", got)
	}
	if !strings.Contains(progress.String(), "example.com/three/a: test binaries that run the same code on both sides") {
		t.Errorf("progress does not say a was not measured:\n%s", progress.String())
	}
}

// benchFile is a package's benchmark of expr, and when sub a second
// function with a sub-benchmark.
func benchFile(pkg, expr string, sub bool) string {
	s := "package " + pkg + "\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkF(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink += " + expr + "\n\t}\n}\n"
	if sub {
		s += "\nfunc BenchmarkG(b *testing.B) {\n\tb.Run(\"sub\", func(b *testing.B) {\n\t\tfor b.Loop() {\n\t\t\tsink++\n\t\t}\n\t})\n}\n"
	}
	return s
}

// TestCountedCrash: a benchmark that crashes in a counted run (not in its
// pilot) is a failure of its side, not run there again, and the others go
// on with all their runs.
func TestCountedCrash(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds and runs real test binaries")
	}
	files := map[string]string{
		"go.mod": "module example.com/crash\n\ngo 1.26\n",
		"crash_test.go": `package crash

import (
	"os"
	"strings"
	"testing"
)

var sink int

func BenchmarkA(b *testing.B) {
	b.Run("x", func(b *testing.B) {
		for b.Loop() {
			sink++
		}
	})
}

// BenchmarkLate panics on the side that has a LATE file, once its pilot's
// two runs have run: in the counted runs only.
func BenchmarkLate(b *testing.B) {
	if _, err := os.Stat("LATE"); err == nil {
		old, _ := os.ReadFile("runs")
		os.WriteFile("runs", append(old, '.'), 0o644)
		if strings.Count(string(old), ".") >= 2 {
			panic("late crash")
		}
	}
	for b.Loop() {
		sink++
	}
}

func BenchmarkZ(b *testing.B) {
	for b.Loop() {
		sink++
	}
}
`,
	}
	base, head := t.TempDir(), t.TempDir()
	testenv.WriteFiles(t, base, files)
	testenv.WriteFiles(t, head, files)
	if err := os.WriteFile(filepath.Join(head, "LATE"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var baseOut, headOut, progress bytes.Buffer
	res, err := Run(context.Background(), Side{"base", base}, Side{"head", head}, Options{
		Count: 3, Benchtime: "1000x", Runs: 2, CPU: []int{1}, Seed: 5, BinDir: t.TempDir(), Progress: &progress,
		minRunTime: time.Nanosecond,
	}, &baseOut, &headOut)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	if len(res.Failures) != 1 || res.Failures[0].Name != "Late" || res.Failures[0].Side != "head" || !strings.Contains(res.Failures[0].Message, "late crash") {
		t.Fatalf("failures %+v, want Late on head, with its panic", res.Failures)
	}
	lines := map[string]int{}
	for _, r := range readResults(t, "head.txt", headOut.Bytes()) {
		lines[r.Name.String()+" "+r.GetConfig("round")]++
	}
	for _, name := range []string{"A/x", "Z"} {
		for _, round := range []string{"1", "2", "3"} {
			if n := lines[name+" "+round]; n != 2 {
				t.Errorf("head %s round %s: %d lines, want 2", name, round, n)
			}
		}
	}
	if n := lines["Late 1"] + lines["Late 2"] + lines["Late 3"]; n != 0 {
		t.Errorf("head has %d lines of the crashing benchmark", n)
	}
	// Each side's listing and pilot; then a process per unit and side a
	// round, less head's Late after its crash in round 1.
	if want := 2 + 2 + 3*3 + 3 + 2*2; res.Processes != want {
		t.Errorf("%d processes, want %d", res.Processes, want)
	}
}
