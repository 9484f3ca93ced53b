package stats

import (
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func load(t *testing.T, base, head string) *Set {
	t.Helper()
	s, err := Load(Input{Name: "base.txt", R: strings.NewReader(base)}, Input{Name: "head.txt", R: strings.NewReader(head)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoad(t *testing.T) {
	base := `goos: linux
pkg: example.com/a
round: 0
BenchmarkB-8   	 100	 30 ns/op	 16 B/op	 1 allocs/op
BenchmarkA/x=1-8   	 100	 20 ns/op
round: 1
BenchmarkB-8   	 100	 10 ns/op	 16 B/op	 1 allocs/op
PASS
ok  	example.com/a	1.0s
pkg: example.com/b
round:
BenchmarkC 50 2 MB/s
`
	head := `pkg: example.com/a
round: 1
BenchmarkB-8   	 200	 12 ns/op	 32 B/op	 2 allocs/op
BenchmarkNew-8   	 200	 5 ns/op
`
	s := load(t, base, head)
	a, b := "example.com/a", "example.com/b"
	// ns converts like benchunit.Tidy: a run-time multiplication.
	ns := func(v float64) float64 { return v * 1e-9 }
	wantKeys := []Key{
		{a, "B-8", "sec/op"}, {a, "B-8", "B/op"}, {a, "B-8", "allocs/op"},
		{a, "A/x=1-8", "sec/op"},
		{b, "C", "B/s"},
		{a, "New-8", "sec/op"},
	}
	if diff := cmp.Diff(wantKeys, s.Keys); diff != "" {
		t.Errorf("Keys (-want +got):\n%s", diff)
	}
	wantBase := map[Key][]Obs{
		// File order (30 then 10), never sorted; ns/op tidied to sec/op.
		{a, "B-8", "sec/op"}:     {{ns(30), 0, 100}, {ns(10), 1, 100}},
		{a, "B-8", "B/op"}:       {{16, 0, 100}, {16, 1, 100}},
		{a, "B-8", "allocs/op"}:  {{1, 0, 100}, {1, 1, 100}},
		{a, "A/x=1-8", "sec/op"}: {{ns(20), 0, 100}},
		// An empty "round:" line deletes the key: no round.
		{b, "C", "B/s"}: {{2e6, -1, 50}},
	}
	if diff := cmp.Diff(wantBase, s.Base); diff != "" {
		t.Errorf("Base (-want +got):\n%s", diff)
	}
	wantHead := map[Key][]Obs{
		{a, "B-8", "sec/op"}:    {{ns(12), 1, 200}},
		{a, "B-8", "B/op"}:      {{32, 1, 200}},
		{a, "B-8", "allocs/op"}: {{2, 1, 200}},
		{a, "New-8", "sec/op"}:  {{ns(5), 1, 200}},
	}
	if diff := cmp.Diff(wantHead, s.Head); diff != "" {
		t.Errorf("Head (-want +got):\n%s", diff)
	}
}

type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

func TestLoadErrors(t *testing.T) {
	good := "BenchmarkA 10 1 ns/op\n"
	errDisk := errors.New("disk on fire")
	tests := []struct {
		name       string
		base, head io.Reader
		want       []string // lines of the error, in order
		is         error
	}{{
		name: "syntax errors on both sides, all reported with file:line",
		base: strings.NewReader("BenchmarkA 10 1 ns/op\nBenchmarkB 10 1\n"),
		head: strings.NewReader("goos: linux\nBenchmarkA\t\tx\nBenchmarkA 10 1 ns/op\nBenchmarkC 10\n"),
		want: []string{
			"base.txt:2: missing units",
			"head.txt:2: parsing iteration count: invalid syntax",
			"head.txt:4: missing measurements",
		},
	}, {
		name: "empty head",
		base: strings.NewReader(good),
		head: strings.NewReader(""),
		want: []string{"head.txt: no benchmark results"},
	}, {
		name: "not benchmark output at all",
		base: strings.NewReader("PASS\nok  \texample.com/a\t0.1s\n"),
		head: strings.NewReader("hello\n"),
		want: []string{"base.txt: no benchmark results", "head.txt: no benchmark results"},
	}, {
		name: "only syntax errors: both problems reported",
		base: strings.NewReader("BenchmarkA 10\n"),
		head: strings.NewReader(good),
		want: []string{"base.txt:1: missing measurements", "base.txt: no benchmark results"},
	}, {
		name: "bad round",
		base: strings.NewReader("round: 1\nBenchmarkA 10 1 ns/op\nround: x\nBenchmarkA 10 1 ns/op\nround: -2\nBenchmarkA 10 1 ns/op\n"),
		head: strings.NewReader(good),
		want: []string{`base.txt:4: round "x" is not a non-negative integer`, `base.txt:6: round "-2" is not a non-negative integer`},
	}, {
		name: "bad looks",
		base: strings.NewReader("looks: 5,3\nBenchmarkA 10 1 ns/op\n"),
		head: strings.NewReader("looks: 5,x\nBenchmarkA 10 1 ns/op\n"),
		want: []string{`base.txt:2: looks "5,3": want ascending round numbers such as 5,10,20`, `head.txt:2: looks "5,x": want ascending round numbers such as 5,10,20`},
	}, {
		name: "looks of different runs",
		base: strings.NewReader("looks: 5,10\nBenchmarkA 10 1 ns/op\n"),
		head: strings.NewReader(good),
		want: []string{"head.txt: looks [] differ from base's [5 10]: the two files come from different runs"},
	}, {
		name: "read error is wrapped",
		base: strings.NewReader(good),
		head: failingReader{errDisk},
		want: []string{"head.txt:0: disk on fire"},
		is:   errDisk,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(Input{Name: "base.txt", R: tt.base}, Input{Name: "head.txt", R: tt.head})
			if err == nil {
				t.Fatalf("Load succeeded, want error; keys %v", s.Keys)
			}
			if s != nil {
				t.Errorf("Load returned a Set with its error")
			}
			if diff := cmp.Diff(tt.want, strings.Split(err.Error(), "\n")); diff != "" {
				t.Errorf("error lines (-want +got):\n%s", diff)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
			}
		})
	}
}

func TestLoadNonFinite(t *testing.T) {
	s := load(t, "BenchmarkA 10 1 ns/op NaN x/op\nBenchmarkA 10 2 ns/op +Inf x/op 3 x/op\n", "BenchmarkA 10 1 ns/op\n")
	want := []string{
		"base.txt:1: A: ignoring non-finite value NaN x/op",
		"base.txt:2: A: ignoring non-finite value +Inf x/op",
	}
	if diff := cmp.Diff(want, s.Warnings); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Obs{{3, -1, 10}}, s.Base[Key{"", "A", "x/op"}]); diff != "" {
		t.Errorf("x/op observations (-want +got):\n%s", diff)
	}
}

func obs(vals ...float64) []Obs {
	o := make([]Obs, len(vals))
	for i, v := range vals {
		o[i] = Obs{Value: v, Round: i, Iters: 100}
	}
	return o
}

func setOf(unit string, base, head []Obs) *Set {
	k := Key{"p", "X", unit}
	s := &Set{Keys: []Key{k}, Base: map[Key][]Obs{}, Head: map[Key][]Obs{}}
	if base != nil {
		s.Base[k] = base
	}
	if head != nil {
		s.Head[k] = head
	}
	return s
}

// minP is the smallest two-sided exact Mann–Whitney p-value for sample
// sizes n1, n2 (complete separation, no ties): 2/C(n1+n2, n1).
func minP(n1, n2 int) float64 {
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

func TestCompareBoundaries(t *testing.T) {
	const ciWarn = "need >= 6 samples for confidence interval at level 0.95"
	const nWarn = "need >= 4 samples to detect a difference at alpha level 0.05"
	const equalWarn = "all samples are equal"
	tests := []struct {
		name          string
		unit          string
		base, head    []Obs
		wantDelta     bool
		wantP         bool
		p             float64 // checked when wantP
		baseWarn      []string
		cmpWarn       []string
		wantConstBase bool
	}{{
		name: "n=1 per side", unit: "sec/op",
		base: obs(100), head: obs(101),
		wantDelta: true, wantP: true, p: 1,
		baseWarn: []string{ciWarn}, cmpWarn: []string{nWarn},
		wantConstBase: true,
	}, {
		name: "n=2 per side, complete separation", unit: "sec/op",
		base: obs(100, 101), head: obs(110, 111),
		wantDelta: true, wantP: true, p: minP(2, 2),
		baseWarn: []string{ciWarn}, cmpWarn: []string{nWarn},
	}, {
		name: "n=3 per side, complete separation", unit: "sec/op",
		base: obs(100, 102, 101), head: obs(110, 111, 112),
		wantDelta: true, wantP: true, p: minP(3, 3),
		baseWarn: []string{ciWarn}, cmpWarn: []string{nWarn},
	}, {
		name: "n=5 per side, complete separation reaches 0.008", unit: "sec/op",
		base: obs(100, 102, 101, 103, 104), head: obs(110, 111, 112, 113, 114),
		wantDelta: true, wantP: true, p: minP(5, 5),
		baseWarn: []string{ciWarn},
	}, {
		name: "zero base center: no delta, a p-value", unit: "allocs/op",
		base: obs(0, 0, 0, 0, 0, 0), head: obs(5, 5, 5, 5, 5, 5),
		wantP: true, p: minP(6, 6),
		wantConstBase: true,
	}, {
		name: "0 → 0: no delta, all samples equal", unit: "allocs/op",
		base: obs(0, 0, 0, 0, 0, 0), head: obs(0, 0, 0, 0, 0, 0),
		wantP: true, p: 1, cmpWarn: []string{equalWarn},
		wantConstBase: true,
	}, {
		name: "constant and equal", unit: "allocs/op",
		base: obs(3, 3, 3, 3, 3, 3), head: obs(3, 3, 3, 3, 3, 3),
		wantDelta: true, wantP: true, p: 1, cmpWarn: []string{equalWarn},
		wantConstBase: true,
	}, {
		name: "only on head", unit: "sec/op",
		head: obs(1, 2, 3),
	}, {
		name: "only on base", unit: "sec/op",
		base: obs(1, 2, 3, 4, 5, 6, 7),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := setOf(tt.unit, tt.base, tt.head)
			before := append([]Obs(nil), s.Base[s.Keys[0]]...)
			cmps := compare(s, 0.95)
			if len(cmps) != 1 {
				t.Fatalf("got %d comparisons, want 1", len(cmps))
			}
			c := cmps[0]
			if diff := cmp.Diff(before, s.Base[s.Keys[0]]); diff != "" {
				t.Errorf("Compare changed the Set's observations (-before +after):\n%s", diff)
			}
			if (c.Base == nil) != (tt.base == nil) || (c.Head == nil) != (tt.head == nil) {
				t.Fatalf("summaries present: base %v head %v, want %v %v", c.Base != nil, c.Head != nil, tt.base != nil, tt.head != nil)
			}
			if (c.Delta != nil) != tt.wantDelta {
				t.Errorf("Delta present = %v, want %v", c.Delta != nil, tt.wantDelta)
			}
			if c.Delta != nil {
				if want := c.Head.Center/c.Base.Center - 1; *c.Delta != want {
					t.Errorf("Delta = %v, want %v", *c.Delta, want)
				}
			}
			if (c.P != nil) != tt.wantP {
				t.Fatalf("P present = %v, want %v", c.P != nil, tt.wantP)
			}
			if c.P != nil && math.Abs(*c.P-tt.p) > 1e-12 {
				t.Errorf("P = %v, want %v", *c.P, tt.p)
			}
			if diff := cmp.Diff(tt.cmpWarn, c.Warnings); diff != "" {
				t.Errorf("comparison warnings (-want +got):\n%s", diff)
			}
			for _, sum := range []*Summary{c.Base, c.Head} {
				if sum == nil {
					continue
				}
				for _, v := range []float64{sum.Center, sum.Min, sum.Max} {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Errorf("non-finite summary value %v in %+v", v, sum)
					}
				}
				if math.IsNaN(sum.Low) || math.IsNaN(sum.High) {
					t.Errorf("NaN interval in %+v", sum)
				}
			}
			if c.Base != nil {
				if diff := cmp.Diff(tt.baseWarn, c.Base.Warnings); diff != "" {
					t.Errorf("base summary warnings (-want +got):\n%s", diff)
				}
				if c.Base.Constant != tt.wantConstBase {
					t.Errorf("Base.Constant = %v, want %v", c.Base.Constant, tt.wantConstBase)
				}
				if c.Base.N != len(tt.base) {
					t.Errorf("Base.N = %d, want %d", c.Base.N, len(tt.base))
				}
				if diff := cmp.Diff(tt.base, c.Base.Values); diff != "" {
					t.Errorf("Base.Values not in file order (-want +got):\n%s", diff)
				}
				if len(c.Base.Warnings) > 0 && !math.IsInf(c.Base.Low, -1) {
					t.Errorf("interval warning but Low = %v, want -Inf", c.Base.Low)
				}
			}
		})
	}
}

func TestSummaryValues(t *testing.T) {
	// Ten values in non-sorted order: median of 1..10 is 5.5; the 95%
	// interval for n=10 is [x(2), x(9)] (benchmath's order statistics).
	s, _ := summarize(obs(10, 1, 9, 2, 8, 3, 7, 4, 6, 5), 0.95, nil)
	got := [5]float64{s.Center, s.Low, s.High, s.Min, s.Max}
	if want := [5]float64{5.5, 2, 9, 1, 10}; got != want {
		t.Errorf("center, low, high, min, max = %v, want %v", got, want)
	}
	if s.Constant || s.N != 10 || len(s.Warnings) != 0 {
		t.Errorf("Constant %v N %d Warnings %q, want false 10 none", s.Constant, s.N, s.Warnings)
	}
	if s.Values[0].Value != 10 {
		t.Errorf("Values were reordered: %v", s.Values)
	}
}

func TestCompareAlphaWarning(t *testing.T) {
	s := setOf("sec/op", obs(1, 2, 3, 4), obs(1, 2, 3, 4))
	c := CompareAlpha(s, 0.95, 0.01)[0]
	want := []string{"need >= 5 samples to detect a difference at alpha level 0.01"}
	if diff := cmp.Diff(want, c.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestBetter(t *testing.T) {
	s := load(t,
		"Unit widgets better=higher\nBenchmarkA 10 1 ns/op 2 MB/s 3 B/op 4 allocs/op 5 widgets 6 frobs/op 7 items/s\n",
		"BenchmarkA 10 1 ns/op 2 MB/s 3 B/op 4 allocs/op 5 widgets 6 frobs/op 7 items/s\n")
	got := map[string]int{}
	for _, c := range compare(s, 0.95) {
		got[c.Unit] = c.Better
	}
	want := map[string]int{"sec/op": -1, "B/s": 1, "B/op": -1, "allocs/op": -1, "widgets": 1, "frobs/op": 0, "items/s": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Better by unit (-want +got):\n%s", diff)
	}
}

// Unit metadata comes from base alone: a line in head's file cannot turn
// its own metric's direction (round 3's L3: a +30 % p99-sec/op declared
// better=higher in head passed as an improvement). Head's line that base
// lacks or contradicts is a warning naming it; one that repeats base's
// (the runner writes the same assume=exact lines on both sides) is not.
func TestUnitMetadataFromBaseOnly(t *testing.T) {
	line := "BenchmarkA 10 1 ns/op 5 p99-sec/op 7 widgets\n"
	s := load(t,
		"Unit widgets better=higher\n"+line,
		"Unit widgets better=higher\nUnit p99-sec/op better=higher\n"+line)
	got := map[string]int{}
	for _, c := range compare(s, 0.95) {
		got[c.Unit] = c.Better
	}
	if got["p99-sec/op"] != 0 || got["widgets"] != 1 {
		t.Errorf("Better: p99-sec/op %d (want 0: head's line ignored), widgets %d (want 1: base's line)", got["p99-sec/op"], got["widgets"])
	}
	want := []string{"head.txt:2: ignoring Unit p99-sec/op better=higher: unit metadata is read from the base file only"}
	if diff := cmp.Diff(want, s.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// Contradicting base is refused the same way.
	s = load(t, "Unit widgets better=higher\n"+line, "Unit widgets better=lower\n"+line)
	for _, c := range compare(s, 0.95) {
		if c.Unit == "widgets" && c.Better != 1 {
			t.Errorf("widgets Better %d after head's better=lower, want base's 1", c.Better)
		}
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "better=lower") {
		t.Errorf("warnings %q, want one about head's better=lower", s.Warnings)
	}
}

func TestPairs(t *testing.T) {
	o := func(v float64, round int) Obs { return Obs{Value: v, Round: round, Iters: 1} }
	tests := []struct {
		name       string
		base, head []Obs
		wantB      []float64
		wantH      []float64
	}{{
		name:  "all rounds on both sides, head written in another order",
		base:  []Obs{o(10, 0), o(11, 1), o(12, 2)},
		head:  []Obs{o(22, 2), o(20, 0), o(21, 1)},
		wantB: []float64{10, 11, 12},
		wantH: []float64{20, 21, 22},
	}, {
		name:  "rounds missing on one side are dropped",
		base:  []Obs{o(10, 0), o(11, 1), o(13, 3)},
		head:  []Obs{o(21, 1), o(22, 2), o(23, 3)},
		wantB: []float64{11, 13},
		wantH: []float64{21, 23},
	}, {
		name:  "observations without a round are left out",
		base:  []Obs{o(10, -1), o(11, 1)},
		head:  []Obs{o(20, -1), o(21, 1)},
		wantB: []float64{11},
		wantH: []float64{21},
	}, {
		name: "no rounds at all",
		base: []Obs{o(10, -1)},
		head: []Obs{o(20, -1)},
	}, {
		// B5: a run hit by interference must not drag the round.
		name:  "several observations in a round: their median, not their mean",
		base:  []Obs{o(10, 0), o(11, 0), o(30, 0), o(5, 1)},
		head:  []Obs{o(20, 0), o(6, 1), o(8, 1)},
		wantB: []float64{11, 5},
		wantH: []float64{20, 7},
	}, {
		name: "one side empty",
		base: []Obs{o(10, 0)},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, h := pairs(tt.base, tt.head)
			if diff := cmp.Diff(tt.wantB, b); diff != "" {
				t.Errorf("base (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantH, h); diff != "" {
				t.Errorf("head (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadLooks(t *testing.T) {
	s := load(t, "looks: 6,12,24\nround: 1\nBenchmarkA 10 1 ns/op\n", "looks: 6,12,24\nround: 1\nBenchmarkA 10 2 ns/op\n")
	if !slices.Equal(s.Looks, []int{6, 12, 24}) {
		t.Errorf("Looks = %v, want [6 12 24]", s.Looks)
	}
	if len(s.Keys) != 1 {
		t.Errorf("the looks line split the benchmark: keys %v", s.Keys)
	}
	if s := load(t, "BenchmarkA 10 1 ns/op\n", "BenchmarkA 10 1 ns/op\n"); s.Looks != nil {
		t.Errorf("a fixed-length run has looks %v", s.Looks)
	}
}

// Text converted from go test -json names the stream's lines in its
// errors (Input.Lines).
func TestLoadMapsLines(t *testing.T) {
	base := "pkg: p\nBenchmarkX 10 1 ns/op\n"
	head := "pkg: p\nround: x\nBenchmarkX 10 1 ns/op\nBenchmarkY 10 1\n"
	_, err := Load(Input{Name: "base.json", R: strings.NewReader(base), Lines: []int{3, 9}},
		Input{Name: "head.json", R: strings.NewReader(head), Lines: []int{2, 4, 7, 12}})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`head.json:7: round "x"`, "head.json:12: "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// Load keeps at most maxSeries series and maxObservations values: past
// them the error names the line (a shard's raw file of 256 MiB could hold
// a hundred times a large suite's, and the comparison's memory grows with
// each series).
func TestLoadLimits(t *testing.T) {
	oldS, oldO := maxSeries, maxObservations
	t.Cleanup(func() { maxSeries, maxObservations = oldS, oldO })
	maxSeries, maxObservations = 3, 100
	if _, err := Load(Input{Name: "base.txt", R: strings.NewReader("BenchmarkA 1 1 ns/op\nBenchmarkB 1 1 ns/op 2 B/op\n")}, Input{Name: "head.txt", R: strings.NewReader("BenchmarkA 1 1 ns/op\nBenchmarkC 1 1 ns/op\n")}); err == nil || !strings.Contains(err.Error(), "head.txt:2: more than 3 series") {
		t.Errorf("series: %v", err)
	}
	maxSeries = 10
	many := strings.Repeat("BenchmarkA 1 1 ns/op 2 B/op\n", 40)
	if _, err := Load(Input{Name: "base.txt", R: strings.NewReader(many)}, Input{Name: "head.txt", R: strings.NewReader(many)}); err == nil || !strings.Contains(err.Error(), "head.txt:11: more than 100 values") {
		t.Errorf("values: %v", err)
	}
}
