package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/shard"
)

// mergedExplain keeps the shards' explanations of the rows the merged
// verdict flags, once each, without the shards' commands: not those of a
// time regression that vanished on confirmation, nor of unchanged rows.
func TestMergedExplain(t *testing.T) {
	no := false
	vanished := row("Vanished", "sec/op", gate.Time, gate.Regression, false)
	vanished.Confirmed = &no
	v := gate.Verdict{Results: []gate.Result{
		row("Join", "allocs/op", gate.Allocs, gate.Regression, true),
		row("Mix", "sec/op", gate.Time, gate.Regression, true),
		row("Fast", "instructions/op", gate.Instructions, gate.Improvement, false),
		row("Same", "B/op", gate.Bytes, gate.Unchanged, false),
		vanished,
	}}
	why := func(name, unit string) explain.Why {
		return explain.Why{Package: "example.com/m", Name: name, Unit: unit, Command: "go tool pprof shard/explain/x"}
	}
	got := mergedExplain(v, []explain.Why{
		why("Join", "allocs/op"), why("Mix", "sec/op"), why("Mix", "sec/op"), why("Fast", "instructions/op"),
		why("Same", "B/op"), why("Vanished", "sec/op"), why("Join", "B/op"),
	})
	var keys []string
	for _, w := range got {
		keys = append(keys, w.Name+" "+w.Unit)
		if w.Command != "" {
			t.Errorf("%s %s keeps the shard's command %q", w.Name, w.Unit, w.Command)
		}
	}
	if want := []string{"Join allocs/op", "Mix sec/op", "Fast instructions/op"}; !slices.Equal(keys, want) {
		t.Errorf("merged explanations %q, want %q", keys, want)
	}
}

// A shard's failures.json and explain.json keep the format benchgate has
// always written (Go's field names): Merge reads a directory written so,
// its failure in the verdict and its explanation of a flagged row in the
// record; the coverage of a lone 1/1 shard is complete.
func TestMergeReadsShardFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shard")
	m := shard.Manifest{Shard: shard.Spec{Index: 1, Count: 1}, Complete: true, Rounds: 12, BaseSHA: "b", HeadSHA: "h",
		All: []string{"example.com/m.Alloc-2"}, Assigned: []string{"example.com/m.Alloc-2"}}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"base.txt", "head.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata/recorded", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "failures.json"), []byte(`[{"Package": "example.com/m", "Name": "Gone-2", "Side": "head", "Message": "panic: gone", "Unit": ""}]`), 0o644)
	os.WriteFile(filepath.Join(dir, "explain.json"), []byte(`[{"Package": "example.com/m", "Name": "Alloc-2", "Unit": "allocs/op",
		"Explain": {"sites": [{"function": "example.com/m.grow", "file": "m.go", "line": 7, "base": 2, "head": 3}]},
		"Changed": 1, "Base": 2, "Head": 3, "Ops": [100, 100], "Runs": 1, "Notes": null, "Command": "go tool pprof x", "Err": ""}]`), 0o644)
	o, err := Merge([]string{dir}, Judging{Flags: Flags{Policy: gate.DefaultPolicy()}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := o.Verdict.HeadFailures(); len(f) != 1 || f[0].Name != "Gone-2" || f[0].Message != "panic: gone" {
		t.Errorf("head failures %+v, want Gone-2's", f)
	}
	if w := o.Record.Explain; len(w) != 1 || w[0].Name != "Alloc-2" || w[0].Command != "" || len(w[0].Explain.Sites) != 1 || w[0].Explain.Sites[0].Line != 7 {
		t.Errorf("explanations %+v, want Alloc-2's site m.go:7 without the shard's command", w)
	}
	if o.Record.Run.Coverage != nil || o.Record.Count != 12 || o.Record.HeadSHA != "h" {
		t.Errorf("record: coverage %+v, count %d, head %q", o.Record.Run.Coverage, o.Record.Count, o.Record.HeadSHA)
	}
}
