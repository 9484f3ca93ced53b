package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/benchgate/benchgate/internal/stats"
)

// merge combines shard results (each an --out directory of `run --shard`)
// into one verdict: one set of statistics, so suite-wide error control
// spans every shard. A missing, incomplete or inconsistent shard fails the
// verdict; it never passes silently.
func (a *app) merge() int {
	code, _ := a.mergeDirs(a.cfg.MergeDirs)
	return code
}

func (a *app) mergeDirs(dirs []string) (int, *gate.Verdict) {
	var manifests []shard.Manifest
	var raw, confirm [2]bytes.Buffer
	var failures []gate.Failure
	for _, dir := range dirs {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(a.env.Dir, dir)
		}
		m, err := shard.Read(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return a.errorf(ExitUsage, "merge: %s has no %s: not the --out directory of `benchgate run --shard`", dir, shard.FileName), nil
		}
		if err != nil {
			return a.errorf(ExitUsage, "merge: %s: %v", dir, oneLine(err)), nil
		}
		manifests = append(manifests, m)
		for i, name := range []string{"base.txt", "head.txt"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				if m.Complete {
					return a.errorf(ExitUsage, "merge: shard %s: %v", m.Shard, errors.Unwrap(err)), nil
				}
				continue
			}
			// Each shard's part is checked on its own first, so that
			// errors name the shard's file and line.
			raw[i].Write(b)
			raw[i].WriteByte('\n')
		}
		// A shard that confirmed its time regressions (a 1/1 shard: the
		// whole suite) left the re-run beside its raw files.
		for i, name := range []string{"confirm-base.txt", "confirm-head.txt"} {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				confirm[i].Write(b)
				confirm[i].WriteByte('\n')
			}
		}
		if b, err := os.ReadFile(filepath.Join(dir, FailuresFile)); err == nil {
			var fs []gate.Failure
			if err := json.Unmarshal(b, &fs); err != nil {
				return a.errorf(ExitUsage, "merge: %s: %v", filepath.Join(dir, FailuresFile), err), nil
			}
			failures = append(failures, fs...)
		}
	}
	missing, problems := shard.CheckCoverage(manifests)
	sort.Strings(missing)

	in := [2]stats.Input{{Name: "merged base.txt", R: &raw[0]}, {Name: "merged head.txt", R: &raw[1]}}
	var v gate.Verdict
	if raw[0].Len() == 0 && raw[1].Len() == 0 {
		v = gate.Judge(nil, failures, a.policy())
	} else {
		vp, err := a.verdict(in, failures)
		if err != nil {
			return a.errorf(ExitUsage, "merge: %v", oneLine(err)), nil
		}
		v = *vp
	}
	if confirm[0].Len() > 0 && confirm[1].Len() > 0 {
		second, err := a.verdict([2]stats.Input{{Name: "merged confirm-base.txt", R: &confirm[0]}, {Name: "merged confirm-head.txt", R: &confirm[1]}}, nil)
		if err != nil {
			return a.errorf(ExitUsage, "merge: %v", oneLine(err)), nil
		}
		v = gate.Confirm(v, *second)
	}
	meta := report.Meta{}
	if len(manifests) > 0 {
		meta.BaseSHA, meta.HeadSHA = manifests[0].BaseSHA, manifests[0].HeadSHA
		meta.BaseRef, meta.HeadRef = short(meta.BaseSHA), short(meta.HeadSHA)
		meta.Count = manifests[0].Rounds
		a.trustedCommits(&meta, manifests)
		a.noteToolchains(&meta, [2]string{manifests[0].BaseGo, manifests[0].HeadGo})
	}
	meta.Notes = append(meta.Notes, fmt.Sprintf("merged %d shard(s): %s", len(manifests), shardList(manifests)))
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
	return a.conclude(v, meta)
}

func shardList(ms []shard.Manifest) string {
	var parts []string
	for _, m := range ms {
		state := "complete"
		if !m.Complete {
			state = "incomplete"
		}
		parts = append(parts, fmt.Sprintf("%s (%d benchmarks, %s)", m.Shard, len(m.Assigned), state))
	}
	return strings.Join(parts, ", ")
}
