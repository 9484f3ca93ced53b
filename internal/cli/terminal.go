package cli

import (
	"io"
	"os"
	"strconv"

	"github.com/benchgate/benchgate/internal/report"
)

// terminal returns the text report's options for w: colour when w is a
// terminal and NO_COLOR is unset or empty (no-color.org), and the brief
// report; the width of COLUMNS when it is set, else the terminal's; no
// limit, no colour and the whole report for a file or a pipe.
func terminal(w io.Writer, getenv func(string) string) report.TextOptions {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var opt report.TextOptions
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			opt = report.TextOptions{Color: getenv("NO_COLOR") == "", Width: termWidth(f), Brief: true}
		}
	}
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 0 {
		opt.Width = n
	}
	return opt
}
