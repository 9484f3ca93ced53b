package report

import (
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/affected"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/google/go-cmp/cmp"
)

// Each step of a run is worded for stderr: progress, or a warning that
// --quiet does not hide; toolchains that agree and an empty budget say
// what they are, a step of nothing says nothing.
func TestStepLines(t *testing.T) {
	for _, c := range []struct {
		step pipeline.Step
		want []string
		warn bool
	}{
		{pipeline.StepAffected{Selection: &affected.Selection{Summary: "1 of 3 packages affected by 1 changed file"}}, []string{"--packages affected: 1 of 3 packages affected by 1 changed file"}, false},
		{pipeline.StepStart{Base: pipeline.Rev{SHA: "0123456789abcdef", Label: "main"}, Head: pipeline.Rev{SHA: "fedcba9876543210", Label: "HEAD"}, Seed: 7},
			[]string{"base main (0123456789ab), head HEAD (fedcba987654), seed 7"}, false},
		{pipeline.StepToolchains{Base: "go1.26.8", Head: "go1.26.8"}, nil, false},
		{pipeline.StepToolchains{Base: "go1.26.8", Head: "go1.27.0"}, []string{"warning: " + goWarning("go1.26.8", "go1.27.0")}, true},
		{pipeline.StepShard{Shard: shard.Spec{Index: 2, Count: 4}, Mine: 3, All: 11}, []string{"shard 2/4: 3 of 11 benchmarks"}, false},
		{pipeline.StepAdaptive{Plan: pipeline.AdaptivePlan{MaxTime: time.Minute, Round: 1500 * time.Microsecond, MaxRounds: 40, Looks: []int{5, 40}}},
			[]string{"--max-time 1m0s: one round takes about 2ms; up to 40 rounds, checked after rounds [5 40]"}, false},
		{pipeline.StepBudget{Budget: pipeline.Budget{Count: 10, Fewer: 2, More: 1, CannotSee: []gate.Unseen{{Name: "Noisy-2", Threshold: 0.05, Noise: 0.3}}}},
			[]string{"ledger: 2 benchmark(s) screened in fewer rounds than --count 10 (quiet), 1 in more (noisy)", "ledger: Noisy-2 cannot see 5.0% here (recorded noise 30.0% per round)"}, false},
		{pipeline.StepConfirm{Rows: 1, Fresh: 38}, []string{"re-running 1 time row that looked like a change, with up to 38 fresh interleaved rounds"}, false},
		{pipeline.StepExplain{Benchmarks: 2, Allocs: 1, CPU: 1}, []string{"explaining 2 changed benchmark(s): allocation profiles of 1, CPU profiles of 1"}, false},
		{pipeline.StepCancelled{Cancelled: pipeline.Cancelled{Rounds: 3, Of: 10}}, []string{"cancelled after 3 of 10 rounds; writing a partial report"}, true},
	} {
		got, warn := StepLines(c.step)
		if diff := cmp.Diff(c.want, got); diff != "" || warn != c.warn {
			t.Errorf("%T: warn %v (want %v), lines (-want +got):\n%s", c.step, warn, c.warn, diff)
		}
	}
}
