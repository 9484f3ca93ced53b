package stats

import "golang.org/x/perf/benchmath"

// compare is CompareAlpha at benchstat's default α (0.05), the level the
// conformance tests' expected output was printed at.
func compare(s *Set, confidence float64) []Comparison {
	return CompareAlpha(s, confidence, benchmath.DefaultThresholds.CompareAlpha)
}

// pairs matches base and head observations by round, as the paired
// analysis does: one value per round present on both sides, ascending,
// each round's runs reduced to their median.
func pairs(base, head []Obs) (b, h []float64) {
	_, bs, hs := matchRounds(Rounds(base, Median), Rounds(head, Median))
	for i := range bs {
		b = append(b, bs[i].Value)
		h = append(h, hs[i].Value)
	}
	return b, h
}

// newPaired is the paired analysis of base and head observations, each
// round's runs reduced by their median.
func newPaired(base, head []Obs, confidence, alpha float64) (*Paired, string) {
	return pairedRounds(Rounds(base, Median), Rounds(head, Median), Median, confidence, alpha)
}
