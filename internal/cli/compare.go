package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/benchgate/benchgate/internal/stats"
)

// compare judges two existing benchfmt files, or a run's --out directory.
func (a *app) compare() int {
	if a.cfg.CompareDir != "" {
		return a.compareDir(a.cfg.CompareDir)
	}
	var in [2]stats.Input
	var mach *machine.Info // what the base file records
	for i, name := range a.cfg.Files {
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(a.env.Dir, path)
		}
		data, err := readInput(path)
		if err != nil {
			return a.errorf(ExitUsage, "compare: cannot read %s: %v", name, unwrapPath(err))
		}
		f, lines, err := pipeline.Decode(pipeline.File{Name: name, Data: data})
		if err != nil {
			return a.errorf(ExitUsage, "compare: %v", err)
		}
		in[i] = stats.Input{Name: name, R: bytes.NewReader(f.Data), Lines: lines}
		if m, ok := machine.Read(f.Data); ok && i == 0 {
			mach = &m
		}
	}
	meta := report.Meta{RawBase: a.cfg.Files[0], RawHead: a.cfg.Files[1], BaseRef: a.cfg.Files[0], HeadRef: a.cfg.Files[1]}
	meta.Run.Machine = mach
	r, err := a.fileRules()
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	v, err := a.flags().Judge(r).Verdict(in, nil)
	if err != nil {
		return a.errorf(ExitUsage, "%v", pipeline.OneLine(err))
	}
	if msg := disjoint(*v, a.cfg.Files); msg != "" {
		return a.errorf(ExitUsage, "%s", msg)
	}
	meta.Policy = r.Info(*v)
	return a.conclude(*v, meta, dest{json: a.cfg.JSON, markdown: a.cfg.Markdown}).code
}

// disjoint says, when the two files share no benchmark, that there is
// nothing to compare: every row would be new or removed, and the gate
// would pass having compared nothing. "" when they share one.
func disjoint(v gate.Verdict, files [2]string) string {
	var only [2][]string
	seen := map[string]bool{}
	for _, r := range v.Results {
		if r.Base != nil && r.Head != nil {
			return ""
		}
		side := 0
		if r.Base == nil {
			side = 1
		}
		name := r.Name
		if r.Package != "" {
			name = r.Package + "." + name
		}
		if !seen[name] {
			seen[name] = true
			only[side] = append(only[side], name)
		}
	}
	if len(v.Results) == 0 {
		return ""
	}
	example := func(names []string) string {
		switch len(names) {
		case 0:
			return "none"
		case 1:
			return report.Visible(names[0])
		}
		return fmt.Sprintf("%s and %d more", report.Visible(names[0]), len(names)-1)
	}
	return fmt.Sprintf("compare: %s and %s have no benchmark in common (%s: %s; %s: %s): nothing to compare; give the output of the same benchmarks, with the same -cpu suffixes and pkg: lines",
		files[0], files[1], files[0], example(only[0]), files[1], example(only[1]))
}

// compareDir judges the raw files a run kept in dir (--out) as the run
// judged them: the screen, the confirmation's files and failures, and the
// rules it kept in judge.json (the policy file in force and the
// acceptances), unless --policy or --accept are given.
func (a *app) compareDir(dir string) int {
	path := a.path(dir)
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		return a.errorf(ExitUsage, "compare: %s is not a directory: give two files, BASE.txt and HEAD.txt, or a run's --out directory", dir)
	}
	in, err := pipeline.ReadDir(path, dir)
	if err != nil {
		return a.errorf(ExitUsage, "compare: %v", pipeline.OneLine(err))
	}
	r, err := a.fileRules()
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	if !a.cfg.Given["policy"] && !a.cfg.Given["accept"] {
		rec := filepath.Join(path, pipeline.JudgeFile)
		data, err := pipeline.ReadKept(rec)
		if err != nil {
			return a.errorf(ExitUsage, "compare: %v", err)
		}
		if data != nil {
			if r, err = pipeline.RecordRules(filepath.Join(dir, pipeline.JudgeFile), data); err != nil {
				return a.errorf(ExitUsage, "compare: %v", pipeline.OneLine(err))
			}
		}
	}
	v, err := a.flags().Judge(r).Raw(in)
	if err != nil {
		return a.errorf(ExitUsage, "%v", pipeline.OneLine(err))
	}
	meta := report.Meta{RawDir: dir, BaseRef: in.Screen[0].Name, HeadRef: in.Screen[1].Name}
	if m, ok := machine.Read(in.Screen[0].Data); ok {
		meta.Run.Machine = &m
	}
	meta.Policy = r.Info(*v)
	return a.conclude(*v, meta, dest{json: a.cfg.JSON, markdown: a.cfg.Markdown}).code
}

// readInput reads a file of results to compare, at most shard.MaxRawSize
// bytes (a pipe too: compare <(go test -bench .) ...).
func readInput(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, shard.MaxRawSize+1))
	if err == nil && len(data) > shard.MaxRawSize {
		err = &shard.TooLargeError{Limit: shard.MaxRawSize}
	}
	return data, err
}
