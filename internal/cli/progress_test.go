package cli

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/github"
	"github.com/benchgate/benchgate/internal/runner"
)

// TestFoldedProgress: under GitHub Actions the run's stages are groups of
// the log, opened and closed by benchgate's own commands (the Log resumes
// command processing around them), while progress text, including a
// benchmark's name that spells a command, stays text the runner does not
// act on.
func TestFoldedProgress(t *testing.T) {
	var log bytes.Buffer
	l := github.NewLog(&log)
	a := &app{env: Env{Stderr: l.Text()}, commands: l.Commands(), cfg: &config.Config{}}
	p := a.progress()
	runner.Stage(p, "Building the test binaries")
	fmt.Fprintln(p, "benchgate: building")
	runner.Stage(p, "Measuring\n::error::x")
	fmt.Fprintln(p, "::group::forged by a benchmark name")
	runner.Stage(p, "")
	l.Close()
	out := log.String()
	token := regexp.MustCompile(`::stop-commands::(\S+)`).FindStringSubmatch(out)
	if token == nil {
		t.Fatalf("no stop-commands:\n%s", out)
	}
	// The commands the runner acts on: the lines while processing is on.
	var acted []string
	on := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case line == "::"+token[1]+"::":
			on = true
		case strings.HasPrefix(line, "::stop-commands::"):
			on = false
		case on && line != "":
			acted = append(acted, line)
		}
	}
	want := []string{"::group::Building the test binaries", "::endgroup::", "::group::Measuring :error:x", "::endgroup::"}
	if strings.Join(acted, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands acted on:\n%s\nwant\n%s\nlog:\n%s", strings.Join(acted, "\n"), strings.Join(want, "\n"), out)
	}
	if !strings.Contains(out, "::group::forged by a benchmark name") || slices.Contains(acted, "::group::forged by a benchmark name") {
		t.Errorf("the forged group is not plain text:\n%s", out)
	}
	// Elsewhere the progress is stderr itself: no commands.
	var plain bytes.Buffer
	b := &app{env: Env{Stderr: &plain}, cfg: &config.Config{}}
	runner.Stage(b.progress(), "Measuring")
	if plain.Len() != 0 {
		t.Errorf("a stage outside GitHub Actions printed %q", plain.String())
	}
}
