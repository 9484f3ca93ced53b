package pipeline

import (
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/sandbox"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/google/go-cmp/cmp"
)

// record makes the report's input of the plan, the runner's result and
// the stages' facts: the rounds the time lane ran (the plan's count, an
// adaptive run's own, none without the time lane), a partial run from
// either cancellation, the screen's and the confirmation's share of the
// measuring time, a shard's part only when there are several.
func TestRecord(t *testing.T) {
	p := Plan{Base: Rev{"b1", "main"}, Head: Rev{"h1", "HEAD"}, Time: true, Seed: 7,
		Runner: runner.Options{Count: 10, Benchtime: "50ms"}, Shard: shard.Spec{Index: 1, Count: 2}}
	res := &runner.Result{Elapsed: 9 * time.Second, BuildTime: 2 * time.Second, MeasureTime: 5 * time.Second,
		Skipped: []string{"example.com/m/x: no benchmarks"}}
	f := facts{
		unclosed: []sandbox.Open{{Path: "/var/run/docker.sock", Reason: "a socket"}},
		measured: measured{screen: 3 * time.Second, toolchains: [2]string{"go1.26.8", "go1.26.8"}, manifest: &shard.Manifest{Shard: shard.Spec{Index: 1, Count: 2}, Assigned: []string{"a"}, All: []string{"a", "b"}}},
		judged:   judged{confirmed: Confirmed{Cancelled: &Cancelled{Confirmation: true}}, explained: &Explained{Elapsed: time.Second}},
	}
	got := record(p, res, gate.Verdict{}, f)
	want := Record{
		BaseRef: "main", HeadRef: "HEAD", BaseSHA: "b1", HeadSHA: "h1", Count: 10, Benchtime: "50ms", Seed: 7,
		Partial: true, BaseGo: "go1.26.8", HeadGo: "go1.26.8",
		Run: Facts{
			Unclosed:  []sandbox.Open{{Path: "/var/run/docker.sock", Reason: "a socket"}},
			Cancelled: &Cancelled{Confirmation: true},
			Shard:     f.manifest,
			Skipped:   []string{"example.com/m/x: no benchmarks"},
			Timing:    &Timing{Runner: res, Screen: 3 * time.Second, Explain: time.Second},
			Explain:   &Explained{Elapsed: time.Second},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}

	for _, c := range []struct {
		name     string
		time     bool
		adaptive *Adaptive
		rounds   int
		shards   int
		want     int
	}{
		{"fixed", true, nil, 0, 1, 10},
		{"adaptive", true, &Adaptive{}, 23, 1, 23},
		{"instructions only", false, nil, 0, 1, 0},
	} {
		p := p
		p.Time, p.Shard.Count = c.time, c.shards
		m := record(p, nil, gate.Verdict{}, facts{measured: measured{adaptive: c.adaptive, rounds: c.rounds}})
		if m.Count != c.want || m.Run.Shard != nil || m.Partial || m.Run.Timing != nil {
			t.Errorf("%s: count %d (want %d), shard %v, partial %v, timing %v without a runner's result", c.name, m.Count, c.want, m.Run.Shard, m.Partial, m.Run.Timing)
		}
	}
}
