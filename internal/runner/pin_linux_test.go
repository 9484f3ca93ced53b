package runner

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestPinnedChildInheritsAffinity starts a real child pinned to one CPU and
// reads its allowed CPU list from /proc.
func TestPinnedChildInheritsAffinity(t *testing.T) {
	cpus, err := allowedCPUs()
	if err != nil || len(cpus) == 0 {
		t.Fatalf("allowedCPUs = %v, %v", cpus, err)
	}
	want := cpus[len(cpus)-1]
	c := command{Name: "grep", Args: []string{"Cpus_allowed_list", "/proc/self/status"}, CPUs: []int{want}}
	out, err := c.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out.Stdout)), "Cpus_allowed_list:"))
	if got != strconv.Itoa(want) {
		t.Errorf("child's Cpus_allowed_list = %q, want %d", got, want)
	}
	// This process keeps all its CPUs.
	after, _ := allowedCPUs()
	if len(after) != len(cpus) {
		t.Errorf("parent affinity changed: %v → %v", cpus, after)
	}
	// Unpinned children get every CPU.
	c.CPUs = nil
	out, err = c.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cpus) > 1 && strings.Contains(string(out.Stdout), "\t"+strconv.Itoa(want)+"\n") {
		t.Errorf("unpinned child is pinned: %s", out.Stdout)
	}
}
