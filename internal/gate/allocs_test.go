package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
)

// loadReal judges raw files of a real run committed under testdata,
// base and head swapped when swap is set.
func loadReal(t *testing.T, dir string, swap bool, p Policy) Verdict {
	t.Helper()
	open := func(name string) stats.Input {
		f, err := os.Open(filepath.Join("testdata", dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return stats.Input{Name: name, R: f}
	}
	b, h := "base.txt", "head.txt"
	if swap {
		b, h = h, b
	}
	set, err := stats.Load(open(b), open(h))
	if err != nil {
		t.Fatal(err)
	}
	return Judge(stats.CompareAlpha(set, 0.95, p.Alpha), nil, p)
}

// TestAllocationRuleOnRealSamples judges allocation rows recorded from
// real runs of a small module here (testdata/allocs/README.md):
// encoding/json keeps its encoder buffers in a sync.Pool that every GC
// cycle empties, so B/op jitters by a few bytes between runs.
//
//   - Grow: head marshals more; B/op varies on both sides but every head
//     round is above every base round: a regression, with the ranges
//     (swapped: an improvement). Before, any jitter made it unstable.
//   - Encode: the same code on both sides; its runs jitter (3124–3139
//     B/op). With 5 short runs a round the rounds' medians are 3131 on
//     both sides: background, unchanged without a warning. With one run a
//     round the ranges overlap over 15 bytes: unstable.
//   - Join: constant on both sides: exact.
func TestAllocationRuleOnRealSamples(t *testing.T) {
	p := DefaultPolicy()
	for _, tc := range []struct {
		dir    string
		swap   bool
		encode Status
	}{{"allocs", false, Unchanged}, {"allocs", true, Unchanged}, {"allocs-runs1", false, Unstable}, {"allocs-runs1", true, Unstable}} {
		v := loadReal(t, tc.dir, tc.swap, p)
		got := map[string]Result{}
		for _, r := range v.Results {
			got[r.Name+" "+r.Unit] = r
		}
		grow := Regression
		if tc.swap {
			grow = Improvement
		}
		encCode := ReasonBackground
		if tc.encode == Unstable {
			encCode = ReasonVaries
		}
		for _, tt := range []struct {
			row    string
			status Status
			code   ReasonCode
		}{
			{"Grow-2 B/op", grow, ReasonSeparated},
			{"Encode-2 B/op", tc.encode, encCode},
			{"Join-2 B/op", Unchanged, ReasonExactSame},
			{"Join-2 allocs/op", Unchanged, ReasonExactSame},
		} {
			r, ok := got[tt.row]
			if !ok {
				t.Fatalf("%s: no row %s", tc.dir, tt.row)
			}
			if r.Status != tt.status || r.Reason.Code != tt.code {
				t.Errorf("%s (swapped %v) %s: %s (%s), want %s (%s): %s", tc.dir, tc.swap, tt.row, r.Status, r.Reason.Code, tt.status, tt.code, reasonText(r))
			}
			if tt.row != "Join-2 B/op" && tt.row != "Join-2 allocs/op" && r.Base.Constant && r.Head.Constant {
				t.Errorf("%s %s: the recorded runs should vary", tc.dir, tt.row)
			}
			if tt.status == Regression && !r.Gated {
				t.Errorf("%s %s: a separated regression is gated", tc.dir, tt.row)
			}
		}
	}
}

// TestAllocationRule: the rule on constructed rounds, its boundaries.
func TestAllocationRule(t *testing.T) {
	for _, tt := range []struct {
		name       string
		base, head []float64
		status     Status
		code       ReasonCode
	}{
		{"constant, same", rep(344, 10), rep(344, 10), Unchanged, ReasonExactSame},
		{"constant, one more", rep(3, 3), rep(4, 3), Regression, ReasonExactChange},
		{"varying, separated above", []float64{344, 344, 352, 344, 344, 344, 348, 344, 344, 344}, []float64{1056, 1064, 1056, 1056, 1056, 1060, 1056, 1056, 1056, 1056}, Regression, ReasonSeparated},
		{"varying, separated below", []float64{17612, 17620, 17612, 17616, 17612, 17612, 17612, 17612, 17640, 17612}, rep(15155, 10), Improvement, ReasonSeparated},
		{"varying, touching", []float64{100, 101, 100, 100, 100, 100, 100, 100, 100, 100}, []float64{101, 102, 102, 102, 102, 102, 102, 102, 102, 102}, Unstable, ReasonVaries},
		// Background: a runtime allocation caught by a short run.
		{"0–1 B/op on base, 0 on head", []float64{0, 1, 0, 0, 0, 0, 0, 0, 0, 0}, rep(0, 10), Unchanged, ReasonBackground},
		{"0–1 B/op on both sides", []float64{0, 1, 0, 0, 1, 0, 0, 0, 0, 0}, []float64{0, 0, 1, 0, 0, 0, 0, 0, 0, 1}, Unchanged, ReasonBackground},
		{"within one, medians apart", []float64{0, 0, 0, 0, 0, 0, 0, 1, 0, 0}, []float64{1, 1, 1, 1, 1, 0, 1, 1, 1, 1}, Unstable, ReasonVaries},
		{"spread over one byte", []float64{0, 2, 0, 0, 0, 0, 0, 0, 0, 0}, rep(0, 10), Unstable, ReasonVaries},
		// Within one but cleanly separated: decided by separation first.
		{"half a byte, separated", []float64{10, 10.5, 10, 10, 10, 10, 10, 10, 10, 10}, []float64{11, 11, 11, 11, 11, 11, 11, 11.5, 11, 11}, Regression, ReasonSeparated},
		// Three rounds a side: all head above all base happens by chance
		// with probability 1/20 > α.
		{"separated but too few rounds", []float64{100, 101, 100}, []float64{102, 103, 102}, Unstable, ReasonVaries},
	} {
		v := Judge([]stats.Comparison{measured("p", "X", "B/op", tt.base, tt.head)}, nil, DefaultPolicy())
		if r := v.Results[0]; r.Status != tt.status || r.Reason.Code != tt.code {
			t.Errorf("%s: %s (%s), want %s (%s): %s", tt.name, r.Status, r.Reason.Code, tt.status, tt.code, reasonText(r))
		}
	}
}

// allocs/op within one is background only when the benchmark's bytes are
// too: 0–1 allocs/op with 0–64 B/op is an allocation some runs make.
func TestAllocsBackgroundNeedsBytes(t *testing.T) {
	allocs := []float64{0, 1, 0, 1, 0, 1, 0, 1, 0, 1}
	for _, tt := range []struct {
		name  string
		bytes []float64
		want  Status
	}{
		{"bytes 0–1", []float64{0, 1, 0, 0, 0, 0, 1, 0, 0, 0}, Unchanged},
		{"bytes 0–64", []float64{0, 64, 0, 64, 0, 64, 0, 64, 0, 64}, Unstable},
	} {
		v := Judge([]stats.Comparison{
			measured("p", "X", "allocs/op", allocs, allocs),
			measured("p", "X", "B/op", tt.bytes, tt.bytes),
		}, nil, DefaultPolicy())
		if r := v.Results[0]; r.Status != tt.want {
			t.Errorf("%s: allocs/op %s (%s), want %s", tt.name, r.Status, r.Reason.Code, tt.want)
		}
	}
}
