package pipeline

import (
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/google/go-cmp/cmp"
)

func row(name, unit string, kind gate.Kind, status gate.Status, fails bool) gate.Result {
	r := gate.Result{Kind: kind, Status: status, Gated: fails}
	r.Package, r.Name, r.Unit = "example.com/m", name, unit
	r.Base, r.Head = &stats.Summary{Center: 1}, &stats.Summary{Center: 2}
	return r
}

// explainUnits profiles the benchmarks whose allocation rows changed
// (either way) and whose time regressions held, those failing the gate
// first; not vanished regressions, improvements of time, unchanged rows
// or a benchmark missing on a side.
func TestExplainUnits(t *testing.T) {
	no, yes := false, true
	vanished := row("Vanished", "sec/op", gate.Time, gate.Unchanged, false)
	vanished.Confirmed = &no
	held := row("Slow", "sec/op", gate.Time, gate.Regression, true)
	held.Confirmed = &yes
	v := gate.Verdict{Results: []gate.Result{
		row("Fewer", "allocs/op", gate.Allocs, gate.Improvement, false),
		row("Fast", "sec/op", gate.Time, gate.Improvement, false),
		vanished,
		held,
		row("Slow", "B/op", gate.Bytes, gate.Regression, true),
		row("Same", "allocs/op", gate.Allocs, gate.Unchanged, false),
		row("New", "allocs/op", gate.Allocs, gate.Regression, true),
	}}
	var units []runner.Unit
	for _, n := range []string{"Fewer", "Fast", "Vanished", "Slow", "Same", "New"} {
		units = append(units, runner.Unit{Package: "example.com/m", Name: "Benchmark" + n, CPU: 1, Sides: [2]bool{true, n != "New"}})
	}
	todo, skipped := explainUnits(units, v)
	var got []string
	for _, e := range todo {
		s := e.u.Name + ":"
		for _, r := range e.allocs {
			s += " " + r.Unit
		}
		if e.time != nil {
			s += " " + e.time.Unit
		}
		got = append(got, s)
	}
	want := []string{"BenchmarkSlow: B/op sec/op", "BenchmarkFewer: allocs/op"}
	if diff := cmp.Diff(want, got); diff != "" || skipped != 0 {
		t.Errorf("explainUnits (-want +got), skipped %d:\n%s", skipped, diff)
	}
}

// The directory of a benchmark's profiles is one safe path element,
// whatever the name.
func TestExplainDirName(t *testing.T) {
	used := map[string]bool{}
	for _, c := range []struct {
		u    runner.Unit
		want string
	}{
		{runner.Unit{Package: "example.com/m/codec", Name: "BenchmarkEncode/size=64", CPU: 4}, "codec.Encode_size=64-4"},
		{runner.Unit{Package: "example.com/m/codec", Name: "BenchmarkEncode/size?64", CPU: 4}, "codec.Encode_size_64-4"},
		{runner.Unit{Package: "example.com/m/codec", Name: "BenchmarkEncode/size_64", CPU: 4}, "codec.Encode_size_64-4-2"},
		{runner.Unit{Package: "..", Name: "Benchmark/../../x", CPU: 1}, "_..._.._.._x"},
	} {
		got := explainDirName(c.u, used)
		if got != c.want || filepath.Base(got) != got || !filepath.IsLocal(got) {
			t.Errorf("explainDirName(%s) = %q, want %q", c.u.ID(), got, c.want)
		}
	}
}
