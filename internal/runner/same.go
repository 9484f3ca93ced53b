package runner

import (
	"context"
	"slices"
	"strings"
)

// SameUnit is a benchmark of a package that was not measured because its
// test binaries run the same code on both sides (sameCode): its name as printed
// (no "Benchmark" prefix, with the -GOMAXPROCS suffix, as Failure.Name)
// and the units its listing run reported ("sec/op", "B/op", "allocs/op",
// custom metrics), so that its rows are the ones a measured run would
// have.
type SameUnit struct {
	Package string
	Name    string
	// Bare is Name without the -GOMAXPROCS suffix (as the instruction
	// lane names its rows).
	Bare  string
	Units []string
}

// listSame lists the benchmarks of package p, whose binaries are the same
// on both sides, by running its benchmark functions tops once at N=1 on
// base (one process per -cpu value): that names every sub-benchmark and
// every unit it reports, at the cost of one iteration each. A function
// that gives no result there (it failed, or called b.Skip) is listed by
// its name alone, with time/op.
func (r *run) listSame(ctx context.Context, p string, tops []string) error {
	r.res.SamePackages = append(r.res.SamePackages, p)
	alts := make([]string, len(tops))
	for j, top := range tops {
		alts[j] = r.filter.patternFor(top)
	}
	for _, cpu := range r.o.CPU {
		c := r.testCmd(0, p, r.benchArgs(strings.Join(alts, "|"), "1x", cpu)...)
		out, _ := r.exec(ctx, c)
		if err := ctx.Err(); err != nil {
			return err
		}
		results := parseResults(out.Stdout, cpu)
		seen := map[string]bool{}
		for _, pr := range results {
			if seen[pr.leaf] || (r.o.Ignore != nil && r.o.Ignore(p, pr.leaf)) {
				continue
			}
			seen[pr.leaf] = true
			bare := strings.TrimPrefix(pr.leaf, "Benchmark")
			su := SameUnit{Package: p, Name: bare + procSuffix(cpu), Bare: bare}
			for _, v := range pr.result.Values {
				if !slices.Contains(su.Units, v.Unit) {
					su.Units = append(su.Units, v.Unit)
				}
			}
			r.res.Same = append(r.res.Same, su)
		}
		for _, top := range tops {
			if !slices.ContainsFunc(results, func(pr parsed) bool {
				return pr.leaf == top || strings.HasPrefix(pr.leaf, top+"/")
			}) {
				bare := strings.TrimPrefix(top, "Benchmark")
				r.res.Same = append(r.res.Same, SameUnit{Package: p, Name: bare + procSuffix(cpu), Bare: bare, Units: []string{"sec/op"}})
			}
		}
	}
	r.progress("%s: test binaries that run the same code on both sides, not measured", p)
	return nil
}
