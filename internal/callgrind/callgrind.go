// Package callgrind counts the instructions one iteration of a Go benchmark
// executes, by running its test binary under Valgrind's callgrind tool: a
// deterministic measure of the CPU work in the benchmark loop, where wall
// time on a shared machine moves by several percent from run to run. It
// also parses callgrind's profiles, so the per-function counts of the loop
// are at hand.
//
// One measurement runs the binary once, with -test.benchtime=Nx and
// -test.cpu=1, asynchronous preemption off (callgrind aborts on the
// runtime's preemption signals otherwise), memory profiling off (its
// random samples are costly) and the garbage collector off (with a
// GOMEMLIMIT safety net). Callgrind dumps a thread's counters whenever it
// enters testing.(*B).ResetTimer, StartTimer or StopTimer; replaying the
// timer over those dumps gives the instructions of each timed region of
// the run. The loop's region is the largest: the benchmark's setup before
// b.ResetTimer, the runtime.GC that testing runs before each loop and
// testing's N=1 probe run fall outside it. Instructions per op are that
// region's count divided by N (see Options.Difference for the other way of
// removing setup costs).
//
// Threads are counted separately, so that the runtime's own threads
// (sysmon, idle threads looking for work) add nothing to the loop's count.
// A loop that makes system calls may continue on another thread, whose
// counters callgrind does not dump at the loop's end: such a run is
// repeated with threads merged (Sample.AllThreads), complete but less
// exact.
//
// Callgrind recognizes a function's entry by its own shadow call stack,
// which Go's goroutine and stack switches can leave behind: an entry may
// then go unseen. The replay checks for that (a loop whose end or start was
// not seen) and reports an error rather than a wrong count. A benchmark that
// stops and restarts its timer in every iteration cannot be followed that
// way and is reported so.
package callgrind

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/benchout"
	"github.com/benchgate/benchgate/internal/safefile"
	"github.com/benchgate/benchgate/internal/sandbox"
	"golang.org/x/perf/benchfmt"
)

// Unit is the benchfmt unit of the measurements.
const Unit = "instructions/op"

const (
	// MinN is the smallest iteration count: with N = 1 testing runs the
	// benchmark only once, in the probe run, and the loop is not a region
	// of its own.
	MinN = 2
	// MaxN bounds the iteration count of very fast benchmarks.
	MaxN = 10_000_000
	// DefaultN is used when the benchmark's time per op is unknown.
	DefaultN = 100
	// DefaultTarget is the time under Valgrind that ChooseN aims one loop
	// at.
	DefaultTarget = 300 * time.Millisecond
	// Slowdown is how much slower than natively a Go benchmark runs under
	// callgrind (measured here: 35–60×).
	Slowdown = 50
)

// ChooseN returns the iteration count that makes the benchmark's loop take
// about target (DefaultTarget if 0) under Valgrind, given its native time
// per op in nanoseconds (0 or less if unknown: DefaultN), within [MinN,
// MaxN].
func ChooseN(nsPerOp float64, target time.Duration) int {
	if target <= 0 {
		target = DefaultTarget
	}
	if !(nsPerOp > 0) || math.IsInf(nsPerOp, 0) {
		return DefaultN
	}
	n := float64(target.Nanoseconds()) / (Slowdown * nsPerOp)
	return int(min(max(n, MinN), MaxN))
}

// MinLoop is the fewest instructions a measured loop should count. Each
// run's timed region also holds a few thousand instructions that vary
// from run to run (the runtime's page allocator, testing's bookkeeping at
// StopTimer; measured here: about 10,000 either way), which a loop of
// MinLoop instructions makes a few hundredths of a percent. ChooseN's N,
// taken from the native time per op, falls short of it when that time
// was measured on a loaded machine (several times too slow; measured here
// under a CPU hog: N = 10–50 for a loop of 120,000 instructions per op,
// and a spread of 0.2–0.5 % between runs): see Rescale.
const MinLoop = 30_000_000

// Rescale returns the iteration count that makes a loop that counted
// loop instructions at N = n count at least MinLoop (with a tenth more,
// within MaxN), and whether that is more than n.
func Rescale(n int, loop int64) (int, bool) {
	if n <= 0 || loop >= MinLoop || n >= MaxN {
		return n, false
	}
	perOp := float64(loop) / float64(n)
	if !(perOp > 0) {
		return n, false
	}
	m := int(math.Min(math.Ceil(1.1*MinLoop/perOp), MaxN))
	return m, m > n
}

// Options say how, and as whom, Valgrind runs. Nothing of this process's
// own environment is used.
type Options struct {
	// Valgrind is the valgrind executable: a path, or a name looked up
	// in the PATH of Env. Default "valgrind".
	Valgrind string
	// Env is the complete environment of the test binary (nothing is
	// inherited); GODEBUG (asyncpreemptoff=1,memprofilerate=0,cpu.rdtscp=off added),
	// GOGC=off and GOMEMLIMIT are set on top of it, VALGRIND_OPTS is
	// removed. Valgrind reads no options from it, nor from the
	// .valgrindrc of its HOME (see run).
	Env []string
	// Credential, if set, is the user valgrind and the binary run as.
	Credential *syscall.Credential
	// Timeout bounds each valgrind process (0: none).
	Timeout time.Duration
	// WorkDir is where a private directory for callgrind's profiles is
	// made for each run (given to Credential's user); "" for the system's
	// temporary directory. Credential's user must be able to reach it.
	WorkDir string
	// MemLimit is GOMEMLIMIT in bytes; 0 for DefaultMemLimit().
	MemLimit int64
	// Difference, if set, measures each sample with two runs, at N and
	// 2N, and takes (C(2N) − C(N)) / N: setup costs inside the timed
	// region cancel too, but the two processes' own variations add up
	// (measured, docs/dev/evidence/instructions-spread.txt: 0.9–1.8 times the
	// spread on allocating benchmarks, 2.4 times with system calls).
	Difference bool
}

// DefaultMemLimit is GOMEMLIMIT's default: a quarter of the machine's
// memory, at most 2 GiB, at least 256 MiB. With GOGC=off only this limit
// makes the garbage collector run, so a benchmark that allocates without
// bound is slowed down instead of exhausting memory.
func DefaultMemLimit() int64 {
	const lo, hi = 256 << 20, 2 << 30
	total := physicalMemory()
	if total <= 0 {
		return hi
	}
	return min(max(total/4, lo), hi)
}

// Bench is one benchmark of a built test binary.
type Bench struct {
	Binary string // the test binary
	Dir    string // its package directory, the working directory
	// Name is the benchmark's full name as printed, without the
	// GOMAXPROCS suffix: "BenchmarkX" or "BenchmarkX/sub=1".
	Name string
}

// A Sample is one measurement of one benchmark.
type Sample struct {
	N     int
	PerOp float64 // instructions per iteration
	// Loop is the instruction count of the N-iteration loop; with
	// Options.Difference, Loop2 is that of the 2N-iteration run.
	Loop, Loop2 int64
	// AllThreads is set when the benchmark's goroutine may have moved
	// between threads during the loop (it made system calls, or its
	// thread went idle): the count then comes from a second run with
	// callgrind's threads merged, and includes the runtime's background
	// work on other threads during the loop (measured on a benchmark
	// reading a file: a spread of several percent).
	AllThreads bool
	// Profile holds the per-function counts of the loop (of the N run),
	// all threads merged.
	Profile *Profile
	// Result is the benchmark's result line as the binary printed it
	// under Valgrind (name, configuration: goos, goarch, pkg, cpu).
	Result *benchfmt.Result
	// Elapsed is the wall time of the valgrind processes, Processes their
	// number (2 with Options.Difference, one more for each run repeated
	// with threads merged).
	Elapsed   time.Duration
	Processes int
}

// BenchfmtResult returns the sample as a benchfmt result: the binary's
// name and configuration, N iterations, one value in Unit. The "cpu"
// configuration is left out: under Valgrind, the binary sees Valgrind's
// simulated processor, not the machine's.
func (s *Sample) BenchfmtResult() *benchfmt.Result {
	var r *benchfmt.Result
	if s.Result != nil {
		r = s.Result.Clone()
		r.SetConfig("cpu", "")
	} else {
		r = &benchfmt.Result{}
	}
	r.Iters = s.N
	r.Values = []benchfmt.Value{{Value: s.PerOp, Unit: Unit}}
	return r
}

// Reason classifies why a measurement failed.
type Reason int

const (
	Missing  Reason = iota + 1 // valgrind is not installed (or not in Env's PATH)
	Aborted                    // valgrind stopped: it failed on the program, or refused to run
	Failed                     // the benchmark failed: a panic, b.Fatal, another non-zero exit
	TimedOut                   // the process exceeded Options.Timeout
	NoCount                    // valgrind ran, but the loop's count was not found
)

func (r Reason) String() string {
	switch r {
	case Missing:
		return "valgrind missing"
	case Aborted:
		return "valgrind aborted"
	case Failed:
		return "benchmark failed"
	case TimedOut:
		return "timed out"
	case NoCount:
		return "no instruction count"
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// An Error is a measurement that failed, with the reason and the evidence:
// Msg's first line says what went wrong, the next the command, then the
// last lines of the program's and valgrind's output.
type Error struct {
	Reason Reason
	Msg    string
	Err    error // the underlying error, if any (exec.ErrNotFound for Missing)
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Available reports, as an *Error with Reason Missing, whether valgrind can
// be found.
func Available(o Options) error {
	_, err := o.valgrind()
	return err
}

// valgrind resolves Options.Valgrind in Env's PATH.
func (o Options) valgrind() (string, error) {
	name := o.Valgrind
	if name == "" {
		name = "valgrind"
	}
	missing := func(what string, err error) error {
		return &Error{Reason: Missing, Err: err, Msg: fmt.Sprintf("%s: %s", what, installHint)}
	}
	if strings.Contains(name, "/") {
		if err := executable(name); err != nil {
			return "", missing(fmt.Sprintf("valgrind not found (%v)", err), err)
		}
		return name, nil
	}
	path := ""
	for _, kv := range o.Env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // never the working directory: it is the change's
		}
		if p := filepath.Join(dir, name); executable(p) == nil {
			return p, nil
		}
	}
	return "", missing(fmt.Sprintf("%s not found in PATH (%s)", name, path), exec.ErrNotFound)
}

// installHint ends the message of a missing valgrind.
const installHint = "--measure instructions runs the benchmarks under Valgrind; install it (Debian/Ubuntu: apt-get install valgrind)"

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s: %w", p, fs.ErrPermission)
	}
	return nil
}

// lane is the lane's GODEBUG: asynchronous preemption off (callgrind aborts
// on its signals), no memory profiling (the runtime samples an allocation
// at random every 512 KiB on average, and a sample costs thousands of
// instructions: measured, it made an allocating benchmark's count vary by
// 1.6 %), and no RDTSCP: Valgrind's synthetic CPUID offers it on hosts whose
// CPU lacks it (AMD EPYC runners, many VMs), where runtime.cputicks then
// executes an instruction the host cannot run, and Valgrind aborts with
// "unhandled instruction bytes: 0xF 0x1 0xF9" (measured with Valgrind 3.19:
// 9 of 10 runs of a Go 1.26 program aborted without these settings, 0 of 20
// with them). The runtime falls back to RDTSC, which Valgrind emulates.
const lane = "asyncpreemptoff=1,memprofilerate=0,cpu.rdtscp=off"

// environ is the binary's environment.
func (o Options) environ() []string {
	godebug := lane
	var env []string
	for _, kv := range o.Env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "GODEBUG":
			if v != "" {
				// The last setting of a key wins.
				godebug = v + "," + lane
			}
			continue
		case "GOGC", "GOMEMLIMIT", "VALGRIND_OPTS":
			continue
		}
		env = append(env, kv)
	}
	limit := o.MemLimit
	if limit <= 0 {
		limit = DefaultMemLimit()
	}
	return append(env, "GODEBUG="+godebug, "GOGC=off", "GOMEMLIMIT="+strconv.FormatInt(limit, 10))
}

// LeafPattern returns the -test.bench expression that selects exactly the
// benchmark with the given full name ("BenchmarkX/sub/leaf").
func LeafPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// Measure runs benchmark b under callgrind with N = n (at least MinN) and
// returns its instructions per op. A failure that concerns this benchmark
// is an *Error; when ctx is done, ctx's error is returned.
func Measure(ctx context.Context, o Options, b Bench, n int) (*Sample, error) {
	if n < MinN {
		return nil, fmt.Errorf("callgrind: N = %d, want at least %d", n, MinN)
	}
	valgrind, err := o.valgrind()
	if err != nil {
		return nil, err
	}
	// valgrind would read ./.valgrindrc from the directory it runs in
	// (the package's, which the change controls) when the file belongs to
	// the user running it: options the change would choose for its own
	// count. --command-line-only=yes (see run) makes it ignore the file;
	// a package that holds one is refused all the same, as documented.
	if _, err := os.Lstat(filepath.Join(b.Dir, ".valgrindrc")); err == nil {
		return nil, &Error{Reason: Aborted, Msg: fmt.Sprintf("%s holds a .valgrindrc, whose options valgrind would apply to this run: not measured", b.Dir)}
	}
	s, err := o.once(ctx, valgrind, b, n)
	if err != nil || !o.Difference {
		return s, err
	}
	s2, err := o.once(ctx, valgrind, b, 2*n)
	if err != nil {
		return nil, err
	}
	s.Loop2, s.Elapsed, s.Processes = s2.Loop, s.Elapsed+s2.Elapsed, s.Processes+s2.Processes
	s.AllThreads = s.AllThreads || s2.AllThreads
	s.PerOp = float64(s2.Loop-s.Loop) / float64(n)
	return s, nil
}

const (
	resetTimer = "testing.(*B).ResetTimer"
	startTimer = "testing.(*B).StartTimer"
	stopTimer  = "testing.(*B).StopTimer"
	outName    = "callgrind.out"
	logName    = "valgrind.log"
)

// attempts is how many times a run whose loop callgrind did not follow
// (NoCount) is made before giving up: with system calls in the loop,
// measured, about one run in ten missed the StopTimer that ends it.
const attempts = 3

// once measures at N = n: one valgrind process with threads separated,
// and a second with threads merged if the loop moved between threads; a
// run whose loop was not found is made again, up to attempts times.
func (o Options) once(ctx context.Context, valgrind string, b Bench, n int) (*Sample, error) {
	var (
		elapsed   time.Duration
		processes int
	)
	separate := true
	for i := 1; ; i++ {
		s, moved, err := o.run(ctx, valgrind, b, n, separate)
		processes++
		if s != nil {
			elapsed += s.Elapsed
		}
		var e *Error
		if errors.As(err, &e) && e.Reason == NoCount && e.Err != nil && i < attempts {
			continue
		}
		if err != nil {
			if e != nil && e.Reason == NoCount && i > 1 {
				first, rest, _ := strings.Cut(e.Msg, "\n")
				e.Msg = strings.TrimSuffix(fmt.Sprintf("%s (%d runs)\n%s", first, i, rest), "\n")
			}
			return nil, err
		}
		if moved && separate {
			separate = false
			continue
		}
		s.AllThreads = !separate
		s.Elapsed, s.Processes = elapsed, processes
		return s, nil
	}
}

// run is one valgrind process at N = n.
func (o Options) run(ctx context.Context, valgrind string, b Bench, n int, separate bool) (*Sample, bool, error) {
	dir, err := o.runDir()
	if err != nil {
		return nil, false, err
	}
	defer os.RemoveAll(dir)
	args := []string{
		// Valgrind's options are these alone: not those of
		// $HOME/.valgrindrc (the home is the sandbox user's, which the
		// change's code writes and a cache may bring to later runs),
		// ./.valgrindrc or VALGRIND_OPTS. A valgrind that does not
		// know the option refuses to start.
		"--command-line-only=yes",
		"--tool=callgrind",
		"--callgrind-out-file=" + filepath.Join(dir, outName),
		"--log-file=" + filepath.Join(dir, logName),
		"--separate-threads=" + map[bool]string{true: "yes", false: "no"}[separate],
		"--dump-before=" + resetTimer,
		"--dump-before=" + startTimer,
		"--dump-before=" + stopTimer,
		b.Binary,
		"-test.run=^$",
		"-test.bench=" + LeafPattern(b.Name),
		"-test.benchtime=" + strconv.Itoa(n) + "x",
		"-test.cpu=1",
		"-test.count=1",
	}
	env := o.environ()
	line := commandLine(env[len(env)-3:], valgrind, args)
	runCtx := ctx
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	cmd := sandbox.Command(runCtx, o.Credential, valgrind, args...)
	cmd.Dir = b.Dir
	cmd.Env = env
	var stdout, stderr sandbox.Capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	if stdout.Over() || stderr.Over() {
		return nil, false, &Error{Reason: Failed, Msg: fmt.Sprintf("the benchmark printed more than %d bytes (%d MiB) under valgrind: stopped\n%s", sandbox.MaxOutput, sandbox.MaxOutput>>20, line)}
	}
	vlog := readTail(filepath.Join(dir, logName), 1<<20)
	evidence := func() string {
		var parts []string
		if s := excerpt(append(stdout.Bytes(), stderr.Bytes()...), programFailure, 12); s != "" {
			parts = append(parts, s)
		}
		if s := excerpt(vlog, valgrindFailure, 8); s != "" {
			parts = append(parts, s)
		}
		return strings.Join(parts, "\n")
	}
	fail := func(reason Reason, err error, format string, args ...any) (*Sample, bool, error) {
		return nil, false, &Error{Reason: reason, Err: err, Msg: fmt.Sprintf(format, args...)}
	}
	if err != nil {
		switch {
		case runCtx.Err() == context.DeadlineExceeded:
			return fail(TimedOut, context.DeadlineExceeded, "timed out after %s under valgrind\n%s\n%s", o.Timeout, line, evidence())
		case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
			return fail(Missing, err, "%v: %s", err, installHint)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return fail(Aborted, err, "%v\n%s", err, line)
		}
		if benchFailed(stdout.Bytes(), stderr.Bytes()) {
			return fail(Failed, err, "benchmark failed under valgrind (%v)\n%s\n%s", err, line, evidence())
		}
		return fail(Aborted, err, "valgrind aborted (%v)\n%s\n%s", err, line, evidence())
	}
	res := findResult(stdout.Bytes(), b.Name)
	if res == nil {
		return fail(NoCount, nil, "no result for %s in the output under valgrind\n%s\n%s", b.Name, line, evidence())
	}
	dumps, err := readDumps(dir, runLimits)
	if err != nil {
		return fail(NoCount, err, "reading callgrind's profiles: %v\n%s", err, line)
	}
	loop, moved, err := isolate(dumps, n)
	if err != nil {
		return fail(NoCount, err, "%v\n%s", err, line)
	}
	return &Sample{
		N:         n,
		PerOp:     float64(loop.Total()) / float64(n),
		Loop:      loop.Total(),
		Profile:   loop,
		Result:    res,
		Elapsed:   elapsed,
		Processes: 1,
	}, moved, nil
}

// runDir makes the private directory of one run's files.
func (o Options) runDir() (string, error) {
	dir, err := os.MkdirTemp(o.WorkDir, "callgrind-")
	if err != nil {
		return "", err
	}
	if cr := o.Credential; cr != nil {
		// Valgrind runs as that user and writes here.
		if err := os.Chown(dir, int(cr.Uid), int(cr.Gid)); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

// benchFailed tells a failing benchmark from valgrind failing: the testing
// package's own failure lines, or a Go panic or fatal error.
func benchFailed(stdout, stderr []byte) bool {
	for _, b := range [][]byte{stdout, stderr} {
		for _, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "--- FAIL") || strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") || l == "FAIL" {
				return true
			}
		}
	}
	return false
}

// findResult returns the result line of benchmark name (run with
// -test.cpu=1: no suffix) in the binary's output, also when the
// benchmark's own output split it.
func findResult(stdout []byte, name string) *benchfmt.Result {
	rd := benchfmt.NewReader(bytes.NewReader(benchout.Rejoin(stdout)), "")
	for rd.Scan() {
		if r, ok := rd.Result().(*benchfmt.Result); ok && "Benchmark"+r.Name.String() == name {
			return r.Clone()
		}
	}
	return nil
}

// dumpLimits bound what is read of one run's profiles: valgrind writes
// them as the user that runs the change's code, which can write there too.
type dumpLimits struct {
	files int   // profile files
	bytes int64 // all of them together
}

// runLimits are the bounds of a run's profiles. A run writes a profile per
// thread at each of testing's timer calls: a few dozen files of a few MiB.
var runLimits = dumpLimits{files: 50_000, bytes: 512 << 20}

// A dump is one profile file: the instructions one thread executed since
// its previous dump (thread 0: all threads, without --separate-threads),
// up to part Part's trigger.
type dump struct {
	Part, Thread int
	Trigger      string
	Prof         *Profile
}

// readDumps reads the profiles of a run, refusing more than lim allows.
func readDumps(dir string, lim dumpLimits) ([]dump, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var dumps []dump
	left := lim.bytes
	for _, e := range entries {
		// callgrind.out.<part>[-<thread>], callgrind.out[-<thread>] (the
		// termination dump; without threads it is callgrind.out itself).
		if !strings.HasPrefix(e.Name(), outName) || !e.Type().IsRegular() {
			continue
		}
		if len(dumps) == lim.files {
			return nil, fmt.Errorf("more than %d profiles: not read", lim.files)
		}
		f, err := safefile.OpenRegular(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err == nil && fi.Size() == 0 {
			f.Close()
			continue // callgrind.out, made empty at the start with threads separated
		}
		r := &io.LimitedReader{R: f, N: left + 1}
		p, err := Parse(r)
		f.Close()
		if r.N == 0 {
			return nil, fmt.Errorf("profiles larger than %d bytes (%d MiB) together: %s and the rest not read", lim.bytes, lim.bytes>>20, e.Name())
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		left = r.N - 1
		dumps = append(dumps, dump{Part: p.Part, Thread: p.Thread, Trigger: strings.TrimPrefix(p.Trigger, "--dump-before="), Prof: p})
	}
	return dumps, nil
}

// isolate finds the loop in a run's dumps. Callgrind dumps when a thread
// enters ResetTimer, StartTimer or StopTimer; with --separate-threads=yes
// (Valgrind 3.19) only that thread's counters, which hold what it executed
// since its own previous dump. Replaying testing's timer over the triggers
// in order (StartTimer starts it, StopTimer ends a timed region, ResetTimer
// discards what the running timer counted) gives the timed regions as
// spans of triggers; a region's count is the sum of the thread intervals
// that lie within its span.
//
// A run at N ≥ 2 has the loop's region and, for a b.N loop, testing's probe
// region of one iteration (a b.Loop loop runs whole in the probe). So the
// loop is the largest region and the last; if there are more regions than
// those two, the others must add up to at most one iteration (L/n) and a
// little: more is a benchmark that stops its timer inside the loop, which
// callgrind follows only partly.
//
// A missed StartTimer leaves the loop in a thread interval outside any
// region, after the largest one, which is then far larger than that
// region; a missed StopTimer leaves the timer running at the end of the
// program (or closes the region at a later StopTimer, a few thousand
// instructions later). Both are errors here, except that late close.
//
// moved reports that the benchmark's goroutine may have changed threads
// during the loop: it began and ended the loop on different threads, or
// the loop made system calls or let its thread go idle (after which the
// runtime may resume it on another thread), or the loop's costliest
// functions also ran in a thread interval that reaches beyond the region.
// Then a part of the loop may be missing from the count, and the run must
// be repeated with threads merged.
func isolate(dumps []dump, n int) (loop *Profile, moved bool, err error) {
	if len(dumps) == 0 {
		return nil, false, fmt.Errorf("callgrind wrote no profile")
	}
	// The triggers, in order, and the threads that hit them; the
	// termination dump comes last.
	trigger, thread := map[int]string{}, map[int]int{}
	for _, d := range dumps {
		trigger[d.Part], thread[d.Part] = d.Trigger, d.Thread
	}
	parts := slices.Sorted(maps.Keys(trigger))
	type span struct{ start, end int } // (start, end] in parts
	var regions []span
	on, start := false, 0
	for i, p := range parts {
		switch trigger[p] {
		case resetTimer:
			start = p
		case startTimer:
			if !on {
				on, start = true, p
			}
		case stopTimer:
			if on {
				regions = append(regions, span{start, p})
				on = false
			}
		default:
			if i != len(parts)-1 {
				return nil, false, fmt.Errorf("callgrind dumped for %q", trigger[p])
			}
			if on {
				return nil, false, fmt.Errorf("the benchmark's timer was still running at the end of the program: callgrind did not see testing.(*B).StopTimer end the loop%s", stopStartHint)
			}
		}
	}
	if len(regions) == 0 {
		return nil, false, fmt.Errorf("no timed region: callgrind saw no testing.(*B).StartTimer followed by StopTimer (is this a Go test binary?)")
	}
	// Each thread's intervals: (previous dump, this dump].
	type interval struct {
		from, to int
		prof     *Profile
	}
	byThread := map[int][]dump{}
	for _, d := range dumps {
		byThread[d.Thread] = append(byThread[d.Thread], d)
	}
	var intervals []interval
	for _, ds := range byThread {
		slices.SortFunc(ds, func(a, b dump) int { return a.Part - b.Part })
		prev := 0
		for _, d := range ds {
			intervals = append(intervals, interval{prev, d.Part, d.Prof})
			prev = d.Part
		}
	}
	count := func(r span) (in, across *Profile, err error) {
		in, across = &Profile{}, &Profile{}
		for _, iv := range intervals {
			switch {
			case iv.from >= r.start && iv.to <= r.end:
				err = in.Merge(iv.prof)
			case iv.from < r.end && iv.to > r.start:
				err = across.Merge(iv.prof)
			}
			if err != nil {
				return nil, nil, err
			}
		}
		return in, across, nil
	}
	// The loop is the last region: if the goroutine moved, the count of
	// every region is in doubt.
	movedIn := func(r span, in, across *Profile) bool {
		return thread[r.start] != thread[r.end] || ranElsewhere(in, across) || mayChangeThreads(in)
	}
	last := regions[len(regions)-1]
	lastIn, lastAcross, err := count(last)
	if err != nil {
		return nil, false, err
	}
	var (
		big              span
		bigIn, bigAcross *Profile
		total            int64
		l                int64 = -1
		lastIsBig        bool
	)
	for i, r := range regions {
		in, across, err := count(r)
		if err != nil {
			return nil, false, err
		}
		total += in.Total()
		if in.Total() > l {
			big, bigIn, bigAcross, l = r, in, across, in.Total()
			lastIsBig = i == len(regions)-1
		} else if i == len(regions)-1 {
			lastIsBig = false
		}
	}
	if rest := total - l; !(len(regions) <= 2 && lastIsBig) && float64(rest) > float64(l)/float64(n)+0.1*float64(l) {
		return nil, false, fmt.Errorf("cannot tell the benchmark loop from the rest of the run: its largest timed region counts %d instructions of %d in %d regions (does the loop mostly wait, or is N = %d too small?)%s", l, total, len(regions), n, stopStartHint)
	}
	// A loop that may have moved between threads is measured again with
	// them merged (after the check above: a timer stopped in every
	// iteration makes as many regions, moved or not).
	if movedIn(last, lastIn, lastAcross) {
		return lastIn, true, nil
	}
	for _, iv := range intervals {
		if iv.from >= big.end && iv.to < parts[len(parts)-1] && iv.prof.Total() > l/2 {
			return nil, false, fmt.Errorf("the largest timed region (%d instructions) is followed by %d instructions counted with the timer stopped: callgrind did not see testing.(*B).StartTimer begin the loop%s", l, iv.prof.Total(), stopStartHint)
		}
	}
	return bigIn, movedIn(big, bigIn, bigAcross), nil
}

// handoff are the runtime functions through which a goroutine can come
// back on another thread: a system call (sysmon hands the P of a thread
// blocked in one to another thread) or a thread going idle.
var handoff = []string{"runtime.entersyscall", "runtime.reentersyscall", "runtime.entersyscallblock", "runtime.stopm", "runtime.handoffp"}

// mayChangeThreads reports whether the loop went through one of them.
func mayChangeThreads(loop *Profile) bool {
	for _, name := range handoff {
		if f := loop.Funcs[name]; f != nil && len(f.Self) > 0 && f.Self[0] > 0 {
			return true
		}
	}
	return false
}

// ranElsewhere reports whether a function that makes up at least a tenth
// of the loop also ran, for more than 1 % of its count in the loop, in
// thread intervals that reach beyond the loop: then some of the loop ran
// on a thread that callgrind did not dump at its end. (The loop's smaller
// functions, such as the runtime's clock, also run on the runtime's own
// threads.)
func ranElsewhere(loop, across *Profile) bool {
	for _, f := range loop.Top(3, false) {
		g := across.Funcs[f.Name]
		if len(f.Self) == 0 || 10*f.Self[0] < loop.Total() || g == nil || len(g.Self) == 0 {
			continue
		}
		if float64(g.Self[0]) > 0.01*float64(f.Self[0]) {
			return true
		}
	}
	return false
}

// stopStartHint ends the messages of a loop that was not found.
const stopStartHint = "; a benchmark that calls b.StopTimer and b.StartTimer in its loop cannot be measured this way"

// readTail returns at most the last max bytes of the file at p, or nil.
func readTail(p string, max int64) []byte {
	f, err := safefile.OpenRegular(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		f.Seek(fi.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, max))
	return b
}

var (
	// programFailure marks the start of a Go test binary's account of a
	// failure.
	programFailure = regexp.MustCompile(`^(panic: |fatal error: |--- FAIL|FAIL)`)
	// valgrindFailure marks valgrind's own failures in its log (an
	// assertion, "the 'impossible' happened", a fatal signal), leaving out
	// its host stack trace and advice.
	valgrindFailure = regexp.MustCompile(`(?i)assertion|impossible|unhandled|terminating|signal|out of memory|cannot|error|valgrind:`)
)

// excerpt returns at most n non-empty lines of b: from the first line that
// matches start, or, without one, the last n.
func excerpt(b []byte, start *regexp.Regexp, n int) string {
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	for i, l := range lines {
		if start.MatchString(strings.TrimLeft(strings.TrimSpace(stripPID(l)), "=")) {
			return strings.Join(lines[i:min(len(lines), i+n)], "\n")
		}
	}
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// stripPID removes valgrind's "==1234== " prefix.
func stripPID(l string) string {
	if rest, ok := strings.CutPrefix(l, "=="); ok {
		if i := strings.Index(rest, "=="); i >= 0 {
			return rest[i+2:]
		}
	}
	return l
}

// commandLine renders the command, with the environment additions, for
// messages: a line to paste into a shell.
func commandLine(env []string, name string, args []string) string {
	parts := append(append(slices.Clone(env), name), args...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\n'\"$\\|&;<>()*?[]^") {
			parts[i] = "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}
