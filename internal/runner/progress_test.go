package runner

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestMeter: the share done counts the expected work (the confirmation's)
// from the first round, so a run's total does not jump when it starts;
// the share never goes back; the time left is the rest at the measured
// rate.
func TestMeter(t *testing.T) {
	units := []Unit{{Cost: 50 * time.Millisecond}, {Cost: 50 * time.Millisecond}} // 200 ms a round, both sides
	var m meter
	m.perWork = 1.5
	m.expected = 10 * work(units) // 10 unit-rounds... of the pair: the confirmation's
	m.start(units, 10, true)      // the screen: 10 rounds
	left, share := m.left()
	if share != 0 || left != time.Duration(1.5*float64(20*work(units))) {
		t.Errorf("before any round: share %v, left %v; want 0 and 1.5 × 20 rounds' work", share, left)
	}
	for range 10 {
		m.done(units)
		m.spent(2 * work(units))
	}
	left, share = m.left()
	if share != 0.5 || left != 10*2*work(units) {
		t.Errorf("after the screen: share %v, left %v; want 0.5 and 10 rounds at the measured rate (2×)", share, left)
	}
	// The confirmation is planned smaller than expected: it takes its
	// work from the expected; the share moves on, it never goes back.
	m.expected = 2 * work(units)
	m.start(units, 2, false)
	if m.expected != 0 {
		t.Errorf("expected %v after the confirmation's Measure call, want 0", m.expected)
	}
	_, share = m.left()
	if share < 0.5 {
		t.Errorf("share %v went back", share)
	}
	m.expected = 100 * work(units) // a larger plan: the share stalls, it does not fall
	if _, s := m.left(); s != share {
		t.Errorf("share %v after a larger plan, want it kept at %v", s, share)
	}
}

// TestProgressLines: a Measure call prints a line at the start of every
// round with the share, the round and the time left, and one total.
func TestProgressLines(t *testing.T) {
	var out bytes.Buffer
	r := &run{o: Options{Progress: &out, Count: 3}}
	units := []Unit{{Cost: time.Millisecond}}
	r.meter.start(units, 3, true)
	for round := 1; round <= 3; round++ {
		r.tick(round, 3)
		r.meter.done(units)
		r.meter.spent(time.Second)
	}
	re := regexp.MustCompile(`(?m)^benchgate: (\d+) % measured \(round (\d) of 3\)(, about \d+s left)?$`)
	ms := re.FindAllStringSubmatch(out.String(), -1)
	if len(ms) != 3 {
		t.Fatalf("progress lines:\n%s\nwant one per round", out.String())
	}
	for i, m := range ms {
		share, _ := strconv.Atoi(m[1])
		if m[2] != strconv.Itoa(i+1) || share != []int{0, 33, 66}[i] {
			t.Errorf("line %d: %q", i, m[0])
		}
	}
	r.tick(4, 5) // beyond --count: the confirmation's rounds
	if !bytes.Contains(out.Bytes(), []byte("(round 4, re-measuring)")) {
		t.Errorf("a confirmation round's line:\n%s", out.String())
	}
}
