// Package bisect finds the commits on a first-parent path where benchmarks
// changed. It measures the path's ends against each other, then splits
// every stretch whose change is significant into two halves and measures
// both, down to single commits: a creep of several small changes yields
// each of its culprits, largest first. A comparison that can neither show
// a change (its interval excludes 0) nor rule one out (its interval lies
// within ±Resolution) is measured again with twice the rounds, up to
// MaxRounds, instead of guessing. The measuring is the caller's
// ([Comparer]); this package only chooses what to compare.
package bisect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// A Commit is one commit of the path.
type Commit struct {
	SHA, Subject string
}

// A Key names one benchmark's unit.
type Key struct {
	Package, Benchmark, Unit string
}

// A Change is one benchmark unit's change between two commits, as
// fractions (0.04 is +4 %, in the unit's own direction: larger values).
// Known says whether Low and High bound the change at the comparison's
// confidence; an exact comparison (allocations) has Low = High = Change.
type Change struct {
	Key
	Change, Low, High float64
	Known             bool
}

// A Comparer measures commit b against commit a in rounds interleaved
// rounds and returns every benchmark unit's change.
type Comparer interface {
	Compare(ctx context.Context, a, b Commit, rounds int) ([]Change, error)
}

// Options are the search's settings.
type Options struct {
	// Rounds is the first comparison's number of rounds; MaxRounds the
	// most one comparison may take (doubling from Rounds).
	Rounds, MaxRounds int
	// Resolution is the smallest change (a fraction) worth finding: a
	// comparison whose interval lies within ±Resolution shows no change.
	Resolution float64
	// Progress, when set, hears about each step before it runs.
	Progress func(Step)
}

// A Step is one comparison as it starts: its number, the commits it
// compares, how many commits lie between them, its rounds, and an
// estimate of the steps left after it.
type Step struct {
	N         int
	A, B      Commit
	Commits   int
	Rounds    int
	Remaining int
}

// A Culprit is a commit that changed a benchmark unit, measured against
// its first parent.
type Culprit struct {
	Commit Commit
	Change
}

// Result is what the search found.
type Result struct {
	// Culprits, largest change first.
	Culprits []Culprit
	// Undecided lists the benchmark units of a stretch that MaxRounds
	// could not decide, with the stretch's ends.
	Undecided []Stretch
	// Steps is the number of comparisons made.
	Steps int
}

// A Stretch is a part of the path whose change in one unit stayed
// undecided.
type Stretch struct {
	From, To Commit
	Change
}

// ErrPath is returned for a path too short to bisect.
var ErrPath = errors.New("the path needs the good commit and at least one commit after it")

// Run searches path (good first, bad last; each commit's first parent is
// the one before it) for the commits that changed the benchmark units.
func Run(ctx context.Context, c Comparer, path []Commit, o Options) (*Result, error) {
	if len(path) < 2 {
		return nil, ErrPath
	}
	if o.Rounds < 1 {
		o.Rounds = 1
	}
	o.MaxRounds = max(o.MaxRounds, o.Rounds)
	s := &search{c: c, path: path, o: o, res: &Result{}}
	s.pending = []segment{{lo: 0, hi: len(path) - 1}}
	for len(s.pending) > 0 {
		seg := s.pending[0]
		s.pending = s.pending[1:]
		if err := s.visit(ctx, seg); err != nil {
			return s.res, err
		}
	}
	slices.SortStableFunc(s.res.Culprits, func(a, b Culprit) int {
		return cmp.Compare(math.Abs(b.Change.Change), math.Abs(a.Change.Change))
	})
	return s.res, nil
}

// A segment is the stretch path[lo]..path[hi]; keys, when non-nil, are the
// units its parent showed changed (nil: every unit).
type segment struct {
	lo, hi int
	keys   map[Key]bool
}

type search struct {
	c       Comparer
	path    []Commit
	o       Options
	res     *Result
	pending []segment
}

// visit compares the segment's ends and queues its halves for the units
// that changed, or records the culprits of a single commit.
func (s *search) visit(ctx context.Context, seg segment) error {
	changed, err := s.decide(ctx, seg)
	if err != nil || len(changed) == 0 {
		return err
	}
	if seg.hi-seg.lo == 1 {
		for _, ch := range changed {
			s.res.Culprits = append(s.res.Culprits, Culprit{Commit: s.path[seg.hi], Change: ch})
		}
		return nil
	}
	keys := map[Key]bool{}
	for _, ch := range changed {
		keys[ch.Key] = true
	}
	mid := (seg.lo + seg.hi) / 2
	s.pending = append(s.pending, segment{seg.lo, mid, keys}, segment{mid, seg.hi, keys})
	return nil
}

// decide measures the segment, with more rounds while a unit it follows is
// undecided, and returns the changed units.
func (s *search) decide(ctx context.Context, seg segment) ([]Change, error) {
	a, b := s.path[seg.lo], s.path[seg.hi]
	for rounds := s.o.Rounds; ; rounds *= 2 {
		rounds = min(rounds, s.o.MaxRounds)
		s.res.Steps++
		if s.o.Progress != nil {
			s.o.Progress(Step{N: s.res.Steps, A: a, B: b, Commits: seg.hi - seg.lo, Rounds: rounds, Remaining: s.remaining(seg)})
		}
		all, err := s.c.Compare(ctx, a, b, rounds)
		if err != nil {
			return nil, fmt.Errorf("comparing %.12s with %.12s: %w", a.SHA, b.SHA, err)
		}
		var changed, open []Change
		for _, ch := range all {
			if seg.keys != nil && !seg.keys[ch.Key] {
				continue
			}
			switch s.verdict(ch) {
			case changedV:
				changed = append(changed, ch)
			case undecidedV:
				open = append(open, ch)
			}
		}
		if len(open) == 0 || rounds >= s.o.MaxRounds {
			for _, ch := range open {
				s.res.Undecided = append(s.res.Undecided, Stretch{From: a, To: b, Change: ch})
			}
			return changed, nil
		}
	}
}

type verdict int

const (
	unchangedV verdict = iota
	changedV
	undecidedV
)

// verdict classifies one unit's change: changed when its interval excludes
// 0, unchanged when it lies within ±Resolution, else undecided.
func (s *search) verdict(ch Change) verdict {
	switch {
	case !ch.Known:
		return undecidedV
	case ch.Low > 0 || ch.High < 0:
		return changedV
	case ch.Low > -s.o.Resolution && ch.High < s.o.Resolution:
		return unchangedV
	default:
		return undecidedV
	}
}

// remaining estimates the steps left after the one on cur, as if every
// stretch held one culprit: two comparisons per halving of cur, and each
// queued stretch's own and its halvings'.
func (s *search) remaining(cur segment) int {
	n := 2 * levels(cur.hi-cur.lo)
	for _, seg := range s.pending {
		n += 1 + 2*levels(seg.hi-seg.lo)
	}
	return n
}

// levels is the number of halvings that take n commits to one.
func levels(n int) int {
	l := 0
	for n > 1 {
		n = (n + 1) / 2
		l++
	}
	return l
}
