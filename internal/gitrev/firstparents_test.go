package gitrev

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFirstParents(t *testing.T) {
	o := makeOrigin(t)
	ctx := context.Background()
	r := open(t, o.env, o.dir)
	path, err := r.FirstParents(ctx, o.c2, o.m)
	if err != nil {
		t.Fatal(err)
	}
	want := []Logged{{o.c2, "f.txt c2"}, {o.c3, "f.txt c3"}, {o.c4, "f.txt c4"}, {o.m, "merge feat"}}
	if d := cmp.Diff(want, path); d != "" {
		t.Errorf("FirstParents (-want +got):\n%s", d)
	}
	// f1 is an ancestor of m, through its second parent only.
	if _, err := r.FirstParents(ctx, o.f1, o.m); err == nil || !strings.Contains(err.Error(), "is not on the first-parent history of") {
		t.Errorf("f1..m: %v, want not on the first-parent history", err)
	}
	if _, err := r.FirstParents(ctx, o.m, o.c2); err == nil || !strings.Contains(err.Error(), "is not an ancestor of") {
		t.Errorf("m..c2: %v, want not an ancestor", err)
	}
}
