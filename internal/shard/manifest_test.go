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
	if c := CheckCoverage(ms); !c.Complete() {
		t.Errorf("CheckCoverage of all shards: %+v", c)
	}
	c := CheckCoverage(append(ms[:2:2], ms[3:]...))
	if len(c.Missing) != len(ms[2].Assigned) || len(c.Problems) != 1 || c.Problems[0].Code != Missing || c.Problems[0].Shard != (Spec{3, n}) {
		t.Errorf("CheckCoverage without shard 3: missing %d (want %d), problems %+v", len(c.Missing), len(ms[2].Assigned), c.Problems)
	}
}
