package shard

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestManifestRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "shard-2")
	m := Manifest{
		Shard:    Spec{2, 4},
		All:      []string{"p.B-4", "p.A-4", "q.C-4"},
		Assigned: []string{"q.C-4", "p.A-4"},
		Complete: true,
		Rounds:   10,
		Failures: 1,
		BaseSHA:  "1111111111111111111111111111111111111111",
		HeadSHA:  "2222222222222222222222222222222222222222",
		Tool:     "benchgate v1.0.0",
		Settings: "bench=. count=10 benchtime=100ms cpu=4",
		BaseGo:   "go1.26.8",
		HeadGo:   "go1.27.0",
	}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := m
	want.Format = Format
	want.All = []string{"p.A-4", "p.B-4", "q.C-4"}
	want.Assigned = []string{"p.A-4", "q.C-4"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"shard": "2/4"`, `"base_sha": "1111`, `"complete": true`, `"base_go": "go1.26.8"`, `"head_go": "go1.27.0"`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("shard.json lacks %s:\n%s", s, b)
		}
	}
	// Nothing else is left in the directory.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only %s", len(entries), FileName)
	}

	// An empty shard writes [] rather than null.
	empty := Manifest{Shard: Spec{4, 4}, Complete: true}
	if err := empty.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(dir, FileName))
	if !strings.Contains(string(b), `"assigned": []`) || !strings.Contains(string(b), `"all": []`) {
		t.Errorf("empty lists not written as []:\n%s", b)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Read(dir)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, FileName)) {
		t.Errorf("missing file: %v", err)
	}
	for _, tt := range []struct {
		content, want string
	}{
		{`{`, "unexpected end of JSON input"},
		{`{"shard": "1/2"}`, "no format version: not written by benchgate"},
		{`{"format": 2, "shard": "1/2"}`, "format 2 is newer than this benchgate's (1)"},
		{`{"format": 1}`, "no shard"},
		{`{"format": 1, "shard": "3/2"}`, `shard "3/2": shard index must be between 1 and 2`},
		{`{"format": 1, "shard": "1/2", "rounds": -1}`, "negative count"},
	} {
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(dir)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), filepath.Join(dir, FileName)) {
			t.Errorf("Read of %s: %v; want an error naming the file and %q", tt.content, err, tt.want)
		}
	}
}

func TestCheckCoverage(t *testing.T) {
	const base, head = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	all := []string{"p.A", "p.B", "p.C", "q.D"}
	m := func(i, n int, assigned ...string) Manifest {
		return Manifest{Format: Format, Shard: Spec{i, n}, All: all, Assigned: assigned, Complete: true, Rounds: 10,
			BaseSHA: base, HeadSHA: head, Tool: "benchgate v1"}
	}
	with := func(m Manifest, f func(*Manifest)) Manifest { f(&m); return m }
	tests := []struct {
		name         string
		in           []Manifest
		wantMissing  []string
		wantProblems []string
	}{
		{
			name: "complete",
			in:   []Manifest{m(2, 3, "p.B"), m(1, 3, "p.A", "q.D"), m(3, 3, "p.C")},
		},
		{
			name: "one shard, empty shard",
			in:   []Manifest{m(1, 2, all...), m(2, 2)},
		},
		{
			name:         "none",
			wantProblems: []string{"no shard results to merge"},
		},
		{
			name:         "missing shard",
			in:           []Manifest{m(1, 3, "p.A", "q.D"), m(3, 3, "p.C")},
			wantMissing:  []string{"p.B"},
			wantProblems: []string{"shard 2/3 is missing: no result for it (its job failed or was cancelled, or its artifact was not downloaded)"},
		},
		{
			name:        "the last shard missing, the others complete",
			in:          []Manifest{m(1, 3, "p.A", "q.D"), m(2, 3, "p.B")},
			wantMissing: []string{"p.C"},
			wantProblems: []string{
				"shard 3/3 is missing: no result for it (its job failed or was cancelled, or its artifact was not downloaded)",
			},
		},
		{
			name: "incomplete shard",
			in:   []Manifest{m(1, 2, "p.A", "p.B"), with(m(2, 2, "p.C", "q.D"), func(m *Manifest) { m.Complete, m.Rounds = false, 3 })},
			wantProblems: []string{
				"shard 2/2 is incomplete: it stopped after 3 rounds (cancelled, or stopped by an error)",
			},
		},
		{
			name: "different commits and tool",
			in: []Manifest{
				m(1, 2, "p.A", "p.B"),
				with(m(2, 2, "p.C", "q.D"), func(m *Manifest) { m.HeadSHA = "3333333333333333333333333333333333333333"; m.Tool = "benchgate v2" }),
			},
			wantProblems: []string{
				"shards disagree on the commits: 1/2: base 111111111111, head 222222222222; 2/2: base 111111111111, head 333333333333",
				`shards disagree on the tool: 1/2: "benchgate v1"; 2/2: "benchgate v2"`,
			},
		},
		{
			name: "different Go toolchains",
			in: []Manifest{
				with(m(1, 2, "p.A", "p.B"), func(m *Manifest) { m.BaseGo, m.HeadGo = "go1.26.8", "go1.26.8" }),
				with(m(2, 2, "p.C", "q.D"), func(m *Manifest) { m.BaseGo, m.HeadGo = "go1.26.8", "go1.27.0" }),
			},
			wantProblems: []string{
				`shards disagree on the Go toolchains: 1/2: base "go1.26.8", head "go1.26.8"; 2/2: base "go1.26.8", head "go1.27.0"`,
			},
		},
		{
			name: "different n",
			in:   []Manifest{m(1, 2, "p.A", "p.B"), m(2, 3, "p.C", "q.D")},
			wantProblems: []string{
				"shards disagree on the number of shards: 1/2: n=2; 2/3: n=3",
				"shard 3/3 is missing: no result for it (its job failed or was cancelled, or its artifact was not downloaded)",
			},
		},
		{
			name: "duplicate shard",
			in:   []Manifest{m(1, 2, "p.A", "p.B"), m(2, 2, "p.C", "q.D"), m(2, 2, "p.C", "q.D")},
			wantProblems: []string{
				"shard 2/2 appears 2 times",
				"2 benchmarks were measured by more than one shard (p.C (2/2, 2/2), q.D (2/2, 2/2)): the shards computed different partitions",
			},
		},
		{
			name:        "partitions disagree",
			in:          []Manifest{m(1, 2, "p.A", "p.C"), m(2, 2, "p.C", "q.D")},
			wantMissing: []string{"p.B"},
			wantProblems: []string{
				"1 benchmark was measured by more than one shard (p.C (1/2, 2/2)): the shards computed different partitions",
				"1 benchmark was measured by no shard although every shard reported (p.B): the shards computed different partitions",
			},
		},
		{
			name: "different units discovered",
			in: []Manifest{
				m(1, 2, "p.A", "p.B"),
				with(m(2, 2, "p.C", "q.D-8"), func(m *Manifest) { m.All = []string{"p.A", "p.B", "p.C", "q.D-8"} }),
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
			in:   []Manifest{m(1, 2, "p.A", "p.B", "x.Y"), m(2, 2, "p.C", "q.D")},
			wantProblems: []string{
				"shard 1/2 measured 1 benchmark it did not list as found (x.Y)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			missing, problems := CheckCoverage(tt.in)
			if diff := cmp.Diff(tt.wantMissing, missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantProblems, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestShardsAndMerge runs every shard of a partition as the matrix would,
// writes and reads their manifests, and checks the coverage.
func TestShardsAndMerge(t *testing.T) {
	items := genItems(newRand(5), 200, withSlow(0.05))
	units := unitsOf(items)
	var ids []string
	for _, u := range units {
		ids = append(ids, u.ID())
	}
	root := t.TempDir()
	const n = 5
	var dirs []string
	for i := 1; i <= n; i++ {
		spec := Spec{i, n}
		var assigned []string
		for _, u := range Assign(units, spec) {
			assigned = append(assigned, u.ID())
		}
		dir := filepath.Join(root, "shard-"+strconv.Itoa(i))
		m := Manifest{Shard: spec, All: ids, Assigned: assigned, Complete: true, Rounds: 10, BaseSHA: "b", HeadSHA: "h", Tool: "benchgate test"}
		if err := m.Write(dir); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	var ms []Manifest
	for _, d := range dirs {
		m, err := Read(d)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	if missing, problems := CheckCoverage(ms); len(missing)+len(problems) > 0 {
		t.Errorf("CheckCoverage of all shards: missing %v, problems %v", missing, problems)
	}
	missing, problems := CheckCoverage(append(ms[:2:2], ms[3:]...))
	if len(missing) != len(ms[2].Assigned) || len(problems) != 1 {
		t.Errorf("CheckCoverage without shard 3: missing %d (want %d), problems %v", len(missing), len(ms[2].Assigned), problems)
	}
}
