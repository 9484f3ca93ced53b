package report

import (
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/gate"
)

// scalingCPUs returns every cpu value of ss, ascending.
func scalingCPUs(ss []gate.Scaling) []int {
	var cpus []int
	for _, s := range ss {
		cpus = append(cpus, s.CPUs...)
	}
	slices.Sort(cpus)
	return slices.Compact(cpus)
}

// scalingSection renders the CPU scaling table, benchmarks whose scaling
// got worse first, grouped per package, adding rows while the text fits
// in budget bytes (budget < 0: no limit). It returns "" when there is
// nothing to show or not even one row fits.
func scalingSection(v gate.Verdict, budget int) (string, int) {
	ss := slices.Clone(v.Scaling)
	if len(ss) == 0 {
		return "", 0
	}
	slices.SortStableFunc(ss, func(a, b gate.Scaling) int { return boolRank(b.Worse) - boolRank(a.Worse) })
	cpus := scalingCPUs(ss)
	ref, refT := "cpu "+strconv.Itoa(ss[0].CPUs[0]), "t(cpu "+strconv.Itoa(ss[0].CPUs[0])+")"
	for _, s := range ss {
		if s.CPUs[0] != ss[0].CPUs[0] {
			ref, refT = "the smallest cpu value", "t(smallest cpu)"
		}
	}
	worse := len(v.ScalingWorse())
	var b strings.Builder
	b.WriteString("\n#### CPU scaling: speed-up vs " + ref + " (" + plural(len(ss), "benchmark", "benchmarks"))
	if worse > 0 {
		b.WriteString(", " + strconv.Itoa(worse) + " worse")
	}
	b.WriteString(")\n\n")
	gated := "a warning, not gated"
	if v.Policy.FailOnScaling {
		gated = "fails the gate"
	}
	b.WriteString("Speed-up " + refT + " / t(cpu) of the medians, base → head. ⚠️: parallel scaling got worse, the symptom of contention or false sharing (" + gated +
		"): head/base at the largest cpu value exceeds head/base at the smallest by at least the threshold, and their 95% intervals do not overlap.\n\n")
	var header strings.Builder
	header.WriteString("| benchmark |")
	for _, c := range cpus {
		header.WriteString(" cpu " + strconv.Itoa(c) + " |")
	}
	header.WriteString(" why |\n|:--|" + strings.Repeat("--:|", len(cpus)) + ":--|\n")

	var pkgs []string
	byPkg := map[string][]gate.Scaling{}
	for _, s := range ss {
		if _, ok := byPkg[s.Package]; !ok {
			pkgs = append(pkgs, s.Package)
		}
		byPkg[s.Package] = append(byPkg[s.Package], s)
	}
	n := 0
	for i, pkg := range pkgs {
		for j, s := range byPkg[pkg] {
			var chunk string
			if j == 0 {
				chunk = packageHeading(i, pkg) + header.String()
			}
			chunk += scalingRow(s, cpus)
			if budget >= 0 && b.Len()+len(chunk) > budget {
				return finish(&b, "", n)
			}
			b.WriteString(chunk)
			n++
		}
	}
	return finish(&b, "", n)
}

// scalingRow renders one benchmark's speed-ups at cpus.
func scalingRow(s gate.Scaling, cpus []int) string {
	var b strings.Builder
	b.WriteString("| " + esc(s.Name) + " |")
	for _, c := range cpus {
		i := slices.Index(s.CPUs, c)
		switch {
		case i < 0:
			b.WriteString(" " + none + " |")
		case i == 0:
			b.WriteString(" 1× |")
		default:
			b.WriteString(" " + times(s.Base[i]) + " → " + times(s.Head[i]) + " |")
		}
	}
	why := Escape(truncate(s.Reason, 500))
	if s.Worse {
		why = "⚠️ " + why
	}
	b.WriteString(" " + why + " |\n")
	return b.String()
}

// times formats a speed-up: "6.50×".
func times(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "×" }
