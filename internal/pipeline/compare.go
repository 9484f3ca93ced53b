package pipeline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/benchgate/benchgate/internal/stats"
)

// Judging is how compare and merge judge files they did not measure: the
// flags' policy and the rules of the policy file and --accept
// (FileRules). Given says the user named those (--policy, --accept): they
// then replace the rules a run's directory kept (judge.json).
type Judging struct {
	Flags Flags
	Rules *Rules
	Given bool
}

// Compare judges two benchfmt files (text, or go test -json streams),
// base and head, named as the user gave them. Every error is the user's
// input.
func Compare(files [2]File, j Judging) (Outcome, error) {
	var in [2]stats.Input
	f := facts{rules: j.Rules, raw: [3]string{files[0].Name, files[1].Name, ""}}
	for i, file := range files {
		text, lines, err := decode(file)
		if err != nil {
			return Outcome{}, inputErr(fmt.Errorf("compare: %v", err))
		}
		in[i] = stats.Input{Name: file.Name, R: bytes.NewReader(text.Data), Lines: lines}
		if m, ok := machine.Read(text.Data); ok && i == 0 {
			f.machine = &m
		}
	}
	v, err := j.Flags.Judge(j.Rules).Verdict(in, nil)
	if err != nil {
		return Outcome{}, inputErr(errors.New(OneLine(err)))
	}
	p := Plan{Base: Rev{Label: files[0].Name}, Head: Rev{Label: files[1].Name}}
	return Outcome{Verdict: *v, Record: record(p, nil, *v, f)}, nil
}

// CompareDir judges the raw files a run kept in dir (named shown, as the
// user gave it) as the run judged them: the screen, the confirmation's
// files and failures, and the rules the run kept in judge.json unless
// j.Given. Every error is the user's input.
func CompareDir(dir, shown string, j Judging) (Outcome, error) {
	in, err := ReadDir(dir, shown)
	if err != nil {
		return Outcome{}, inputErr(fmt.Errorf("compare: %v", OneLine(err)))
	}
	rules := j.Rules
	if !j.Given {
		data, err := readKept(filepath.Join(dir, judgeFileName))
		if err != nil {
			return Outcome{}, inputErr(fmt.Errorf("compare: %v", err))
		}
		if data != nil {
			if rules, err = readJudgeFile(filepath.Join(shown, judgeFileName), data); err != nil {
				return Outcome{}, inputErr(fmt.Errorf("compare: %v", OneLine(err)))
			}
		}
	}
	v, err := j.Flags.Judge(rules).Raw(in)
	if err != nil {
		return Outcome{}, inputErr(errors.New(OneLine(err)))
	}
	f := facts{rules: rules, raw: [3]string{"", "", shown}}
	if m, ok := machine.Read(in.Screen[0].Data); ok {
		f.machine = &m
	}
	p := Plan{Base: Rev{Label: in.Screen[0].Name}, Head: Rev{Label: in.Screen[1].Name}}
	return Outcome{Verdict: *v, Record: record(p, nil, *v, f)}, nil
}

// Artifact says that the shards' directories are another run's artifact
// (a workflow_run job), which the pull request's code may have written:
// the report names the commit the event names, HeadSHA ("" when the event
// could not be read), never the manifests' claims, and no base, which
// nothing trusted names.
type Artifact struct{ HeadSHA string }

// Merge judges the shards' --out directories (of `run --shard`) together:
// one set of statistics, so that suite-wide error control spans every
// shard, with the shards' confirmations and explanations. Shards that do
// not cover the suite (one missing, incomplete or inconsistent) fail the
// verdict (gate.Incomplete); they never pass silently. artifact, when
// set, says which commit the report may name. Every error is the user's
// input.
func Merge(dirs []string, j Judging, artifact *Artifact) (Outcome, error) {
	var manifests []shard.Manifest
	var raw, confirm [2]bytes.Buffer
	var failures, confirmFailures []gate.Failure
	var whys []explain.Why
	var machines []ShardMachine
	var same []stats.Key
	for _, dir := range dirs {
		sd, err := shard.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) && sd.Manifest.Shard.IsZero() {
			return Outcome{}, inputErr(fmt.Errorf("merge: %s has no %s: not the --out directory of `benchgate run --shard`", dir, shard.FileName))
		}
		if err != nil {
			return Outcome{}, inputErr(fmt.Errorf("merge: %s: %v", dir, OneLine(err)))
		}
		manifests = append(manifests, sd.Manifest)
		for i := range 2 {
			// Each shard's part is checked on its own first, so that
			// errors name the shard's file and line.
			if sd.Raw[i] != nil {
				f, _, err := decode(File{Name: filepath.Join(dir, []string{shard.BaseFile, shard.HeadFile}[i]), Data: sd.Raw[i]})
				if err != nil {
					return Outcome{}, inputErr(fmt.Errorf("merge: %v", err))
				}
				if m, ok := machine.Read(f.Data); ok && i == 0 {
					machines = append(machines, ShardMachine{sd.Manifest.Shard.String(), m})
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
			var ws []explain.Why
			if err := json.Unmarshal(sd.Explain, &ws); err != nil {
				return Outcome{}, inputErr(fmt.Errorf("merge: %s: %v", filepath.Join(dir, shard.ExplainFile), err))
			}
			whys = append(whys, ws...)
		}
		// Every shard lists the packages of identical binaries: their
		// rows once.
		sames, err := readSame(dir, dir)
		if err != nil {
			return Outcome{}, inputErr(fmt.Errorf("merge: %v", OneLine(err)))
		}
		for _, k := range sames {
			if !slices.Contains(same, k) {
				same = append(same, k)
			}
		}
		cf, err := readFailures(dir, dir, ConfirmFailuresFile)
		if err != nil {
			return Outcome{}, inputErr(fmt.Errorf("merge: %v", OneLine(err)))
		}
		confirmFailures = append(confirmFailures, cf...)
		fs, err := failuresOf(filepath.Join(dir, shard.FailuresFile), sd.Failures)
		if err != nil {
			return Outcome{}, inputErr(fmt.Errorf("merge: %v", err))
		}
		failures = append(failures, fs...)
	}
	in := Raw{
		Screen:   [2]File{{Name: "merged base.txt", Data: raw[0].Bytes()}, {Name: "merged head.txt", Data: raw[1].Bytes()}},
		Failures: failures,
		Same:     same,
	}
	if confirm[0].Len() > 0 || confirm[1].Len() > 0 {
		err := in.WithConfirm([2]File{{Name: "merged confirm-base.txt", Data: confirm[0].Bytes()}, {Name: "merged confirm-head.txt", Data: confirm[1].Bytes()}}, confirmFailures)
		if err != nil {
			return Outcome{}, inputErr(fmt.Errorf("merge: %v", OneLine(err)))
		}
	}
	vp, err := j.Flags.Judge(j.Rules).Raw(in)
	if err != nil {
		return Outcome{}, inputErr(fmt.Errorf("merge: %v", OneLine(err)))
	}
	v := *vp
	var p Plan
	f := facts{rules: j.Rules}
	if len(manifests) > 0 {
		m := manifests[0]
		p.Base, p.Head = Rev{m.BaseSHA, gitrev.Short(m.BaseSHA)}, Rev{m.HeadSHA, gitrev.Short(m.HeadSHA)}
		p.Time, p.Runner.Count = true, m.Rounds
		f.toolchains = [2]string{runner.CleanGoVersion(m.BaseGo), runner.CleanGoVersion(m.HeadGo)}
		if artifact != nil {
			// A pull_request run measures GitHub's test merge commit and
			// records the pull request's head beside it; other runs
			// measure the head itself.
			f.artifact = &ArtifactCommit{Event: artifact.HeadSHA, Claimed: cmp.Or(m.PRHeadSHA, m.HeadSHA)}
			p.Base, p.Head = Rev{}, Rev{artifact.HeadSHA, gitrev.Short(artifact.HeadSHA)}
		}
	}
	f.merged = manifests
	if len(machines) > 0 {
		f.machine = &machines[0].Info
	}
	if machinesDiffer(machines) {
		f.machines = machines
	}
	if f.whys = mergedExplain(v, whys); len(f.whys) > 0 {
		f.explained = &Explained{Merged: len(f.whys)}
	}
	if c := shard.CheckCoverage(manifests); !c.Complete() {
		v = gate.Incomplete(v, len(c.Missing))
		f.coverage = &c
	}
	return Outcome{Verdict: v, Record: record(p, nil, v, f)}, nil
}

// mergedExplain keeps the shards' explanations of the rows that the merged
// verdict flags (allocation and instruction rows that changed, time
// regressions that held), once each; their commands name the shards'
// files, which merge does not have, and are dropped. The explanations come
// from the shards' directories (in the fork recipe, artifacts): every
// string in them reaches the report as untrusted text, as a profile's do.
func mergedExplain(v gate.Verdict, whys []explain.Why) []explain.Why {
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
	var out []explain.Why
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

// machinesDiffer reports whether the shards ran on different kinds of
// machine (machine.Same: CPU model, cores, architecture level): each
// shard's rows compare base with head on one machine, but the suite's
// figures, its noise and any history fed from them mix machines.
func machinesDiffer(ms []ShardMachine) bool {
	for _, m := range ms[min(1, len(ms)):] {
		if !machine.Same(ms[0].Info, m.Info) {
			return true
		}
	}
	return false
}
