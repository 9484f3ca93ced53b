package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/english"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/shard"
)

// maxAffectedSkipped is the most skipped packages the report lists.
const maxAffectedSkipped = 20

// runLines words the run's facts, one line each, in the order a run
// learns them.
func runLines(r pipeline.Facts) []string {
	var out []string
	for _, l := range runItems(r) {
		out = append(out, Plain(l))
	}
	return out
}

// runItems are the facts' lines as spans.
func runItems(r pipeline.Facts) [][]Span {
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
		out = append(out, []Span{txt("not closed to the benchmarks' code, which can read it: "), prose(u.Path + " (" + u.Reason + ")")})
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
		add(fmt.Sprintf("shard %s: %d of %d benchmarks; the verdict comes from benchgate merge", s.Shard, len(s.Assigned), len(s.All)))
	}
	for _, s := range r.Skipped {
		out = append(out, []Span{txt("skipped "), prose(s)})
	}
	if n := len(r.SameBinary); n > 0 {
		l := line{txt("not measured: " + english.Plural(n, "package", "packages") + " whose test binaries run the same code on both sides (nothing their benchmarks run changed): ")}
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
	if a := r.Artifact; a != nil && artifactSpans(*a) != nil {
		out = append(out, artifactSpans(*a))
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
func explainProblemSpans(p pipeline.ExplainProblem) []Span {
	switch p.Step {
	case pipeline.ExplainNotProfiled:
		return []Span{txt("explain: "), prose(p.Bench), txt(" not profiled: "), prose(p.Err)}
	case pipeline.ExplainBinaries:
		return []Span{txt("explain: keeping the test binaries of "), prose(p.Bench), txt(": "), prose(p.Err)}
	default:
		return []Span{txt("explain: "), prose(p.Err)}
	}
}

func mergedText(ms []shard.Manifest) string {
	var parts []string
	for _, m := range ms {
		state := "complete"
		if !m.Complete {
			state = "incomplete"
		}
		parts = append(parts, fmt.Sprintf("%s (%d benchmarks, %s)", m.Shard, len(m.Assigned), state))
	}
	return fmt.Sprintf("merged %d shard(s): %s", len(ms), strings.Join(parts, ", "))
}

// artifactSpans says which commit the report of another run's artifact
// names, when the artifact's claim is not the event's.
func artifactSpans(a pipeline.ArtifactCommit) []Span {
	switch {
	case a.Event == "":
		return []Span{txt("the workflow_run event could not be read, so the commits are unknown: the artifact's shard.json names them, but it is not trusted")}
	case strings.EqualFold(a.Claimed, a.Event):
		return nil
	}
	claimed := gitrev.Short(a.Claimed)
	if claimed == "" {
		claimed = "(none)"
	}
	// Untrusted as a whole: the claim is the artifact's.
	return []Span{prose(fmt.Sprintf("the artifact's shard.json says its run measured commit %s, but the workflow_run event's commit is %s: "+
		"the report names the event's commit, and the results may be of another one", claimed, gitrev.Short(a.Event)))}
}

// runWarnings are the run's facts that are warnings: a merge's shards
// that do not cover the suite or ran on different machines (untrusted:
// they quote the shards' manifests).
func runWarnings(r pipeline.Facts) []string {
	var out []string
	if c := r.Coverage; c != nil {
		for _, p := range c.Problems {
			out = append(out, "shards: "+coverageText(p))
		}
		if n := len(c.Missing); n > 0 {
			out = append(out, fmt.Sprintf("shards: %d benchmark(s) measured by no shard: %s", n, strings.Join(c.Missing[:min(n, 20)], ", ")))
		}
	}
	if len(r.Machines) > 0 {
		var kinds []string
		seen := map[string]bool{}
		for _, m := range r.Machines {
			if k := m.Info.String(); !seen[k] {
				seen[k] = true
				kinds = append(kinds, "shard "+m.Shard+": "+k)
			}
		}
		out = append(out, "shards: the shards ran on different machines ("+strings.Join(kinds, "; ")+"): each benchmark compares base with head on one machine, but times across benchmarks, and any history fed from this run, mix them")
	}
	return out
}

// coverageText words a problem of a merge's shards.
func coverageText(p shard.Problem) string {
	name := "shard " + p.Shard.String()
	switch p.Code {
	case shard.NoShards:
		return "no shard results to merge"
	case shard.Disagree:
		var parts []string
		for _, g := range p.Groups {
			parts = append(parts, strings.Join(g.Shards, ", ")+": "+agreedText(p.On, g.Manifest))
		}
		return fmt.Sprintf("shards disagree on %s: %s", agreementText[p.On], strings.Join(parts, "; "))
	case shard.Missing:
		return name + " is missing: no result for it (its job failed or was cancelled, or its artifact was not downloaded)"
	case shard.Twice:
		return fmt.Sprintf("%s appears %d times", name, p.Count)
	case shard.Incomplete:
		return fmt.Sprintf("%s is incomplete: it stopped after %s (cancelled, or stopped by an error)", name, english.Plural(p.Count, "round", "rounds"))
	case shard.Lacks:
		return fmt.Sprintf("%s did not find %d of the %d benchmarks the other shards found (%s): shards must run the same benchmarks; pass --cpu explicitly, and avoid names that depend on the machine",
			name, len(p.Units), p.Of, examples(p.Units))
	case shard.Unlisted:
		return fmt.Sprintf("%s measured %s it did not list as found (%s)", name, english.Plural(len(p.Units), "benchmark", "benchmarks"), examples(p.Units))
	case shard.Shared:
		var units []string
		for _, g := range p.Shared {
			units = append(units, fmt.Sprintf("%s (%s)", g.Unit, strings.Join(g.Shards, ", ")))
		}
		return fmt.Sprintf("%s measured by more than one shard (%s): the shards computed different partitions", english.Plural(len(units), "benchmark was", "benchmarks were"), examples(units))
	case shard.Unmeasured:
		return fmt.Sprintf("%s measured by no shard although every shard reported (%s): the shards computed different partitions", english.Plural(len(p.Units), "benchmark was", "benchmarks were"), examples(p.Units))
	}
	return string(p.Code)
}

var agreementText = map[shard.Agreement]string{
	shard.OnCount: "the number of shards", shard.OnCommits: "the commits", shard.OnTool: "the tool",
	shard.OnSettings: "the settings", shard.OnToolchains: "the Go toolchains",
}

// agreedText is what manifest m says about on.
func agreedText(on shard.Agreement, m shard.Manifest) string {
	switch on {
	case shard.OnCount:
		return fmt.Sprintf("n=%d", m.Shard.Count)
	case shard.OnCommits:
		return fmt.Sprintf("base %s, head %s", gitrev.Short(m.BaseSHA), gitrev.Short(m.HeadSHA))
	case shard.OnTool:
		return fmt.Sprintf("%q", m.Tool)
	case shard.OnSettings:
		return fmt.Sprintf("%q", m.Settings)
	}
	return fmt.Sprintf("base %q, head %q", m.BaseGo, m.HeadGo)
}

// examples names up to three items and counts the rest.
func examples(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:3], ", ") + fmt.Sprintf(" and %d more", len(items)-3)
}

func explainedText(e pipeline.Explained) []string {
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

func adaptiveText(a pipeline.Adaptive) string {
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

func laneText(l pipeline.Lane) string {
	what := "the builds, calibration and timed rounds before it"
	if l.Only {
		what = "the builds and calibration before it"
	}
	res := l.Result
	per := ""
	if res.Benchmarks > 0 {
		per = fmt.Sprintf(", %s per benchmark", (res.Elapsed / time.Duration(res.Benchmarks)).Round(100*time.Millisecond))
	}
	s := fmt.Sprintf("instruction counts: %d benchmarks counted under valgrind (callgrind), %d runs per side each: %d processes, %s%s (%s: %s)",
		res.Benchmarks, l.Repeats, res.Processes, res.Elapsed.Round(100*time.Millisecond), per, what, l.Before.Round(100*time.Millisecond))
	if n := len(res.Failures); n > 0 {
		s += fmt.Sprintf("; %d unavailable", n)
	}
	return s
}

// timing is the figures of where a run's time went (pipeline.Timing:
// the runner's, split between the screen and the confirmation).
type timing struct {
	Elapsed, Build, Processes, Counted                time.Duration
	Count                                             int // benchmark processes
	Calibrate, Warmup, Screen, Confirm, Explain, Work time.Duration
}

func timingOf(t pipeline.Timing) timing {
	r := t.Runner
	return timing{Elapsed: r.Elapsed, Build: r.BuildTime, Processes: r.ProcessTime, Counted: r.RunTime, Count: r.Processes,
		Calibrate: r.DiscoverTime, Warmup: r.WarmupTime, Screen: t.Screen, Confirm: r.MeasureTime - t.Screen, Explain: t.Explain, Work: r.Work}
}

func timingText(pt pipeline.Timing) string {
	t := timingOf(pt)
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

// runJSON is r for the JSON report; nil when it holds no fact.
func runJSON(r pipeline.Facts) *jsonRun {
	if len(runItems(r)) == 0 {
		return nil
	}
	sec := func(d time.Duration) float64 { return d.Seconds() }
	j := &jsonRun{Skipped: append([]string{}, r.Skipped...), PGO: append([]string{}, r.PGO...), Policy: []jsonPolicyNote{}, Unclosed: []jsonNamed{}, Merged: []jsonMergedShard{}, Machine: r.Machine}
	j.SameBinary = r.SameBinary
	for _, m := range r.Merged {
		j.Merged = append(j.Merged, jsonMergedShard{m.Shard.String(), len(m.Assigned), m.Complete})
	}
	for _, n := range r.Policy {
		j.Policy = append(j.Policy, jsonPolicyNote{string(n.Code), n.Commit, n.File, n.Label, string(n.Off), n.Action, n.Err, n.By, n.At, n.Sender, n.Access})
	}
	for _, u := range r.Unclosed {
		j.Unclosed = append(j.Unclosed, jsonNamed{u.Path, u.Reason})
	}
	if a := r.Affected; a != nil {
		j.Affected = &jsonAffected{Summary: a.Summary, Skipped: []jsonNamed{}, Ignored: []jsonNamed{}}
		for _, e := range a.Skipped {
			j.Affected.Skipped = append(j.Affected.Skipped, jsonNamed{e.Name, e.Reason})
		}
		for _, e := range a.Ignored {
			j.Affected.Ignored = append(j.Affected.Ignored, jsonNamed{e.Name, e.Reason})
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
		j.Lane = &jsonLane{l.Result.Benchmarks, l.Repeats, l.Result.Processes, sec(l.Result.Elapsed), sec(l.Before), l.Only, len(l.Result.Failures)}
	}
	if c := r.Cancelled; c != nil {
		j.Cancelled = &jsonCancelled{c.Rounds, c.Of, c.Confirmation}
	}
	if s := r.Shard; s != nil {
		j.Shard = &jsonShardPart{s.Shard.String(), len(s.Assigned), len(s.All)}
	}
	if pt := r.Timing; pt != nil {
		t := timingOf(*pt)
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
