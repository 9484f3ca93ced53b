package github

import (
	"strings"
	"unicode/utf8"
)

// truncatedNote ends a comment that Truncate cut.
const truncatedNote = "\n*(cut to fit GitHub's size limit for comments; the job summary has the full report)*\n"

// Truncate returns s cut to at most max bytes: at the end of a line, with an
// open code fence closed and a note saying it was cut. s is returned unchanged
// if it fits.
func Truncate(s string, max int) string {
	return cut(s, max, truncatedNote)
}

// cut is Truncate with the note given.
func cut(s string, max int, note string) string {
	if len(s) <= max {
		return s
	}
	if max < 0 {
		max = 0
	}
	room := max - len(note) - len("\n") - len("~~~\n")
	if room <= 0 {
		return prefix(s, max)
	}
	head := s[:room]
	if i := strings.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	} else {
		head = prefix(s, room) + "\n"
	}
	if f := openFence(head); f != "" {
		head += f + "\n"
	}
	return head + note
}

// prefix returns the longest prefix of s of at most n bytes that does not
// split a character.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// openFence returns the fence ("```" or "~~~") of a fenced code block that s
// leaves open, or "".
func openFence(s string) string {
	open := ""
	for line := range strings.Lines(s) {
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) > 3 {
			continue // indented code, not a fence
		}
		for _, f := range []string{"```", "~~~"} {
			if !strings.HasPrefix(t, f) {
				continue
			}
			switch {
			case open == "":
				open = f
			case open == f && strings.TrimSpace(strings.TrimLeft(t, f[:1])) == "":
				open = ""
			}
		}
	}
	return open
}
