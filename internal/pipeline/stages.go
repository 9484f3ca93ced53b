package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/safefile"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/benchgate/benchgate/internal/stats"
)

// Files are the raw files a stage appends to, base and head, open for
// writing; their names are their paths.
type Files [2]*os.File

// AdaptivePlan is an adaptive run's plan: at most MaxRounds rounds of
// about Round each, judged at the Looks (gate.PlanAdaptive), within the
// Budget left after the preparation.
type AdaptivePlan struct {
	MaxTime, Budget, Round time.Duration
	MaxRounds              int
	Looks                  []int
}

// PlanAdaptive plans the rounds of a --max-time run from the budget and
// the cost of one round (the warm-up), with p's alpha and threshold.
func PlanAdaptive(sess session, maxTime time.Duration, p gate.Policy) AdaptivePlan {
	budget := maxTime - sess.Result().Elapsed
	round := max(sess.Result().RoundTime, time.Millisecond)
	maxRounds := min(max(int(budget/round), 2), 200)
	return AdaptivePlan{MaxTime: maxTime, Budget: budget, Round: round, MaxRounds: maxRounds,
		Looks: gate.PlanAdaptive(maxRounds, BothSides(sess.Units()), p)}
}

// Adaptive is what a --max-time run did: its rounds, its looks and when
// its benchmarks were decided.
type Adaptive struct {
	MaxTime   time.Duration
	Rounds    int // rounds run
	MaxRounds int // the most the budget allowed
	Elapsed   time.Duration
	Looks     []int
	// Decided counts the benchmarks decided early per round, by round.
	Decided []Decided
	// Undecided is how many were still undecided when the budget ran out.
	Undecided int
	// Stopped is the round an error (cancellation) stopped, 0 if none.
	Stopped int
}

// Decided is how many benchmarks an adaptive run decided after a round.
type Decided struct{ Round, Count int }

// adaptive runs rounds until every benchmark's time/op is decided (a
// significant change at a planned look, or shown to be within the
// threshold) or the budget is spent. Every look is paid for in the
// p-values (gate.Policy.Looks, from the "looks:" line it writes first into
// the raw files), so the false-positive rate stays at alpha however early
// a benchmark stops.
func adaptive(ctx context.Context, sess session, plan AdaptivePlan, raw Files, j Judge) (*Adaptive, error) {
	start := time.Now()
	// The looks go into the raw files, so that whoever judges them (this
	// run, an interim look, benchgate compare later) pays for them.
	line := "looks: " + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(plan.Looks)), ","), "[]") + "\n"
	for _, f := range raw {
		if _, err := io.WriteString(f, line); err != nil {
			return nil, err
		}
	}
	active := sess.Units()
	decidedAt := map[int]int{}
	r := 0
	for r < plan.MaxRounds && len(active) > 0 {
		r++
		if err := sess.Measure(ctx, active, r, 1, raw[0], raw[1]); err != nil {
			return &Adaptive{Stopped: r}, err
		}
		decided, err := j.lookFiles(raw[0].Name(), raw[1].Name())
		if err != nil {
			return nil, err
		}
		var still []runner.Unit
		for _, u := range active {
			if _, done := decided[u.ID()]; done {
				decidedAt[r]++
				continue
			}
			still = append(still, u)
		}
		active = still
		if time.Since(start) > plan.Budget {
			break
		}
	}
	ad := &Adaptive{MaxTime: plan.MaxTime, Rounds: r, MaxRounds: plan.MaxRounds, Elapsed: time.Since(start), Looks: plan.Looks, Undecided: len(active)}
	for _, k := range slices.Sorted(maps.Keys(decidedAt)) {
		ad.Decided = append(ad.Decided, Decided{Round: k, Count: decidedAt[k]})
	}
	return ad, nil
}

// lookFiles is Look on the raw files base and head as they stand.
func (j Judge) lookFiles(base, head string) (map[string]gate.Decision, error) {
	var in [2]stats.Input
	for i, p := range []string{base, head} {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in[i] = stats.Input{Name: filepath.Base(p), R: f}
	}
	return j.Look(in)
}

// measurer is what the confirmation needs of a measuring session: a
// *runner.Session, or a test's replay of recorded rounds.
type measurer interface {
	Units() []runner.Unit
	Result() *runner.Result
	Reseed(seed int64)
	// Expect tells the progress how many more unit-rounds the run
	// expects beyond those measured so far (0: none).
	Expect(unitRounds int)
	Measure(ctx context.Context, units []runner.Unit, first, count int, baseOut, headOut io.Writer) error
}

// measureFresh runs units, unit i for counts[i] rounds: rounds first,
// first+1, … hold every unit not yet done, so that a unit's fresh rounds
// stay interleaved with the others' while they last.
func measureFresh(ctx context.Context, sess measurer, units []runner.Unit, counts []int, first int, w [2]io.Writer) error {
	done := 0
	for _, n := range slices.Sorted(maps.Keys(countsOf(counts))) {
		if n <= 0 {
			continue
		}
		var run []runner.Unit
		for i, u := range units {
			if counts[i] >= n {
				run = append(run, u)
			}
		}
		if err := sess.Measure(ctx, run, first+done, n-done, w[0], w[1]); err != nil {
			return err
		}
		done = n
	}
	return nil
}

// Budget is the screen's rounds planned from recorded noise: how many
// benchmarks got fewer rounds than Count (quiet), how many more (noisy),
// and those that cannot see their threshold here.
type Budget struct {
	Count       int
	Fewer, More int
	CannotSee   []gate.Unseen
}

// measureScreen runs the screen's rounds: --count of every unit, or, with the
// noise a ledger recorded (Plan.Noise), each unit's own count
// (gate.PlanScreen: quiet ones fewer, noisy ones more, no more rounds in
// all), said up front with the benchmarks that cannot see their
// threshold here. The counts are fixed before anything is measured: what
// the ledger says moves rounds, never what the verdict decides.
func measureScreen(ctx context.Context, p Plan, sess measurer, raw Files, pol gate.Policy, env Env) (*Budget, error) {
	units := sess.Units()
	w := [2]io.Writer{raw[0], raw[1]}
	if len(p.Noise) == 0 {
		return nil, sess.Measure(ctx, units, 1, p.Runner.Count, w[0], w[1])
	}
	rows := make([]gate.Recorded, len(units))
	known := 0
	for i, u := range units {
		name := strings.TrimPrefix(u.ID(), u.Package+".")
		rows[i] = gate.Recorded{Package: u.Package, Name: name, Noise: p.Noise[u.Package+"."+name]}
		if rows[i].Noise == 0 {
			// The ledger names a benchmark run at one GOMAXPROCS
			// without its -N suffix.
			rows[i].Noise = p.Noise[u.Package+"."+trimProcs(name)]
		}
		if rows[i].Noise > 0 {
			known++
		}
	}
	if known == 0 {
		return nil, sess.Measure(ctx, units, 1, p.Runner.Count, w[0], w[1])
	}
	plan := gate.PlanScreen(p.Runner.Count, rows, pol)
	b := &Budget{Count: p.Runner.Count, Fewer: plan.Fewer, More: plan.More, CannotSee: plan.CannotSee}
	env.step(StepBudget{*b})
	return b, measureFresh(ctx, sess, units, plan.Rounds, 1, w)
}

// trimProcs is a benchmark name without its -GOMAXPROCS suffix.
func trimProcs(name string) string {
	if i := strings.LastIndex(name, "-"); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return name[:i]
		}
	}
	return name
}

// countsOf is the set of counts.
func countsOf(ns []int) map[int]bool {
	set := map[int]bool{}
	for _, n := range ns {
		set[n] = true
	}
	return set
}

// Confirmed is what the confirmation stage gives: the final verdict and
// the run's facts about it.
type Confirmed struct {
	Verdict gate.Verdict
	// Confirmation is set when rows were re-run; Cancelled when a
	// cancellation stopped the re-run (the screen's verdict stands).
	Confirmation *Confirmation
	Cancelled    *Cancelled
}

// Confirmation is the re-run of the promising time rows: how many, for
// up to how many fresh rounds, promising below which raw p, and how many
// promising rows were too noisy to re-run.
type Confirmation struct {
	Rows, Rounds int
	PromisingP   float64
	TooNoisy     int
}

// freshRounds is where the confirmation's fresh rounds go: the raw files
// confirm-base.txt and confirm-head.txt of the run's directory, and a
// copy in memory that each step is judged from.
type freshRounds struct {
	files Files
	mem   [2]bytes.Buffer
}

// createFresh creates the confirmation's raw files in out, each starting
// with the screen's round count the confirmation planned with and, for a
// shard's, the suite's family (FamilyKey).
func createFresh(out string, screened, family int) (*freshRounds, error) {
	f := &freshRounds{}
	for i, name := range []string{shard.ConfirmBaseFile, shard.ConfirmHeadFile} {
		file, err := safefile.Create(filepath.Join(out, name), 0o644)
		if err != nil {
			f.close()
			return nil, err
		}
		f.files[i] = file
		header := fmt.Sprintf("%s: %d\n", ScreenRoundsKey, screened)
		if family > 0 {
			header += fmt.Sprintf("%s: %d\n", FamilyKey, family)
		}
		if _, err := io.WriteString(f.writer(i), header); err != nil {
			f.close()
			return nil, err
		}
	}
	return f, nil
}

func (f *freshRounds) writer(i int) io.Writer { return io.MultiWriter(f.files[i], &f.mem[i]) }

func (f *freshRounds) close() {
	for _, file := range f.files {
		if file != nil {
			file.Close()
		}
	}
}

// judge judges every fresh round so far, with the failures of their runs.
func (f *freshRounds) judge(j Judge, failures []gate.Failure) (gate.Verdict, error) {
	files := [2]File{{Name: f.files[0].Name(), Data: f.mem[0].Bytes()}, {Name: f.files[1].Name(), Data: f.mem[1].Bytes()}}
	return j.fresh(files, failures)
}

// Confirm is the confirmation stage: gate's procedure (gate.Confirmation)
// on the screen, a verdict judged knowing that its promising rows get
// fresh rounds (Policy.Screened), driven with the session's rounds. Each
// step's rows are re-run in a new order (seed) into the raw files
// confirm-base.txt and confirm-head.txt of out (their first line the
// screen's round count, screened, then a shard's family; they exist
// whenever the run confirms)
// and judged from their copy in memory; the verdict is the procedure's,
// which Judge.Raw recomputes from the directory. The re-run's failures go
// to confirm-failures.json.
func Confirm(ctx context.Context, sess measurer, screen gate.Verdict, screened int, out string, seed int64, j Judge, env Env) (Confirmed, error) {
	c := Confirmed{Verdict: screen}
	fresh, err := createFresh(out, screened, screen.Policy.Family)
	if err != nil {
		return c, err
	}
	defer fresh.close()
	proc := gate.NewConfirmation(screen)
	rows, most := proc.Planned()
	before := len(sess.Result().Failures)
	failures := func() []gate.Failure { return GateFailures(sess.Result().Failures[before:]) }
	if len(rows) > 0 {
		env.step(StepConfirm{len(rows), most})
		sess.Expect(len(rows) * most) // at most: rows that stop early take fewer
		sess.Reseed(seed + 1)
		units := unitsByID(sess.Units())
		last := sess.Result().Rounds
		for step, ok := proc.Next(); ok; step, ok = proc.Next() {
			var us []runner.Unit
			var counts []int
			for i, k := range step.Keys {
				if u, ok := units[k.Package+"."+k.Name]; ok {
					us, counts = append(us, u), append(counts, step.Rounds[i])
				}
			}
			if err := measureFresh(ctx, sess, us, counts, last+step.From, [2]io.Writer{fresh.writer(0), fresh.writer(1)}); err != nil {
				if ctx.Err() != nil {
					c.Cancelled = &Cancelled{Confirmation: true}
					return c, nil
				}
				return c, err
			}
			v, err := fresh.judge(j, failures())
			if err != nil {
				return c, err
			}
			proc.Observe(v)
		}
	}
	if promising := len(gate.Promising(screen)); promising > 0 {
		c.Confirmation = &Confirmation{Rows: len(rows), Rounds: most, PromisingP: gate.PromisingLevel(screen.Family, screen.Policy.Alpha),
			TooNoisy: promising - len(rows)}
	}
	fresh.close()
	if err := WriteJSON(filepath.Join(out, ConfirmFailuresFile), NonNil(failures())); err != nil {
		return c, err
	}
	c.Verdict = proc.Verdict()
	return c, nil
}

// unitsByID is units by their IDs, the time rows' package + "." + name.
func unitsByID(units []runner.Unit) map[string]runner.Unit {
	out := map[string]runner.Unit{}
	for _, u := range units {
		out[u.ID()] = u
	}
	return out
}

// BothSides counts the units present on base and head.
func BothSides(units []runner.Unit) int {
	m := 0
	for _, u := range units {
		if u.Sides[0] && u.Sides[1] {
			m++
		}
	}
	return m
}

// GateFailures are the runner's failures as the gate reads them.
func GateFailures(fs []runner.Failure) []gate.Failure {
	var out []gate.Failure
	for _, f := range fs {
		out = append(out, gate.Failure{Package: f.Package, Name: f.Name, Side: f.Side, Message: f.Message, Unit: f.Unit})
	}
	return out
}

// NonNil is fs, or an empty list: failures files hold a JSON array.
func NonNil(fs []gate.Failure) []gate.Failure {
	if fs == nil {
		return []gate.Failure{}
	}
	return fs
}

// WriteJSON writes v, indented, to path, through no link.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, append(b, '\n'), 0o644)
}
