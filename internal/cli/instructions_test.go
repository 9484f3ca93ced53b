package cli

import (
	"testing"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/gate"
)

// Instructions are gated by default when the lane is measured, or (compare,
// merge) when the results hold its rows (pipeline.Judge's
// GateMeasuredInstructions); a --fail-on list without them only reports
// them; --instructions-threshold reaches the gate; a calibration measures
// the time lane only.
func TestLanePolicy(t *testing.T) {
	for _, tc := range []struct {
		name          string
		args          []string
		gated, byRows bool
		measure       bool
	}{
		{"time lane", []string{"run", "--base", "main"}, false, true, false},
		{"instruction lane", []string{"run", "--base", "main", "--measure", "instructions"}, true, true, true},
		{"both lanes", []string{"run", "--base", "main", "--measure", "time,instructions"}, true, true, true},
		{"explicit list without", []string{"run", "--base", "main", "--measure", "instructions", "--fail-on", "time,allocs"}, false, false, true},
		{"explicit list with", []string{"run", "--base", "main", "--fail-on", "instructions"}, true, false, false},
		{"compare", []string{"compare", "a", "b"}, false, true, false},
		{"compare, explicit", []string{"compare", "a", "b", "--fail-on", "time"}, false, false, false},
	} {
		cfg, err := config.Parse(append(tc.args, "--instructions-threshold", "0.5%"))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		a := &app{cfg: cfg}
		jd := a.flags().Judge(nil)
		if jd.Policy.FailOn[gate.Instructions] != tc.gated || jd.Policy.InstructionThreshold != 0.005 || jd.GateMeasuredInstructions != tc.byRows {
			t.Errorf("%s: instructions gated %v (by their rows %v), threshold %v; want %v (%v), 0.005", tc.name,
				jd.Policy.FailOn[gate.Instructions], jd.GateMeasuredInstructions, jd.Policy.InstructionThreshold, tc.gated, tc.byRows)
		}
		p, err := a.plan(job{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p.Instructions != tc.measure {
			t.Errorf("%s: instruction lane %v, want %v", tc.name, p.Instructions, tc.measure)
		}
		if c, _ := a.plan(job{dest: dest{calibrate: true}}); c.Instructions || !c.Time {
			t.Errorf("%s: a calibration measures the time lane only", tc.name)
		}
	}
}
