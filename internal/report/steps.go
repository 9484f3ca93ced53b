package report

import (
	"fmt"
	"time"

	"github.com/benchgate/benchgate/internal/english"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/pipeline"
)

// StepLines words a step of a run for its lines on stderr (without the
// "benchgate: " its caller puts first); warn says it is a warning, shown
// also when progress is not (--quiet). None: nothing worth a line.
func StepLines(s pipeline.Step) (lines []string, warn bool) {
	switch s := s.(type) {
	case pipeline.StepBudget:
		b := s.Budget
		lines = append(lines, fmt.Sprintf("ledger: %d benchmark(s) screened in fewer rounds than --count %d (quiet), %d in more (noisy)", b.Fewer, b.Count, b.More))
		for _, u := range b.CannotSee {
			lines = append(lines, fmt.Sprintf("ledger: %s cannot see %.1f%% here (recorded noise %.1f%% per round)", u.Name, 100*u.Threshold, 100*u.Noise))
		}
		return lines, false
	}
	if line, warn := stepLine(s); line != "" {
		return []string{line}, warn
	}
	return nil, false
}

// stepLine is the one line of a step.
func stepLine(s pipeline.Step) (line string, warn bool) {
	switch s := s.(type) {
	case pipeline.StepAffected:
		return "--packages affected: " + s.Selection.Summary, false
	case pipeline.StepStart:
		return fmt.Sprintf("base %s (%s), head %s (%s), seed %d", s.Base.Label, gitrev.Short(s.Base.SHA), s.Head.Label, gitrev.Short(s.Head.SHA), s.Seed), false
	case pipeline.StepToolchains:
		if w := goWarning(s.Base, s.Head); w != "" {
			return "warning: " + w, true
		}
	case pipeline.StepShard:
		return fmt.Sprintf("shard %s: %d of %d benchmarks", s.Shard, s.Mine, s.All), false
	case pipeline.StepCountAdvice:
		return "note: " + WarningText(s.Warning), false
	case pipeline.StepAdaptive:
		p := s.Plan
		return fmt.Sprintf("--max-time %s: one round takes about %s; up to %d rounds, checked after rounds %v", p.MaxTime, p.Round.Round(time.Millisecond), p.MaxRounds, p.Looks), false
	case pipeline.StepConfirm:
		return fmt.Sprintf("re-running %s that looked like a change, with up to %d fresh interleaved rounds", english.Plural(s.Rows, "time row", "time rows"), s.Fresh), false
	case pipeline.StepExplain:
		return fmt.Sprintf("explaining %d changed benchmark(s): allocation profiles of %d, CPU profiles of %d", s.Benchmarks, s.Allocs, s.CPU), false
	case pipeline.StepCancelled:
		return fmt.Sprintf("cancelled after %d of %d rounds; writing a partial report", s.Cancelled.Rounds, s.Cancelled.Of), true
	}
	return "", false
}

// StageTitle is the title of the stage of the run that step s starts
// (a group of the log under GitHub Actions: runner.Stage); "" when s
// starts none.
func StageTitle(s pipeline.Step) string {
	switch s.(type) {
	case pipeline.StepConfirm:
		return "Re-measuring the rows that may have changed"
	case pipeline.StepExplain:
		return "Explaining the changes"
	}
	return ""
}
