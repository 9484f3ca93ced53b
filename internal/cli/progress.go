package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// foldedProgress is the progress writer under GitHub Actions: its lines go
// to w, and each stage of the run (runner.Stage) is a group of the log,
// opened and closed by benchgate's own ::group:: and ::endgroup:: commands
// on the commands writer (github.Log.Commands). Text written to w never
// becomes a command: the Log stops command processing around it, so a
// benchmark that prints "::group::" opens nothing.
type foldedProgress struct {
	mu       sync.Mutex
	w        io.Writer
	commands io.Writer
	open     bool
}

func (f *foldedProgress) Write(p []byte) (int, error) { return f.w.Write(p) }

// Stage ends the open group, if any, and opens one titled title ("" opens
// none). Titles are benchgate's own words; a line break or a command's
// colons in one are dropped all the same.
func (f *foldedProgress) Stage(title string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.open {
		fmt.Fprint(f.commands, "::endgroup::\n")
		f.open = false
	}
	title = strings.Join(strings.Fields(strings.ReplaceAll(title, "::", ":")), " ")
	if title != "" {
		fmt.Fprintf(f.commands, "::group::%s\n", title)
		f.open = true
	}
}
