package report

import (
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/english"
	"github.com/benchgate/benchgate/internal/gate"
)

// This file counts a verdict for its line of counts and its headline:
// every row once, benchmarks and rows apart.

// tally is what a verdict holds, counted: benchmarks whose rows all have
// one status that says the benchmark was not compared (new, removed,
// ignored, failed on a side, or any such status a stage adds) count as
// benchmarks, by that status; the others are compared, and their rows
// count by what was seen in each.
type tally struct {
	// Whole are the benchmarks counted by one status of all their rows
	// (with the failures, which cover whole benchmarks).
	Whole []count
	// Compared is the number of benchmarks with a row compared, Rows the
	// number of their rows, ByRow those rows by what was seen.
	Compared, Rows int
	ByRow          []count
}

// count is how many of one kind, with the kind's words.
type count struct {
	N         int
	One, Many string
}

func (c count) String() string { return english.Plural(c.N, c.One, c.Many) }

// Benchmarks is the number of benchmarks counted.
func (t tally) Benchmarks() int {
	n := t.Compared
	for _, c := range t.Whole {
		n += c.N
	}
	return n
}

// comparedStatus reports whether status s is a judgement of a compared
// row (what was seen in it), not a status of the whole benchmark (new,
// removed, failed, ignored, or one a later stage adds, such as a package
// that was not measured).
func comparedStatus(s gate.Status) bool {
	switch s {
	case gate.Regression, gate.Improvement, gate.Unchanged, gate.Unstable, gate.Inconclusive, gate.Unavailable:
		return true
	}
	return false
}

// rowKinds are the kinds a compared row is counted as, in the order of
// the line of counts: what fails the gate first. A row counts as the
// first kind that matches it; a status none matches counts by its own
// word ([statusWords]).
var rowKinds = []struct {
	one, many string
	match     func(gate.Result) bool
}{
	{"regression", "regressions", func(r gate.Result) bool { return r.Status == gate.Regression && r.Fails() }},
	{"removed (fails the gate)", "removed (fails the gate)", func(r gate.Result) bool { return r.Status == gate.Removed && r.Fails() }},
	{"not judged (too few rounds; fails the gate)", "not judged (too few rounds; fails the gate)", func(r gate.Result) bool { return r.Status == gate.Inconclusive && r.Fails() }},
	{"failed", "failed", func(r gate.Result) bool { return r.Status == gate.Failed }},
	{"improvement", "improvements", func(r gate.Result) bool { return r.Status == gate.Improvement }},
	{"accepted regression", "accepted regressions", func(r gate.Result) bool { return r.Status == gate.Regression && r.Accepted != nil }},
	{"regression not gated", "regressions not gated", func(r gate.Result) bool { return r.Status == gate.Regression }},
	{"not judged (too few rounds)", "not judged (too few rounds)", func(r gate.Result) bool { return r.Status == gate.Inconclusive }},
	{"not confirmed on re-run", "not confirmed on re-run", notConfirmed},
	{"too noisy", "too noisy", func(r gate.Result) bool { return r.Status == gate.Unchanged && r.TooNoisy }},
	{"unchanged", "unchanged", func(r gate.Result) bool { return r.Status == gate.Unchanged }},
}

// notConfirmed reports whether r changed in the first rounds but not on
// all of them once re-run (a confirmation's).
func notConfirmed(r gate.Result) bool { return r.Confirmed != nil && !*r.Confirmed }

// statusWords are the words of the statuses the kinds above leave to
// their status: of rows, and of whole benchmarks. A status without words
// here is counted by its name.
var statusWords = map[gate.Status][2]string{
	gate.Unstable:    {"unstable", "unstable"},
	gate.Unavailable: {"unavailable", "unavailable"},
	gate.New:         {"new", "new"},
	gate.Removed:     {"removed", "removed"},
	gate.Ignored:     {"ignored", "ignored"},
	gate.Failed:      {"failed", "failed"},
	gate.SameBinary:  {"same code", "same code"},
}

func wordsOf(s gate.Status) (string, string) {
	if w, ok := statusWords[s]; ok {
		return w[0], w[1]
	}
	w := strings.ReplaceAll(string(s), "-", " ")
	return w, w
}

// tallyOf counts v.
func tallyOf(v gate.Verdict) tally {
	type bench struct {
		rows   []gate.Result
		status gate.Status // of all rows; "" when they differ
	}
	var order []string
	benches := map[string]*bench{}
	for _, r := range v.Results {
		k := r.Package + "\x00" + r.Name
		b, ok := benches[k]
		if !ok {
			b = &bench{status: r.Status}
			benches[k] = b
			order = append(order, k)
		}
		if r.Status != b.status {
			b.status = ""
		}
		b.rows = append(b.rows, r)
	}
	var t tally
	whole := map[string]int{}
	var wholeOrder []count
	addWhole := func(one, many string, n int) {
		if n == 0 {
			return
		}
		i, ok := whole[one]
		if !ok {
			i = len(wholeOrder)
			whole[one] = i
			wholeOrder = append(wholeOrder, count{One: one, Many: many})
		}
		wholeOrder[i].N += n
	}
	rows := make([]int, len(rowKinds))
	other := map[gate.Status]int{}
	var otherOrder []gate.Status
	for _, k := range order {
		b := benches[k]
		switch {
		case b.status == gate.Failed:
			// Counted with its failure, below.
			continue
		case b.status != "" && !comparedStatus(b.status):
			one, many := wordsOf(b.status)
			if b.status == gate.Removed && b.rows[0].Fails() {
				one, many = "removed (fails the gate)", "removed (fails the gate)"
			}
			addWhole(one, many, 1)
			continue
		}
		t.Compared++
		for _, r := range b.rows {
			t.Rows++
			matched := false
			for i, rk := range rowKinds {
				if rk.match(r) {
					rows[i]++
					matched = true
					break
				}
			}
			if !matched {
				if other[r.Status] == 0 {
					otherOrder = append(otherOrder, r.Status)
				}
				other[r.Status]++
			}
		}
	}
	addWhole("failed on head", "failed on head", len(v.HeadFailures()))
	addWhole("failed on base", "failed on base", len(baseFailures(v.Failures)))
	t.Whole = wholeOrder
	// The kinds in order, the other statuses before unchanged.
	for i, rk := range rowKinds {
		if rk.one == "unchanged" {
			for _, s := range otherOrder {
				one, many := wordsOf(s)
				t.ByRow = append(t.ByRow, count{N: other[s], One: one, Many: many})
			}
		}
		if rows[i] > 0 {
			t.ByRow = append(t.ByRow, count{N: rows[i], One: rk.one, Many: rk.many})
		}
	}
	return t
}

// String is the line of counts: "5 benchmarks compared in 15 rows: 5 too
// noisy, 1 unstable, 9 unchanged", or with benchmarks that were not
// compared, "14 benchmarks: 1 new, 1 removed, 1 failed on head, 11
// compared in 33 rows: 5 regressions, …". Each number counts one thing:
// the benchmarks' add up to the first, the rows' to the rows.
func (t tally) String() string {
	var parts []string
	for _, c := range t.Whole {
		parts = append(parts, c.String())
	}
	rows := make([]string, len(t.ByRow))
	for i, c := range t.ByRow {
		rows[i] = c.String()
	}
	compared := ""
	if t.Compared > 0 {
		compared = strconv.Itoa(t.Compared) + " compared in " + english.Plural(t.Rows, "row", "rows") + ": " + strings.Join(rows, ", ")
	}
	switch {
	case len(parts) == 0 && t.Compared == 0:
		return "no benchmark results"
	case len(parts) == 0:
		return english.Plural(t.Compared, "benchmark", "benchmarks") + compared[len(strconv.Itoa(t.Compared)):]
	}
	if compared != "" {
		parts = append(parts, compared)
	}
	return english.Plural(t.Benchmarks(), "benchmark", "benchmarks") + ": " + strings.Join(parts, ", ")
}

// timeRows returns the time/op rows compared (base and head measured,
// judged) and of them the ones that could not see a change of their
// threshold ([gate.Verdict.Blind]).
func timeRows(v gate.Verdict) (judged int, blind []gate.Result) {
	for _, r := range v.Results {
		if r.Kind == gate.Time && r.Base != nil && r.Head != nil && comparedStatus(r.Status) {
			judged++
		}
	}
	return judged, v.Blind()
}
