package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/shard"
	"github.com/google/go-cmp/cmp"
)

// writeRounds writes benchfmt for benchmarks × rounds, with round lines.
func writeRounds(names []string, rounds int, factor map[string]float64, allocs map[string]int, rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/p\n")
	for r := 1; r <= rounds; r++ {
		fmt.Fprintf(&b, "round: %d\n", r)
		drift := 1 + 0.3*float64(r)/float64(rounds) // machine drift shared by both sides
		for _, n := range names {
			f := factor[n]
			if f == 0 {
				f = 1
			}
			ns := 1000 * f * drift * (1 + 0.02*rng.NormFloat64())
			fmt.Fprintf(&b, "Benchmark%s-2 1000 %.1f ns/op 64 B/op %d allocs/op\n", n, ns, 1+allocs[n])
		}
	}
	return b.String()
}

// split keeps only the lines of the named benchmarks (and every config line).
func split(data string, keep map[string]bool) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(data, "\n") {
		if name, ok := strings.CutPrefix(l, "Benchmark"); ok {
			if !keep[strings.Fields(name)[0]] {
				continue
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

type jsonReport struct {
	Verdict    string            `json:"verdict"`
	Benchmarks []json.RawMessage `json:"benchmarks"`
}

func runJSON(t *testing.T, dir string, args ...string) (int, jsonReport) {
	t.Helper()
	out := filepath.Join(dir, "out.json")
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), append(args, "--json", out), Env{Stdout: &stdout, Stderr: &stderr, Dir: dir})
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%v: exit %d, no JSON: %v\n%s", args, code, err, stderr.String())
	}
	var r jsonReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	sort.Slice(r.Benchmarks, func(i, j int) bool { return string(r.Benchmarks[i]) < string(r.Benchmarks[j]) })
	return code, r
}

// TestMergeEqualsUnsharded: the same data judged whole (compare) and as two
// shards (merge) gives the same verdict and the same rows — error control
// spans the shards exactly as it spans one run.
func TestMergeEqualsUnsharded(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"A", "B", "C", "D", "E", "F", "G"}
	base := writeRounds(names, 12, nil, nil, rng)
	head := writeRounds(names, 12, map[string]float64{"C": 1.2, "F": 0.8}, map[string]int{"E": 1}, rng)
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "base.txt"), base)
	write(filepath.Join(dir, "head.txt"), head)

	var all []string
	for _, n := range names {
		all = append(all, "example.com/p."+n+"-2")
	}
	parts := []map[string]bool{{"A-2": true, "C-2": true, "E-2": true}, {"B-2": true, "D-2": true, "F-2": true, "G-2": true}}
	for i, keep := range parts {
		sdir := filepath.Join(dir, fmt.Sprintf("s%d", i+1))
		write(filepath.Join(sdir, "base.txt"), split(base, keep))
		write(filepath.Join(sdir, "head.txt"), split(head, keep))
		var assigned []string
		for n := range keep {
			assigned = append(assigned, "example.com/p."+n)
		}
		m := shard.Manifest{Shard: shard.Spec{Index: i + 1, Count: 2}, All: all, Assigned: assigned, Complete: true, Rounds: 12, BaseSHA: "b", HeadSHA: "h"}
		if err := m.Write(sdir); err != nil {
			t.Fatal(err)
		}
	}

	wholeCode, whole := runJSON(t, dir, "compare", "base.txt", "head.txt")
	mergedCode, merged := runJSON(t, dir, "merge", "s1", "s2")
	if wholeCode != mergedCode || whole.Verdict != merged.Verdict {
		t.Errorf("whole: exit %d %s; merged: exit %d %s", wholeCode, whole.Verdict, mergedCode, merged.Verdict)
	}
	if whole.Verdict != "fail" || len(whole.Benchmarks) != 3*len(names) {
		t.Errorf("whole run: verdict %s with %d rows; want fail (C slower, E allocates) and %d rows", whole.Verdict, len(whole.Benchmarks), 3*len(names))
	}
	var w, m []string
	for _, r := range whole.Benchmarks {
		w = append(w, string(r))
	}
	for _, r := range merged.Benchmarks {
		m = append(m, string(r))
	}
	if diff := cmp.Diff(w, m); diff != "" {
		t.Errorf("rows differ between the whole run and the merged shards (-whole +merged):\n%s", diff)
	}

	// Without shard 2 the merged verdict fails, whatever the rows say.
	code, partial := runJSON(t, dir, "merge", "s1")
	if code != ExitFail || partial.Verdict != "fail" {
		t.Errorf("merge of one of two shards: exit %d, verdict %s; want 1, fail", code, partial.Verdict)
	}
}

// TestOneVerdictWithConfirmation: the kept directory of a run that
// confirmed (a 1/1 shard: screen, confirmation files, failures) gives one
// verdict whether merge or compare judges it, with every row's status,
// p-value, test and interval the same; and the screen is judged knowing
// that promising rows get fresh rounds (the paired test at the pooled
// size), not as a screen alone (which, for 20 benchmarks at 10 rounds,
// gives every row the U test: the merge used to).
func TestOneVerdictWithConfirmation(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	var names []string
	for i := range 20 {
		names = append(names, fmt.Sprintf("B%02d", i))
	}
	slower := map[string]float64{"B03": 1.08, "B11": 1.08, "B17": 1.06}
	base := writeRounds(names, 10, nil, nil, rng)
	head := writeRounds(names, 10, slower, nil, rng)
	// The fresh rounds, numbered after the screen's, for three rows.
	fresh := func(factor map[string]float64) string {
		var b strings.Builder
		b.WriteString("screen-rounds: 10\n")
		b.WriteString(strings.Replace(writeRounds([]string{"B03", "B11", "B17"}, 10, factor, nil, rng), "round: ", "round: 1", -1))
		return b.String()
	}
	sdir := filepath.Join(dir, "out")
	files := map[string]string{
		"base.txt": base, "head.txt": head,
		"confirm-base.txt": fresh(nil), "confirm-head.txt": fresh(slower),
		"failures.json": "[]", "confirm-failures.json": "[]",
	}
	for name, data := range files {
		if err := os.MkdirAll(sdir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sdir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var all []string
	for _, n := range names {
		all = append(all, "example.com/p."+n)
	}
	m := shard.Manifest{Shard: shard.Spec{Index: 1, Count: 1}, All: all, Assigned: all, Complete: true, Rounds: 10, BaseSHA: "b", HeadSHA: "h"}
	if err := m.Write(sdir); err != nil {
		t.Fatal(err)
	}

	mergedCode, merged := runJSON(t, dir, "merge", "out")
	comparedCode, compared := runJSON(t, dir, "compare", "out")
	if mergedCode != comparedCode || merged.Verdict != compared.Verdict {
		t.Errorf("merge: exit %d %s; compare DIR: exit %d %s", mergedCode, merged.Verdict, comparedCode, compared.Verdict)
	}
	type row struct {
		Name      string          `json:"name"`
		Unit      string          `json:"unit"`
		Status    string          `json:"status"`
		Test      *string         `json:"test"`
		P         *float64        `json:"p"`
		PAdjusted *float64        `json:"p_adjusted"`
		Interval  json.RawMessage `json:"interval"`
		Confirmed *bool           `json:"confirmed"`
	}
	rows := func(r jsonReport) []row {
		var out []row
		for _, b := range r.Benchmarks {
			var x row
			if err := json.Unmarshal(b, &x); err != nil {
				t.Fatal(err)
			}
			out = append(out, x)
		}
		return out
	}
	mr, cr := rows(merged), rows(compared)
	if diff := cmp.Diff(mr, cr); diff != "" {
		t.Errorf("rows differ between merge and compare DIR (-merge +compare):\n%s", diff)
	}
	var paired, confirmed int
	for _, r := range mr {
		if r.Unit != "sec/op" {
			continue
		}
		if r.Test != nil && *r.Test != "utest" {
			paired++
		}
		if r.Confirmed != nil {
			confirmed++
		}
	}
	if paired != len(names) {
		t.Errorf("%d of %d time rows judged by the paired test; want all (the screen knows the pooled size)", paired, len(names))
	}
	if confirmed == 0 {
		t.Errorf("no row went through the confirmation")
	}
}

// A shard's file beyond its bound stops the merge with exit status 2 and
// one line naming the file, before anything is judged.
func TestMergeRefusesLargeFiles(t *testing.T) {
	dir := t.TempDir()
	sdir := filepath.Join(dir, "s1")
	m := shard.Manifest{Shard: shard.Spec{Index: 1, Count: 1}, BaseSHA: "b", HeadSHA: "h"}
	if err := m.Write(sdir); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(sdir, shard.ExplainFile)
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, shard.MaxJSONSize+1); err != nil { // sparse
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), []string{"merge", "s1"}, Env{Stdout: &stdout, Stderr: &stderr, Dir: dir})
	want := fmt.Sprintf("benchgate: merge: %s: read %s: larger than %d bytes (16 MiB)\n", sdir, big, shard.MaxJSONSize)
	if code != ExitUsage || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr.String(), ExitUsage, want)
	}
}
