package stats

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

// The conformance tests read benchstat's own inputs and golden outputs
// (testdata/benchstat, copied from golang.org/x/perf/cmd/benchstat/testdata)
// and check that every number benchstat printed is what this package
// computes, rendered with benchstat's own formatting functions.

const benchstatDir = "testdata/benchstat"

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(benchstatDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// loadFiles loads two files of benchstatDir as base and head.
func loadFiles(t *testing.T, base, head string) *Set {
	t.Helper()
	s, err := Load(
		Input{Name: base, R: strings.NewReader(readFile(t, base))},
		Input{Name: head, R: strings.NewReader(readFile(t, head))},
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// loadSplit loads a "-col note" input, which holds both sides in one file,
// splitting it at the "note: after" line.
func loadSplit(t *testing.T, name string) *Set {
	t.Helper()
	text := readFile(t, name)
	i := strings.Index(text, "note: after\n")
	if i < 0 {
		t.Fatalf("%s: no \"note: after\" line", name)
	}
	s, err := Load(
		Input{Name: name + "[before]", R: strings.NewReader(text[:i])},
		Input{Name: name + "[after]", R: strings.NewReader(text[i:])},
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// goldCell is one benchstat cell: "center ± pct ¹ delta (p=… n=…) ²".
type goldCell struct {
	center, pct string
	sumWarn     []string // footnotes after the summary
	delta, test string   // head cells only
	cmpWarn     []string // footnotes after the test
}

type goldRow struct {
	unit, name string
	base, head *goldCell
}

const superDigits = "⁰¹²³⁴⁵⁶⁷⁸⁹"

func isFootnoteMark(s string) bool {
	return s != "" && strings.Trim(s, superDigits) == ""
}

// parseBenchstatText parses benchstat's text tables. Column boundaries come
// from the "│" positions of the unit header line, so a row with only a head
// value is told apart from one with only a base value. Geomean rows are
// skipped.
func parseBenchstatText(t *testing.T, text string) []goldRow {
	t.Helper()
	var (
		rows    []goldRow
		table   []goldRow // rows of the current table
		marks   = map[string]string{}
		unit    string
		bars    []int
		inTable bool
	)
	flush := func() {
		resolve := func(ms []string) []string {
			var out []string
			for _, m := range ms {
				msg, ok := marks[m]
				if !ok {
					t.Fatalf("footnote %s not found", m)
				}
				out = append(out, msg)
			}
			return out
		}
		for _, r := range table {
			for _, c := range []*goldCell{r.base, r.head} {
				if c != nil {
					c.sumWarn = resolve(c.sumWarn)
					c.cmpWarn = resolve(c.cmpWarn)
				}
			}
		}
		rows = append(rows, table...)
		table = nil
		marks = map[string]string{}
	}
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.Contains(line, "│") && strings.Contains(line, "vs base"):
			bars = nil
			for i, r := range []rune(line) {
				if r == '│' {
					bars = append(bars, i)
				}
			}
			unit = strings.TrimSpace(strings.Split(line, "│")[1])
			inTable = true
		case strings.Contains(line, "│"):
			flush()
		case line == "":
			inTable = false
		case isFootnoteMark(strings.Fields(line)[0]):
			f := strings.SplitN(line, " ", 2)
			marks[f[0]] = f[1]
		case inTable:
			rs := []rune(line)
			name := strings.TrimSpace(string(rs[:bars[0]]))
			if name == "geomean" {
				continue
			}
			row := goldRow{unit: unit, name: name}
			if len(rs) > bars[0] {
				row.base = parseCell(t, string(rs[bars[0]:min(bars[1], len(rs))]), false)
			}
			if len(rs) > bars[1] {
				row.head = parseCell(t, string(rs[bars[1]:]), true)
			}
			table = append(table, row)
		}
	}
	flush()
	return rows
}

func parseCell(t *testing.T, s string, head bool) *goldCell {
	t.Helper()
	f := strings.Fields(s)
	if len(f) == 0 {
		return nil
	}
	if len(f) < 3 || f[1] != "±" {
		t.Fatalf("cannot parse benchstat cell %q", s)
	}
	c := &goldCell{center: f[0], pct: f[2]}
	f = f[3:]
	for len(f) > 0 && isFootnoteMark(f[0]) {
		c.sumWarn = append(c.sumWarn, f[0])
		f = f[1:]
	}
	if !head || len(f) == 0 {
		return c
	}
	c.delta, f = f[0], f[1:]
	var test []string
	for len(f) > 0 {
		test = append(test, f[0])
		done := strings.HasSuffix(f[0], ")")
		f = f[1:]
		if done {
			break
		}
	}
	c.test = strings.Join(test, " ")
	c.cmpWarn = append(c.cmpWarn, f...)
	return c
}

// render renders c the way benchstat's text table does.
func render(c Comparison) goldRow {
	row := goldRow{unit: c.Unit, name: c.Name}
	var centers []float64
	for _, s := range []*Summary{c.Base, c.Head} {
		if s != nil {
			centers = append(centers, s.Center)
		}
	}
	scaler := benchunit.CommonScale(centers, benchunit.ClassOf(c.Unit))
	cell := func(s *Summary) *goldCell {
		if s == nil {
			return nil
		}
		return &goldCell{center: scaler.Format(s.Center), pct: s.PctRangeString(), sumWarn: s.Warnings}
	}
	row.base, row.head = cell(c.Base), cell(c.Head)
	if c.Base != nil && c.Head != nil {
		bc := benchmath.Comparison{P: *c.P, N1: c.Base.N, N2: c.Head.N, Alpha: benchmath.DefaultThresholds.CompareAlpha}
		row.head.delta = bc.FormatDelta(c.Base.Center, c.Head.Center)
		row.head.test = "(" + bc.String() + ")"
		row.head.cmpWarn = c.Warnings
	}
	return row
}

func checkText(t *testing.T, cmps []Comparison, golden string) {
	t.Helper()
	want := parseBenchstatText(t, readFile(t, golden))
	if len(want) == 0 {
		t.Fatalf("%s: no rows parsed", golden)
	}
	got := make(map[[2]string]goldRow)
	for _, c := range cmps {
		got[[2]string{c.Unit, c.Name}] = render(c)
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d comparisons, benchstat printed %d rows", golden, len(got), len(want))
	}
	for _, w := range want {
		g, ok := got[[2]string{w.unit, w.name}]
		if !ok {
			t.Errorf("%s: no comparison for %s %s", golden, w.name, w.unit)
			continue
		}
		for side, pair := range map[string][2]*goldCell{"base": {w.base, g.base}, "head": {w.head, g.head}} {
			wc, gc := pair[0], pair[1]
			if (wc == nil) != (gc == nil) {
				t.Errorf("%s: %s %s: %s cell: benchstat has %v, got %v", golden, w.name, w.unit, side, wc != nil, gc != nil)
				continue
			}
			if wc == nil {
				continue
			}
			if *wc.normalize() != *gc.normalize() {
				t.Errorf("%s: %s %s: %s cell:\n got  %+v\n want %+v", golden, w.name, w.unit, side, *gc, *wc)
			}
		}
	}
}

type cellKey struct{ center, pct, sumWarn, delta, test, cmpWarn string }

func (c *goldCell) normalize() *cellKey {
	return &cellKey{c.center, c.pct, strings.Join(c.sumWarn, "|"), c.delta, c.test, strings.Join(c.cmpWarn, "|")}
}

func TestBenchstatConformanceCRC(t *testing.T) {
	// benchstat -ignore note crc-old.txt crc-new.txt: Load ignores every
	// configuration key but pkg and round, as -ignore does.
	s := loadFiles(t, "crc-old.txt", "crc-new.txt")
	cmps := compare(s, 0.95)
	for _, c := range cmps {
		if c.Package != "hash/crc32" {
			t.Errorf("%s: package %q, want the file's pkg: line", c.Name, c.Package)
		}
	}
	checkText(t, cmps, "crcIgnore.stdout")
}

func TestBenchstatConformanceSmallSamples(t *testing.T) {
	for _, name := range []string{"issue19634", "smallSample", "issue19565"} {
		t.Run(name, func(t *testing.T) {
			checkText(t, compare(loadSplit(t, name+".txt"), 0.95), name+".stdout")
		})
	}
}

// TestBenchstatConformanceCSV checks the raw (unscaled) numbers of
// benchstat's CSV output: centers as printed by fmt.Sprint, so exactly.
func TestBenchstatConformanceCSV(t *testing.T) {
	cmps := compare(loadFiles(t, "old.txt", "new.txt"), 0.95)
	r := csv.NewReader(strings.NewReader(readFile(t, "csvOldNew.stdout")))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	byName := make(map[string]Comparison)
	for _, c := range cmps {
		byName[c.Name+" "+c.Unit] = c
	}
	unit, rows := "", 0
	for _, rec := range recs {
		if len(rec) != 7 {
			continue
		}
		if rec[0] == "" {
			if rec[1] != "" && rec[2] == "CI" {
				unit = rec[1]
			}
			continue
		}
		if rec[0] == "geomean" {
			continue
		}
		rows++
		c, ok := byName[rec[0]+" "+unit]
		if !ok {
			t.Errorf("no comparison for %s %s", rec[0], unit)
			continue
		}
		bc := benchmath.Comparison{P: *c.P, N1: c.Base.N, N2: c.Head.N, Alpha: benchmath.DefaultThresholds.CompareAlpha}
		got := []string{
			rec[0],
			fmt.Sprint(c.Base.Center), c.Base.PctRangeString(),
			fmt.Sprint(c.Head.Center), c.Head.PctRangeString(),
			bc.FormatDelta(c.Base.Center, c.Head.Center), bc.String(),
		}
		for i := range got {
			if got[i] != rec[i] {
				t.Errorf("%s column %d: got %q, benchstat printed %q", rec[0], i, got[i], rec[i])
			}
		}
		if d := c.Head.Center/c.Base.Center - 1; *c.Delta != d {
			t.Errorf("%s: delta %v, want %v", rec[0], *c.Delta, d)
		}
	}
	if rows == 0 || rows != len(cmps) {
		t.Errorf("benchstat printed %d rows, got %d comparisons", rows, len(cmps))
	}
}
