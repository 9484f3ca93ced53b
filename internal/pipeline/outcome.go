package pipeline

import (
	"github.com/benchgate/benchgate/internal/affected"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/sandbox"
	"github.com/benchgate/benchgate/internal/shard"
)

// An Outcome is what a run, a compare or a merge gives for the report:
// the verdict, its Record, and where the raw files are.
type Outcome struct {
	Verdict gate.Verdict
	Record  Record
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
	// A merge's: the shards, their coverage, their machines when they
	// differ, the commits of an artifact.
	merged   []shard.Manifest
	coverage *shard.Coverage
	machines []ShardMachine
	artifact *ArtifactCommit
}

// record is the Record of a run, a compare or a merge: the plan's commits
// and settings, the runner's result res (nil when nothing was built) and
// the facts f the stages returned, for the verdict v. It is the one place
// that writes the report's input.
func record(p Plan, res *runner.Result, v gate.Verdict, f facts) Record {
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
	rec := Record{
		BaseRef: p.Base.Label, HeadRef: p.Head.Label, BaseSHA: p.Base.SHA, HeadSHA: p.Head.SHA,
		Count: count, Benchtime: p.Runner.Benchtime, Seed: p.Seed,
		RawBase: f.raw[0], RawHead: f.raw[1], RawDir: f.raw[2],
		Partial: cancelled != nil,
		BaseGo:  f.toolchains[0], HeadGo: f.toolchains[1],
		Explain: f.whys,
		Policy:  f.rules.Info(v),
		Run: Facts{
			PGO:          f.pgo,
			Policy:       f.rules.Notes(),
			Unclosed:     f.unclosed,
			Machine:      f.machine,
			Affected:     f.sel,
			CountAdvice:  f.advice,
			Adaptive:     f.adaptive,
			Budget:       f.budget,
			Lane:         f.lane,
			Cancelled:    cancelled,
			Confirmation: f.confirmed.Confirmation,
			Explain:      f.explained,
			Merged:       f.merged,
			Coverage:     f.coverage,
			Machines:     f.machines,
			Artifact:     f.artifact,
		},
	}
	if f.manifest != nil && p.Shard.Count > 1 {
		rec.Run.Shard = f.manifest
	}
	if res != nil {
		rec.Run.Skipped = res.Skipped
		rec.Run.SameBinary = res.SamePackages
		// The time the run took, taken last: the confirmation's fresh
		// rounds and the explain pass's processes are part of what it
		// cost.
		rec.Run.Timing = &Timing{Runner: res, Screen: f.screen}
		if e := f.explained; e != nil {
			rec.Run.Timing.Explain = e.Elapsed
		}
	}
	return rec
}
