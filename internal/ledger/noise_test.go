package ledger

import (
	"math"
	"testing"

	"github.com/benchgate/benchgate/internal/machine"
)

// TestNoise: a series' recorded noise is the median of its last paired
// entries on this kind of machine, from each entry's se and rounds.
func TestNoise(t *testing.T) {
	here := machine.Info{CPU: "AMD EPYC", Cores: 2, Arch: "amd64"}
	other := machine.Info{CPU: "Intel Xeon", Cores: 4, Arch: "amd64"}
	sigma := func(s float64, n int) float64 { return s / math.Sqrt(3*float64(n)/math.Pi) }
	var entries []Entry
	add := func(name string, noise float64, n int, test string, m machine.Info) {
		entries = append(entries, Entry{Package: "p", Name: name, Unit: "sec/op", Test: test, N: n, SE: sigma(noise, n), Machine: m})
	}
	for range 5 {
		add("Old", 0.30, 10, "paired", here) // stale: beyond the last ten
	}
	for i := range 10 {
		add("Old", 0.02+0.001*float64(i), 10, "paired", here)
	}
	add("Other", 0.5, 10, "paired", other)
	add("UTest", 0.5, 10, "utest", here)
	add("Few", 0.5, 4, "paired", here)
	add("Mixed", 0.04, 20, "paired", here)
	add("Mixed", 0.9, 20, "paired", other)
	got := Noise(entries, here)
	if v := got["p.Old"]; math.Abs(v-0.0245) > 1e-9 {
		t.Errorf("p.Old: %v, want the median of the last ten, 0.0245", v)
	}
	if v := got["p.Mixed"]; math.Abs(v-0.04) > 1e-9 {
		t.Errorf("p.Mixed: %v, want 0.04 (the other machine's entry not read)", v)
	}
	for _, k := range []string{"p.Other", "p.UTest", "p.Few"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s: %v, want no record", k, v)
		}
	}
}
