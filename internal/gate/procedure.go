package gate

import (
	"github.com/benchgate/benchgate/internal/stats"
)

// A Confirmation is the confirmation stage of one screen as a value that
// asks for its fresh rounds step by step. The run (package pipeline)
// drives it with the runner's rounds and the simulations with synthetic
// ones, so that the error rates and the power the simulations assert are
// those of the procedure that runs:
//
//	c := NewConfirmation(screen)
//	for step, ok := c.Next(); ok; step, ok = c.Next() {
//		// measure step.Rounds[i] fresh rounds of row step.Keys[i],
//		// numbered from fresh round step.From on
//		c.Observe(fresh) // Judge of every fresh round so far
//	}
//	v := c.Verdict()
//
// The steps: every promising row ([Promising]) that is not too noisy to
// confirm ([TooNoisyToConfirm]) gets the first stage ([FirstFresh], or its
// whole count of [FreshRounds] when smaller), then the rows [Continuing]
// names get the rest of their count. Every decision is one [Confirm]
// recomputes from the rounds alone (a row's fresh rounds say which stage
// it stopped at), so that a kept directory judged later gives the run's
// verdict.
type Confirmation struct {
	screen Verdict
	plan   map[stats.Key]int
	rows   []stats.Key // re-run, in the verdict's order
	first  int
	steps  int
	fresh  Verdict
	ran    map[stats.Key]int
}

// A Step is fresh rounds a [Confirmation] asks for: Rounds[i] rounds of
// the time row Keys[i], numbered from the confirmation's fresh round From
// on (1 is the first round after the screen's).
type Step struct {
	Keys   []stats.Key
	Rounds []int
	From   int
}

// NewConfirmation plans the confirmation of screen, a screen judged
// knowing that its promising rows get fresh rounds (Policy.ConfirmRounds,
// as Policy.Screened sets it).
func NewConfirmation(screen Verdict) *Confirmation {
	c := &Confirmation{screen: screen, plan: FreshRounds(screen), first: FirstFresh(screen), ran: map[stats.Key]int{}}
	for _, k := range Promising(screen) {
		if _, ok := c.plan[k]; ok {
			c.rows = append(c.rows, k)
		}
	}
	return c
}

// Screen is the screen the confirmation decides.
func (c *Confirmation) Screen() Verdict { return c.screen }

// Planned returns the rows the confirmation re-runs, in the verdict's
// order, and the most fresh rounds any of them may get.
func (c *Confirmation) Planned() (rows []stats.Key, most int) {
	for _, k := range c.rows {
		most = max(most, c.plan[k])
	}
	return c.rows, most
}

// Next returns the next fresh rounds to measure, false when there are
// none: first the first stage of every row re-run, then, after Observe
// gave it the first stage's rounds, the rest of the rows [Continuing]
// names.
func (c *Confirmation) Next() (Step, bool) {
	var s Step
	switch c.steps {
	case 0:
		s.From = 1
		for _, k := range c.rows {
			s.Keys, s.Rounds = append(s.Keys, k), append(s.Rounds, min(c.plan[k], c.first))
		}
	case 1:
		s.From = c.first + 1
		rows := map[stats.Key]Result{}
		for _, r := range c.screen.Results {
			rows[r.Key] = r
		}
		fresh := map[stats.Key]Result{}
		for _, r := range c.fresh.Results {
			fresh[r.Key] = r
		}
		for _, k := range Continuing(c.screen, c.fresh) {
			n := replanned(rows[k], fresh[k], c.first, c.screen.Policy, c.screen.Family) - c.first
			if n > 0 {
				s.Keys, s.Rounds = append(s.Keys, k), append(s.Rounds, n)
			}
		}
	}
	c.steps++
	if len(s.Keys) == 0 {
		c.steps = 2
		return Step{}, false
	}
	for i, k := range s.Keys {
		c.ran[k] += s.Rounds[i]
	}
	return s, true
}

// Observe gives the confirmation every fresh round measured so far:
// fresh is [Judge] of them (its results' comparisons and its failures
// count).
func (c *Confirmation) Observe(fresh Verdict) { c.fresh = fresh }

// Ran returns the fresh rounds each row was asked for.
func (c *Confirmation) Ran() map[stats.Key]int { return c.ran }

// Verdict is the confirmed verdict on the rounds observed: [Confirm] of
// the screen and the fresh rounds.
func (c *Confirmation) Verdict() Verdict { return Confirm(c.screen, c.fresh) }
