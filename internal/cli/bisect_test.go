package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/bisect"
	"github.com/benchgate/benchgate/internal/gate"
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
