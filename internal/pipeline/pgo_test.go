package pipeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pgoFiles picks the changed files that are PGO profiles: default.pgo in
// any directory, nothing else.
func TestPGOFiles(t *testing.T) {
	if got := pgoFiles([]string{"a.go", "cmd/x/main.go", "default.pgo.txt"}); got != nil {
		t.Errorf("no profile changed: %q", got)
	}
	got := pgoFiles([]string{"a.go", "cmd/x/default.pgo", "default.pgo"})
	if diff := cmp.Diff([]string{"cmd/x/default.pgo", "default.pgo"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
