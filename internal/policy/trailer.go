package policy

import (
	"fmt"
	"regexp"
	"strings"
)

// AcceptKey is the trailer that accepts regressions on purpose.
const AcceptKey = "Benchgate-Accept"

// Accept is one Benchgate-Accept trailer: the benchmarks whose key (see
// "Names" in the package documentation) its regexp matches stay in the
// report as regressions, accepted and not gated.
type Accept struct {
	// Pattern is the trailer's value, the regexp as written.
	Pattern string
	re      *regexp.Regexp
	// Line is the trailer's line in the message, from 1.
	Line int
	// Trailer is the trailer line as written (continuation lines unfolded),
	// for the report.
	Trailer string
	// By says who accepted, as GitHub names them ("@login"), or "" when
	// nobody verified who. ParseAcceptTrailers leaves it empty: the
	// commit's author field is whatever its writer typed, so the caller
	// fills in who it knows wrote the message (the pull request's author),
	// if anyone.
	By string
}

// Matches reports whether the trailer accepts the benchmark (pkg and name as
// for [Policy.For]).
func (a Accept) Matches(pkg, name string) bool {
	return a.re != nil && matches(a.re, pkg, name)
}

// Accepted returns the first of accepts that matches the benchmark.
func Accepted(accepts []Accept, pkg, name string) (Accept, bool) {
	for _, a := range accepts {
		if a.Matches(pkg, name) {
			return a, true
		}
	}
	return Accept{}, false
}

// ParseAcceptTrailers returns the Benchgate-Accept trailers of a commit
// message, in order, with the semantics of git interpret-trailers:
//
//   - the trailers are the message's last paragraph (after its last blank
//     line), and the first paragraph, the subject, never holds trailers;
//   - that paragraph is a trailer block when every line in it is a trailer
//     ("Key: value", the key made of letters, digits and hyphens, spaces
//     allowed before the colon) or a continuation line (starting with a
//     space or a tab, folded into the trailer above it), or when it has a
//     git-generated line ("Signed-off-by: ", "(cherry picked from commit ")
//     and at least a quarter of its lines are trailers;
//   - lines starting with '#' are comments and are skipped, and the message
//     ends before a "---" line (a patch);
//   - keys compare case-insensitively ("benchgate-accept:" counts) and a key
//     may appear several times.
//
// A trailer whose value is empty or not a valid Go regexp is an error at its
// line (an [ErrorList] of [Error]s with File "commit message", which the
// caller may rename). Pass the message of the head commit the pull request
// proposes, not of a test merge commit.
func ParseAcceptTrailers(message string) ([]Accept, error) {
	var out []Accept
	var errs ErrorList
	for _, t := range trailers(message) {
		if !strings.EqualFold(t.key, AcceptKey) {
			continue
		}
		if t.value == "" {
			errs = append(errs, &Error{File: "commit message", Line: t.line, Msg: fmt.Sprintf("%s: empty regexp: write '.' to accept every regression", t.key)})
			continue
		}
		re, err := regexp.Compile(t.value)
		if err != nil {
			errs = append(errs, &Error{File: "commit message", Line: t.line, Msg: fmt.Sprintf("%s: invalid regular expression %q: %v", t.key, t.value, strings.TrimPrefix(err.Error(), "error parsing regexp: "))})
			continue
		}
		out = append(out, Accept{Pattern: t.value, re: re, Line: t.line, Trailer: t.text})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

type trailer struct {
	key, value string
	line       int    // from 1
	text       string // the line as written, continuations unfolded
}

// trailers returns every trailer of the message's trailer block (see
// ParseAcceptTrailers), continuation lines unfolded into one space.
func trailers(message string) []trailer {
	lines := strings.Split(strings.ReplaceAll(message, "\r\n", "\n"), "\n")
	for i, l := range lines {
		if l == "---" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "---\t") {
			lines = lines[:i]
			break
		}
	}
	start, end := trailerBlock(lines)
	var out []trailer
	for i := start; i < end; i++ {
		l := lines[i]
		if isComment(l) || isContinuation(l) || isBlank(l) {
			continue
		}
		sep := findSeparator(l)
		if sep < 1 {
			continue
		}
		t := trailer{key: strings.TrimSpace(l[:sep]), value: strings.TrimSpace(l[sep+1:]), line: i + 1, text: strings.TrimRight(l, " \t")}
		for j := i + 1; j < end && isContinuation(lines[j]); j++ {
			cont := strings.TrimSpace(lines[j])
			t.value = strings.TrimSpace(t.value + " " + cont)
			t.text += " " + cont
		}
		out = append(out, t)
	}
	return out
}

func isComment(l string) bool      { return strings.HasPrefix(l, "#") }
func isBlank(l string) bool        { return strings.TrimSpace(l) == "" }
func isContinuation(l string) bool { return l != "" && (l[0] == ' ' || l[0] == '\t') && !isBlank(l) }

// findSeparator returns the index of the ':' ending a trailer key at the
// start of l, or -1: the key is letters, digits and '-', optionally followed
// by spaces or tabs (git's find_separator).
func findSeparator(l string) int {
	space := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c == ':':
			return i
		case !space && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'):
		case i > 0 && (c == ' ' || c == '\t'):
			space = true
		default:
			return -1
		}
	}
	return -1
}

// isGitGenerated reports a line that git itself writes into trailer blocks.
func isGitGenerated(l string) bool {
	return strings.HasPrefix(l, "Signed-off-by: ") || strings.HasPrefix(l, "(cherry picked from commit ")
}

// trailerBlock returns the lines [start, end) of the message's trailer
// block, or an empty range (git's find_trailer_block_start).
func trailerBlock(lines []string) (start, end int) {
	end = len(lines)
	// The subject paragraph: up to its first blank line.
	title := 0
	for title < len(lines) && (isComment(lines[title]) || !isBlank(lines[title])) {
		title++
	}
	var trailers, nonTrailers, continuations int
	recognized := false
	onlySpaces := true
	for i := len(lines) - 1; i >= title; i-- {
		l := lines[i]
		if isComment(l) {
			continue
		}
		if isBlank(l) {
			if onlySpaces {
				continue
			}
			nonTrailers += continuations
			if recognized && trailers*3 >= nonTrailers || trailers > 0 && nonTrailers == 0 {
				return i + 1, end
			}
			return 0, 0
		}
		onlySpaces = false
		switch {
		case isGitGenerated(l):
			recognized = true
			trailers++
			continuations = 0
		case findSeparator(l) >= 1:
			trailers++
			continuations = 0
		case isContinuation(l):
			continuations++
		default:
			nonTrailers += 1 + continuations
			continuations = 0
		}
	}
	return 0, 0
}

// NewAccept is an acceptance that does not come from a trailer: an
// --accept flag or a pull request label. via says which ("--accept
// codec", "label slower-on-purpose"), by who accepted ("" if unknown).
func NewAccept(pattern, by, via string) (Accept, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return Accept{}, fmt.Errorf("invalid regular expression %q: %v", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return Accept{Pattern: pattern, re: re, Trailer: via, By: by}, nil
}
