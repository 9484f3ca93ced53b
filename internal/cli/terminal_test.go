package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/internal/report"
)

// A pipe or a file gets plain text without a width limit, unless COLUMNS
// says otherwise; NO_COLOR matters only on a terminal.
func TestTerminalOptions(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := terminal(&bytes.Buffer{}, env(nil)); got != (report.TextOptions{}) {
		t.Errorf("buffer: %+v", got)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := terminal(f, env(map[string]string{"COLUMNS": "90"})); got != (report.TextOptions{Width: 90}) {
		t.Errorf("file with COLUMNS=90: %+v", got)
	}
	if got := terminal(f, nil); got != (report.TextOptions{}) {
		t.Errorf("file: %+v", got)
	}
}
