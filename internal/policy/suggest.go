package policy

import "strings"

// Suggest returns, for "did you mean" in the messages about unknown keys
// (and the command line's unknown flags and inputs), the word of words
// closest to w in edits, if it is near enough to be a typo of it (at most
// 2 edits, and fewer than half of w's letters), or "". Case is ignored.
func Suggest(w string, words []string) string {
	best, bestD := "", 3
	for _, c := range words {
		d := distance(strings.ToLower(w), strings.ToLower(c))
		if d < bestD && 2*d < len([]rune(w)) {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the edit distance of a and b: insertions, deletions,
// substitutions and swaps of two neighbours each count one (the optimal
// string alignment distance).
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
