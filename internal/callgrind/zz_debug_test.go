package callgrind

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
)

func TestZZOutlier(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	b := testBinary(t)
	b.Name = os.Getenv("ZZ")
	var lo, hi *Sample
	for i := 0; i < 12; i++ {
		s, err := Measure(context.Background(), options(), b, 1000)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(s.Loop)
		if lo == nil || s.Loop < lo.Loop { lo = s }
		if hi == nil || s.Loop > hi.Loop { hi = s }
	}
	sf := func(f *Func) int64 { if f == nil || len(f.Self) == 0 { return 0 }; return f.Self[0] }
	type d struct{ n string; x, y int64 }
	var ds []d
	seen := map[string]bool{}
	for n := range hi.Profile.Funcs { seen[n] = true }
	for n := range lo.Profile.Funcs { seen[n] = true }
	for n := range seen {
		x, y := sf(lo.Profile.Funcs[n]), sf(hi.Profile.Funcs[n])
		if x != y { ds = append(ds, d{n, x, y}) }
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].y-ds[i].x > ds[j].y-ds[j].x })
	for i, x := range ds { if i < 30 { fmt.Printf("%-60s %9d %9d %+d\n", x.n, x.x, x.y, x.y-x.x) } }
}
