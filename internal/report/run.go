package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/english"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/machine"
)

// Run is what a run learned while it measured, as facts: figures, no
// words. The report words them in "How the run was made", as it words the
// gate's reasons; the zero Run says nothing.
type Run struct {
	// PGO are the profile-guided optimization profiles (default.pgo) the
	// change edits (untrusted: the change's file names): the compiler
	// optimizes the two sides differently.
	PGO []string
	// Policy are the rules that did not apply as written.
	Policy []PolicyNote
	// Unclosed is what the sandbox could not close to the benchmarks'
	// code, and why (untrusted: paths).
	Unclosed []Named
	// Machine is the computer the benchmarks ran on (machine.Here for a
	// run; for compare and merge what the raw files record); nil when
	// unknown.
	Machine *machine.Info
	// Affected is the --packages affected selection; nil without one.
	Affected *Affected
	// CountAdvice warns that --count cannot reach alpha (gate.CountAdvice).
	CountAdvice *gate.Warning
	Adaptive    *Adaptive
	Lane        *Lane
	Cancelled   *Cancelled
	Shard       *ShardPart
	// Skipped are what the runner found nothing to measure in, as it says
	// ("importpath: reason"; untrusted: they name the change's code).
	Skipped []string
	// SameBinary are the packages not measured because their test
	// binaries were byte-identical on both sides (their rows have status
	// same-binary; untrusted: import paths of the change's code).
	SameBinary   []string
	Timing       *Timing
	Confirmation *Confirmation
	// Budget is the screen's rounds planned from the noise a ledger
	// recorded (gate.PlanScreen); nil without a ledger's record.
	Budget  *Budget
	Explain *Explained
	// Merged are the shards a merge judged together (merge).
	Merged []MergedShard
	// Deprecated are the old action inputs the workflow still sets.
	Deprecated []DeprecatedInput
}

// MergedShard is one shard of a merge: its part ("2/4"), how many
// benchmarks it measured, and whether its run finished.
type MergedShard struct {
	Shard      string
	Benchmarks int
	Complete   bool
}

// Explained is what the explain pass did after the verdict.
type Explained struct {
	// Instructions is how many instructions/op changes the lane's
	// per-function counts explain.
	Instructions int
	// Profiled is how many changed benchmarks were profiled, in Elapsed:
	// the allocations of Allocs of them in AllocsTime, the CPU of CPU of
	// them in CPUTime.
	Profiled, Allocs, CPU        int
	Elapsed, AllocsTime, CPUTime time.Duration
	// Kept is the directory the counts, profiles and test binaries were
	// kept in; "" if they were not kept.
	Kept string
	// Cancelled: the benchmarks not yet profiled are not explained.
	Cancelled bool
	// Skipped more changed benchmarks were not profiled (at most Max
	// per run).
	Skipped, Max int
	// Merged is how many explanations came from the shards' passes.
	Merged int
	// Problems are what kept the pass from explaining a benchmark, or
	// from keeping its files.
	Problems []ExplainProblem
}

// ExplainProblem is a step of the explain pass that failed: for Bench
// ("import/path.Name"; "" for the whole pass), with the error (untrusted:
// it may quote the change's names).
type ExplainProblem struct {
	Bench string
	Step  ExplainStep
	Err   string
}

// ExplainStep is the step of the explain pass a problem stopped.
type ExplainStep string

// The steps.
const (
	// ExplainModule: the sides' module roots were not found; nothing
	// was profiled.
	ExplainModule ExplainStep = "module"
	// ExplainNotProfiled: the benchmark's directory could not be made.
	ExplainNotProfiled ExplainStep = "not-profiled"
	// ExplainBinaries: the test binaries were not kept beside the
	// profiles.
	ExplainBinaries ExplainStep = "binaries"
)

// Affected is the selection of the packages a change affects: the
// selection's summary and the packages it left out and the changed files
// that affect nothing, each with its reason (untrusted: they name the
// change's files and packages).
type Affected struct {
	Summary          string
	Skipped, Ignored []Named
}

// Named is a package or file and why it was left out.
type Named struct{ Name, Reason string }

// maxAffectedSkipped is the most skipped packages the report lists.
const maxAffectedSkipped = 20

// Adaptive is the --max-time run: its rounds, its looks and when its
// benchmarks were decided.
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

// Lane is the instruction lane's cost beside what came before it.
type Lane struct {
	Benchmarks, Repeats, Processes int
	Elapsed                        time.Duration
	// Before is the time of the builds and calibration (and the time
	// lane, unless Only) before the lane.
	Before      time.Duration
	Only        bool // no time lane
	Unavailable int  // benchmarks the lane could not count
}

// Cancelled says where a cancellation stopped the run.
type Cancelled struct {
	Rounds, Of int // rounds completed of the planned
	// Confirmation: it stopped the confirmation re-run, after the screen.
	Confirmation bool
}

// ShardPart is one matrix job's part of the suite.
type ShardPart struct {
	Shard         string // "2/4"
	Assigned, All int
}

// Timing is where a run's time went.
type Timing struct {
	Elapsed, Build, Processes, Counted time.Duration
	Count                              int // benchmark processes
	// The stages' wall times: calibrating (listing and pilots), the
	// warm-up, the screen's rounds, the confirmation's fresh rounds, the
	// explanation's profiles (0: the stage did not run). Work is the
	// counted runs' timed work (N × time/op summed), what --benchtime
	// plans; Counted less Work is what their processes cost beyond it
	// (start-up, the benchmarks' own set-up).
	Calibrate, Warmup, Screen, Confirm, Explain, Work time.Duration
}

// Confirmation is the re-run of the promising time rows; TooNoisy
// counts the promising rows too noisy to confirm, not re-run.
type Confirmation struct {
	Rows, Rounds int
	PromisingP   float64
	TooNoisy     int
}

// Budget is the screen's rounds planned from recorded noise: how many
// benchmarks got fewer rounds than Count and how many more, and those
// that cannot see their threshold here (untrusted: the ledger's and the
// change's names).
type Budget struct {
	Count       int
	Fewer, More int
	CannotSee   []gate.Unseen
}

// Lines words the facts, one line each, in the order a run learns them.
func (r Run) Lines() []string {
	var out []string
	for _, l := range r.items() {
		out = append(out, Plain(l))
	}
	return out
}

// items are the facts' lines as spans.
func (r Run) items() [][]Span {
	var out [][]Span
	add := func(s string) { out = append(out, []Span{txt(s)}) }
	if len(r.PGO) > 0 {
		out = append(out, []Span{txt("the change edits the profile-guided optimization profile "), prose(strings.Join(r.PGO, ", ")),
			txt(": the compiler optimizes the two sides differently, so the comparison measures the new profile as well as the code (both sides build with -pgo=auto, each with its own profile)")})
	}
	for _, n := range r.Policy {
		// Untrusted as a whole, as the notes it replaces: it quotes
		// labels, actions and errors.
		out = append(out, []Span{prose(PolicyNoteText(n))})
	}
	for _, u := range r.Unclosed {
		out = append(out, []Span{txt("not closed to the benchmarks' code, which can read it: "), prose(u.Name + " (" + u.Reason + ")")})
	}
	if m := r.Machine; m != nil && m.String() != "" {
		// The CPU model and kernel come from the machine, which the
		// change's code may have shaped (a self-hosted runner): a name.
		out = append(out, []Span{txt("machine: "), nameSpan(m.String())})
	}
	if a := r.Affected; a != nil {
		out = append(out, []Span{txt("packages affected by the change: "), prose(a.Summary)})
		for i, e := range a.Skipped {
			if i == maxAffectedSkipped {
				add(fmt.Sprintf("… and %d more packages skipped", len(a.Skipped)-maxAffectedSkipped))
				break
			}
			out = append(out, []Span{txt("skipped "), prose(e.Name + ": " + e.Reason)})
		}
		for _, e := range a.Ignored {
			out = append(out, []Span{txt("ignored change "), prose(e.Name + ": " + e.Reason)})
		}
	}
	if r.CountAdvice != nil {
		out = append(out, warningSpans(*r.CountAdvice, nil))
	}
	if a := r.Adaptive; a != nil {
		add(adaptiveText(*a))
	}
	if l := r.Lane; l != nil {
		add(laneText(*l))
	}
	if c := r.Cancelled; c != nil {
		if c.Confirmation {
			add("cancelled during the re-run: the first rounds' verdict stands, its regressions not confirmed")
		} else {
			add(fmt.Sprintf("cancelled after %d of %d rounds: this report is partial", c.Rounds, c.Of))
		}
	}
	if s := r.Shard; s != nil {
		add(fmt.Sprintf("shard %s: %d of %d benchmarks; the verdict comes from benchgate merge", s.Shard, s.Assigned, s.All))
	}
	for _, s := range r.Skipped {
		out = append(out, []Span{txt("skipped "), prose(s)})
	}
	if n := len(r.SameBinary); n > 0 {
		l := line{txt("not measured: " + english.Plural(n, "package", "packages") + " with the same test binary on both sides (nothing their benchmarks run changed): ")}
		for i, p := range r.SameBinary {
			if i > 0 {
				l.text(", ")
			}
			l.name(p)
		}
		out = append(out, l)
	}
	if t := r.Timing; t != nil {
		add(timingText(*t))
	}
	if b := r.Budget; b != nil {
		add(fmt.Sprintf("budget from the ledger's recorded noise: %s screened in fewer rounds than --count %d, %d in more, as many rounds in all or fewer", english.Plural(b.Fewer, "benchmark", "benchmarks"), b.Count, b.More))
		for _, u := range b.CannotSee {
			out = append(out, []Span{txt("cannot see "), numSpan(absPct1(u.Threshold)), txt(" here: "), prose(u.Name),
				txt(" (recorded noise "), numSpan(absPct1(u.Noise)), txt(" per round: changes under "), numSpan(absPct1(u.MDE)), txt(" cannot be seen even with the most rounds it can get)")})
		}
	}
	if c := r.Confirmation; c != nil {
		line := fmt.Sprintf("re-run: %s that looked like a change in the first rounds (raw p < %g and at least half the threshold) got up to %d fresh rounds (each as many as its noise needs) and %s decided on all %s rounds (raw files confirm-base.txt, confirm-head.txt)",
			english.Plural(c.Rows, "time row", "time rows"), c.PromisingP, c.Rounds, plural(c.Rows, "was", "were"), plural(c.Rows, "its", "their"))
		if c.TooNoisy > 0 {
			line += fmt.Sprintf("; %s too noisy to confirm, not re-run", english.Plural(c.TooNoisy, "time row", "time rows"))
		}
		add(line)
	}
	if len(r.Merged) > 0 {
		add(mergedText(r.Merged))
	}
	if e := r.Explain; e != nil {
		for _, l := range explainedText(*e) {
			add(l)
		}
		for _, p := range e.Problems {
			out = append(out, explainProblemSpans(p))
		}
	}
	return out
}

// explainProblemSpans words a problem of the explain pass.
func explainProblemSpans(p ExplainProblem) []Span {
	switch p.Step {
	case ExplainNotProfiled:
		return []Span{txt("explain: "), prose(p.Bench), txt(" not profiled: "), prose(p.Err)}
	case ExplainBinaries:
		return []Span{txt("explain: keeping the test binaries of "), prose(p.Bench), txt(": "), prose(p.Err)}
	default:
		return []Span{txt("explain: "), prose(p.Err)}
	}
}

func mergedText(ms []MergedShard) string {
	var parts []string
	for _, m := range ms {
		state := "complete"
		if !m.Complete {
			state = "incomplete"
		}
		parts = append(parts, fmt.Sprintf("%s (%d benchmarks, %s)", m.Shard, m.Benchmarks, state))
	}
	return fmt.Sprintf("merged %d shard(s): %s", len(ms), strings.Join(parts, ", "))
}

func explainedText(e Explained) []string {
	var out []string
	if e.Instructions > 0 {
		s := "explain: " + english.Plural(e.Instructions, "instructions/op change", "instructions/op changes") + " from the per-function instruction counts"
		if e.Kept != "" {
			s += "; counts kept in " + e.Kept + " as pprof profiles"
		}
		out = append(out, s)
	}
	if e.Cancelled {
		out = append(out, "explain: cancelled; the benchmarks not yet profiled are not explained")
	}
	if e.Profiled > 0 {
		round := func(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }
		s := fmt.Sprintf("explain: profiled %s after the verdict in %s (allocations of %d in %s, CPU of %d in %s)",
			english.Plural(e.Profiled, "changed benchmark", "changed benchmarks"), round(e.Elapsed), e.Allocs, round(e.AllocsTime), e.CPU, round(e.CPUTime))
		if e.Kept != "" {
			s += "; profiles and test binaries kept in " + e.Kept
		} else {
			s += "; the profiles were not kept (--out DIR keeps them, with the test binaries, for go tool pprof)"
		}
		out = append(out, s)
	}
	if e.Skipped > 0 {
		out = append(out, fmt.Sprintf("explain: %s not profiled (at most %d per run)", english.Plural(e.Skipped, "more changed benchmark", "more changed benchmarks"), e.Max))
	}
	if e.Merged > 0 {
		out = append(out, fmt.Sprintf("explain: %s from the shards' profiling passes (each shard's --out directory keeps its profiles and the go tool pprof commands)",
			english.Plural(e.Merged, "explanation", "explanations")))
	}
	return out
}

func adaptiveText(a Adaptive) string {
	if a.Stopped > 0 {
		return fmt.Sprintf("adaptive: stopped in round %d", a.Stopped)
	}
	s := fmt.Sprintf("adaptive (--max-time %s): %d of up to %d rounds in %s, checks after rounds %v; ", a.MaxTime, a.Rounds, a.MaxRounds, a.Elapsed.Round(time.Second), a.Looks)
	var parts []string
	for _, d := range a.Decided {
		parts = append(parts, fmt.Sprintf("%d after round %d", d.Count, d.Round))
	}
	if len(parts) > 0 {
		s += "benchmarks decided early: " + strings.Join(parts, ", ")
	} else {
		s += "no benchmark was decided early"
	}
	if a.Undecided > 0 {
		s += fmt.Sprintf("; %d undecided when the budget ran out", a.Undecided)
	}
	return s
}

func laneText(l Lane) string {
	what := "the builds, calibration and timed rounds before it"
	if l.Only {
		what = "the builds and calibration before it"
	}
	per := ""
	if l.Benchmarks > 0 {
		per = fmt.Sprintf(", %s per benchmark", (l.Elapsed / time.Duration(l.Benchmarks)).Round(100*time.Millisecond))
	}
	s := fmt.Sprintf("instruction counts: %d benchmarks counted under valgrind (callgrind), %d runs per side each: %d processes, %s%s (%s: %s)",
		l.Benchmarks, l.Repeats, l.Processes, l.Elapsed.Round(100*time.Millisecond), per, what, l.Before.Round(100*time.Millisecond))
	if l.Unavailable > 0 {
		s += fmt.Sprintf("; %d unavailable", l.Unavailable)
	}
	return s
}

func timingText(t Timing) string {
	over := t.Elapsed - t.Build - t.Processes
	pct := 0.0
	if t.Elapsed > 0 {
		pct = 100 * float64(over) / float64(t.Elapsed)
	}
	ms := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	stages := "building " + ms(t.Build)
	for _, st := range []struct {
		name string
		d    time.Duration
	}{{"calibrating", t.Calibrate}, {"warm-up", t.Warmup}, {"the first rounds", t.Screen}, {"the re-run", t.Confirm}, {"the explanation", t.Explain}} {
		if st.d > 0 {
			stages += ", " + st.name + " " + ms(st.d)
		}
	}
	work := ""
	if t.Work > 0 {
		work = ", of which timed work " + ms(t.Work)
	}
	return fmt.Sprintf("time: %s in all: %s; %d benchmark processes %s (counted runs %s%s), benchgate itself %s (%.1f%%)",
		ms(t.Elapsed), stages, t.Count, ms(t.Processes), ms(t.Counted), work, ms(over), pct)
}

// jsonRun is the run's facts in the JSON report (docs/json-schema.md,
// "run"); durations in seconds.
type jsonRun struct {
	PGO          []string             `json:"pgo"`
	Policy       []jsonPolicyNote     `json:"policy"`
	Unclosed     []jsonNamed          `json:"unclosed"`
	Machine      *machine.Info        `json:"machine,omitempty"`
	Affected     *jsonAffected        `json:"affected,omitempty"`
	Adaptive     *jsonAdaptive        `json:"adaptive,omitempty"`
	Lane         *jsonLane            `json:"instruction_lane,omitempty"`
	Cancelled    *jsonCancelled       `json:"cancelled,omitempty"`
	Shard        *jsonShardPart       `json:"shard,omitempty"`
	Skipped      []string             `json:"skipped"`
	SameBinary   []string             `json:"same_binary,omitempty"`
	Timing       *jsonTiming          `json:"timing,omitempty"`
	Confirmation *jsonRunConfirmation `json:"confirmation,omitempty"`
	Budget       *jsonBudget          `json:"budget,omitempty"`
	Explain      *jsonExplained       `json:"explain,omitempty"`
	Merged       []jsonMergedShard    `json:"merged"`
}

type jsonMergedShard struct {
	Shard      string `json:"shard"`
	Benchmarks int    `json:"benchmarks"`
	Complete   bool   `json:"complete"`
}

type jsonAffected struct {
	Summary string      `json:"summary"`
	Skipped []jsonNamed `json:"skipped"`
	Ignored []jsonNamed `json:"ignored"`
}

type jsonNamed struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

type jsonAdaptive struct {
	MaxTime   float64       `json:"max_time"`
	Rounds    int           `json:"rounds"`
	MaxRounds int           `json:"max_rounds"`
	Elapsed   float64       `json:"elapsed"`
	Looks     []int         `json:"looks"`
	Decided   []jsonDecided `json:"decided"`
	Undecided int           `json:"undecided"`
	Stopped   int           `json:"stopped"`
}

type jsonDecided struct {
	Round int `json:"round"`
	Count int `json:"count"`
}

type jsonLane struct {
	Benchmarks  int     `json:"benchmarks"`
	Repeats     int     `json:"repeats"`
	Processes   int     `json:"processes"`
	Elapsed     float64 `json:"elapsed"`
	Before      float64 `json:"before"`
	Only        bool    `json:"only"`
	Unavailable int     `json:"unavailable"`
}

type jsonCancelled struct {
	Rounds       int  `json:"rounds"`
	Of           int  `json:"of"`
	Confirmation bool `json:"confirmation"`
}

type jsonShardPart struct {
	Shard    string `json:"shard"`
	Assigned int    `json:"assigned"`
	All      int    `json:"all"`
}

type jsonTiming struct {
	Elapsed      float64 `json:"elapsed"`
	Build        float64 `json:"build"`
	Processes    float64 `json:"processes"`
	Counted      float64 `json:"counted"`
	Count        int     `json:"process_count"`
	Calibrate    float64 `json:"calibrate"`
	Warmup       float64 `json:"warmup"`
	Screen       float64 `json:"screen"`
	Confirmation float64 `json:"confirmation"`
	Explain      float64 `json:"explain"`
	Work         float64 `json:"work"`
}

type jsonRunConfirmation struct {
	Rows       int     `json:"rows"`
	Rounds     int     `json:"rounds"`
	PromisingP float64 `json:"promising_p"`
	TooNoisy   int     `json:"too_noisy"`
}

type jsonBudget struct {
	Count     int          `json:"count"`
	Fewer     int          `json:"fewer"`
	More      int          `json:"more"`
	CannotSee []jsonUnseen `json:"cannot_see"`
}

type jsonUnseen struct {
	Package   string  `json:"package"`
	Name      string  `json:"name"`
	Noise     float64 `json:"noise"`
	MDE       float64 `json:"mde"`
	Threshold float64 `json:"threshold"`
}

type jsonExplained struct {
	Instructions int     `json:"instructions"`
	Profiled     int     `json:"profiled"`
	Allocs       int     `json:"allocs"`
	CPU          int     `json:"cpu"`
	Elapsed      float64 `json:"elapsed"`
	Kept         string  `json:"kept"`
	Cancelled    bool    `json:"cancelled"`
	Skipped      int     `json:"skipped"`
	Merged       int     `json:"merged"`
	// Problems are the steps that failed.
	Problems []jsonExplainProblem `json:"problems"`
}

type jsonExplainProblem struct {
	Bench string `json:"bench"`
	Step  string `json:"step"`
	Error string `json:"error"`
}

// json is r for the JSON report; nil when it holds no fact.
func (r Run) json() *jsonRun {
	if len(r.items()) == 0 {
		return nil
	}
	sec := func(d time.Duration) float64 { return d.Seconds() }
	j := &jsonRun{Skipped: append([]string{}, r.Skipped...), PGO: append([]string{}, r.PGO...), Policy: []jsonPolicyNote{}, Unclosed: []jsonNamed{}, Merged: []jsonMergedShard{}, Machine: r.Machine}
	j.SameBinary = r.SameBinary
	for _, m := range r.Merged {
		j.Merged = append(j.Merged, jsonMergedShard(m))
	}
	for _, n := range r.Policy {
		j.Policy = append(j.Policy, jsonPolicyNote{string(n.Code), n.Commit, n.File, n.Label, string(n.Off), n.Action, n.Err, n.By, n.At, n.Sender, n.Access})
	}
	for _, u := range r.Unclosed {
		j.Unclosed = append(j.Unclosed, jsonNamed(u))
	}
	if a := r.Affected; a != nil {
		j.Affected = &jsonAffected{Summary: a.Summary, Skipped: []jsonNamed{}, Ignored: []jsonNamed{}}
		for _, e := range a.Skipped {
			j.Affected.Skipped = append(j.Affected.Skipped, jsonNamed(e))
		}
		for _, e := range a.Ignored {
			j.Affected.Ignored = append(j.Affected.Ignored, jsonNamed(e))
		}
	}
	if a := r.Adaptive; a != nil {
		j.Adaptive = &jsonAdaptive{MaxTime: sec(a.MaxTime), Rounds: a.Rounds, MaxRounds: a.MaxRounds, Elapsed: sec(a.Elapsed),
			Looks: append([]int{}, a.Looks...), Decided: []jsonDecided{}, Undecided: a.Undecided, Stopped: a.Stopped}
		for _, d := range a.Decided {
			j.Adaptive.Decided = append(j.Adaptive.Decided, jsonDecided(d))
		}
	}
	if l := r.Lane; l != nil {
		j.Lane = &jsonLane{l.Benchmarks, l.Repeats, l.Processes, sec(l.Elapsed), sec(l.Before), l.Only, l.Unavailable}
	}
	if c := r.Cancelled; c != nil {
		j.Cancelled = &jsonCancelled{c.Rounds, c.Of, c.Confirmation}
	}
	if s := r.Shard; s != nil {
		j.Shard = &jsonShardPart{s.Shard, s.Assigned, s.All}
	}
	if t := r.Timing; t != nil {
		j.Timing = &jsonTiming{sec(t.Elapsed), sec(t.Build), sec(t.Processes), sec(t.Counted), t.Count,
			sec(t.Calibrate), sec(t.Warmup), sec(t.Screen), sec(t.Confirm), sec(t.Explain), sec(t.Work)}
	}
	if c := r.Confirmation; c != nil {
		j.Confirmation = &jsonRunConfirmation{c.Rows, c.Rounds, c.PromisingP, c.TooNoisy}
	}
	if b := r.Budget; b != nil {
		j.Budget = &jsonBudget{Count: b.Count, Fewer: b.Fewer, More: b.More, CannotSee: []jsonUnseen{}}
		for _, u := range b.CannotSee {
			j.Budget.CannotSee = append(j.Budget.CannotSee, jsonUnseen{u.Package, u.Name, u.Noise, u.MDE, u.Threshold})
		}
	}
	if e := r.Explain; e != nil {
		j.Explain = &jsonExplained{e.Instructions, e.Profiled, e.Allocs, e.CPU, sec(e.Elapsed), e.Kept, e.Cancelled, e.Skipped, e.Merged, []jsonExplainProblem{}}
		for _, p := range e.Problems {
			j.Explain.Problems = append(j.Explain.Problems, jsonExplainProblem{p.Bench, string(p.Step), p.Err})
		}
	}
	return j
}
