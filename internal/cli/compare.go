package cli

import (
	"errors"
	"os"

	"github.com/benchgate/benchgate/internal/pipeline"
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
			data, err := os.ReadFile(a.path(name))
			if err != nil {
				return a.errorf(ExitUsage, "compare: cannot read %s: %v", name, errors.Unwrap(err))
			}
			files[i] = pipeline.File{Name: name, Data: data}
		}
		o, err = pipeline.Compare(files, j)
	}
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	return a.conclude(o.Verdict, o.Record, dest{json: a.cfg.JSON, markdown: a.cfg.Markdown}).code
}
