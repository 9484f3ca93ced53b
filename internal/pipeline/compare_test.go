package pipeline

import (
	"slices"
	"testing"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
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
