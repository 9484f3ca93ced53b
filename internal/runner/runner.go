// Package runner measures Go benchmarks on two source trees, base and head,
// the way benchgate needs them measured: each package's test binary is built
// once per side (-trimpath, so that identical sources give identical
// binaries), a package whose two binaries run the same code is listed and
// not measured (Options.SkipIdentical), every other benchmark (each
// sub-benchmark on its own) is calibrated once by one pilot process per
// package and side to an iteration count used by both sides, and then run
// round by round, base and head alternating in a randomized order. In each
// round every benchmark makes several short runs per side (Options.Runs)
// at that count, in one process per side (-test.count), so that a
// benchmark function's set-up is paid once a round, not once a run.
//
// Results are written as standard benchfmt, one stream per side, with a
// "round: N" configuration line before each round so that statistics can
// pair the samples taken in the same round; `benchstat -ignore round
// base.txt head.txt` reproduces every number. The runner knows nothing about
// git: a side is a directory holding a Go module (or a directory inside one).
//
// A benchmark that fails (panics, calls b.Fatal, exceeds Timeout) on a side is
// recorded as a Failure for that side and not run there again; the others go
// on. Cancelling the context stops the current process group and returns what
// was measured so far with Partial set.
//
// docs/measuring.md gives the procedure step by step: the pilot, how the
// runs of a round are sized and grouped into processes, and the order of
// the rounds.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/perf/benchfmt"
)

// Side is one of the two trees under comparison.
type Side struct {
	Name string // "base" or "head"
	Dir  string // directory of the Go module (or a subdirectory of it) to run in
}

// Options control one measurement.
type Options struct {
	Packages  []string      // package patterns, as for go list; default ./...
	Bench     string        // -bench regular expression; default "."
	Count     int           // interleaved rounds; default 10
	Benchtime string        // pilot run length used to calibrate a round's work ("100ms"), or a fixed "Nx"; default 100ms
	CPU       []int         // -test.cpu values; default GOMAXPROCS of this process
	Timeout   time.Duration // per benchmark process; default 10m
	Seed      int64         // order of runs within rounds
	BinDir    string        // where test binaries are written (private, temporary)
	LogDir    string        // where build logs are written; "" for none
	Env       []string      // environment of go and the test binaries; nil inherits
	// Runs is the most runs per side per round (default DefaultRuns): a
	// round's work is split into this many short runs per side, fewer
	// where a run would keep less than MinRunTime of work; 1 is one run
	// per side per round. Each run is one result line.
	Runs int
	// SkipIdentical, if set, turns on the same-binary check: a package
	// whose base and head test binaries run the same code (sameCode) is not
	// measured when SkipIdentical(baseDir, headDir) reports true, given
	// the package's directory on each side (the caller checks that no
	// file the binary does not hold, testdata and the like, changed
	// there). Its benchmarks are listed by one run at N=1 on base and
	// reported in Result.Same.
	SkipIdentical func(baseDir, headDir string) bool
	// Credential, if set, is the user go and the test binaries run as (the
	// sandbox of the change's code). BinDir's side directories are made
	// theirs for the builds and taken back, with the binaries, before any
	// binary runs, so that one side's code cannot replace the other's.
	Credential *syscall.Credential
	Progress   io.Writer // progress lines (stderr); nil for none
	// Ignore, if set, names the benchmarks not to run (a policy's ignore
	// rules): it is asked with the import path and a benchmark's name
	// ("BenchmarkX", "BenchmarkX/size=1k") for every top-level benchmark
	// before its pilot run, and for every sub-benchmark the pilot finds
	// (whose pilot thus ran once). Result.Ignored lists what it dropped.
	Ignore func(pkg, name string) bool
	// Pin runs each benchmark process on a fixed set of CPUs (Linux
	// sched_setaffinity): the first -test.cpu CPUs the process may use.
	Pin bool

	// minRunTime replaces MinRunTime (tests); onRun is told every counted
	// run as it ends, onProcess every counted process and its runs
	// (tests).
	minRunTime time.Duration
	onRun      func(side, round int, u Unit, iters int)
	onProcess  func(side, round int, u Unit, runs int)
}

// Ignored is a benchmark that Options.Ignore kept from running.
type Ignored struct {
	Package string // import path
	Name    string // as printed, without GOMAXPROCS suffix: "BenchmarkX/size=10"
}

// DefaultRuns is the default of Options.Runs: 5–10 short runs per side
// per round were far more sensitive than one long run on a shared
// machine, and a real allocating benchmark's per-round noise fell 2.5×
// with 5 (docs/statistics.md, docs/dev/evidence-log.md).
const DefaultRuns = 5

// MinRunTime is the least timed work (b.N × time/op) a run keeps when a
// round's work is split into short runs: shorter runs are dominated by
// timer granularity, the scheduler and one-off costs, and miss the GC
// cycles the benchmark would see in a longer run. A benchmark whose round
// holds less than Runs × MinRunTime of work makes fewer runs.
const MinRunTime = 10 * time.Millisecond

// Unit is one benchmark at one GOMAXPROCS value: the thing that is
// calibrated and run.
type Unit struct {
	Package string // import path
	Name    string // full name as printed, without GOMAXPROCS suffix, e.g. "BenchmarkX/size=10"
	CPU     int
	N       int           // iteration count of every run (-test.benchtime=Nx), both sides
	Runs    int           // runs per side per round (K): result lines per side per round
	RoundN  int           // a round's work per side, N × Runs
	Cost    time.Duration // pilot estimate of a side's timed work per round (RoundN × time/op)
	Sides   [2]bool       // present on base, head
}

// ID is the unit's result name as benchfmt reports it (no "Benchmark" prefix,
// with the GOMAXPROCS suffix), prefixed with its package.
func (u Unit) ID() string {
	return u.Package + "." + strings.TrimPrefix(u.Name, "Benchmark") + procSuffix(u.CPU)
}

// Failure is a benchmark that did not produce a result on one side.
type Failure struct {
	Package string
	Name    string // benchfmt name (no "Benchmark" prefix, with GOMAXPROCS suffix)
	Side    string
	Message string // the command and the first lines of its output
	// Unit is "" for a failure of the benchmark, or "instructions/op"
	// for one of the instruction lane (MeasureInstructions).
	Unit string
}

// Result summarises a measurement. The samples themselves went to the writers.
type Result struct {
	Units    []Unit
	Failures []Failure
	Rounds   int  // rounds completed
	Partial  bool // cancelled before all rounds ran
	Seed     int64
	Skipped  []string // packages without benchmarks, as "importpath: reason"
	// Same lists the benchmarks of the packages that were not measured
	// because their test binaries run the same code on both sides
	// (Options.SkipIdentical), in order; SamePackages those packages.
	Same         []SameUnit
	SamePackages []string
	// Ignored lists the benchmarks Options.Ignore dropped, once each
	// (top-level or sub-benchmark; no -GOMAXPROCS suffix), in order.
	Ignored []Ignored
	Elapsed time.Duration
	RunTime time.Duration // sum of the counted benchmark processes' wall times
	// ProcessTime is the sum of the wall times of every benchmark process
	// (listing, pilots, warm-ups, counted runs) and BuildTime the wall time
	// of building both sides: with them, Elapsed − BuildTime − ProcessTime
	// is benchgate's own overhead.
	ProcessTime, BuildTime time.Duration
	Processes              int
	// WarmupTime is the wall time of a warm-up (0: the pilots are the
	// warm-up). RoundTime estimates the wall time of one round of every
	// unit from the pilots (roundTime).
	WarmupTime, RoundTime time.Duration
	// DiscoverTime is the wall time of listing and calibrating (the
	// pilots), MeasureTime that of every Measure call (the screen's rounds
	// and the confirmation's), and Work the timed work of the counted runs
	// (each run's N × its time/op): what --benchtime plans, against
	// RunTime, what the counted processes took.
	DiscoverTime, MeasureTime, Work time.Duration
	// GoVersion is the Go toolchain that built base and head, as `go env
	// GOVERSION` reports it in each side's directory ("go1.26.8"); "" if
	// unknown. With GOTOOLCHAIN=auto, go.mod selects it, so the two may
	// differ.
	GoVersion [2]string
}

// ErrNoBenchmarks means no benchmark matched on either side.
var ErrNoBenchmarks = errors.New("no benchmarks matched")

func (o *Options) defaults() {
	if len(o.Packages) == 0 {
		o.Packages = []string{"./..."}
	}
	if o.Bench == "" {
		o.Bench = "."
	}
	if o.Count == 0 {
		o.Count = 10
	}
	if o.Benchtime == "" {
		o.Benchtime = "100ms"
	}
	if o.Runs == 0 {
		o.Runs = DefaultRuns
	}
	if o.minRunTime == 0 {
		o.minRunTime = MinRunTime
	}

	if len(o.CPU) == 0 {
		o.CPU = []int{runtime.GOMAXPROCS(0)}
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Minute
	}
}

// Session is a measurement in its three steps, each a call: Build (both
// sides' test binaries; nothing of the change has run yet), Discover
// (benchmarks listed and calibrated), Prepare (the units to measure chosen
// and warmed up). Measure may then be called any number of times, for any
// subset of the units (adaptive rounds, confirmation re-runs). Between the
// calls the caller decides: it seals the sandbox after Build, it picks a
// shard's units and advises on the count after Discover.
type Session struct {
	r     *run
	start time.Time
	built [2][]pkg
}

// Build builds both sides' test binaries (and reads their Go toolchains).
// No test binary has run when it returns: the caller may seal what the
// change's code must not write before Discover runs them.
func Build(ctx context.Context, base, head Side, o Options) (*Session, error) {
	o.defaults()
	filter, err := parseBenchFilter(o.Bench)
	if err != nil {
		return nil, err
	}
	r := &run{o: o, sides: [2]Side{base, head}, filter: filter, res: &Result{Seed: o.Seed}}
	s := &Session{r: r, start: time.Now()}
	if o.Pin {
		cpus, err := allowedCPUs()
		if err != nil {
			return nil, fmt.Errorf("--pin: %w", err)
		}
		r.pinned = cpus[:min(len(cpus), slices.Max(o.CPU))]
		r.progress("pinning benchmark processes to CPUs %v", r.pinned)
	}
	buildStart := time.Now()
	r.res.GoVersion, err = goVersions(ctx, r.sides, &o)
	if err != nil {
		return s, err
	}
	Stage(o.Progress, "Building the test binaries")
	r.progress("building test binaries (base and head in parallel)%s", toolchainProgress(r.res.GoVersion))
	s.built, err = buildBoth(ctx, r.sides, &o)
	if err == nil && o.SkipIdentical != nil {
		r.same, err = r.identical(s.built)
	}
	r.res.BuildTime = time.Since(buildStart)
	return s, err
}

// identical is the set of packages that are not measured: test binaries
// that run the same code on both sides, and SkipIdentical says so of their
// directories.
func (r *run) identical(built [2][]pkg) (map[string]bool, error) {
	same, err := sameBinaries(built)
	if err != nil {
		return nil, err
	}
	dirs := map[string][2]string{}
	for i := range built {
		for _, p := range built[i] {
			d := dirs[p.ImportPath]
			d[i] = p.Dir
			dirs[p.ImportPath] = d
		}
	}
	for p := range same {
		if d := dirs[p]; !r.o.SkipIdentical(d[0], d[1]) {
			delete(same, p)
		}
	}
	return same, nil
}

// Discover lists the benchmarks of both sides' binaries and calibrates
// every one (the pilot runs): all units Options.Bench matches and
// Options.Ignore keeps, or ErrNoBenchmarks when there are none and no
// package was left unmeasured for its identical binaries. With none to
// measure and some such packages, it returns no units and no error.
func (s *Session) Discover(ctx context.Context) ([]Unit, error) {
	start := time.Now()
	Stage(s.r.o.Progress, "Calibrating")
	units, err := s.r.discover(ctx, s.built)
	s.r.res.DiscoverTime += time.Since(start)
	if err != nil {
		return nil, err
	}
	if len(units) == 0 && len(s.r.res.Same) == 0 {
		return nil, ErrNoBenchmarks
	}
	return units, nil
}

// Prepare makes units (some or all of Discover's; a shard may get none)
// the session's units, and estimates the wall time of one round of them
// (Result.RoundTime). There is no separate warm-up: the pilots ran every
// benchmark of both binaries first.
func (s *Session) Prepare(ctx context.Context, units []Unit) error {
	r := s.r
	r.res.Units = units
	r.res.RoundTime = r.roundTime(units)
	if w := work(units); w > 0 {
		r.meter.perWork = float64(r.res.RoundTime) / float64(w)
	}
	return ctx.Err()
}

// Expect tells the session how many more unit-rounds (a unit measured
// on both sides for one round) the run expects to measure beyond the
// Measure calls made so far: the confirmation's. The progress counts them
// in its share done and its time left; each later Measure call takes its
// own from them. A new call replaces the figure.
func (s *Session) Expect(unitRounds int) {
	units := s.r.res.Units
	if len(units) == 0 {
		return
	}
	s.r.meter.expected = time.Duration(unitRounds) * work(units) / time.Duration(len(units))
}

// Reseed sets the seed of the run order of later Measure calls (a
// confirmation re-run must not repeat the first order).
func (s *Session) Reseed(seed int64) { s.r.o.Seed = seed }

// Units returns the calibrated units.
func (s *Session) Units() []Unit { return s.r.res.Units }

// Result returns what the session measured so far.
func (s *Session) Result() *Result { return s.r.finish(s.start) }

// Measure runs rounds first, first+1, ..., first+count-1 of the given units,
// interleaved, and appends each side's samples to its writer. With first ==
// 1 it starts the streams with the unit metadata lines.
func (s *Session) Measure(ctx context.Context, units []Unit, first, count int, baseOut, headOut io.Writer) error {
	w := [2]*benchfmt.Writer{benchfmt.NewWriter(baseOut), benchfmt.NewWriter(headOut)}
	if first == 1 {
		for i := range w {
			for _, unit := range []string{"allocs/op", "B/op"} {
				md := &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: unit, Key: "assume"}, OrigUnit: unit, Value: "exact"}
				if err := w[i].Write(md); err != nil {
					return err
				}
			}
		}
	}
	start := time.Now()
	defer func() { s.r.res.MeasureTime += time.Since(start) }()
	if first == 1 {
		Stage(s.r.o.Progress, "Measuring, base and head interleaved")
	}
	return s.r.rounds(ctx, units, w, first, count)
}

type run struct {
	o      Options
	sides  [2]Side
	filter *benchFilter
	res    *Result
	pkgs   map[string][2]*pkg // import path -> package per side (nil: absent)
	failed map[string]bool    // side + unit ID that failed
	pinned []int              // CPUs for every benchmark process (Options.Pin)
	same   map[string]bool    // packages not measured: identical binaries
	setup  map[pkgSide]setupCost
	over   map[string][2]time.Duration // unit ID -> what its last process per side cost beyond its timed work
	meter  meter
}

func (r *run) finish(start time.Time) *Result {
	r.res.Elapsed = time.Since(start)
	return r.res
}

func (r *run) progress(format string, args ...any) {
	if r.o.Progress == nil {
		return
	}
	fmt.Fprintf(r.o.Progress, "benchgate: "+format+"\n", args...)
}

// testCmd builds a test binary invocation for side i in package p.
func (r *run) testCmd(i int, p string, args ...string) command {
	pk := r.pkgs[p][i]
	return command{Dir: pk.Dir, Env: r.o.Env, Cred: r.o.Credential, Name: pk.Binary, Args: args, Timeout: r.o.Timeout, CPUs: r.pinned}
}
