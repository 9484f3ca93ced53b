package runner

import (
	"fmt"
	"io"
	"time"
)

// Stager is a progress writer that can fold a run's stages: under GitHub
// Actions, each stage's lines in a group of the log (::group::), started
// by benchgate's own workflow command, never by text a benchmark printed.
type Stager interface {
	io.Writer
	// Stage ends the stage before, if any, and starts one titled title
	// (benchgate's own words, no name the change controls); "" ends the
	// stage before only.
	Stage(title string)
}

// Stage starts a stage of the run on w when w folds them (Stager), and
// does nothing otherwise.
func Stage(w io.Writer, title string) {
	if s, ok := w.(Stager); ok {
		s.Stage(title)
	}
}

// meter follows the measuring: the timed work of the unit-rounds planned
// and done (both sides; the runs' N × the pilot's time per op), the wall
// time their processes took, and the work still expected beyond what was
// planned (the confirmation's, Session.Expect). Its share done never goes
// back, and its time left counts the expected work too, so that a run
// shows one total from its first round to its last.
type meter struct {
	planned, finished, expected time.Duration
	wall                        time.Duration
	// perWork estimates the wall time per unit of timed work before any
	// round ran (the pilots' set-up and start-up, roundTime).
	perWork float64
	shown   float64
	round   int
	last    time.Time
}

// start notes a Measure call of count rounds of units: planned, and
// taken from the expected work when it is not the first call.
func (m *meter) start(units []Unit, count int, first bool) {
	w := time.Duration(count) * work(units)
	m.planned += w
	if !first {
		m.expected = max(0, m.expected-w)
	}
}

// work is the timed work of one round of units, both sides.
func work(units []Unit) time.Duration {
	var w time.Duration
	for _, u := range units {
		w += 2 * u.Cost
	}
	return w
}

// done notes one round of units done.
func (m *meter) done(units []Unit) { m.finished += work(units) }

// spent notes a counted process's wall time.
func (m *meter) spent(d time.Duration) { m.wall += d }

// left estimates the wall time the planned and expected work still takes,
// and the share done.
func (m *meter) left() (time.Duration, float64) {
	total := m.planned + m.expected
	if total <= 0 {
		return 0, 0
	}
	rate := m.perWork
	if m.finished > 0 {
		rate = float64(m.wall) / float64(m.finished)
	}
	rest := max(0, total-m.finished)
	share := float64(m.finished) / float64(total)
	m.shown = max(m.shown, min(share, 1))
	return time.Duration(rate * float64(rest)), m.shown
}

// tick prints the progress at the start of every round and at most every
// two seconds within one: the share measured, the round, the time left.
func (r *run) tick(round, last int) {
	m := &r.meter
	if r.o.Progress == nil || (round == m.round && time.Since(m.last) < 2*time.Second) {
		return
	}
	m.round, m.last = round, time.Now()
	left, share := m.left()
	where := fmt.Sprintf("round %d of %d", round, r.o.Count)
	if round > r.o.Count || last > r.o.Count {
		where = fmt.Sprintf("round %d, re-measuring", round)
	}
	eta := ""
	if left > 0 {
		eta = ", about " + left.Round(time.Second).String() + " left"
	}
	r.progress("%d %% measured (%s)%s", int(100*share), where, eta)
}
