package runner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/benchout"
	"golang.org/x/perf/benchfmt"
)

var sideNames = [2]string{"base", "head"}

// listBenchmarks returns the top-level benchmark functions of a test binary.
func (r *run) listBenchmarks(ctx context.Context, i int, p string) ([]string, error) {
	c := r.testCmd(i, p, "-test.list", "^Benchmark")
	out, err := r.exec(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("%s side: listing benchmarks of %s: %w\n%s", sideNames[i], p, err, firstLines(append(out.Stdout, out.Stderr...), 20))
	}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(out.Stdout))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "Benchmark") && !strings.ContainsAny(l, " \t") {
			names = append(names, l)
		}
	}
	return names, nil
}

// exec runs a test binary invocation and accounts its time.
func (r *run) exec(ctx context.Context, c command) (output, error) {
	out, err := c.run(ctx)
	r.res.ProcessTime += out.Elapsed
	r.res.Processes++
	return out, err
}

// benchArgs are the flags of every measuring invocation.
func (r *run) benchArgs(pattern, benchtime string, cpu int) []string {
	return []string{
		"-test.run=^$",
		"-test.bench=" + pattern,
		"-test.benchtime=" + benchtime,
		"-test.count=1",
		"-test.benchmem",
		"-test.cpu=" + strconv.Itoa(cpu),
		// -test.timeout does not cover benchmarks: the runner kills the
		// process group itself after Options.Timeout.
	}
}

// parsed is one benchmark result line of a run.
type parsed struct {
	leaf   string // "Benchmark..." without GOMAXPROCS suffix
	result *benchfmt.Result
}

// parseResults reads the benchfmt results in a test binary's output.
func parseResults(stdout []byte, cpu int) []parsed {
	var res []parsed
	rd := benchfmt.NewReader(bytes.NewReader(benchout.Rejoin(stdout)), "")
	suffix := procSuffix(cpu)
	for rd.Scan() {
		rec, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		name := rec.Name.String()
		if suffix != "" {
			if !strings.HasSuffix(name, suffix) {
				continue
			}
			name = strings.TrimSuffix(name, suffix)
		}
		res = append(res, parsed{leaf: "Benchmark" + name, result: rec.Clone()})
	}
	return res
}

// failedNames extracts the benchmarks a run reported as failed.
func failedNames(b []byte) []string {
	var names []string
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "--- FAIL: "); ok {
			names = append(names, strings.Fields(rest)[0])
		}
	}
	return names
}

// discover lists, filters and calibrates the benchmarks of both sides.
func (r *run) discover(ctx context.Context, built [2][]pkg) ([]Unit, error) {
	r.pkgs = map[string][2]*pkg{}
	r.failed = map[string]bool{}
	var paths []string
	for i := range built {
		for j := range built[i] {
			p := &built[i][j]
			e, ok := r.pkgs[p.ImportPath]
			if !ok {
				paths = append(paths, p.ImportPath)
			}
			e[i] = p
			r.pkgs[p.ImportPath] = e
		}
	}
	slices.Sort(paths)
	type key struct {
		pkg, leaf string
		cpu       int
	}
	units := map[key]*Unit{}
	perOp := map[key]float64{} // the larger side's sec/op in the pilot
	var order []key
	for _, p := range paths {
		tops := map[string][2]bool{}
		var topOrder []string
		for i := range 2 {
			if r.pkgs[p][i] == nil {
				continue
			}
			names, err := r.listBenchmarks(ctx, i, p)
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				if r.filter.patternFor(n) == "" {
					continue
				}
				if r.o.Ignore != nil && r.o.Ignore(p, n) {
					r.ignore(p, n)
					continue
				}
				e, seen := tops[n]
				if !seen {
					topOrder = append(topOrder, n)
				}
				e[i] = true
				tops[n] = e
			}
		}
		if len(topOrder) == 0 {
			r.res.Skipped = append(r.res.Skipped, p+": no benchmarks match --bench")
			continue
		}
		for _, top := range topOrder {
			for _, cpu := range r.o.CPU {
				for i := range 2 {
					if !tops[top][i] {
						continue
					}
					r.progress("calibrating %s.%s (%s, cpu %d)", p, top, sideNames[i], cpu)
					c := r.testCmd(i, p, r.benchArgs(r.filter.patternFor(top), r.o.Benchtime, cpu)...)
					out, err := r.exec(ctx, c)
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					results := parseResults(out.Stdout, cpu)
					if err != nil {
						r.recordFailure(i, p, top, cpu, c, out, err, results)
					} else if len(results) == 0 {
						// Never silent: b.Skip, or nothing that reads as
						// a result.
						r.res.Skipped = append(r.res.Skipped, fmt.Sprintf("%s: %s gave no result on %s (cpu %d): it called b.Skip, or printed nothing that reads as a result", p, top, sideNames[i], cpu))
					}
					for _, pr := range results {
						k := key{p, pr.leaf, cpu}
						u, ok := units[k]
						if !ok {
							u = &Unit{Package: p, Name: pr.leaf, CPU: cpu}
							units[k] = u
							order = append(order, k)
						}
						u.Sides[i] = true
						if u.RoundN == 0 || pr.result.Iters < u.RoundN {
							u.RoundN = pr.result.Iters
						}
						if t, ok := pr.result.Value("sec/op"); ok {
							perOp[k] = max(perOp[k], t)
						}
					}
				}
			}
		}
	}
	var list []Unit
	for _, k := range order {
		u := units[k]
		if r.o.Ignore != nil && r.o.Ignore(u.Package, u.Name) {
			r.ignore(u.Package, u.Name)
			continue
		}
		u.RoundN = roundWork(u.RoundN, perOp[k], r.o.Benchtime)
		u.Cost = time.Duration(perOp[k] * float64(u.RoundN) * 1e9)
		u.Runs, u.N = splitRound(u.RoundN, u.Cost, r.o.Runs, r.o.minRunTime)
		list = append(list, *u)
	}
	return list, nil
}

// roundWork returns the iterations of a side's work per round: the
// pilot's iteration count n, cut to benchtime's worth at the pilot's
// time/op perOp (seconds) when benchtime is a duration. The testing
// package's calibration stops at the first run that lasts at least the
// benchtime, having aimed at 1.2× it (and at most 100× the previous
// run), so its count is 1.0–1.2× (at times more) what --benchtime
// plans; the rounds would pay that on every side of every round. A fixed
// "Nx" benchtime keeps n.
func roundWork(n int, perOp float64, benchtime string) int {
	d, err := time.ParseDuration(benchtime)
	if err != nil || d <= 0 || !(perOp > 0) {
		return n
	}
	want := int(math.Round(d.Seconds() / perOp))
	return max(1, min(n, want))
}

// ignore records that Options.Ignore dropped the benchmark (once, whatever
// the number of sides or -cpu values).
func (r *run) ignore(pkg, name string) {
	ig := Ignored{Package: pkg, Name: name}
	if !slices.Contains(r.res.Ignored, ig) {
		r.res.Ignored = append(r.res.Ignored, ig)
	}
}

// splitRound splits a round's work of total iterations taking cost into
// runs: at most maxRuns, each keeping at least minRun of work and at least
// one iteration, of n ≈ total/runs iterations each (so runs × n is total
// within runs/2).
func splitRound(total int, cost time.Duration, maxRuns int, minRun time.Duration) (runs, n int) {
	return splitRoundOverhead(total, cost, maxRuns, minRun, 0)
}

// maxSplitOverhead bounds, in percent, what splitting a round into runs may
// add to its wall time: the extra processes' fixed overhead, (runs − 1) ×
// overhead, stays within maxSplitOverhead % of the wall time of one run per
// side per round (cost + overhead). At 50 %, the default round (100 ms) keeps
// its 5 runs while a process costs up to 14 ms beyond its timed work (this
// 2-core machine: 5–8 ms quiet, about 12 ms under a CPU hog, measured by
// scripts/startup-overhead.sh), and loses runs only where the processes
// would cost more than the work they time: slow start-up, a benchmark's own
// set-up before its timer (paid in every process, twice in the b.N style),
// or a short --benchtime on a loaded machine.
const maxSplitOverhead = 50

// splitRoundOverhead is splitRound for units whose every process costs
// overhead beyond its timed work (start-up and the benchmark's set-up: a
// warm-up run's wall time less N × its time/op). runs is also at most
// 1 + maxSplitOverhead % × (cost + overhead) / overhead, so that a round
// split into runs takes at most 1.5× the wall time of one run; overhead 0
// (unknown) leaves splitRound's rule.
func splitRoundOverhead(total int, cost time.Duration, maxRuns int, minRun, overhead time.Duration) (runs, n int) {
	runs = max(1, maxRuns)
	if minRun > 0 {
		runs = min(runs, int(cost/minRun))
	}
	if overhead > 0 && cost > 0 {
		// runs−1 ≤ ⌊p·(cost+overhead) / (100·overhead)⌋, exact in 128-bit
		// nanoseconds: ⌊⌊x/100⌋/overhead⌋ = ⌊x/(100·overhead)⌋, and the
		// high word of x = p·(cost+overhead) is below p < 100.
		hi, lo := bits.Mul64(maxSplitOverhead, uint64(cost)+uint64(overhead))
		share, _ := bits.Div64(hi, lo, 100)
		budget := share / uint64(overhead)
		runs = min(runs, 1+int(min(budget, uint64(runs))))
	}
	runs = max(1, min(runs, total))
	n = max(1, (total+runs/2)/runs)
	return runs, n
}

// recordFailure notes that a run failed on side i. The failing benchmarks are
// taken from the output's "--- FAIL:" lines; a crash without one is charged
// to the whole pattern (top).
func (r *run) recordFailure(i int, p, top string, cpu int, c command, out output, err error, results []parsed) {
	names := failedNames(out.Stdout)
	if len(names) == 0 {
		names = []string{top}
	}
	reason := err.Error()
	if out.TimedOut {
		reason = fmt.Sprintf("timed out after %s: %s", r.o.Timeout, c.String())
	} else if code := exitCode(err); code >= 0 {
		reason = fmt.Sprintf("exit status %d: %s", code, c.String())
	}
	msg := reason + "\n" + firstLines(append(append([]byte{}, out.Stdout...), out.Stderr...), 12)
	for _, n := range names {
		n = strings.TrimSuffix(n, procSuffix(cpu))
		id := sideNames[i] + " " + p + "." + n + procSuffix(cpu)
		if r.failed[id] {
			continue
		}
		r.failed[id] = true
		r.res.Failures = append(r.res.Failures, Failure{
			Package: p,
			Name:    strings.TrimPrefix(n, "Benchmark") + procSuffix(cpu),
			Side:    sideNames[i],
			Message: msg,
		})
	}
	_ = results
}

// isFailed reports whether unit u (or a benchmark enclosing it) has failed
// on side i.
func (r *run) isFailed(i int, u Unit) bool {
	name := u.Name
	for {
		if r.failed[sideNames[i]+" "+u.Package+"."+name+procSuffix(u.CPU)] {
			return true
		}
		j := strings.LastIndexByte(name, '/')
		if j < 0 {
			return false
		}
		name = name[:j]
	}
}

// once runs unit u on side i at its calibrated N and returns its result, or
// nil after recording a failure.
func (r *run) once(ctx context.Context, i int, u Unit) (*benchfmt.Result, time.Duration) {
	c := r.testCmd(i, u.Package, r.benchArgs(leafPattern(u.Name), strconv.Itoa(u.N)+"x", u.CPU)...)
	out, err := r.exec(ctx, c)
	if ctx.Err() != nil {
		return nil, out.Elapsed
	}
	results := parseResults(out.Stdout, u.CPU)
	var got *benchfmt.Result
	for _, pr := range results {
		if pr.leaf == u.Name {
			got = pr.result
		}
	}
	if err == nil && got == nil {
		err = fmt.Errorf("%s: no result for %s", c.String(), u.Name)
	}
	if err != nil {
		r.recordFailure(i, u.Package, u.Name, u.CPU, c, out, err, results)
		return nil, out.Elapsed
	}
	return got, out.Elapsed
}

// warmUp runs every unit once per side, uncounted, and estimates the wall
// time of one round from it. What a process costs beyond its timed work
// (its wall time less N × its time/op: start-up, and the benchmark's own
// set-up before its timer), the smaller of the two sides', bounds the
// unit's runs per round (splitRoundOverhead): a unit whose processes cost
// more than the work they time makes fewer, longer runs.
func (r *run) warmUp(ctx context.Context, units []Unit) error {
	r.progress("warm-up: %d benchmarks × 2 sides (%s)", len(units), runsSummary(units))
	for k := range units {
		u := &units[k]
		overhead := time.Duration(math.MaxInt64)
		var took [2]time.Duration
		for i := range 2 {
			if !u.Sides[i] || r.isFailed(i, *u) {
				continue
			}
			got, t := r.once(ctx, i, *u)
			if err := ctx.Err(); err != nil {
				r.res.Partial = true
				return err
			}
			took[i] = t
			if sec, ok := secPerOp(got); ok {
				overhead = min(overhead, t-time.Duration(sec*float64(u.N)*1e9))
			}
		}
		if overhead > 0 && overhead < math.MaxInt64 && !r.o.keepRuns {
			if runs, n := splitRoundOverhead(u.RoundN, u.Cost, r.o.Runs, r.o.minRunTime, overhead); runs < u.Runs {
				u.Runs, u.N = runs, n
			}
		}
		for i := range 2 {
			r.res.RoundTime += time.Duration(max(1, u.Runs)) * took[i]
		}
	}
	return nil
}

// secPerOp is a result's time/op in seconds.
func secPerOp(res *benchfmt.Result) (float64, bool) {
	if res == nil {
		return 0, false
	}
	return res.Value("sec/op")
}

// runsSummary describes how the units' rounds are split into runs:
// "5 runs per side per round", or "1–5 runs ..." when they differ.
func runsSummary(units []Unit) string {
	lo, hi := 0, 0
	for _, u := range units {
		k := max(1, u.Runs)
		if lo == 0 || k < lo {
			lo = k
		}
		hi = max(hi, k)
	}
	switch {
	case hi <= 1:
		return "1 run per side per round"
	case lo == hi:
		return fmt.Sprintf("%d runs per side per round", hi)
	}
	return fmt.Sprintf("%d–%d runs per side per round", lo, hi)
}

// rounds runs the counted, interleaved rounds.
func (r *run) rounds(ctx context.Context, units []Unit, w [2]*benchfmt.Writer, first, count int) error {
	rng := rand.New(rand.NewPCG(uint64(r.o.Seed), 0x62656e6368676174^uint64(first)))
	last := first + count - 1
	if count > 1 || first == 1 {
		r.progress("measuring %d benchmarks × %d rounds, %s, base and head interleaved (seed %d)", len(units), count, runsSummary(units), r.o.Seed)
	}
	order := slices.Clone(units)
	start := time.Now()
	total := count * len(units)
	for round := first; round <= last; round++ {
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for k, u := range order {
			done := (round-first)*len(units) + k
			if done > 0 && time.Since(r.lastProgress) >= 2*time.Second || k == 0 {
				left := ""
				if done > 0 {
					eta := time.Duration(float64(time.Since(start)) / float64(done) * float64(total-done))
					left = ", about " + eta.Round(time.Second).String() + " left"
				}
				r.progress("round %d/%d: %s%s", round, max(last, r.o.Count), u.ID(), left)
			}
			// Runs pairs of runs, each pair base and head back to back
			// in a random order.
			for range max(1, u.Runs) {
				sides := [2]int{0, 1}
				if rng.IntN(2) == 1 {
					sides = [2]int{1, 0}
				}
				for _, i := range sides {
					if !u.Sides[i] || r.isFailed(i, u) {
						continue
					}
					res, took := r.once(ctx, i, u)
					if err := ctx.Err(); err != nil {
						r.res.Partial = true
						return err
					}
					if res == nil {
						continue
					}
					r.res.RunTime += took
					if sec, ok := secPerOp(res); ok {
						r.res.Work += time.Duration(sec * float64(res.Iters) * 1e9)
					}
					res.SetConfig("round", strconv.Itoa(round))
					if j, ok := res.ConfigIndex("round"); ok {
						res.Config[j].File = true
					}
					if err := w[i].Write(res); err != nil {
						return fmt.Errorf("writing %s results: %w", sideNames[i], err)
					}
					if r.o.onRun != nil {
						r.o.onRun(i, round, u, res.Iters)
					}
				}
			}
		}
		r.res.Rounds = round
	}
	return nil
}
