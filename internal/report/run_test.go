package report

import (
	"fmt"
	"github.com/benchgate/benchgate/internal/pipeline"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/benchgate/benchgate/internal/affected"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/sandbox"
	"github.com/benchgate/benchgate/internal/shard"
)

// TestRunLines words each run fact, in the order a run learns them.
func TestRunLines(t *testing.T) {
	r := pipeline.Facts{
		Adaptive: &pipeline.Adaptive{MaxTime: time.Minute, Rounds: 6, MaxRounds: 20, Elapsed: 42 * time.Second, Looks: []int{3, 6, 20}, Decided: []pipeline.Decided{{Round: 3, Count: 2}, {Round: 6, Count: 1}}, Undecided: 1},
		Lane: &pipeline.Lane{Result: &runner.InstructionResult{Benchmarks: 2, Processes: 12, Elapsed: 4 * time.Second, Failures: []runner.Failure{{}}},
			Repeats: 3, Before: 10 * time.Second, Only: true},
		Cancelled: &pipeline.Cancelled{Rounds: 3, Of: 10},
		Shard:     &shard.Manifest{Shard: shard.Spec{Index: 2, Count: 4}, Assigned: make([]string, 3), All: make([]string, 11)},
		Skipped:   []string{"example.com/m/a: no benchmarks match --bench"},
		Timing: &pipeline.Timing{Runner: &runner.Result{Elapsed: 10 * time.Second, BuildTime: 2 * time.Second, ProcessTime: 7 * time.Second, RunTime: 5 * time.Second, Processes: 40,
			DiscoverTime: 500 * time.Millisecond, WarmupTime: 300 * time.Millisecond, MeasureTime: 5500 * time.Millisecond, Work: 3 * time.Second}, Screen: 4 * time.Second},
		Confirmation: &pipeline.Confirmation{Rows: 2, Rounds: 10, PromisingP: 0.2},
	}
	want := []string{
		"adaptive (--max-time 1m0s): 6 of up to 20 rounds in 42s, checks after rounds [3 6 20]; benchmarks decided early: 2 after round 3, 1 after round 6; 1 undecided when the budget ran out",
		"instruction counts: 2 benchmarks counted under valgrind (callgrind), 3 runs per side each: 12 processes, 4s, 2s per benchmark (the builds and calibration before it: 10s); 1 unavailable",
		"cancelled after 3 of 10 rounds: this report is partial",
		"shard 2/4: 3 of 11 benchmarks; the verdict comes from benchgate merge",
		"skipped example.com/m/a: no benchmarks match --bench",
		"time: 10s in all: building 2s, calibrating 500ms, warm-up 300ms, the first rounds 4s, the re-run 1.5s; 40 benchmark processes 7s (counted runs 5s, of which timed work 3s), benchgate itself 1s (10.0%)",
		"re-run: 2 time rows that looked like a change in the first rounds (raw p < 0.2 and at least half the threshold) got up to 10 fresh rounds (each as many as its noise needs) and were decided on all their rounds (raw files confirm-base.txt, confirm-head.txt)",
	}
	if diff := cmp.Diff(want, runLines(r)); diff != "" {
		t.Errorf("Lines (-want +got):\n%s", diff)
	}
	if got := runLines(pipeline.Facts{Adaptive: &pipeline.Adaptive{Stopped: 4}, Cancelled: &pipeline.Cancelled{Confirmation: true}}); !cmp.Equal(got, []string{
		"adaptive: stopped in round 4",
		"cancelled during the re-run: the first rounds' verdict stands, its regressions not confirmed",
	}) {
		t.Errorf("stopped and cancelled confirmation: %q", got)
	}
	ex := pipeline.Facts{Explain: &pipeline.Explained{Instructions: 1, Kept: "out/explain", Profiled: 2, Allocs: 1, CPU: 2, Elapsed: 3 * time.Second, AllocsTime: time.Second, CPUTime: 2 * time.Second, Skipped: 3, Max: 10, Merged: 1}}
	if diff := cmp.Diff([]string{
		"explain: 1 instructions/op change from the per-function instruction counts; counts kept in out/explain as pprof profiles",
		"explain: profiled 2 changed benchmarks after the verdict in 3s (allocations of 1 in 1s, CPU of 2 in 2s); profiles and test binaries kept in out/explain",
		"explain: 3 more changed benchmarks not profiled (at most 10 per run)",
		"explain: 1 explanation from the shards' profiling passes (each shard's --out directory keeps its profiles and the go tool pprof commands)",
	}, runLines(ex)); diff != "" {
		t.Errorf("explain (-want +got):\n%s", diff)
	}
	problems := pipeline.Facts{
		PGO:      []string{"cmd/x/default.pgo", "default.pgo"},
		Unclosed: []sandbox.Open{{Path: "/home/runner/work", Reason: "owned by the sandbox user 65533"}},
		Explain: &pipeline.Explained{Problems: []pipeline.ExplainProblem{
			{Step: pipeline.ExplainModule, Err: "no go.mod"},
			{Bench: "example.com/m.O-4", Step: pipeline.ExplainNotProfiled, Err: "out/explain: a symbolic link"},
			{Bench: "example.com/m.O-4", Step: pipeline.ExplainBinaries, Err: "disk full"},
		}},
	}
	if diff := cmp.Diff([]string{
		"the change edits the profile-guided optimization profile cmd/x/default.pgo, default.pgo: the compiler optimizes the two sides differently, so the comparison measures the new profile as well as the code (both sides build with -pgo=auto, each with its own profile)",
		"not closed to the benchmarks' code, which can read it: /home/runner/work (owned by the sandbox user 65533)",
		"explain: no go.mod",
		"explain: example.com/m.O-4 not profiled: out/explain: a symbolic link",
		"explain: keeping the test binaries of example.com/m.O-4: disk full",
	}, runLines(problems)); diff != "" {
		t.Errorf("build, sandbox and explain problems (-want +got):\n%s", diff)
	}
	merged := runLines(pipeline.Facts{Merged: []shard.Manifest{
		{Shard: shard.Spec{Index: 1, Count: 2}, Assigned: make([]string, 3), Complete: true},
		{Shard: shard.Spec{Index: 2, Count: 2}, Assigned: make([]string, 4)},
	}})
	if want := []string{"merged 2 shard(s): 1/2 (3 benchmarks, complete), 2/2 (4 benchmarks, incomplete)"}; !cmp.Equal(merged, want) {
		t.Errorf("merged: %q, want %q", merged, want)
	}
	aff := &affected.Selection{Summary: "1 of 3 packages affected by 1 changed file", Ignored: []affected.Entry{{Name: "README.md", Reason: "not Go code"}}}
	for i := range 22 {
		aff.Skipped = append(aff.Skipped, affected.Entry{Name: fmt.Sprintf("example.com/m/p%d", i), Reason: "not affected"})
	}
	got := runLines(pipeline.Facts{Affected: aff})
	if len(got) != 23 || got[0] != "packages affected by the change: 1 of 3 packages affected by 1 changed file" ||
		got[1] != "skipped example.com/m/p0: not affected" || got[21] != "… and 2 more packages skipped" || got[22] != "ignored change README.md: not Go code" {
		t.Errorf("affected: %q", got)
	}
	if got := runLines(pipeline.Facts{}); len(got) != 0 {
		t.Errorf("the zero Run says %q, want nothing", got)
	}
}

// TestRunInReport puts the run's facts in "How the run was made", before
// the other notes, and into the JSON report's notes.
func TestRunInReport(t *testing.T) {
	m := Meta{Record: pipeline.Record{BaseRef: "main", HeadRef: "HEAD", Count: 10,
		Run: pipeline.Facts{Shard: &shard.Manifest{Shard: shard.Spec{Index: 1, Count: 2}, Assigned: []string{"a"}, All: []string{"a", "b"}}}},
		Notes: []Note{{Code: NoteCommentFailed, Err: "a caller's note"}}}
	v := gate.Verdict{Pass: true}
	var md strings.Builder
	if err := WriteMarkdown(&md, Build(v, m), Options{}); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	shardAt, noteAt := strings.Index(s, "shard 1/2: 1 of 2 benchmarks"), strings.Index(s, "a caller's note")
	if shardAt < 0 || noteAt < 0 || shardAt > noteAt {
		t.Errorf("the shard fact (at %d) should come before the note (at %d):\n%s", shardAt, noteAt, s)
	}
	js, err := JSON(v, m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"notes": [
    "shard 1/2: 1 of 2 benchmarks; the verdict comes from benchgate merge",
    "could not comment on the pull request: a caller's note"`) {
		t.Errorf("JSON notes:\n%s", js)
	}
	if !strings.Contains(string(js), `"run": {
    "pgo": [],
    "policy": [],
    "unclosed": [],
    "shard": {
      "shard": "1/2",
      "assigned": 1,
      "all": 2
    },
    "skipped": [],
    "merged": []
  }`) {
		t.Errorf("JSON run:\n%s", js)
	}
	if js, _ := JSON(v, Meta{}); strings.Contains(string(js), `"run"`) {
		t.Errorf("a run without facts has a JSON run object:\n%s", js)
	}
}
