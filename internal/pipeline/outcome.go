package pipeline

import (
	"github.com/benchgate/benchgate/internal/affected"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/sandbox"
)

// An Outcome is what a run gives for the report: the verdict and its
// record (the run's facts, the explanations, the policy in force), and
// where the raw files are.
type Outcome struct {
	Verdict gate.Verdict
	Meta    report.Meta
	// Raw is the directory of the raw files ("" when none were
	// written); Kept says it is the user's --out, kept anyway.
	Raw  string
	Kept bool
}

// facts are the values the stages returned, for record.
type facts struct {
	rules    *Rules
	unclosed []sandbox.Open
	pgo      []string
	sel      *affected.Selection
	raw      [3]string // base.txt, head.txt and their directory, when kept (--out)
	measured
	judged
	// A merge's: the shards, their problems and the notes about the
	// commits an artifact's report names.
	merged   []report.MergedShard
	warnings []string
	notes    []string
}

// record is the report's input of a run: the plan's commits and
// settings, the runner's result res (nil when nothing was built) and the
// facts f the stages returned, for the verdict v. It is the one place
// that writes the report's input.
func record(p Plan, res *runner.Result, v gate.Verdict, f facts) report.Meta {
	count := p.Runner.Count
	switch {
	case !p.Time:
		count = 0 // no timed rounds
	case f.adaptive != nil:
		count = f.rounds
	}
	cancelled := f.cancelled
	if c := f.confirmed.Cancelled; c != nil {
		cancelled = c
	}
	m := report.Meta{
		BaseRef: p.Base.Label, HeadRef: p.Head.Label, BaseSHA: p.Base.SHA, HeadSHA: p.Head.SHA,
		Count: count, Benchtime: p.Runner.Benchtime, Seed: p.Seed,
		RawBase: f.raw[0], RawHead: f.raw[1], RawDir: f.raw[2],
		Partial: cancelled != nil,
		BaseGo:  f.toolchains[0], HeadGo: f.toolchains[1],
		Notes: f.notes, Warnings: f.warnings,
		Explain: f.whys,
		Policy:  f.rules.Info(v),
		Run: report.Run{
			PGO:          f.pgo,
			Policy:       f.rules.Notes(),
			Machine:      f.machine,
			Affected:     affectedFacts(f.sel),
			CountAdvice:  f.advice,
			Adaptive:     f.adaptive,
			Lane:         f.lane.Facts,
			Cancelled:    cancelled,
			Confirmation: f.confirmed.Confirmation,
			Explain:      f.explained,
			Merged:       f.merged,
		},
	}
	for _, u := range f.unclosed {
		m.Run.Unclosed = append(m.Run.Unclosed, report.Named{Name: u.Path, Reason: u.Reason})
	}
	if f.manifest != nil && p.Shard.Count > 1 {
		m.Run.Shard = &report.ShardPart{Shard: p.Shard.String(), Assigned: len(f.manifest.Assigned), All: len(f.manifest.All)}
	}
	if res != nil {
		m.Run.Skipped = res.Skipped
		// The time the run took, taken last: the confirmation's fresh
		// rounds and the explain pass's processes are part of what it
		// cost.
		m.Run.Timing = &report.Timing{Elapsed: res.Elapsed, Build: res.BuildTime, Processes: res.ProcessTime, Counted: res.RunTime, Count: res.Processes,
			Calibrate: res.DiscoverTime, Warmup: res.WarmupTime, Screen: f.screen, Confirm: res.MeasureTime - f.screen, Work: res.Work}
		if e := f.explained; e != nil {
			m.Run.Timing.Explain = e.Elapsed
		}
	}
	return m
}

// affectedFacts is the selection for the report.
func affectedFacts(sel *affected.Selection) *report.Affected {
	if sel == nil {
		return nil
	}
	a := &report.Affected{Summary: sel.Summary}
	for _, e := range sel.Skipped {
		a.Skipped = append(a.Skipped, report.Named{Name: e.Name, Reason: e.Reason})
	}
	for _, e := range sel.Ignored {
		a.Ignored = append(a.Ignored, report.Named{Name: e.Name, Reason: e.Reason})
	}
	return a
}
