package pipeline

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/machine"
)

// merge warns when shards ran on different CPU models, and only then.
func TestMachinesDiffer(t *testing.T) {
	a := machine.Info{CPU: "AMD EPYC 7B13", Cores: 4, Arch: "amd64", Level: "v1"}
	b := machine.Info{CPU: "Intel(R) Xeon(R) Platinum 8370C", Cores: 4, Arch: "amd64", Level: "v1"}
	if w := machinesDiffer([]shardMachine{{"1/2", a}, {"2/2", a}}); w != "" {
		t.Errorf("same machines: %q", w)
	}
	if w := machinesDiffer(nil); w != "" {
		t.Errorf("no machines: %q", w)
	}
	w := machinesDiffer([]shardMachine{{"1/3", a}, {"2/3", b}, {"3/3", a}})
	for _, want := range []string{"different machines", "shard 1/3: AMD EPYC 7B13, 4 cores", "shard 2/3: Intel(R) Xeon(R) Platinum 8370C"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
	if strings.Contains(w, "shard 3/3") {
		t.Errorf("warning %q repeats a machine", w)
	}
}
