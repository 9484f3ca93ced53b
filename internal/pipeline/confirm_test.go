package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/benchgate/benchgate/internal/stats"
)

// replay is a measurer that plays recorded rounds back: a unit's rounds
// come from its recorded confirmation rounds (testdata/confirm, a run of
// scripts/evidence.sh's module under a switching hog at --threshold 2%),
// or, for a unit the recording did not re-run, from its screen's, in
// order and again from the start when they run out. No benchmark
// process runs.
type replay struct {
	units  []runner.Unit
	rounds map[string][][2][]string // unit ID → recorded rounds → each side's result lines
	next   map[string]int
	res    runner.Result
	asked  []step // each Measure call
}

type step struct {
	units        []string
	first, count int
}

// readRounds reads a raw file's result lines by package and name
// (joined by a NUL) and round.
func readRounds(t *testing.T, path string) map[string]map[int][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[int][]string{}
	pkg, round := "", 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "pkg: "):
			pkg = strings.TrimPrefix(line, "pkg: ")
		case strings.HasPrefix(line, "round: "):
			round, _ = strconv.Atoi(strings.TrimPrefix(line, "round: "))
		case strings.HasPrefix(line, "Benchmark"):
			id := pkg + "\x00" + strings.TrimPrefix(strings.Fields(line)[0], "Benchmark")
			if out[id] == nil {
				out[id] = map[int][]string{}
			}
			out[id][round] = append(out[id][round], line)
		}
	}
	return out
}

func newReplay(t *testing.T, dir string, screened int) *replay {
	t.Helper()
	r := &replay{rounds: map[string][][2][]string{}, next: map[string]int{}}
	r.res.Rounds = screened
	var sides [2][2]map[string]map[int][]string
	for i, name := range []string{shard.BaseFile, shard.HeadFile, shard.ConfirmBaseFile, shard.ConfirmHeadFile} {
		sides[i/2][i%2] = readRounds(t, filepath.Join(dir, name))
	}
	for key := range sides[0][0] {
		pkg, name, _ := strings.Cut(key, "\x00")
		base, procs, _ := strings.Cut(name, "-")
		cpu, _ := strconv.Atoi(procs)
		u := runner.Unit{Package: pkg, Name: "Benchmark" + base, CPU: cpu, Sides: [2]bool{true, true}}
		r.units = append(r.units, u)
		from := sides[1]
		if len(from[0][key]) == 0 {
			from = sides[0]
		}
		rounds := slices.Sorted(func(yield func(int) bool) {
			for k := range from[0][key] {
				if !yield(k) {
					return
				}
			}
		})
		for _, k := range rounds {
			r.rounds[u.ID()] = append(r.rounds[u.ID()], [2][]string{from[0][key][k], from[1][key][k]})
		}
	}
	slices.SortFunc(r.units, func(a, b runner.Unit) int { return strings.Compare(a.ID(), b.ID()) })
	return r
}

func (r *replay) Units() []runner.Unit   { return r.units }
func (r *replay) Result() *runner.Result { return &r.res }
func (r *replay) Reseed(int64)           {}
func (r *replay) Expect(int)             {}
func (r *replay) Measure(_ context.Context, units []runner.Unit, first, count int, base, head io.Writer) error {
	s := step{first: first, count: count}
	for _, u := range units {
		s.units = append(s.units, u.ID())
	}
	r.asked = append(r.asked, s)
	for round := first; round < first+count; round++ {
		for _, u := range units {
			id := u.ID()
			rec := r.rounds[id][r.next[id]%len(r.rounds[id])]
			r.next[id]++
			for i, w := range []io.Writer{base, head} {
				fmt.Fprintf(w, "pkg: %s\nround: %d\n%s\n", u.Package, round, strings.Join(rec[i], "\n"))
			}
		}
	}
	return nil
}

// TestConfirmReplay: the confirmation stage on recorded rounds, no
// benchmark process: it re-runs the rows gate's procedure names, in its
// steps, into confirm-base.txt and confirm-head.txt, and its verdict is
// the one the kept directory gives (Judge.Raw, as benchgate compare DIR).
func TestConfirmReplay(t *testing.T) {
	out := t.TempDir()
	for _, name := range []string{shard.BaseFile, shard.HeadFile} {
		data, err := os.ReadFile(filepath.Join("testdata", "confirm", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := gate.DefaultPolicy()
	p.Threshold = 0.02
	j := Judge{Policy: p, Estimator: stats.Median}
	in, err := ReadDir(out, out)
	if err != nil {
		t.Fatal(err)
	}
	screen, err := j.Screen(in, 10)
	if err != nil {
		t.Fatal(err)
	}
	rp := newReplay(t, filepath.Join("testdata", "confirm"), 10)
	c, err := Confirm(context.Background(), rp, *screen, 10, out, 1, j, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Confirmation == nil || c.Cancelled != nil {
		t.Fatalf("confirmation %+v, cancelled %+v: want rows re-run", c.Confirmation, c.Cancelled)
	}
	// The steps are the procedure's: the first stage from the first fresh
	// round, then the rows that continue.
	proc := gate.NewConfirmation(*screen)
	rows, _ := proc.Planned()
	var first []string
	for _, k := range rows {
		first = append(first, k.Package+"."+k.Name)
	}
	if len(rp.asked) == 0 || rp.asked[0].first != 11 || !sameSet(rp.asked[0].units, first) {
		t.Errorf("first Measure %+v, want the planned rows %v from round 11", rp.asked, first)
	}
	// The kept directory judges to the same verdict.
	kept, err := ReadDir(out, out)
	if err != nil {
		t.Fatal(err)
	}
	if !kept.Confirmed || kept.Screened != 10 {
		t.Fatalf("kept directory: confirmed %v, screened %d", kept.Confirmed, kept.Screened)
	}
	again, err := j.Raw(kept)
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i, r := range c.Verdict.Results {
		a := again.Results[i]
		if r.Key != a.Key || r.Status != a.Status || fmt.Sprint(r.PAdjusted) != fmt.Sprint(a.PAdjusted) && (r.PAdjusted == nil || a.PAdjusted == nil || *r.PAdjusted != *a.PAdjusted) {
			t.Errorf("%s: the run says %s (p_adj %v), the kept directory %s (p_adj %v)", r.Name, r.Status, r.PAdjusted, a.Status, a.PAdjusted)
		}
		if r.Kind == gate.Time && (r.Status == gate.Regression || r.Status == gate.Improvement) {
			changed++
		}
	}
	if changed == 0 {
		t.Error("no time row decided a change on the recorded rounds; the test would not see a wrong decision")
	}
	if c.Verdict.Pass != again.Pass || !again.Confirmed {
		t.Errorf("pass %v against the kept directory's %v (confirmed %v)", c.Verdict.Pass, again.Pass, again.Confirmed)
	}
	data, err := os.ReadFile(filepath.Join(out, shard.ConfirmBaseFile))
	if err != nil || !bytes.HasPrefix(data, []byte(ScreenRoundsKey+": 10\n")) {
		t.Errorf("confirm-base.txt starts %q (%v)", data[:min(len(data), 20)], err)
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// TestFamilyLine: a shard's confirmation files say the suite's family
// they were judged in; merged shards' files must agree on it.
func TestFamilyLine(t *testing.T) {
	file := func(name, data string) File { return File{Name: name, Data: []byte(data)} }
	for _, c := range []struct {
		name       string
		base, head string
		family     int
		err        string
	}{
		{"a run", "screen-rounds: 10\n", "screen-rounds: 10\n", 0, ""},
		{"a shard", "screen-rounds: 10\nfamily: 20\n", "screen-rounds: 10\nfamily: 20\n", 20, ""},
		{"two shards merged", "screen-rounds: 10\nfamily: 20\n\nscreen-rounds: 10\nfamily: 20\n", "screen-rounds: 10\nfamily: 20\n", 20, ""},
		{"shards of two suites", "screen-rounds: 10\nfamily: 20\n\nscreen-rounds: 10\nfamily: 13\n", "screen-rounds: 10\nfamily: 20\n", 0, "confirm-base.txt:5: family 13 after 20"},
		{"base and head apart", "screen-rounds: 10\nfamily: 20\n", "screen-rounds: 10\nfamily: 21\n", 0, "family 20 and 21 differ"},
		{"not a number", "screen-rounds: 10\nfamily: x\n", "screen-rounds: 10\n", 0, `confirm-base.txt:2: family "x"`},
	} {
		var in Raw
		err := in.WithConfirm([2]File{file("confirm-base.txt", c.base), file("confirm-head.txt", c.head)}, nil)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err == "" && in.Family != c.family:
			t.Errorf("%s: family %d, want %d", c.name, in.Family, c.family)
		}
	}
}

// TestMeasureScreenBudget: with a ledger's recorded noise the screen runs
// each unit its own count, quiet ones fewer and noisy ones more, never
// more unit-rounds than --count's; without a record, --count of every
// unit.
func TestMeasureScreenBudget(t *testing.T) {
	dir := t.TempDir()
	var raw Files
	for i, name := range []string{shard.BaseFile, shard.HeadFile} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		raw[i] = f
	}
	rp := newReplay(t, filepath.Join("testdata", "confirm"), 0)
	noise := map[string]float64{}
	for i, u := range rp.Units() {
		name := strings.TrimPrefix(u.Name, "Benchmark") // the ledger's name: no -N suffix
		noise[u.Package+"."+name] = []float64{0.003, 0.004, 0.09}[i%3]
	}
	p := Plan{Runner: runner.Options{Count: 10}, Noise: noise}
	b, err := measureScreen(context.Background(), p, rp, raw, gate.DefaultPolicy(), Env{})
	if err != nil {
		t.Fatal(err)
	}
	if b == nil || b.Count != 10 || b.Fewer == 0 || b.More == 0 {
		t.Fatalf("budget %+v: want fewer and more rounds than 10", b)
	}
	per := map[string]int{}
	total := 0
	for _, s := range rp.asked {
		for _, id := range s.units {
			per[id] += s.count
			total += s.count
		}
	}
	if total > 10*len(rp.Units()) {
		t.Errorf("%d unit-rounds, more than --count's %d", total, 10*len(rp.Units()))
	}
	for i, u := range rp.Units() {
		n := per[u.ID()]
		if quiet := i%3 < 2; quiet && n >= 10 || !quiet && n <= 10 {
			t.Errorf("%s (noise %v): %d rounds", u.ID(), noise[u.Package+"."+strings.TrimPrefix(u.Name, "Benchmark")], n)
		}
	}
	rp = newReplay(t, filepath.Join("testdata", "confirm"), 0)
	if b, err := measureScreen(context.Background(), Plan{Runner: runner.Options{Count: 10}}, rp, raw, gate.DefaultPolicy(), Env{}); err != nil || b != nil || len(rp.asked) != 1 || rp.asked[0].count != 10 {
		t.Errorf("without a record: budget %+v, %v, Measure calls %+v; want one of 10 rounds", b, err, rp.asked)
	}
}
