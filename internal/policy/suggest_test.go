package policy

import "testing"

func TestSuggest(t *testing.T) {
	words := []string{"threshold", "alpha", "bench", "benchtime", "count", "C", "fail-on"}
	for w, want := range map[string]string{
		"treshold":   "threshold", // a letter left out
		"threshhold": "threshold", // one too many
		"thresold":   "threshold",
		"bnech":      "bench", // two swapped
		"Alpah":      "alpha", // case and a swap
		"benchtmie":  "benchtime",
		"failon":     "fail-on",
		"cuont":      "count",
		"x":          "", // one letter is no typo of another
		"frobnicate": "",
		"tim":        "",
	} {
		if got := Suggest(w, words); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestSuggestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"ab", "ba", 1}, {"kitten", "sitting", 3}, {"threshold", "treshold", 1}, {"été", "ete", 2}} {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
