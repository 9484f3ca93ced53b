package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/shard"
)

// compare judges two existing benchfmt files, or a run's --out directory
// (pipeline.Compare, pipeline.CompareDir).
func (a *app) compare() int {
	j, err := a.judging()
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	var o pipeline.Outcome
	if dir := a.cfg.CompareDir; dir != "" {
		if fi, err := os.Stat(a.path(dir)); err != nil || !fi.IsDir() {
			return a.errorf(ExitUsage, "compare: %s is not a directory: give two files, BASE.txt and HEAD.txt, or a run's --out directory", dir)
		}
		o, err = pipeline.CompareDir(a.path(dir), dir, j)
	} else {
		var files [2]pipeline.File
		for i, name := range a.cfg.Files {
			data, err := readInput(a.path(name))
			if err != nil {
				return a.errorf(ExitUsage, "compare: cannot read %s: %v", name, unwrapPath(err))
			}
			files[i] = pipeline.File{Name: name, Data: data}
		}
		if o, err = pipeline.Compare(files, j); err == nil {
			if msg := disjoint(o.Verdict, a.cfg.Files); msg != "" {
				return a.errorf(ExitUsage, "%s", msg)
			}
		}
	}
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	return a.conclude(o.Verdict, o.Record, dest{json: a.cfg.JSON, markdown: a.cfg.Markdown}).code
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
