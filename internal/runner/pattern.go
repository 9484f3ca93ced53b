package runner

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// benchFilter is a -bench regular expression split the way the testing
// package splits it: top-level alternatives ("A|B") each made of one pattern
// per name level ("Top/sub/subsub"), slashes and bars inside brackets or
// parentheses not counting as separators.
type benchFilter struct {
	alts [][]string
}

// parseBenchFilter validates and splits a -bench regular expression. Every
// element must compile, as testing requires.
func parseBenchFilter(expr string) (*benchFilter, error) {
	if expr == "" {
		expr = "."
	}
	f := &benchFilter{alts: splitRegexp(expr)}
	for _, alt := range f.alts {
		for _, elem := range alt {
			if _, err := regexp.Compile(elem); err != nil {
				return nil, fmt.Errorf("invalid --bench regular expression %q: %w", expr, err)
			}
		}
	}
	return f, nil
}

// splitRegexp mirrors testing.splitRegexp (src/testing/match.go).
func splitRegexp(s string) [][]string {
	var alts [][]string
	var a []string
	cs, cp := 0, 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '[':
			cs++
		case ']':
			if cs--; cs < 0 {
				cs = 0
			}
		case '(':
			if cs == 0 {
				cp++
			}
		case ')':
			if cs == 0 {
				cp--
			}
		case '\\':
			i++
		case '/':
			if cs == 0 && cp == 0 {
				a = append(a, s[:i])
				s = s[i+1:]
				i = 0
				continue
			}
		case '|':
			if cs == 0 && cp == 0 {
				a = append(a, s[:i])
				s = s[i+1:]
				i = 0
				alts = append(alts, a)
				a = nil
				continue
			}
		}
		i++
	}
	a = append(a, s)
	return append(alts, a)
}

// patternFor returns the -test.bench expression that selects exactly the
// benchmarks of top-level function top that the filter selects, or "" when the
// filter selects nothing of it. testing matches each level unanchored.
func (f *benchFilter) patternFor(top string) string {
	var alts []string
	for _, alt := range f.alts {
		if ok, _ := regexp.MatchString(alt[0], top); !ok {
			continue
		}
		elems := append([]string{"^" + regexp.QuoteMeta(top) + "$"}, alt[1:]...)
		alts = append(alts, strings.Join(elems, "/"))
	}
	return strings.Join(alts, "|")
}

// leafPattern returns the -test.bench expression that selects exactly the
// benchmark with the given full name (as printed, "BenchmarkX/sub/leaf", with
// the GOMAXPROCS suffix already removed).
func leafPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// procSuffix is what testing appends to benchmark names when run with
// GOMAXPROCS=procs.
func procSuffix(procs int) string {
	if procs == 1 {
		return ""
	}
	return "-" + strconv.Itoa(procs)
}
