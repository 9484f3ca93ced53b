package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// countsLine is a line of counts: "17 benchmarks: 1 removed, …, 14
// compared in 43 rows: 5 regressions, …", or "5 benchmarks compared in
// 15 rows: …".
var countsLine = regexp.MustCompile(`^(\d+) benchmarks?(?:: (.*?))?(?:,? ?(\d+ )?compared in (\d+) rows?: (.*))?$`)

// parseCounts reads a line of counts: the benchmarks it counts and its
// parts (the compared ones among them), the compared ones' rows and
// their parts.
func parseCounts(line string) (benchmarks int, parts []int, rows int, rowParts []int, err error) {
	m := countsLine.FindStringSubmatch(line)
	if m == nil {
		return 0, nil, 0, nil, fmt.Errorf("not a line of counts: %q", line)
	}
	nums := func(list string) []int {
		var out []int
		for _, p := range strings.Split(list, ", ") {
			if p == "" {
				continue
			}
			n, err2 := strconv.Atoi(strings.Fields(p)[0])
			if err2 != nil {
				err = fmt.Errorf("%q: %q is not a count", line, p)
			}
			out = append(out, n)
		}
		return out
	}
	benchmarks, _ = strconv.Atoi(m[1])
	parts = nums(m[2])
	if m[4] != "" {
		rows, _ = strconv.Atoi(m[4])
		rowParts = nums(m[5])
		compared := benchmarks // "5 benchmarks compared in …"
		if m[3] != "" {
			compared, _ = strconv.Atoi(strings.TrimSpace(m[3]))
		}
		parts = append(parts, compared)
	}
	return benchmarks, parts, rows, rowParts, err
}

func sum(ns []int) int {
	s := 0
	for _, n := range ns {
		s += n
	}
	return s
}

// checkCounts checks that v's line of counts adds up: its benchmarks'
// parts to its benchmarks, its rows' parts to its rows; and that it
// counts what v holds: every benchmark once (the failures' own, the
// benchmarks whose rows share one status that is not a judgement of
// compared rows, the others compared), every row of the compared ones
// once.
func checkCounts(t *testing.T, v gate.Verdict) {
	t.Helper()
	line := Plain(Build(v, Meta{}).Head[0].(Paragraph).Spans)
	if len(v.Results) == 0 && len(v.Failures) == 0 {
		if line != "no benchmark results" {
			t.Errorf("empty verdict: %q", line)
		}
		return
	}
	benchmarks, parts, rows, rowParts, err := parseCounts(line)
	if err != nil {
		t.Fatal(err)
	}
	if sum(parts) != benchmarks || sum(rowParts) != rows {
		t.Errorf("%q: the benchmarks' parts add up to %d of %d, the rows' to %d of %d", line, sum(parts), benchmarks, sum(rowParts), rows)
	}
	// What v holds, counted here.
	type group struct {
		statuses map[gate.Status]bool
		rows     int
	}
	groups := map[string]*group{}
	for _, r := range v.Results {
		k := r.Package + " " + r.Name
		if groups[k] == nil {
			groups[k] = &group{statuses: map[gate.Status]bool{}}
		}
		groups[k].statuses[r.Status] = true
		groups[k].rows++
	}
	wantBenchmarks, wantRows := 0, 0
	for _, f := range v.Failures {
		if f.Unit == "" { // the instruction counts' own are rows
			wantBenchmarks++
		}
	}
	for _, g := range groups {
		judged := false
		for s := range g.statuses {
			judged = judged || s == gate.Regression || s == gate.Improvement || s == gate.Unchanged || s == gate.Unstable || s == gate.Inconclusive || s == gate.Unavailable
		}
		switch {
		case len(g.statuses) == 1 && g.statuses[gate.Failed]:
			// its failure's
		case len(g.statuses) == 1 && !judged:
			wantBenchmarks++
		default:
			wantBenchmarks++
			wantRows += g.rows
		}
	}
	if benchmarks != wantBenchmarks || rows != wantRows {
		t.Errorf("%q counts %d benchmarks and %d rows; the verdict holds %d and %d", line, benchmarks, rows, wantBenchmarks, wantRows)
	}
}

// TestCountsAddUp: the line of counts of every report fixture adds up.
func TestCountsAddUp(t *testing.T) {
	fv, _ := fixtureVerdict(t)
	hv, _ := heldOutVerdict(t)
	bv, _ := blindVerdict(t)
	// A benchmark ignored by the policy, one whose package was not
	// measured (a status of a later stage, counted by its own word), and a
	// new custom metric of a compared benchmark.
	key := func(name, unit string) stats.Key { return stats.Key{Package: "p", Name: name, Unit: unit} }
	mixed := bv
	mixed.Results = append(append([]gate.Result{}, bv.Results...),
		gate.Result{Comparison: stats.Comparison{Key: key("Off-2", "sec/op")}, Kind: gate.Time, Status: gate.Ignored},
		gate.Result{Comparison: stats.Comparison{Key: key("Same-2", "sec/op")}, Kind: gate.Time, Status: gate.SameBinary},
		gate.Result{Comparison: stats.Comparison{Key: key("Same-2", "B/op")}, Kind: gate.Bytes, Status: gate.SameBinary},
		gate.Result{Comparison: stats.Comparison{Key: stats.Key{Package: "example.com/multi", Name: "A-2", Unit: "items/op"}, Head: summary(3)}, Kind: gate.Other, Status: gate.New},
		// A required benchmark removed: it fails the gate.
		gate.Result{Comparison: stats.Comparison{Key: key("Gone-2", "sec/op"), Base: summary(1)}, Kind: gate.Time, Status: gate.Removed, Gated: true},
		gate.Result{Comparison: stats.Comparison{Key: key("Gone-2", "B/op"), Base: summary(1)}, Kind: gate.Bytes, Status: gate.Removed, Gated: true},
	)
	for name, v := range map[string]gate.Verdict{
		"fixture": fv, "held-out": hv, "blind": bv, "scaling": scalingVerdict(t), "instructions": instructionVerdict(), "mixed": mixed,
		"empty":         {Policy: gate.DefaultPolicy()},
		"failures only": {Failures: []gate.Failure{{Package: "p", Name: "BenchmarkX", Side: gate.SideHead}, {Package: "p", Side: gate.SideBase}}, Policy: gate.DefaultPolicy()},
	} {
		t.Run(name, func(t *testing.T) { checkCounts(t, v) })
	}
	line := Plain(Build(mixed, Meta{}).Head[0].(Paragraph).Spans)
	if want := "8 benchmarks: 1 ignored, 1 same code, 1 removed (fails the gate), 5 compared in 16 rows: 5 too noisy, 1 new, 10 unchanged"; line != want {
		t.Errorf("mixed: %q, want %q", line, want)
	}
}

// TestHeadlineSubject: "this PR" only in a pull request's run ("this MR"
// in a merge request's), "this change" elsewhere (compare, a local run,
// a push); changes rounded as the table rounds them.
func TestHeadlineSubject(t *testing.T) {
	v, m := heldOutVerdict(t)
	for req, want := range map[string]string{"": "4 benchmarks block this change: ", "PR": "4 benchmarks block this PR: ", "MR": "4 benchmarks block this MR: "} {
		m.Request = req
		got := Plain(Build(v, m).Title)
		if !strings.Contains(got, want) || !strings.Contains(got, "Parse-2 time +7.95%") {
			t.Errorf("Request %q: %q, want %q and the table's +7.95%%", req, got, want)
		}
	}
}
