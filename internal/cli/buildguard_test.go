package cli

import (
	"strings"
	"testing"
)

func TestPGONotes(t *testing.T) {
	if n := pgoNotes([]string{"a.go", "cmd/x/main.go", "default.pgo.txt"}); n != nil {
		t.Errorf("no profile changed: notes %q", n)
	}
	n := pgoNotes([]string{"a.go", "cmd/x/default.pgo", "default.pgo"})
	if len(n) != 1 || !strings.Contains(n[0], "cmd/x/default.pgo, default.pgo") || !strings.Contains(n[0], "-pgo=auto") {
		t.Errorf("notes %q, want one naming both profiles", n)
	}
}
