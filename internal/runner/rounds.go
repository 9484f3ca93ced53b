package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/english"
	"golang.org/x/perf/benchfmt"
)

// A batch is units of one package that run in one process: the same
// -cpu value, the same iteration count N and the same runs per round, so
// that one -test.benchtime=Nx -test.count=K invocation runs each of them
// exactly as it would run alone. Both sides run the same batches, so both
// run every unit at the same N in every round.
type batch struct {
	units []Unit
}

// batches groups units into batches: units of one package with the same
// -cpu value, N and runs, in the order given (a benchmark function's
// sub-benchmarks stay together, so its set-up is paid once for them), as
// many in one batch as fit in span of timed work per process (each
// process of a round runs its share of every unit's runs). A unit whose
// process would already hold span on its own is a batch alone; span 0
// puts every unit alone.
func batches(units []Unit, span time.Duration, procs int) []batch {
	type key struct {
		pkg     string
		cpu, n  int
		runs    int
		present [2]bool
	}
	var out []batch
	open := map[key]int{} // the batch of the key still filling
	work := map[int]time.Duration{}
	for _, u := range units {
		k := key{u.Package, u.CPU, u.N, u.Runs, u.Sides}
		share := u.Cost / time.Duration(max(1, procs))
		if j, ok := open[k]; ok && span > 0 && work[j]+share <= span {
			out[j].units = append(out[j].units, u)
			work[j] += share
			continue
		}
		out = append(out, batch{units: []Unit{u}})
		open[k] = len(out) - 1
		work[len(out)-1] = share
	}
	return out
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

// rounds runs the counted, interleaved rounds: in each round the batches
// in a fresh random order, and for each batch its processes in pairs, base
// and head back to back in a random order, each running its share of
// every unit's runs (-test.count). A round of a unit on a side is thus
// Runs result lines, each a run of N iterations.
func (r *run) rounds(ctx context.Context, units []Unit, w [2]*benchfmt.Writer, first, count int) error {
	if len(units) == 0 || count <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(r.o.Seed), 0x62656e6368676174^uint64(first)))
	last := first + count - 1
	bs := batches(units, r.o.span, r.o.procs)
	if first == 1 {
		r.progress("measuring %s × %s, base and head interleaved (seed %d)",
			english.Plural(len(units), "benchmark", "benchmarks"), english.Plural(count, "round", "rounds"), r.o.Seed)
	}
	r.meter.start(units, count, first == 1)
	for round := first; round <= last; round++ {
		rng.Shuffle(len(bs), func(a, b int) { bs[a], bs[b] = bs[b], bs[a] })
		for _, b := range bs {
			r.tick(round, last)
			for _, c := range counts(b.units[0].Runs, r.o.procs) {
				sides := [2]int{0, 1}
				if rng.IntN(2) == 1 {
					sides = [2]int{1, 0}
				}
				for _, i := range sides {
					if err := r.runBatch(ctx, i, b.units, c, round, w[i]); err != nil {
						if ctx.Err() != nil {
							r.res.Partial = true
						}
						return err
					}
				}
			}
			r.meter.done(b.units)
		}
		r.res.Rounds = round
	}
	return nil
}

// runBatch runs the units of a batch present on side i, and not failed
// there, in one process, each count times, and writes their result lines
// under the round. A unit the process gave fewer than count results for
// is run again alone when others shared its process (a crash charged to
// the benchmark that crashed, not to those after it), and otherwise
// recorded as failed on the side.
func (r *run) runBatch(ctx context.Context, i int, units []Unit, count, round int, w *benchfmt.Writer) error {
	var todo []Unit
	for _, u := range units {
		if u.Sides[i] && !r.isFailed(i, u) {
			todo = append(todo, u)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	u0 := todo[0]
	pats := make([]string, len(todo))
	for j, u := range todo {
		pats[j] = leafPattern(u.Name)
	}
	c := r.testCmd(i, u0.Package, r.countArgs(strings.Join(pats, "|"), strconv.Itoa(u0.N)+"x", u0.CPU, count)...)
	out, err := r.exec(ctx, c)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	r.res.RunTime += out.Elapsed
	r.meter.spent(out.Elapsed)
	results := parseResults(out.Stdout, u0.CPU)
	byLeaf := map[string][]*benchfmt.Result{}
	for _, pr := range results {
		byLeaf[pr.leaf] = append(byLeaf[pr.leaf], pr.result)
	}
	failed := map[string]bool{}
	for _, n := range failedNames(out.Stdout) {
		failed[strings.TrimSuffix(n, procSuffix(u0.CPU))] = true
	}
	var again []Unit
	for _, u := range todo {
		got := byLeaf[u.Name]
		if len(got) == count {
			for _, res := range got {
				if err := r.write(i, round, u, res, w); err != nil {
					return err
				}
			}
			continue
		}
		if len(todo) > 1 && !failed[u.Name] {
			again = append(again, u)
			continue
		}
		ferr := err
		if ferr == nil {
			ferr = fmt.Errorf("%s: %d of %d results for %s", c.String(), len(got), count, u.Name)
		}
		r.recordFailure(i, u.Package, u.Name, u.CPU, c, out, ferr, results)
	}
	for _, u := range again {
		if err := r.runBatch(ctx, i, []Unit{u}, count, round, w); err != nil {
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
// pilots: each side's timed work, and for every process the package's
// set-up as the pilot measured it, shared by its benchmark functions
// (a process pays the set-up of the functions its units belong to).
func (r *run) roundTime(units []Unit) time.Duration {
	var t time.Duration
	for _, b := range batches(units, r.o.span, r.o.procs) {
		funcs := map[string]bool{}
		for _, u := range b.units {
			t += 2 * u.Cost
			top, _, _ := strings.Cut(u.Name, "/")
			funcs[top] = true
		}
		procs := len(counts(b.units[0].Runs, r.o.procs))
		for i := range 2 {
			s := r.setup[pkgSide{b.units[0].Package, i}]
			per := startup
			if s.Funcs > 0 {
				per += s.Total * time.Duration(len(funcs)) / time.Duration(s.Funcs)
			}
			t += time.Duration(procs) * per
		}
	}
	return t
}

// startup is what starting a test binary costs at least, beyond any
// set-up of its benchmarks (5–8 ms on a quiet 2-core machine,
// scripts/startup-overhead.sh).
const startup = 5 * time.Millisecond
