package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/bisect"
	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/github/githubtest"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/benchgate/benchgate/internal/testenv"

	"github.com/google/go-cmp/cmp"
)

// TestBisectRefusesBeforeWork: a bad revision or path is one line naming
// the flag, exit 2, and nothing is built (no step is announced).
func TestBisectRefusesBeforeWork(t *testing.T) {
	env := testenv.Env(t)
	dir := filepath.Join(testenv.TempDir(t), "repo")
	testenv.Git(t, env, "", "init", "-q", "-b", "main", dir)
	commit := func(files map[string]string, msg string) {
		testenv.WriteFiles(t, dir, files)
		testenv.Git(t, env, dir, "add", "-A")
		testenv.Git(t, env, dir, "commit", "-q", "-m", msg)
	}
	commit(map[string]string{"go.mod": "module m\n"}, "one")
	testenv.Git(t, env, dir, "checkout", "-q", "-b", "side")
	commit(map[string]string{"a.txt": "a\n"}, "side")
	testenv.Git(t, env, dir, "checkout", "-q", "main")
	commit(map[string]string{"b.txt": "b\n"}, "two")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--good", "nope"}, "--good nope: "},
		{[]string{"--good", "HEAD~1", "--bad", "nope"}, "--bad nope: "},
		{[]string{"--good", "HEAD", "--bad", "main"}, "are the same commit"},
		{[]string{"--good", "side", "--bad", "main"}, "--good side --bad main: "},
		{[]string{"--good", "HEAD~1", "--resolution", "-1%"}, "--resolution"},
	} {
		var o, e bytes.Buffer
		code := Run(context.Background(), append([]string{"bisect"}, tc.args...), Env{Stdout: &o, Stderr: &e, Dir: dir, Environ: env})
		lines := strings.Split(strings.TrimSpace(e.String()), "\n")
		if code != ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], tc.want) || strings.Contains(e.String(), "step") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line with %q", tc.args, code, e.String(), tc.want)
		}
	}
}

// TestChanges: what a step's verdict tells the search.
func TestChanges(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	key := func(name, unit string) stats.Comparison {
		return stats.Comparison{Key: stats.Key{Package: "m", Name: name, Unit: unit}}
	}
	row := func(c stats.Comparison, kind gate.Kind, s gate.Status) gate.Result {
		return gate.Result{Comparison: c, Kind: kind, Status: s}
	}
	withInterval := row(key("A", "sec/op"), gate.Time, gate.Unchanged)
	withInterval.Interval = &gate.Interval{Estimate: 0.04, Low: 0.01, High: 0.07}
	noInterval := row(key("B", "sec/op"), gate.Time, gate.Inconclusive)
	noInterval.Delta = f(0.03)
	more := row(key("A", "allocs/op"), gate.Allocs, gate.Regression)
	more.Comparison.Delta = f(0.5)
	same := row(key("A", "B/op"), gate.Bytes, gate.Unchanged)
	unstable := row(key("B", "B/op"), gate.Bytes, gate.Unstable)
	fromZero := row(key("B", "allocs/op"), gate.Allocs, gate.Regression)
	rate := row(key("A", "MB/s"), gate.Other, gate.Unchanged)
	ins := row(key("C", "instructions/op"), gate.Instructions, gate.Regression)
	ins.Comparison.Delta = f(0.04)
	got := changes(gate.Verdict{Results: []gate.Result{withInterval, noInterval, more, same, unstable, fromZero, rate, ins}})
	want := []bisect.Change{
		{Key: bisect.Key{Package: "m", Benchmark: "A", Unit: "sec/op"}, Change: 0.04, Low: 0.01, High: 0.07, Known: true},
		{Key: bisect.Key{Package: "m", Benchmark: "B", Unit: "sec/op"}, Change: 0.03},
		{Key: bisect.Key{Package: "m", Benchmark: "A", Unit: "allocs/op"}, Change: 0.5, Low: 0.5, High: 0.5, Known: true},
		{Key: bisect.Key{Package: "m", Benchmark: "A", Unit: "B/op"}, Known: true},
		{Key: bisect.Key{Package: "m", Benchmark: "C", Unit: "instructions/op"}, Change: 0.04, Low: 0.04, High: 0.04, Known: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
}

// Bisect's text report prints commit subjects and benchmark names inert
// (round 3's L7: git keeps ESC in a subject, and a squash-merged title
// "##[error]x" printed in a run: step became a workflow command), and
// --json is written like every report, never through a symbolic link.
func TestBisectReportInert(t *testing.T) {
	hostile := "\x1b]0;pwned\x07\x1b[31mred ##[error]x ##[add-mask]y"
	res := &bisect.Result{Steps: 3,
		Culprits: []bisect.Culprit{{Commit: bisect.Commit{SHA: strings.Repeat("ab", 20), Subject: hostile},
			Change: bisect.Change{Key: bisect.Key{Package: "p", Benchmark: "::add-mask::Enc", Unit: "sec/op"}, Change: 0.04, Low: 0.03, High: 0.05, Known: true}}},
		Undecided: []bisect.Stretch{{From: bisect.Commit{SHA: strings.Repeat("cd", 20)}, To: bisect.Commit{SHA: strings.Repeat("ef", 20)},
			Change: bisect.Change{Key: bisect.Key{Benchmark: "##[warning]Dec", Unit: "B/op"}}}},
	}
	var out strings.Builder
	if err := writeCulprits(&out, res); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if cmds := githubtest.RunnerCommands(text); len(cmds) > 0 || strings.ContainsAny(text, "\x1b\x07") || strings.Contains(text, "##[") {
		t.Errorf("the text report carries commands %v or control characters:\n%q", cmds, text)
	}
	if !strings.Contains(text, "<U+001B>]0;pwned") || !strings.Contains(text, "# #[error]x") {
		t.Errorf("the subject is not shown inert:\n%s", text)
	}

	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "culprits.json")); err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	a := &app{env: Env{Dir: dir, Stdout: &stdout, Stderr: io.Discard, Getenv: func(string) string { return "" }}, cfg: &config.Config{JSON: "culprits.json", Good: "v1", Bad: "main"}}
	if err := a.bisectReport(res); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("--json wrote through the link: the victim holds %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "culprits.json")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("culprits.json: %v, %v; want a regular file in the link's place", fi, err)
	}
}
