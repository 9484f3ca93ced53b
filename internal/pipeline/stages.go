package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// ConfirmPlan is the confirmation of a screen: the promising time rows'
// units (gate.Promising), each planned for its own fresh rounds
// (gate.FreshRounds: PerUnit, in the order of Units) numbered after the
// session's Rounds, in two stages: First rounds for every unit (its
// whole count when smaller), the rest for the units gate.Continuing
// names after them; Fresh is the most any unit is planned for.
type ConfirmPlan struct {
	Screen   gate.Verdict // the screen judged knowing its rows get fresh rounds
	Screened int          // the screen's rounds the plan counts
	Rounds   int          // rounds the session ran
	Units    []runner.Unit
	PerUnit  []int
	First    int
	Fresh    int
}

// PlanConfirm plans the confirmation of the screen v, counting screened of
// its rounds (an adaptive run's rounds follow its budget; --count sets the
// confirmation's): v judged again knowing that promising time rows get
// fresh rounds (gate.ConfirmRounds), and those rows' units, each with as
// many fresh rounds as its own noise needs (gate.FreshRounds).
func PlanConfirm(sess session, v gate.Verdict, screened int) ConfirmPlan {
	c := ConfirmPlan{Screen: ConfirmScreen(v, screened), Screened: screened, Rounds: sess.Result().Rounds}
	c.First = gate.FirstFresh(c.Screen)
	fresh := map[string]int{}
	for k, n := range gate.FreshRounds(c.Screen) {
		id := k.Package + "." + k.Name
		fresh[id] = max(fresh[id], n)
	}
	for _, u := range sess.Units() {
		if n, ok := fresh[u.ID()]; ok {
			c.Units = append(c.Units, u)
			c.PerUnit = append(c.PerUnit, n)
			c.Fresh = max(c.Fresh, n)
		}
	}
	return c
}

// measureFresh runs units, unit i for counts[i] rounds: rounds first,
// first+1, … hold every unit not yet done, so that a unit's fresh rounds
// stay interleaved with the others' while they last.
func measureFresh(ctx context.Context, sess session, units []runner.Unit, counts []int, first int, cf Files) error {
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
		if err := sess.Measure(ctx, run, first+done, n-done, cf[0], cf[1]); err != nil {
			return err
		}
		done = n
	}
	return nil
}

// stages runs the plan's fresh rounds into cf: the first stage for every
// unit, then, after judging the directory out with them (j), the rest for
// the units whose rows gate.Continuing names. It returns the unit-rounds
// run.
func stages(ctx context.Context, sess session, plan ConfirmPlan, out string, cf Files, j Judge) (int, error) {
	first := make([]int, len(plan.Units))
	total := 0
	for i, n := range plan.PerUnit {
		first[i] = min(n, plan.First)
		total += first[i]
	}
	if err := measureFresh(ctx, sess, plan.Units, first, plan.Rounds+1, cf); err != nil {
		return total, err
	}
	if plan.Fresh <= plan.First {
		return total, nil
	}
	for _, f := range cf {
		if err := f.Sync(); err != nil {
			return total, err
		}
	}
	in, err := ReadDir(out, out)
	if err != nil {
		return total, err
	}
	second, err := j.Verdict(inputs(in.Confirm), nil)
	if err != nil {
		return total, err
	}
	cont := map[string]bool{}
	for _, k := range gate.Continuing(plan.Screen, *second) {
		cont[k.Package+"."+k.Name] = true
	}
	rest := make([]int, len(plan.Units))
	for i, u := range plan.Units {
		if cont[u.ID()] {
			rest[i] = plan.PerUnit[i] - first[i]
			total += rest[i]
		}
	}
	return total, measureFresh(ctx, sess, plan.Units, rest, plan.Rounds+1+plan.First, cf)
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
// up to how many fresh rounds, promising below which raw p.
type Confirmation struct {
	Rows, Rounds int
	PromisingP   float64
}

// Confirm is the confirmation stage (gate.Promising, gate.Confirm): the
// plan's rows are re-run alone in a new order (seed), and each is decided
// on the screen's and the fresh rounds pooled, Holm-adjusted over the
// whole family, by judging the directory out again (Judge.Raw). The
// re-run's raw files are confirm-base.txt and confirm-head.txt in out;
// they exist whenever the run confirms, their first line the screen's
// round count.
func Confirm(ctx context.Context, sess session, plan ConfirmPlan, out string, seed int64, j Judge) (Confirmed, error) {
	c := Confirmed{Verdict: plan.Screen}
	cf := Files{}
	for i, name := range []string{shard.ConfirmBaseFile, shard.ConfirmHeadFile} {
		f, err := safefile.Create(filepath.Join(out, name), 0o644)
		if err != nil {
			return c, err
		}
		defer f.Close()
		if _, err := fmt.Fprintf(f, "%s: %d\n", ScreenRoundsKey, plan.Screened); err != nil {
			return c, err
		}
		cf[i] = f
	}
	before := len(sess.Result().Failures)
	if len(plan.Units) > 0 {
		sess.Reseed(seed + 1)
		if _, err := stages(ctx, sess, plan, out, cf, j); err != nil {
			if ctx.Err() != nil {
				c.Cancelled = &Cancelled{Confirmation: true}
				return c, nil
			}
			return c, err
		}
		c.Confirmation = &Confirmation{Rows: len(plan.Units), Rounds: plan.Fresh, PromisingP: gate.PromisingLevel(plan.Screen.Family, plan.Screen.Policy.Alpha)}
	}
	for _, f := range cf {
		f.Close()
	}
	if err := WriteJSON(filepath.Join(out, ConfirmFailuresFile), NonNil(GateFailures(sess.Result().Failures[before:]))); err != nil {
		return c, err
	}
	in, err := ReadDir(out, out)
	if err != nil {
		return c, err
	}
	final, err := j.Raw(in)
	if err != nil {
		return c, err
	}
	c.Verdict = *final
	return c, nil
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
