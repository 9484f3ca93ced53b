// Package benchout reads what a test binary prints when it runs
// benchmarks: its result lines, also those that the benchmark's own output
// split in two.
package benchout

import (
	"regexp"
	"strings"
)

// resultTail matches what testing prints after a benchmark's name once it
// has run: the iteration count and value-unit pairs ("  1000  12.5 ns/op").
var resultTail = regexp.MustCompile(`^\s*\d+\s+[-+0-9.eE]+ \S+(\s|$)`)

// Rejoin puts result lines back together that the benchmark's own output
// split: testing prints a benchmark's name, runs it, then prints its
// figures, so whatever the benchmark writes to standard output lands between
// the two ("BenchmarkX-2 \tsome text\n…\n  1000  12.5 ns/op"). Such a
// result would otherwise be lost without a word.
func Rejoin(stdout []byte) []byte {
	lines := strings.Split(string(stdout), "\n")
	pending := ""
	for i, l := range lines {
		if name, rest, ok := strings.Cut(l, "\t"); ok && strings.HasPrefix(name, "Benchmark") && !strings.ContainsAny(strings.TrimSpace(name), " ") {
			if resultTail.MatchString(rest) {
				pending = ""
			} else {
				pending = strings.TrimSpace(name)
				lines[i] = "" // the benchmark's text after the name: not a result
			}
			continue
		}
		if pending != "" && resultTail.MatchString(l) {
			lines[i] = pending + "\t" + l
			pending = ""
		}
	}
	return []byte(strings.Join(lines, "\n"))
}
