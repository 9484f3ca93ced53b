package pipeline

import (
	"testing"

	"github.com/benchgate/benchgate/internal/machine"
)

// A merge notes the shards' machines when they differ (CPU model), and
// only then.
func TestMachinesDiffer(t *testing.T) {
	a := machine.Info{CPU: "AMD EPYC 7B13", Cores: 4, Arch: "amd64", Level: "v1"}
	b := machine.Info{CPU: "Intel(R) Xeon(R) Platinum 8370C", Cores: 4, Arch: "amd64", Level: "v1"}
	if machinesDiffer([]ShardMachine{{"1/2", a}, {"2/2", a}}) || machinesDiffer(nil) {
		t.Errorf("same machines, or none, differ")
	}
	if !machinesDiffer([]ShardMachine{{"1/3", a}, {"2/3", b}, {"3/3", a}}) {
		t.Errorf("an AMD and an Intel shard do not differ")
	}
}
