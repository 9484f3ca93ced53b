package runner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/benchgate/benchgate/internal/english"
	"golang.org/x/perf/benchfmt"
)

// maxProcessWork is the most timed work one counted process holds: a
// unit whose round holds more (a --benchtime longer than the default)
// splits its runs among as many processes per side as it takes, so that
// base and head of a pair stay within about a tenth of a second however
// long the round is (docs/measuring.md, step 6).
const maxProcessWork = 100 * time.Millisecond

// splitBudget bounds, as a share of a round's timed work, what its
// processes may cost beyond it: a round's runs are split among as many
// processes per side as cost at most a third of the work together, up to
// one process per run (the finest interleaving: each pair base and head
// back to back, so that a burst of interference or a switching load falls
// on both sides of most pairs), and folded into fewer, one at the least,
// where a process costs more (-test.count runs them inside one). On a
// quiet 2-core machine a benchmark with no set-up of its own (5–7 ms a
// process) keeps one run per process at the default --benchtime (5 a
// side), one with cespare/xxhash's 15–20 ms of set-up runs all five in one
// process; a loaded machine, whose processes cost more, gets fewer
// (docs/dev/evidence-log.md, "The same timed work in fewer processes").
const splitBudget = 1.0 / 3

// processes is how many processes per side a round of u takes, given what
// one costs beyond its timed work (overhead): as many as splitBudget
// allows, at least one per maxProcessWork of work, at most one per run.
func processes(u Unit, overhead time.Duration) int {
	p := int(math.Round(float64(u.Cost) / float64(maxProcessWork)))
	if overhead > 0 {
		p = max(p, int(splitBudget*float64(u.Cost)/float64(overhead)))
	}
	return max(1, min(p, u.Runs))
}

// overhead estimates what a process of u costs beyond its timed work: the
// smaller of the two sides' last measured (a counted process's wall time
// less its runs' N × time/op), or before any, start-up and the set-up of
// its benchmark function as its package's pilots measured them.
func (r *run) overhead(u Unit) time.Duration {
	o, ok := r.over[u.ID()]
	switch {
	case ok && o[0] > 0 && o[1] > 0:
		return min(o[0], o[1])
	case ok && max(o[0], o[1]) > 0:
		return max(o[0], o[1])
	}
	est := time.Duration(math.MaxInt64)
	for i := range 2 {
		if s := r.setup[pkgSide{u.Package, i}]; s.Funcs > 0 {
			est = min(est, startup+s.Total/time.Duration(s.Funcs))
		}
	}
	if est == math.MaxInt64 {
		return startup
	}
	return est
}

// counts splits a round's runs among procs processes: as even as can be,
// the larger shares first.
func counts(runs, procs int) []int {
	procs = max(1, min(procs, runs))
	c := make([]int, procs)
	for i := range c {
		c[i] = runs / procs
		if i < runs%procs {
			c[i]++
		}
	}
	return c
}

// rounds runs the counted, interleaved rounds: in each round the units in
// a fresh random order, and for each unit its processes (one, at the
// default --benchtime) in pairs, base and head back to back in a random
// order, each running its share of the unit's runs (-test.count): the
// testing package runs a leaf's runs one after the other inside one call
// of its parent function, so the function's set-up is paid once a process,
// not once a run. A round of a unit on a side is Runs result lines, each a
// run of N iterations.
func (r *run) rounds(ctx context.Context, units []Unit, w [2]*benchfmt.Writer, first, count int) error {
	if len(units) == 0 || count <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(r.o.Seed), 0x62656e6368676174^uint64(first)))
	last := first + count - 1
	if first == 1 {
		r.progress("measuring %s × %s, base and head interleaved (seed %d)",
			english.Plural(len(units), "benchmark", "benchmarks"), english.Plural(count, "round", "rounds"), r.o.Seed)
	}
	r.meter.start(units, count, first == 1)
	order := slices.Clone(units)
	for round := first; round <= last; round++ {
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, u := range order {
			r.tick(round, last)
			for k, c := range counts(u.Runs, processes(u, r.overhead(u))) {
				sides := [2]int{0, 1}
				if rng.IntN(2) == 1 {
					sides = [2]int{1, 0}
				}
				for _, i := range sides {
					if err := r.runUnit(ctx, i, u, c, k == 0, round, w[i]); err != nil {
						if ctx.Err() != nil {
							r.res.Partial = true
						}
						return err
					}
				}
			}
			r.meter.done([]Unit{u})
		}
		r.res.Rounds = round
	}
	return nil
}

// runUnit runs unit u on side i, unless it failed there, in one process of
// count runs (-test.count) and writes their result lines under the round;
// a process that gives fewer than count results is a failure of the unit
// on the side. With warm, the process first runs u once more, at the same
// N, uncounted: the first run of a benchmark after other benchmarks ran
// (cold caches, branch predictors, its first collection) is slower and
// far noisier than the next ones (docs/dev/evidence-log.md, "The same timed work
// in fewer processes").
func (r *run) runUnit(ctx context.Context, i int, u Unit, count int, warm bool, round int, w *benchfmt.Writer) error {
	if !u.Sides[i] || r.isFailed(i, u) {
		return nil
	}
	n := count
	if warm {
		n++
	}
	c := r.testCmd(i, u.Package, r.countArgs(leafPattern(u.Name), strconv.Itoa(u.N)+"x", u.CPU, n)...)
	if r.o.onProcess != nil {
		r.o.onProcess(i, round, u, n)
	}
	out, err := r.exec(ctx, c)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	r.res.RunTime += out.Elapsed
	r.meter.spent(out.Elapsed)
	results := parseResults(out.Stdout, u.CPU)
	var got []*benchfmt.Result
	timed := time.Duration(0)
	for _, pr := range results {
		if pr.leaf == u.Name {
			got = append(got, pr.result)
			if sec, ok := secPerOp(pr.result); ok {
				timed += time.Duration(sec * float64(pr.result.Iters) * 1e9)
			}
		}
	}
	if err == nil && len(got) == n {
		o := r.over[u.ID()]
		o[i] = max(time.Microsecond, out.Elapsed-timed)
		r.over[u.ID()] = o
	}
	if err == nil && len(got) != n {
		err = fmt.Errorf("%s: %d of %d results for %s", c.String(), len(got), n, u.Name)
	}
	if err != nil {
		r.recordFailure(i, u.Package, u.Name, u.CPU, c, out, err, results)
		return nil
	}
	for _, res := range got[n-count:] {
		if err := r.write(i, round, u, res, w); err != nil {
			return err
		}
	}
	return nil
}

// write writes one counted run's result line under its round.
func (r *run) write(i, round int, u Unit, res *benchfmt.Result, w *benchfmt.Writer) error {
	if sec, ok := secPerOp(res); ok {
		r.res.Work += time.Duration(sec * float64(res.Iters) * 1e9)
	}
	res.SetConfig("round", strconv.Itoa(round))
	if j, ok := res.ConfigIndex("round"); ok {
		res.Config[j].File = true
	}
	if err := w.Write(res); err != nil {
		return fmt.Errorf("writing %s results: %w", sideNames[i], err)
	}
	if r.o.onRun != nil {
		r.o.onRun(i, round, u, res.Iters)
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

// roundTime estimates the wall time of one round of units from the
// pilots: each side's timed work, and for every process the start-up and
// the set-up of its benchmark function as the pilot measured its
// package's (shared by the package's benchmark functions).
func (r *run) roundTime(units []Unit) time.Duration {
	var t time.Duration
	for _, u := range units {
		t += 2 * u.Cost
		for i := range 2 {
			per := startup
			if s := r.setup[pkgSide{u.Package, i}]; s.Funcs > 0 {
				per += s.Total / time.Duration(s.Funcs)
			}
			t += time.Duration(processes(u, per)) * per
		}
	}
	return t
}

// startup is what starting a test binary costs at least, beyond any
// set-up of its benchmarks (5–8 ms on a quiet 2-core machine,
// scripts/startup-overhead.sh).
const startup = 5 * time.Millisecond
