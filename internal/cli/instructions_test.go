package cli

import (
	"testing"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// Instructions are gated by default when the lane is measured, or (compare,
// merge) when the results hold its rows; a --fail-on list without them
// only reports them; --instructions-threshold reaches the gate.
func TestLanePolicy(t *testing.T) {
	instrRows := []stats.Comparison{{Key: stats.Key{Name: "Sum", Unit: gate.InstructionsUnit}}}
	for _, tc := range []struct {
		name    string
		args    []string
		cmps    []stats.Comparison
		gated   bool
		measure bool
	}{
		{"time lane", []string{"run", "--base", "main"}, nil, false, false},
		{"instruction lane", []string{"run", "--base", "main", "--measure", "instructions"}, nil, true, true},
		{"both lanes", []string{"run", "--base", "main", "--measure", "time,instructions"}, nil, true, true},
		{"explicit list without", []string{"run", "--base", "main", "--measure", "instructions", "--fail-on", "time,allocs"}, nil, false, true},
		{"explicit list with", []string{"run", "--base", "main", "--fail-on", "instructions"}, nil, true, false},
		{"compare with the lane's rows", []string{"compare", "a", "b"}, instrRows, true, false},
		{"compare, explicit", []string{"compare", "a", "b", "--fail-on", "time"}, instrRows, false, false},
	} {
		cfg, err := config.Parse(append(tc.args, "--instructions-threshold", "0.5%"))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		a := &app{cfg: cfg}
		p := a.policy(nil)
		a.laneDefault(&p, tc.cmps)
		if p.FailOn[gate.Instructions] != tc.gated || p.InstructionThreshold != 0.005 {
			t.Errorf("%s: instructions gated %v, threshold %v; want %v, 0.005", tc.name, p.FailOn[gate.Instructions], p.InstructionThreshold, tc.gated)
		}
		if got := a.instructionsLane(job{}); got != tc.measure {
			t.Errorf("%s: instruction lane %v, want %v", tc.name, got, tc.measure)
		}
		if a.instructionsLane(job{dest: dest{calibrate: true}}) || !a.timeLane(job{dest: dest{calibrate: true}}) {
			t.Errorf("%s: a calibration measures the time lane only", tc.name)
		}
	}
}
