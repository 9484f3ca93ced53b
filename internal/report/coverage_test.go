package report

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/pipeline"

	"github.com/benchgate/benchgate/internal/shard"
	"github.com/google/go-cmp/cmp"
)

// shard.CheckCoverage finds what keeps the shards from covering their run,
// and report words each problem as the merge report says it.
func TestCoverageText(t *testing.T) {
	const base, head = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	all := []string{"p.A", "p.B", "p.C", "q.D"}
	m := func(i, n int, assigned ...string) shard.Manifest {
		return shard.Manifest{Format: shard.Format, Shard: shard.Spec{Index: i, Count: n}, All: all, Assigned: assigned, Complete: true, Rounds: 10,
			BaseSHA: base, HeadSHA: head, Tool: "benchgate v1"}
	}
	with := func(m shard.Manifest, f func(*shard.Manifest)) shard.Manifest { f(&m); return m }
	tests := []struct {
		name         string
		in           []shard.Manifest
		wantMissing  []string
		wantProblems []string
	}{
		{
			name: "complete",
			in:   []shard.Manifest{m(2, 3, "p.B"), m(1, 3, "p.A", "q.D"), m(3, 3, "p.C")},
		},
		{
			name: "one shard, empty shard",
			in:   []shard.Manifest{m(1, 2, all...), m(2, 2)},
		},
		{
			name:         "none",
			wantProblems: []string{"no shard results to merge"},
		},
		{
			name:         "missing shard",
			in:           []shard.Manifest{m(1, 3, "p.A", "q.D"), m(3, 3, "p.C")},
			wantMissing:  []string{"p.B"},
			wantProblems: []string{"shard 2/3 is missing: no result for it (its job failed or was cancelled, or its artifact was not downloaded)"},
		},
		{
			name:        "the last shard missing, the others complete",
			in:          []shard.Manifest{m(1, 3, "p.A", "q.D"), m(2, 3, "p.B")},
			wantMissing: []string{"p.C"},
			wantProblems: []string{
				"shard 3/3 is missing: no result for it (its job failed or was cancelled, or its artifact was not downloaded)",
			},
		},
		{
			name: "incomplete shard",
			in:   []shard.Manifest{m(1, 2, "p.A", "p.B"), with(m(2, 2, "p.C", "q.D"), func(m *shard.Manifest) { m.Complete, m.Rounds = false, 3 })},
			wantProblems: []string{
				"shard 2/2 is incomplete: it stopped after 3 rounds (cancelled, or stopped by an error)",
			},
		},
		{
			name: "different commits and tool",
			in: []shard.Manifest{
				m(1, 2, "p.A", "p.B"),
				with(m(2, 2, "p.C", "q.D"), func(m *shard.Manifest) {
					m.HeadSHA = "3333333333333333333333333333333333333333"
					m.Tool = "benchgate v2"
				}),
			},
			wantProblems: []string{
				"shards disagree on the commits: 1/2: base 111111111111, head 222222222222; 2/2: base 111111111111, head 333333333333",
				`shards disagree on the tool: 1/2: "benchgate v1"; 2/2: "benchgate v2"`,
			},
		},
		{
			name: "different Go toolchains",
			in: []shard.Manifest{
				with(m(1, 2, "p.A", "p.B"), func(m *shard.Manifest) { m.BaseGo, m.HeadGo = "go1.26.8", "go1.26.8" }),
				with(m(2, 2, "p.C", "q.D"), func(m *shard.Manifest) { m.BaseGo, m.HeadGo = "go1.26.8", "go1.27.0" }),
			},
			wantProblems: []string{
				`shards disagree on the Go toolchains: 1/2: base "go1.26.8", head "go1.26.8"; 2/2: base "go1.26.8", head "go1.27.0"`,
			},
		},
		{
			name: "different n",
			in:   []shard.Manifest{m(1, 2, "p.A", "p.B"), m(2, 3, "p.C", "q.D")},
			wantProblems: []string{
				"shards disagree on the number of shards: 1/2: n=2; 2/3: n=3",
				"shard 3/3 is missing: no result for it (its job failed or was cancelled, or its artifact was not downloaded)",
			},
		},
		{
			name: "duplicate shard",
			in:   []shard.Manifest{m(1, 2, "p.A", "p.B"), m(2, 2, "p.C", "q.D"), m(2, 2, "p.C", "q.D")},
			wantProblems: []string{
				"shard 2/2 appears 2 times",
				"2 benchmarks were measured by more than one shard (p.C (2/2, 2/2), q.D (2/2, 2/2)): the shards computed different partitions",
			},
		},
		{
			name:        "partitions disagree",
			in:          []shard.Manifest{m(1, 2, "p.A", "p.C"), m(2, 2, "p.C", "q.D")},
			wantMissing: []string{"p.B"},
			wantProblems: []string{
				"1 benchmark was measured by more than one shard (p.C (1/2, 2/2)): the shards computed different partitions",
				"1 benchmark was measured by no shard although every shard reported (p.B): the shards computed different partitions",
			},
		},
		{
			name: "different units discovered",
			in: []shard.Manifest{
				m(1, 2, "p.A", "p.B"),
				with(m(2, 2, "p.C", "q.D-8"), func(m *shard.Manifest) { m.All = []string{"p.A", "p.B", "p.C", "q.D-8"} }),
			},
			wantMissing: []string{"q.D"},
			wantProblems: []string{
				"shard 1/2 did not find 1 of the 5 benchmarks the other shards found (q.D-8): shards must run the same benchmarks; pass --cpu explicitly, and avoid names that depend on the machine",
				"shard 2/2 did not find 1 of the 5 benchmarks the other shards found (q.D): shards must run the same benchmarks; pass --cpu explicitly, and avoid names that depend on the machine",
				"1 benchmark was measured by no shard although every shard reported (q.D): the shards computed different partitions",
			},
		},
		{
			name: "measured a unit it did not list",
			in:   []shard.Manifest{m(1, 2, "p.A", "p.B", "x.Y"), m(2, 2, "p.C", "q.D")},
			wantProblems: []string{
				"shard 1/2 measured 1 benchmark it did not list as found (x.Y)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := shard.CheckCoverage(tt.in)
			var problems []string
			for _, p := range c.Problems {
				problems = append(problems, coverageText(p))
			}
			if diff := cmp.Diff(tt.wantMissing, c.Missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantProblems, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// A merge's shards on different machines are one warning that names each
// kind of machine once, with a shard that ran on it.
func TestMachinesWarning(t *testing.T) {
	a := machine.Info{CPU: "AMD EPYC 7B13", Cores: 4, Arch: "amd64", Level: "v1"}
	b := machine.Info{CPU: "Intel(R) Xeon(R) Platinum 8370C", Cores: 4, Arch: "amd64", Level: "v1"}
	ws := runWarnings(pipeline.Facts{Machines: []pipeline.ShardMachine{{Shard: "1/3", Info: a}, {Shard: "2/3", Info: b}, {Shard: "3/3", Info: a}}})
	if len(ws) != 1 {
		t.Fatalf("warnings %q, want one", ws)
	}
	for _, want := range []string{"different machines", "shard 1/3: AMD EPYC 7B13, 4 cores", "shard 2/3: Intel(R) Xeon(R) Platinum 8370C"} {
		if !strings.Contains(ws[0], want) {
			t.Errorf("warning %q lacks %q", ws[0], want)
		}
	}
	if strings.Contains(ws[0], "shard 3/3") {
		t.Errorf("warning %q repeats a machine", ws[0])
	}
}
