package runner

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/english"
)

// discover lists, filters and calibrates the benchmarks of both sides: one
// pilot process per package, side and -cpu value runs every benchmark the
// filter selects there (falling back to one process per top-level
// benchmark when it fails, so that one benchmark's crash is charged to it
// alone). The pilot is also the warm-up: it is the first run of every
// benchmark of each binary (page cache, lazy initialisation), and every
// counted run after it is a process of its own anyway. A package whose
// test binaries are the same on both sides (Options.SkipIdentical) is
// listed, not calibrated (listSame).
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
	perOp := map[key][2]float64{} // each side's smallest sec/op in the pilot
	var order []key
	r.setup = map[pkgSide]setupCost{}
	r.over = map[string][2]time.Duration{}
	for _, p := range paths {
		tops := map[string][2]bool{}
		var topOrder []string
		for i := range 2 {
			if r.pkgs[p][i] == nil || (i == 1 && r.same[p]) {
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
		if r.same[p] {
			if err := r.listSame(ctx, p, topOrder); err != nil {
				return nil, err
			}
			continue
		}
		r.progress("calibrating %s (%s)", p, english.Plural(len(topOrder), "benchmark function", "benchmark functions"))
		for _, cpu := range r.o.CPU {
			for i := range 2 {
				var mine []string
				for _, top := range topOrder {
					if tops[top][i] {
						mine = append(mine, top)
					}
				}
				if len(mine) == 0 {
					continue
				}
				results, err := r.pilot(ctx, i, p, mine, cpu)
				if err != nil {
					return nil, err
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
						e := perOp[k]
						if e[i] == 0 || t < e[i] {
							e[i] = t
						}
						perOp[k] = e
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
		// The slower side's time per op sizes the round, so that a
		// slower head does not make it longer than planned.
		op := max(perOp[k][0], perOp[k][1])
		u.Runs, u.N = planRuns(u.RoundN, op, r.o.Benchtime, r.o.Runs, r.o.minRunTime)
		u.RoundN = u.Runs * u.N
		u.Cost = time.Duration(op * float64(u.RoundN) * 1e9)
		list = append(list, *u)
	}
	return list, nil
}

// pkgSide names one side's test binary of a package.
type pkgSide struct {
	pkg  string
	side int
}

// setupCost is what the pilot of a package's side says its processes
// cost beyond their timed work: Total for the pilot's benchmark functions
// together (start-up and their set-up), over Funcs of them.
type setupCost struct {
	Total time.Duration
	Funcs int
}

// pilotBenchtime is the -test.benchtime of a pilot: one run's worth of a
// round's work (--benchtime split into the most runs it allows), so that
// the pilot costs about one run of every benchmark and its time/op is
// read at about the N the runs will use; a fixed Nx is kept as it is.
func (r *run) pilotBenchtime() string {
	d, err := time.ParseDuration(r.o.Benchtime)
	if err != nil || d <= 0 {
		return r.o.Benchtime
	}
	runs := max(1, r.o.Runs)
	if m := r.o.minRunTime; m > 0 {
		runs = max(1, min(runs, int(d/m)))
	}
	return (d / time.Duration(runs)).String()
}

// pilotCount is how many times a pilot calibrates each benchmark
// (-test.count): interference only slows a run down, and one burst during
// the testing package's calibration of a benchmark can make its time per
// op read many times too high (a run of N=1 that takes the whole
// benchtime stops the calibration); the smaller of two reads is the one
// that sizes the rounds. Measured under load: a single pilot read
// xxhash's time per op 0.03–3× what the rounds then measured.
const pilotCount = 2

// pilot runs the benchmark functions tops of package p on side i, in one
// process, pilotCount times each at the pilot's benchtime, and returns
// their results. When
// that process fails, every function is piloted in a process of its own,
// so that the failure is charged to the benchmarks that failed
// (recordFailure) and the others are calibrated.
func (r *run) pilot(ctx context.Context, i int, p string, tops []string, cpu int) ([]parsed, error) {
	alts := make([]string, len(tops))
	for j, top := range tops {
		alts[j] = r.filter.patternFor(top)
	}
	bt := r.pilotBenchtime()
	c := r.testCmd(i, p, r.countArgs(strings.Join(alts, "|"), bt, cpu, pilotCount)...)
	out, err := r.exec(ctx, c)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	results := parseResults(out.Stdout, cpu)
	if err == nil {
		var work float64
		for _, pr := range results {
			if t, ok := pr.result.Value("sec/op"); ok {
				work += t * float64(pr.result.Iters)
			}
		}
		// The testing package's calibration runs each benchmark a few
		// times before each run it prints, growing N; those earlier runs
		// add at most about a fifth of the last.
		setup := max(0, out.Elapsed-time.Duration(1.2*work*1e9))
		r.setup[pkgSide{p, i}] = setupCost{Total: setup, Funcs: len(tops)}
		r.noResult(i, p, tops, cpu, results)
		return results, nil
	}
	if len(tops) == 1 {
		r.recordFailure(i, p, tops[0], cpu, c, out, err, results)
		return results, nil
	}
	var all []parsed
	for _, top := range tops {
		res, err := r.pilot(ctx, i, p, []string{top}, cpu)
		if err != nil {
			return nil, err
		}
		all = append(all, res...)
	}
	return all, nil
}

// noResult notes the benchmark functions of a pilot that gave no result:
// never silent (b.Skip, or nothing that reads as a result).
func (r *run) noResult(i int, p string, tops []string, cpu int, results []parsed) {
	for _, top := range tops {
		found := slices.ContainsFunc(results, func(pr parsed) bool {
			return pr.leaf == top || strings.HasPrefix(pr.leaf, top+"/")
		})
		if !found {
			r.res.Skipped = append(r.res.Skipped, fmt.Sprintf("%s: %s gave no result on %s (cpu %d): it called b.Skip, or printed nothing that reads as a result", p, top, sideNames[i], cpu))
		}
	}
}

// planRuns sizes a unit's work per side per round: runs short runs
// (at most maxRuns, each keeping at least minRun of work) of n iterations
// each. With a duration benchtime, the round's work is benchtime's worth
// at the pilot's time per op perOp (seconds); a fixed "Nx" benchtime
// keeps its count (pilotN, the pilot's), split into runs.
func planRuns(pilotN int, perOp float64, benchtime string, maxRuns int, minRun time.Duration) (runs, n int) {
	runs = max(1, maxRuns)
	d, err := time.ParseDuration(benchtime)
	if err != nil || d <= 0 || !(perOp > 0) {
		// A fixed count (or no time per op): the pilot's count, split.
		total := max(1, pilotN)
		if perOp > 0 && minRun > 0 {
			runs = min(runs, int(perOp*float64(total)*1e9/float64(minRun)))
		} else if !(perOp > 0) {
			runs = 1
		}
		runs = max(1, min(runs, total))
		return runs, max(1, (total+runs/2)/runs)
	}
	if minRun > 0 {
		runs = max(1, min(runs, int(d/minRun)))
	}
	per := d.Seconds() / float64(runs) / perOp
	if per < 1 {
		// Slower than a run: fewer runs of one iteration each.
		runs = max(1, min(runs, int(math.Round(d.Seconds()/perOp))))
		return runs, 1
	}
	return runs, int(min(math.Round(per), math.MaxInt32))
}

// ignore records that Options.Ignore dropped the benchmark (once, whatever
// the number of sides or -cpu values).
func (r *run) ignore(pkg, name string) {
	ig := Ignored{Package: pkg, Name: name}
	if !slices.Contains(r.res.Ignored, ig) {
		r.res.Ignored = append(r.res.Ignored, ig)
	}
}
