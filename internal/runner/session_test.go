package runner

import (
	"context"
	"io"
)

// The one-call forms of a session, for tests with nothing to do between
// its steps.

// Run measures base against head and writes each side's samples to its
// writer as benchfmt. It returns an error (with the partial Result) when it
// cannot finish: a *BuildError, ErrNoBenchmarks, or the context's error.
// It is Prepare followed by one Measure of every unit for Count rounds.
func Run(ctx context.Context, base, head Side, o Options, baseOut, headOut io.Writer) (*Result, error) {
	s, err := Prepare(ctx, base, head, o)
	if err != nil {
		if s == nil {
			return nil, err
		}
		return s.Result(), err
	}
	err = s.Measure(ctx, s.Units(), 1, s.r.o.Count, baseOut, headOut)
	return s.Result(), err
}

// Prepare is Build, Discover and Prepare of every discovered unit: a
// session ready to measure, for callers with nothing to do between the
// steps.
func Prepare(ctx context.Context, base, head Side, o Options) (*Session, error) {
	s, err := Build(ctx, base, head, o)
	if err != nil {
		return s, err
	}
	units, err := s.Discover(ctx)
	if err != nil {
		return s, err
	}
	return s, s.Prepare(ctx, units)
}
