package policy

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// onlyError parses src and returns its one error.
func onlyError(t *testing.T, src string) *Error {
	t.Helper()
	_, err := Parse("p.yml", []byte(src))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("Parse: %v, want one error", err)
	}
	return list[0]
}

func nested(open, close string, n int) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

// The audit's file (1 MB of nested brackets, which took the parser hours
// and more memory than the machine has) and its block twin are refused
// by the quick scan, at their line.
func TestParseRefusesDeepNesting(t *testing.T) {
	deep := map[string]struct {
		src  string
		line int
	}{
		"flow lists":      {"rules: " + nested("[", "]", 500_000) + "\n", 1},
		"flow mappings":   {"# deep\nrules: " + strings.Repeat("{a: ", 100_000) + "x" + strings.Repeat("}", 100_000) + "\n", 2},
		"compact lists":   {"threshold: 5%\n" + strings.Repeat("- ", 500_000) + "x\n", 2},
		"indented keys":   {indentedKeys(70), MaxDepth + 1},
		"block then flow": {"rules:\n  - match: x\n    fail-on: " + nested("[", "]", MaxDepth) + "\n", 3},
	}
	for name, tc := range deep {
		t.Run(name, func(t *testing.T) {
			if got := scanDepth([]byte(tc.src)); got != tc.line {
				t.Errorf("scanDepth = %d, want line %d", got, tc.line)
			}
			e := onlyError(t, tc.src)
			want := fmt.Sprintf("p.yml:%d: nesting deeper than %d levels", tc.line, MaxDepth)
			if e.Error() != want {
				t.Errorf("error %q, want %q", e.Error(), want)
			}
		})
	}
}

// indentedKeys is n mappings, each one space deeper than the last.
func indentedKeys(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	return b.String()
}

// MaxDepth levels are allowed: "rules" is one, its list the other 63.
func TestParseDepthBoundary(t *testing.T) {
	at := "rules: " + nested("[", "]", MaxDepth-1) + "\n"
	e := onlyError(t, at)
	if strings.Contains(e.Msg, "nesting") || !strings.Contains(e.Msg, "rule:") {
		t.Errorf("%d levels: %v, want the rule's own error", MaxDepth, e)
	}
	over := "rules: " + nested("[", "]", MaxDepth) + "\n"
	if e := onlyError(t, over); e.Line != 1 || !strings.Contains(e.Msg, "nesting deeper") {
		t.Errorf("%d levels: %v", MaxDepth+1, e)
	}
}

// Brackets in quoted strings, comments, block scalars and plain strings are
// text, not nesting.
func TestParseBracketsInText(t *testing.T) {
	many := strings.Repeat("[{", 100)
	escaped := strings.Repeat(`\[\{`, 100) // the same, as a regexp matches it
	src := `# ` + many + `
threshold: 5% # ` + many + `
rules:
  - match: '` + escaped + `it''s ` + escaped + `'
    reason: "` + many + ` \" ` + many + `"
  - match: "multi
      line ` + strings.ReplaceAll(escaped, `\`, `\\`) + `"
    reason: |
      ` + many + `
        ` + many + `

      ` + many + `
  - match: x
    reason: >-
      ` + many + `
  - match: y
    reason: see ` + many + `
  - match: z
    fail-on: [time, allocs] # ` + many + `
`
	if line := scanDepth([]byte(src)); line != 0 {
		t.Errorf("scanDepth counted text as nesting at line %d", line)
	}
	// Within brackets, where a bracket outside quotes always counts.
	flow := "x: [a, \"" + many + "\", '" + many + "', {b: '" + many + "'}]\n"
	if line := scanDepth([]byte(flow)); line != 0 {
		t.Errorf("scanDepth counted quoted text in brackets as nesting at line %d", line)
	}
	if e := onlyError(t, flow); !strings.Contains(e.Msg, `unknown key "x"`) {
		t.Errorf("brackets in quotes within brackets: %v", e)
	}
	p := mustParse(t, "p.yml", src)
	if len(p.Rules) != 5 || !strings.HasPrefix(p.Rules[0].Match, `\[\{`) || !strings.HasPrefix(p.Rules[2].Reason, "[{") {
		t.Errorf("rules = %+v", p.Rules)
	}
}

// A file whose nesting the quick scan does not see (a plain string
// continued on a line that starts with a quote) is still refused: the
// parser's own tokens are measured before it builds anything.
func TestParseTokensMeasured(t *testing.T) {
	src := "threshold: it\n  'is\nrules: " + nested("[", "]", 70) + "\n"
	if line := scanDepth([]byte(src)); line != 0 {
		t.Fatalf("scanDepth = %d: the test needs a file it misjudges", line)
	}
	if e := onlyError(t, src); e.Line != 3 || e.Msg != fmt.Sprintf("nesting deeper than %d levels", MaxDepth) {
		t.Errorf("error %v, want line 3: nesting", e)
	}
}

// A legitimate large file parses: 1,500 rules, nesting 6 deep with flow
// lists and mappings.
func TestParseLargeFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("threshold: 5%\nallocs: {max-increase: 0}\nrules:\n")
	for i := range 1500 {
		fmt.Fprintf(&b, "  - match: 'Benchmark%d/[a-z]+'\n    fail-on: [time, allocs]\n", i)
	}
	if b.Len() > MaxSize {
		t.Fatalf("%d bytes: beyond MaxSize", b.Len())
	}
	p := mustParse(t, "p.yml", b.String())
	if len(p.Rules) != 1500 {
		t.Errorf("%d rules, want 1500", len(p.Rules))
	}
}

func TestParseRefusesLargeFiles(t *testing.T) {
	big := "threshold: 5%\n" + strings.Repeat("#\n", MaxSize/2)
	e := onlyError(t, big)
	want := fmt.Sprintf("p.yml: %d bytes: a policy file is at most %d bytes (%d KiB)", len(big), MaxSize, MaxSize>>10)
	if e.Error() != want {
		t.Errorf("error %q, want %q", e.Error(), want)
	}
	// Exactly MaxSize is allowed.
	exact := "threshold: 5%\n"
	exact += strings.Repeat("#", MaxSize-len(exact)-1) + "\n"
	mustParse(t, "p.yml", exact)
}

func TestParseRefusesManyTokens(t *testing.T) {
	src := "rules:\n" + strings.Repeat("- a\n", MaxTokens)
	e := onlyError(t, src)
	// "rules" and ":", then "-" and "a" on each line: token MaxTokens+1
	// is on line 1+(MaxTokens+1)/2.
	want := fmt.Sprintf("p.yml:%d: too many YAML tokens: a policy file has at most %d (keys, values and punctuation)", 1+(MaxTokens+1)/2, MaxTokens)
	if e.Error() != want {
		t.Errorf("error %q, want %q", e.Error(), want)
	}
	// Comments are not counted.
	mustParse(t, "p.yml", "threshold: 5%\n"+strings.Repeat("#\n", MaxTokens))
}
