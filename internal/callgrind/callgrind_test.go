package callgrind

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
)

// The tests below run real valgrind on the benchmarks of testdata/mod,
// whose work is known exactly: Work(n) is a loop of n iterations.

var build struct {
	once sync.Once
	bin  string
	err  error
}

// testBinary builds testdata/mod's test binary once, or skips the test when
// valgrind (or go) is not installed.
func testBinary(t *testing.T) Bench {
	t.Helper()
	if testing.Short() {
		t.Skip("runs valgrind")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind is not installed (apt-get install valgrind)")
	}
	build.once.Do(func() {
		dir, err := os.MkdirTemp("", "callgrind-test-")
		if err != nil {
			build.err = err
			return
		}
		build.bin = filepath.Join(dir, "cgmod.test")
		cmd := exec.Command("go", "test", "-c", "-o", build.bin, ".")
		cmd.Dir = "testdata/mod"
		if out, err := cmd.CombinedOutput(); err != nil {
			build.err = errors.New(string(out))
		}
	})
	if build.err != nil {
		t.Fatalf("building testdata/mod: %v", build.err)
	}
	abs, _ := filepath.Abs("testdata/mod")
	return Bench{Binary: build.bin, Dir: abs}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if build.bin != "" {
		os.RemoveAll(filepath.Dir(build.bin))
	}
	os.Exit(code)
}

func options() Options {
	return Options{Env: os.Environ(), Timeout: 2 * time.Minute}
}

func measure(t *testing.T, o Options, b Bench, name string, n int) *Sample {
	t.Helper()
	b.Name = name
	s, err := Measure(context.Background(), o, b, n)
	if err != nil {
		t.Fatalf("Measure(%s, N=%d): %v", name, n, err)
	}
	t.Logf("%s N=%d: %.1f instructions/op (loop %d, loop2 %d, all threads %v, %d functions, %s)", name, n, s.PerOp, s.Loop, s.Loop2, s.AllThreads, len(s.Profile.Funcs), s.Elapsed.Round(time.Millisecond))
	return s
}

func spread(xs []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return (hi - lo) / lo
}

// A benchmark without allocations counts the same instructions per op in
// every process, and 5 % more loop iterations count 5 % more instructions.
func TestDeterministicAndPlantedChange(t *testing.T) {
	b := testBinary(t)
	t.Parallel()
	o := options()
	const n = 1000
	var perOp []float64
	for range 3 {
		s := measure(t, o, b, "BenchmarkWork1000", n)
		perOp = append(perOp, s.PerOp)
		// The loop's profile: Work ran N times, its own instructions
		// are most of the loop's.
		w := s.Profile.Funcs["example.com/cgmod.Work"]
		if w == nil || w.Calls != n || float64(w.Self[0]) < 0.95*float64(s.Loop) {
			t.Errorf("profile of Work: %+v, loop %d; want %d calls and most of the loop", w, s.Loop, n)
		}
		r := s.BenchfmtResult()
		if r.Name.String() != "Work1000" || r.Iters != n || r.GetConfig("pkg") != "example.com/cgmod" {
			t.Errorf("benchfmt result: name %q, N %d, pkg %q", r.Name, r.Iters, r.GetConfig("pkg"))
		}
	}
	// Work(1000) is a loop of 1000 iterations of a few instructions: the
	// count must be in that range.
	if perOp[0] < 3000 || perOp[0] > 12000 {
		t.Errorf("Work1000: %.1f instructions/op, want 3–12 per loop iteration", perOp[0])
	}
	// Measured: the same count, or within a few dozen instructions of
	// it; but the runtime's background scavenger, when the scheduler
	// runs it during the loop, adds up to ~10,000 (0.14 % of this loop).
	if s := spread(perOp); s > 0.002 {
		t.Errorf("Work1000 across 3 processes: %v, spread %.4f%%, want at most 0.2%%", perOp, 100*s)
	}
	plus := measure(t, o, b, "BenchmarkWork1050", n)
	change := plus.PerOp/perOp[0] - 1
	t.Logf("Work1050 vs Work1000: %+.3f%%", 100*change)
	if math.Abs(change-0.05) > 0.005 {
		t.Errorf("planted +5%% change measured as %+.3f%%, want +5%% ± 0.5%%", 100*change)
	}
}

// Setup before b.ResetTimer, testing's probe run and the GC before each
// loop are not counted: a benchmark with a setup worth 300 iterations
// counts what one without it counts, in a plain loop, a b.Loop loop and a
// sub-benchmark.
func TestSetupExcluded(t *testing.T) {
	b := testBinary(t)
	t.Parallel()
	o := options()
	const n = 1000
	plain := measure(t, o, b, "BenchmarkWork1000", n)
	for _, name := range []string{"BenchmarkSetup", "BenchmarkLoop", "BenchmarkSub/n=1000"} {
		s := measure(t, o, b, name, n)
		// Counting the setup would add 300,000/N iterations per op
		// (300 % here); b.Loop's and the sub-benchmark's loops differ
		// from a plain one by a few instructions per iteration at most.
		if d := math.Abs(s.PerOp/plain.PerOp - 1); d > 0.002 {
			t.Errorf("%s: %.1f instructions/op, BenchmarkWork1000 %.1f: %.3f%% apart, want at most 0.2%%", name, s.PerOp, plain.PerOp, 100*d)
		}
	}
}

// With Options.Difference, a setup inside the timed region (no ResetTimer)
// cancels out as well; without it, it is amortised over N.
func TestDifference(t *testing.T) {
	b := testBinary(t)
	t.Parallel()
	o := options()
	o.Difference = true
	const n = 200
	s := measure(t, o, b, "BenchmarkSetupNoReset", n)
	plain := measure(t, options(), b, "BenchmarkWork1000", n)
	single := float64(s.Loop) / n
	// The setup is worth 300,000/N = 1500 iterations per op.
	if single < 2*plain.PerOp {
		t.Errorf("the N run alone: %.1f instructions/op, want the setup amortised over N (> 2 × %.1f)", single, plain.PerOp)
	}
	// Differencing also removes StartTimer's own instructions (≈9,400, in
	// every loop's region), which the plain count spreads over N: 0.7 %
	// at this N.
	if d := math.Abs(s.PerOp/plain.PerOp - 1); d > 0.01 {
		t.Errorf("differenced: %.1f instructions/op, BenchmarkWork1000 %.1f: %.3f%% apart, want at most 1%%", s.PerOp, plain.PerOp, 100*d)
	}
}

// An allocating benchmark varies a little from process to process, within
// 1 % with the GC off: measured, the heap grows during the loop in some
// processes and not in others (about 90,000 instructions, 1 % of a loop of
// 1000 iterations, 0.3 % of this one).
func TestAllocating(t *testing.T) {
	b := testBinary(t)
	t.Parallel()
	var perOp []float64
	for range 3 {
		perOp = append(perOp, measure(t, options(), b, "BenchmarkAlloc", 3000).PerOp)
	}
	// Measured here: at most 1 % at N=3000 (1.4 % at N=1000: heap growth
	// in some processes); with the GC on it was 2.6 %. 2 % keeps the test
	// from flaking on a loaded machine and still fails with the GC on.
	if s := spread(perOp); s > 0.02 {
		t.Errorf("BenchmarkAlloc across 3 processes: %v, spread %.3f%%, want at most 2%%", perOp, 100*s)
	}
}

// A benchmark that makes system calls may change threads during the loop;
// its count must still be complete: measured with one thread's counters
// only, up to a third of this loop went missing in some runs.
func TestSystemCalls(t *testing.T) {
	b := testBinary(t)
	t.Parallel()
	var perOp []float64
	for range 3 {
		s := measure(t, options(), b, "BenchmarkReadFile", 200)
		perOp = append(perOp, s.PerOp)
		if !s.AllThreads {
			t.Errorf("a loop of system calls counted with threads separated")
		}
	}
	// Measured: a spread of 5 to 16 % (the runtime's work around each
	// system call, on all threads, depends on timing, and more so on a
	// loaded machine); a lost part of the loop made it up to 3 times
	// smaller.
	if s := spread(perOp); s > 0.4 {
		t.Errorf("BenchmarkReadFile across 3 processes: %v, spread %.1f%%: part of a loop was lost", perOp, 100*s)
	}
}

// A benchmark that prints to standard output splits its own result line
// (the hostile pull request's benchmarks do): it is still counted, the same
// as the loop it runs.
func TestChattyBenchmark(t *testing.T) {
	b := testBinary(t)
	t.Parallel()
	chatty := measure(t, options(), b, "BenchmarkChatty", 200)
	quiet := measure(t, options(), b, "BenchmarkWork1000", 200)
	if chatty.Result == nil || chatty.Result.Iters != 200 {
		t.Fatalf("result %+v", chatty.Result)
	}
	if math.Abs(chatty.PerOp/quiet.PerOp-1) > 0.01 {
		t.Errorf("Chatty %.1f instructions/op, Work1000 %.1f: want the same loop's count", chatty.PerOp, quiet.PerOp)
	}
}

// A benchmark that stops its timer in every iteration cannot be followed:
// that is an error saying so, never a count.
func TestStopStartTimer(t *testing.T) {
	b := testBinary(t)
	t.Parallel()
	b.Name = "BenchmarkStopStart"
	s, err := Measure(context.Background(), options(), b, 20)
	var e *Error
	if !errors.As(err, &e) || e.Reason != NoCount || !strings.Contains(e.Msg, "b.StopTimer and b.StartTimer in its loop") {
		t.Fatalf("got %+v, %v; want a NoCount *Error naming StopTimer in the loop", s, err)
	}
}

// As root, the benchmark runs as the given user (the sandbox of the
// change's code), who must be able to write callgrind's profiles.
func TestCredential(t *testing.T) {
	b := testBinary(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to run as another user")
	}
	t.Parallel()
	// The user can run the binary, and nothing else of ours.
	if err := os.Chmod(filepath.Dir(b.Binary), 0o755); err != nil {
		t.Fatal(err)
	}
	o := options()
	o.Credential = &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	o.WorkDir = t.TempDir()
	// The benchmark runs in a directory of its own, not in testdata/mod:
	// the checkout may be under a directory that user cannot enter (root's
	// home, 0700, in every container), as the action's worktrees never are.
	b.Dir = t.TempDir()
	for _, d := range []string{o.WorkDir, b.Dir, filepath.Dir(o.WorkDir), filepath.Dir(b.Dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{filepath.Dir(b.Binary), o.WorkDir, b.Dir} {
		if dir := unsearchable(d); dir != "" {
			t.Skipf("%s is not searchable by other users (TMPDIR=%s): uid 65534 cannot run the benchmark there", dir, os.Getenv("TMPDIR"))
		}
	}
	s := measure(t, o, b, "BenchmarkWork1000", 200)
	if s.PerOp < 3000 || s.PerOp > 12000 {
		t.Errorf("as uid 65534: %.1f instructions/op", s.PerOp)
	}
	if entries, _ := os.ReadDir(o.WorkDir); len(entries) != 0 {
		t.Errorf("the run's directory was left behind: %v", entries)
	}
}

// unsearchable returns the first directory from / down to dir that other
// users cannot search, or "".
func unsearchable(dir string) string {
	var chain []string
	for d := dir; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if fi, err := os.Stat(chain[i]); err != nil || fi.Mode().Perm()&0o001 == 0 {
			return chain[i]
		}
	}
	return ""
}

func TestBenchmarkPanics(t *testing.T) {
	b := testBinary(t)
	t.Parallel()
	o := options()
	o.Env = append(o.Env, "CGMOD_PANIC=1")
	b.Name = "BenchmarkPanic"
	_, err := Measure(context.Background(), o, b, 10)
	var e *Error
	if !errors.As(err, &e) || e.Reason != Failed || !strings.Contains(e.Msg, "cgmod: planted panic") || !strings.Contains(e.Msg, "valgrind") {
		t.Fatalf("err = %v, want a Failed *Error showing the panic and the command", err)
	}
}

// A .valgrindrc in the package directory (the change's) would choose
// valgrind's options for its own count: the run is refused.
func TestValgrindrcRefused(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".valgrindrc"), []byte("--tool=none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Measure(context.Background(), options(), Bench{Binary: "/bin/true", Dir: dir, Name: "BenchmarkX"}, 10)
	var e *Error
	if !errors.As(err, &e) || e.Reason != Aborted || !strings.Contains(e.Msg, ".valgrindrc") {
		t.Fatalf("err = %v, want an Aborted *Error naming .valgrindrc", err)
	}
}

// The sandbox user's home is writable by the change's code (and may come
// back from a cache): valgrind reads no options from its .valgrindrc, nor
// from VALGRIND_OPTS. An option valgrind does not know makes it refuse to
// start, so the run succeeds only if the file is not read.
func TestHomeValgrindrcIgnored(t *testing.T) {
	b := testBinary(t)
	t.Parallel()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".valgrindrc"), []byte("--no-such-option=planted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := options()
	o.Env = append(o.Env, "HOME="+home, "VALGRIND_OPTS=--no-such-option=planted")
	measure(t, o, b, "BenchmarkWork1000", 200)
}

// Without valgrind: the option that keeps valgrind from reading
// .valgrindrc files and VALGRIND_OPTS comes first.
func TestCommandLineOnly(t *testing.T) {
	argsFile := filepath.Join(t.TempDir(), "args")
	o := fakeValgrind(t, `printf '%s\n' "$@" >`+argsFile+"\nexit 1\n")
	Measure(context.Background(), o, Bench{Binary: "/bin/true", Dir: t.TempDir(), Name: "BenchmarkX"}, 10)
	b, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(b), "\n"); first != "--command-line-only=yes" {
		t.Errorf("valgrind's arguments start with %q, want --command-line-only=yes:\n%s", first, b)
	}
}

func TestValgrindMissing(t *testing.T) {
	o := Options{Env: []string{"PATH=" + t.TempDir() + ":/nonexistent"}}
	err := Available(o)
	_, err2 := Measure(context.Background(), o, Bench{Binary: "/bin/true", Name: "BenchmarkX"}, 10)
	for _, err := range []error{err, err2} {
		var e *Error
		if !errors.As(err, &e) || e.Reason != Missing || !errors.Is(err, exec.ErrNotFound) {
			t.Fatalf("err = %v, want a Missing *Error wrapping exec.ErrNotFound", err)
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "--measure instructions") || !strings.Contains(msg, "apt-get install valgrind") {
			t.Errorf("message %q: want one line naming --measure instructions and apt-get install valgrind", msg)
		}
	}
	o.Valgrind = "/nonexistent/valgrind"
	if err := Available(o); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("explicit missing path: err = %v, want ErrNotExist", err)
	}
}

// fakeValgrind writes an executable script standing in for valgrind.
func fakeValgrind(t *testing.T, body string) Options {
	t.Helper()
	p := filepath.Join(t.TempDir(), "valgrind")
	script := "#!/bin/sh\nfor a; do case $a in --log-file=*) log=${a#--log-file=};; esac; done\n" + body
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return Options{Valgrind: p, Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Minute}
}

// Valgrind failing on a program (not the benchmark failing) is Aborted, with
// valgrind's last words.
func TestValgrindAborts(t *testing.T) {
	o := fakeValgrind(t, `cat >"$log" <<'LOG'
==1== Callgrind, a call-graph generating cache profiler
==1== Command: ./x.test
==1==
Callgrind: threads.c:247 (vgCallgrind_post_signal): Assertion 'sigNum == vgCallgrind_current_state.sig' failed.

host stacktrace:
==1==    at 0x58042E4A: ??? (in /usr/libexec/valgrind/callgrind-amd64-linux)
==1==    at 0x58042F77: ??? (in /usr/libexec/valgrind/callgrind-amd64-linux)
==1==    at 0x58042F78: ??? (in /usr/libexec/valgrind/callgrind-amd64-linux)
==1==    at 0x58042F79: ??? (in /usr/libexec/valgrind/callgrind-amd64-linux)
==1==    at 0x58042F7A: ??? (in /usr/libexec/valgrind/callgrind-amd64-linux)
==1==    at 0x58042F7B: ??? (in /usr/libexec/valgrind/callgrind-amd64-linux)
==1==    at 0x58042F7C: ??? (in /usr/libexec/valgrind/callgrind-amd64-linux)
==1==    at 0x58042F7D: ??? (in /usr/libexec/valgrind/callgrind-amd64-linux)
Note: see also the FAQ in the source distribution.
It contains workarounds to several common problems.
In particular, if Valgrind aborted or crashed after
identifying problems in your program, there's a good chance
that fixing those problems will prevent Valgrind aborting or
crashing, especially if it happened in m_mallocfree.c.
LOG
exit 1
`)
	_, err := Measure(context.Background(), o, Bench{Binary: "/bin/true", Dir: t.TempDir(), Name: "BenchmarkX"}, 10)
	var e *Error
	if !errors.As(err, &e) || e.Reason != Aborted || !strings.Contains(e.Msg, "Assertion 'sigNum") || !strings.Contains(e.Msg, "exit status 1") {
		t.Fatalf("err = %v, want an Aborted *Error with valgrind's log", err)
	}
}

// A timeout kills the whole process group and says so.
func TestTimeout(t *testing.T) {
	o := fakeValgrind(t, "sleep 30 & sleep 30\n")
	o.Timeout = 300 * time.Millisecond
	start := time.Now()
	_, err := Measure(context.Background(), o, Bench{Binary: "/bin/true", Dir: t.TempDir(), Name: "BenchmarkX"}, 10)
	var e *Error
	if !errors.As(err, &e) || e.Reason != TimedOut || !strings.Contains(e.Msg, "timed out after 300ms") {
		t.Fatalf("err = %v, want a TimedOut *Error", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v: the process group was not killed", d)
	}
	// Cancellation by the caller is the caller's error, not a failure of
	// the benchmark.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	o.Timeout = 0
	if _, err := Measure(ctx, o, Bench{Binary: "/bin/true", Dir: t.TempDir(), Name: "BenchmarkX"}, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

func TestEnviron(t *testing.T) {
	o := Options{Env: []string{"PATH=/bin", "GODEBUG=madvdontneed=1", "GOGC=50", "VALGRIND_OPTS=--tool=memcheck", "GOMEMLIMIT=1"}, MemLimit: 1 << 30}
	got := strings.Join(o.environ(), " ")
	want := "PATH=/bin GODEBUG=madvdontneed=1,asyncpreemptoff=1,memprofilerate=0,cpu.rdtscp=off GOGC=off GOMEMLIMIT=1073741824"
	if got != want {
		t.Errorf("environ = %q, want %q", got, want)
	}
	if got := (Options{}).environ(); len(got) != 3 || got[0] != "GODEBUG=asyncpreemptoff=1,memprofilerate=0,cpu.rdtscp=off" {
		t.Errorf("empty environ = %q", got)
	}
	if l := DefaultMemLimit(); l < 256<<20 || l > 2<<30 {
		t.Errorf("DefaultMemLimit = %d", l)
	}
}

func TestChooseN(t *testing.T) {
	for _, tc := range []struct {
		ns   float64
		want int
	}{
		{0, DefaultN},
		{math.NaN(), DefaultN},
		{1000, 6000},            // 300ms / (50 × 1µs)
		{1e9, MinN},             // a second per op natively
		{0.001, MaxN},           // a picosecond
		{300 * 1000, 20},        // 300µs
		{-5, DefaultN},          // nonsense
		{math.Inf(1), DefaultN}, // nonsense
	} {
		if got := ChooseN(tc.ns, 0); got != tc.want {
			t.Errorf("ChooseN(%v) = %d, want %d", tc.ns, got, tc.want)
		}
	}
	if got := ChooseN(1000, time.Second); got != 20000 {
		t.Errorf("ChooseN(1µs, 1s) = %d, want 20000", got)
	}
}

func TestLeafPattern(t *testing.T) {
	if got, want := LeafPattern("BenchmarkX/a b/x|y"), `^BenchmarkX$/^a b$/^x\|y$`; got != want {
		t.Errorf("LeafPattern = %q, want %q", got, want)
	}
}

// dumps makes a run's dumps, one item per part in order: "T=count",
// "T@thread=count" or "T@thread=count:function" (the count is that
// function's), several threads of a part joined by "+" (the trigger given
// once); T is R, S, P for ResetTimer, StartTimer, StopTimer, E for program
// termination. The thread is 1 unless given.
func dumps(items ...string) []dump {
	names := map[string]string{"R": resetTimer, "S": startTimer, "P": stopTimer, "E": "Program termination"}
	var ds []dump
	for i, it := range items {
		trig := names[it[:1]]
		for _, th := range strings.Split(it[1:], "+") {
			thread := 1
			if rest, ok := strings.CutPrefix(th, "@"); ok {
				t, v, _ := strings.Cut(rest, "=")
				thread, _ = strconv.Atoi(t)
				th = "=" + v
			}
			v, fn, _ := strings.Cut(strings.TrimPrefix(th, "="), ":")
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				panic(it)
			}
			p := &Profile{Events: []string{"Ir"}, Part: i + 1, Thread: thread, Totals: []int64{n}, Funcs: map[string]*Func{}}
			if fn != "" {
				p.Funcs[fn] = &Func{Name: fn, Self: []int64{n}, Inclusive: []int64{n}}
			}
			ds = append(ds, dump{Part: i + 1, Thread: thread, Trigger: trig, Prof: p})
		}
	}
	return ds
}

func TestIsolate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dumps  []dump
		n      int
		want   int64
		moved  bool
		errSub string
	}{
		{
			// Measured: testing's outer benchmark and the probe run (one
			// iteration) on thread 1, the run of N = 200 on thread 3,
			// whose StartTimer callgrind saw twice (re-entered after
			// ReadMemStats' stack switch), testing's tails; at the end,
			// thread 2 (the runtime's sysmon) and the others.
			name: "b.N loop",
			dumps: dumps("R=1562181", "S=3501", "R=878037", "S=3501", "P=17010",
				"R@3=884489", "S@3=49", "S@3=9466", "P@3=1403516:Work", "P@3=2396", "P@3=99", "P@3=21275",
				"E@1=40000:fmt.Fprintf+@2=300000:runtime.sysmon+@3=13807"),
			n: 200, want: 9466 + 1403516,
		},
		{
			name:  "b.N loop, StartTimer seen once",
			dumps: dumps("R=1562181", "S=3501", "R=878037", "S=3501", "P=17010", "R@3=884489", "S@3=49", "P@3=1412982", "P@3=99", "E@1=40000+@3=1"),
			n:     200, want: 1412982,
		},
		{
			// b.Loop: the loop runs in the probe, after a setup that
			// b.Loop's own ResetTimer discards.
			name:  "b.Loop",
			dumps: dumps("R=1555171", "S=3501", "R=873851", "S=3501", "R=21011895", "P=1412667", "P=9228", "P=31745", "E=30000"),
			n:     200, want: 1412667,
		},
		{
			name:  "N=2, a heavy iteration: the probe is half the loop",
			dumps: dumps("R=1", "S=1", "R=1", "S=1", "P=30000000", "R=900000", "S=49", "P=60000019", "P=20000", "E=30000"),
			n:     2, want: 60000019,
		},
		{
			// A setup inside the timed region is in both regions.
			name:  "b.N loop, setup not excluded",
			dumps: dumps("R=1", "S=1", "R=1", "S=1", "P=21000000", "R=900000", "S=49", "P=22400000", "P=99", "E=40000"),
			n:     200, want: 22400000,
		},
		{
			// Measured (reading a file in the loop): the loop began on
			// thread 1 and ended on thread 3; thread 1's share came out
			// only at the end of the program.
			name:  "the loop moved to another thread",
			dumps: dumps("R=1558114", "S=3501", "R=892789", "S=3463", "R=10014", "P@3=563078:syscall.Syscall6", "P@3=10886", "E@1=1100000:syscall.Syscall6+@3=22611"),
			n:     232, want: -1, moved: true,
		},
		{
			// The runtime's sysmon thread reads the clock, as the loop
			// does, a little.
			name: "other threads run the loop's small functions",
			dumps: dumps("R=1", "S=1", "R=1", "S=1", "P=17010", "R@3=884489", "S@3=49", "P@3=1403516:Work+@3=2000:runtime.nanotime1",
				"P@3=99", "E@1=40000+@2=300000:runtime.nanotime1+@3=1"),
			n: 200, want: 1403516 + 2000,
		},
		{
			name:  "the loop made system calls",
			dumps: dumps("R=1", "S=1", "R=1", "S=1", "R=10014", "P=600000:os.ReadFile+@1=3000:runtime.entersyscall", "P=10886", "E@1=20000+@4=900:runtime.sysmon"),
			n:     232, want: -1, moved: true,
		},
		{
			name:  "the loop moved away and back",
			dumps: dumps("R=1", "S=1", "R=1", "S=1", "R=10014", "P=600000:Work", "P=10886", "E@1=20000+@4=900000:Work"),
			n:     232, want: -1, moved: true,
		},
		{
			name:  "StartTimer of the loop not seen",
			dumps: dumps("R=1562181", "S=3501", "R=878037", "S=3501", "P=17010", "R=884489", "P=1403516", "P=99", "E=40000"),
			n:     200, errSub: "did not see testing.(*B).StartTimer",
		},
		{
			name:  "StopTimer of the loop not seen",
			dumps: dumps("R=1562181", "S=3501", "R=878037", "S=3501", "P=17010", "R=884489", "S=49", "E=1403516"),
			n:     200, errSub: "still running at the end",
		},
		{
			// Measured on BenchmarkStopStart: callgrind followed the
			// probe's timer calls, not the loop's.
			name:  "timer stopped in the loop",
			dumps: dumps("R=1616601", "S=3501", "R=909612", "S=3477", "P=9991", "S=149291", "P=16224", "R@5=900150", "S@5=49", "S@5=9400", "P@5=114", "P@5=99", "E@5=9000000"),
			n:     10, errSub: "cannot tell",
		},
		{
			name:  "a loop too small to tell",
			dumps: dumps("R=1", "S=1", "P=17010", "R=1", "S=1", "P=9000", "E=1"),
			n:     1000, errSub: "cannot tell",
		},
		{name: "no dumps", n: 10, errSub: "no profile"},
		{name: "no timer", dumps: dumps("E=5"), n: 10, errSub: "no timed region"},
	} {
		loop, moved, err := isolate(tc.dumps, tc.n)
		if tc.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errSub) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.errSub)
			}
			continue
		}
		if err != nil || (tc.want >= 0 && loop.Total() != tc.want) || moved != tc.moved {
			t.Errorf("%s: loop %v, moved %v, err %v; want %d, %v", tc.name, loop, moved, err, tc.want, tc.moved)
		}
	}
}

func TestBenchfmtResult(t *testing.T) {
	s := &Sample{N: 200, PerOp: 7017.5}
	s.Result = findResult([]byte("goos: linux\npkg: example.com/x\ncpu: Intel(R) Core(TM) i7-4910MQ CPU @ 2.90GHz\nBenchmarkX/a=1 \t 200\t 12345 ns/op\nPASS\n"), "BenchmarkX/a=1")
	if s.Result == nil {
		t.Fatal("result line not found")
	}
	var buf bytes.Buffer
	w := benchfmt.NewWriter(&buf)
	if err := w.Write(s.BenchfmtResult()); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "goos: linux\npkg: example.com/x\n\nBenchmarkX/a=1 200 7017.5 instructions/op\n"; got != want {
		t.Errorf("written:\n%s\nwant:\n%s", got, want)
	}
}

func TestExcerpt(t *testing.T) {
	out := "goos: linux\npkg: x\ncpu: y\npanic: boom\n\ngoroutine 7 [running]:\n" + strings.Repeat("x.f()\n\t/x.go:1\n", 30) + "exit status 2\n"
	if got := excerpt([]byte(out), programFailure, 3); got != "panic: boom\ngoroutine 7 [running]:\nx.f()" {
		t.Errorf("excerpt from the panic = %q", got)
	}
	if got := excerpt([]byte("a\nb\nc\n"), programFailure, 2); got != "b\nc" {
		t.Errorf("excerpt without a failure = %q, want the last lines", got)
	}
}

// Rescale raises N only for a loop of fewer than MinLoop instructions, to
// a tenth more than MinLoop, within MaxN.
func TestRescale(t *testing.T) {
	for _, tc := range []struct {
		n    int
		loop int64
		want int
		ok   bool
	}{
		{300, 36_000_000, 300, false},
		{300, MinLoop, 300, false},
		{45, 5_400_000, 275, true}, // 120,000 per op
		{2, 10, 6_600_000, true},   // 5 per op
		{2, 2, MaxN, true},
		{MaxN, 100, MaxN, false},
		{10, 0, 10, false},
	} {
		if got, ok := Rescale(tc.n, tc.loop); got != tc.want || ok != tc.ok {
			t.Errorf("Rescale(%d, %d) = %d, %v; want %d, %v", tc.n, tc.loop, got, ok, tc.want, tc.ok)
		}
	}
}

// The lane runs on every x86 host: on one whose CPU lacks RDTSCP (AMD EPYC
// runners, many VMs), Valgrind offers it all the same, and without
// cpu.rdtscp=off nearly every run aborted in runtime.cputicks. Twenty runs
// of a tiny benchmark must give twenty counts; a failure shows Valgrind's
// own message.
func TestTwentyOfTwenty(t *testing.T) {
	b := testBinary(t)
	t.Parallel()
	o := options()
	b.Name = "BenchmarkWork1000"
	errs := make([]error, 20)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i := range errs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			_, errs[i] = Measure(context.Background(), o, b, 100)
		})
	}
	wg.Wait()
	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		t.Fatalf("%d of 20 runs gave no count; the first: %v", len(failed), failed[0])
	}
}
