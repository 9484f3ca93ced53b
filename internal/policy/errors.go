package policy

import (
	"fmt"
	"strings"
)

// Error is one problem in a policy file or a commit message, at a line.
// The CLI reports it as a usage error (exit 2).
type Error struct {
	// File is the file's name as given to Parse, or "commit message" for
	// [ParseAcceptTrailers] (the caller may rename it, e.g. to the commit).
	File string
	// Line and Column are 1-based; Column is 0 when unknown. Line is 0 only
	// for an error the YAML parser could not place.
	Line, Column int
	Msg          string
}

func (e *Error) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ErrorList is every problem found, in the order of the file. Parse and
// ParseAcceptTrailers return one (never empty) as their error; errors.As
// finds its first *Error.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap gives the errors to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}
