package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/benchgate/benchgate/internal/stats"
)

// merge combines shard results (each an --out directory of `run --shard`)
// into one verdict: one set of statistics, so suite-wide error control
// spans every shard. A missing, incomplete or inconsistent shard fails the
// verdict; it never passes silently.
func (a *app) merge() int {
	return a.mergeDirs(a.cfg.MergeDirs, dest{json: a.cfg.JSON, markdown: a.cfg.Markdown}, trust{}).code
}

// mergeDirs judges the shards' directories together and writes the
// reports to d; t says which commits the report may name (trust.go).
func (a *app) mergeDirs(dirs []string, d dest, t trust) outcome {
	var manifests []shard.Manifest
	var raw, confirm [2]bytes.Buffer
	var failures, confirmFailures []gate.Failure
	var whys []report.Why
	var machines []shardMachine
	for _, dir := range dirs {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(a.env.Dir, dir)
		}
		sd, err := shard.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) && sd.Manifest.Shard.IsZero() {
			return a.failf(ExitUsage, "merge: %s has no %s: not the --out directory of `benchgate run --shard`", dir, shard.FileName)
		}
		if err != nil {
			return a.failf(ExitUsage, "merge: %s: %v", dir, pipeline.OneLine(err))
		}
		manifests = append(manifests, sd.Manifest)
		for i := range 2 {
			// Each shard's part is checked on its own first, so that
			// errors name the shard's file and line.
			if sd.Raw[i] != nil {
				f, _, err := pipeline.Decode(pipeline.File{Name: filepath.Join(dir, []string{shard.BaseFile, shard.HeadFile}[i]), Data: sd.Raw[i]})
				if err != nil {
					return a.failf(ExitUsage, "merge: %v", err)
				}
				if m, ok := machine.Read(f.Data); ok && i == 0 {
					machines = append(machines, shardMachine{sd.Manifest.Shard.String(), m})
				}
				raw[i].Write(f.Data)
				raw[i].WriteByte('\n')
			}
			// A shard that confirmed its time regressions (a 1/1 shard:
			// the whole suite) left the re-run beside its raw files.
			if sd.Confirm[i] != nil {
				confirm[i].Write(sd.Confirm[i])
				confirm[i].WriteByte('\n')
			}
		}
		if sd.Explain != nil {
			var ws []report.Why
			if err := json.Unmarshal(sd.Explain, &ws); err != nil {
				return a.failf(ExitUsage, "merge: %s: %v", filepath.Join(dir, shard.ExplainFile), err)
			}
			whys = append(whys, ws...)
		}
		cf, err := pipeline.ReadFailures(dir, dir, pipeline.ConfirmFailuresFile)
		if err != nil {
			return a.failf(ExitUsage, "merge: %v", pipeline.OneLine(err))
		}
		confirmFailures = append(confirmFailures, cf...)
		if sd.Failures != nil {
			var fs []gate.Failure
			if err := json.Unmarshal(sd.Failures, &fs); err != nil {
				return a.failf(ExitUsage, "merge: %s: %v", filepath.Join(dir, shard.FailuresFile), err)
			}
			failures = append(failures, fs...)
		}
	}
	missing, problems := shard.CheckCoverage(manifests)
	sort.Strings(missing)

	rl, err := a.fileRules()
	if err != nil {
		return a.failf(ExitUsage, "%v", err)
	}
	in := pipeline.Raw{
		Screen:   [2]pipeline.File{{Name: "merged base.txt", Data: raw[0].Bytes()}, {Name: "merged head.txt", Data: raw[1].Bytes()}},
		Failures: failures,
	}
	if confirm[0].Len() > 0 || confirm[1].Len() > 0 {
		err := in.WithConfirm([2]pipeline.File{{Name: "merged confirm-base.txt", Data: confirm[0].Bytes()}, {Name: "merged confirm-head.txt", Data: confirm[1].Bytes()}}, confirmFailures)
		if err != nil {
			return a.failf(ExitUsage, "merge: %v", pipeline.OneLine(err))
		}
	}
	vp, err := a.flags().Judge(rl).Raw(in)
	if err != nil {
		return a.failf(ExitUsage, "merge: %v", pipeline.OneLine(err))
	}
	v := *vp
	meta := report.Meta{Policy: rl.Info(v)}
	if len(manifests) > 0 {
		meta.BaseSHA, meta.HeadSHA = manifests[0].BaseSHA, manifests[0].HeadSHA
		meta.BaseRef, meta.HeadRef = gitrev.Short(meta.BaseSHA), gitrev.Short(meta.HeadSHA)
		meta.Count = manifests[0].Rounds
		t.trustedCommits(&meta, manifests)
		meta.BaseGo, meta.HeadGo = runner.CleanGoVersion(manifests[0].BaseGo), runner.CleanGoVersion(manifests[0].HeadGo)
		if w := meta.GoWarning(); w != "" {
			fmt.Fprintf(a.env.Stderr, "benchgate: warning: %s\n", w)
		}
	}
	for _, m := range manifests {
		meta.Run.Merged = append(meta.Run.Merged, report.MergedShard{Shard: m.Shard.String(), Benchmarks: len(m.Assigned), Complete: m.Complete})
	}
	if len(machines) > 0 {
		meta.Run.Machine = &machines[0].info
	}
	if w := machinesDiffer(machines); w != "" {
		meta.Warnings = append(meta.Warnings, w)
	}
	if meta.Explain = mergedExplain(v, whys); len(meta.Explain) > 0 {
		meta.Run.Explain = &report.Explained{Merged: len(meta.Explain)}
	}
	if len(missing) > 0 || len(problems) > 0 {
		v.Pass = false
		for _, p := range problems {
			meta.Warnings = append(meta.Warnings, "shards: "+p)
		}
		if len(missing) > 0 {
			shown := missing
			if len(shown) > 20 {
				shown = shown[:20]
			}
			meta.Warnings = append(meta.Warnings, fmt.Sprintf("shards: %d benchmark(s) measured by no shard: %s", len(missing), strings.Join(shown, ", ")))
		}
		fmt.Fprintf(a.env.Stderr, "benchgate: merge: the shards do not cover the suite; the verdict fails (see the report's warnings)\n")
	}
	return a.conclude(v, meta, d)
}

// mergedExplain keeps the shards' explanations of the rows that the merged
// verdict flags (allocation and instruction rows that changed, time
// regressions that held), once each; their commands name the shards'
// files, which merge does not have, and are dropped. The explanations come
// from the shards' directories (in the fork recipe, artifacts): every
// string in them reaches the report as untrusted text, as a profile's do.
func mergedExplain(v gate.Verdict, whys []report.Why) []report.Why {
	flagged := map[stats.Key]bool{}
	for _, r := range v.Results {
		changed := r.Status == gate.Regression || r.Status == gate.Improvement
		if r.Kind == gate.Time {
			changed = r.Status == gate.Regression && (r.Confirmed == nil || *r.Confirmed)
		}
		if changed {
			flagged[stats.Key{Package: r.Package, Name: r.Name, Unit: r.Unit}] = true
		}
	}
	var out []report.Why
	for _, w := range whys {
		k := stats.Key{Package: w.Package, Name: w.Name, Unit: w.Unit}
		if !flagged[k] {
			continue
		}
		flagged[k] = false // once
		w.Command = ""
		out = append(out, w)
	}
	return out
}

// shardMachine is the machine a shard's raw files record.
type shardMachine struct {
	shard string
	info  machine.Info
}

// machinesDiffer warns when the shards ran on different kinds of machine
// (machine.Same: CPU model, cores, architecture level): each shard's
// rows compare base with head on one machine, but the suite's figures,
// its noise and any history fed from them mix machines. "" when they
// agree.
func machinesDiffer(ms []shardMachine) string {
	for _, m := range ms[min(1, len(ms)):] {
		if !machine.Same(ms[0].info, m.info) {
			var kinds []string
			seen := map[string]bool{}
			for _, x := range ms {
				k := "shard " + x.shard + ": " + x.info.String()
				if !seen[x.info.String()] {
					seen[x.info.String()] = true
					kinds = append(kinds, k)
				}
			}
			return "shards: the shards ran on different machines (" + strings.Join(kinds, "; ") + "): each benchmark compares base with head on one machine, but times across benchmarks, and any history fed from this run, mix them"
		}
	}
	return ""
}
