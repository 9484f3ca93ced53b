package cli

import (
	"fmt"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/pipeline"
)

// merge combines shard results (each an --out directory of `run --shard`)
// into one verdict (pipeline.Merge).
func (a *app) merge() int {
	return a.mergeDirs(a.cfg.MergeDirs, dest{json: a.cfg.JSON, markdown: a.cfg.Markdown}, trust{}).code
}

// mergeDirs judges the shards' directories together and writes the
// reports to d; t says which commits the report may name (trust.go).
func (a *app) mergeDirs(dirs []string, d dest, t trust) outcome {
	abs := make([]string, len(dirs))
	for i, dir := range dirs {
		abs[i] = a.path(dir)
	}
	j, err := a.judging()
	if err != nil {
		return a.failf(ExitUsage, "%v", err)
	}
	o, err := pipeline.Merge(abs, j, t.artifact())
	if err != nil {
		return a.failf(ExitUsage, "%v", err)
	}
	a.step(pipeline.StepToolchains{Base: o.Record.BaseGo, Head: o.Record.HeadGo})
	for _, w := range o.Verdict.Warnings {
		if w.Code == gate.WarnShardsIncomplete {
			fmt.Fprintf(a.env.Stderr, "benchgate: merge: the shards do not cover the suite; the verdict fails (see the report's warnings)\n")
		}
	}
	return a.conclude(o.Verdict, o.Record, d)
}

// judging is how compare and merge judge: the flags' policy and the
// rules of --policy (read from the file system) and --accept.
func (a *app) judging() (pipeline.Judging, error) {
	r, err := a.fileRules()
	return pipeline.Judging{Flags: a.flags(), Rules: r, Given: a.cfg.Given["policy"] || a.cfg.Given["accept"]}, err
}
