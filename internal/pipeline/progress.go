package pipeline

import (
	"github.com/benchgate/benchgate/internal/affected"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/shard"
)

// A Step is a moment of a run worth a line on stderr: what it is about to
// do, or has just found, as facts (report.StepLines words it; Env.Steps
// receives it). The runner's own progress lines go to Env.Progress.
type Step interface{ step() }

// The steps, in the order a run takes them.
type (
	// StepAffected is the --packages affected selection.
	StepAffected struct{ Selection *affected.Selection }
	// StepStart: base and head are about to be built and measured, in
	// orders drawn from Seed.
	StepStart struct {
		Base, Head Rev
		Seed       int64
	}
	// StepToolchains are the Go toolchains that built base and head.
	StepToolchains struct{ Base, Head string }
	// StepShard is a shard's part of the suite: Mine of All units.
	StepShard struct {
		Shard     shard.Spec
		Mine, All int
	}
	// StepCountAdvice: --count cannot reach alpha (gate.CountAdvice).
	StepCountAdvice struct{ Warning gate.Warning }
	// StepAdaptive is an adaptive time lane's plan.
	StepAdaptive struct{ Plan AdaptivePlan }
	// StepBudget: the screen's rounds are planned from the noise a
	// ledger recorded.
	StepBudget struct{ Budget Budget }
	// StepConfirm: Rows promising time rows are about to be re-run, for
	// up to Fresh rounds.
	StepConfirm struct{ Rows, Fresh int }
	// StepExplain: Benchmarks changed benchmarks are about to be
	// profiled, Allocs of them for allocations, CPU for time.
	StepExplain struct{ Benchmarks, Allocs, CPU int }
	// StepCancelled: a cancellation after the first round; the report
	// will be partial.
	StepCancelled struct{ Cancelled Cancelled }
)

func (StepAffected) step()    {}
func (StepStart) step()       {}
func (StepToolchains) step()  {}
func (StepShard) step()       {}
func (StepCountAdvice) step() {}
func (StepAdaptive) step()    {}
func (StepBudget) step()      {}
func (StepConfirm) step()     {}
func (StepExplain) step()     {}
func (StepCancelled) step()   {}

// step tells env's Steps about s, if anyone listens.
func (env Env) step(s Step) {
	if env.Steps != nil {
		env.Steps(s)
	}
}
