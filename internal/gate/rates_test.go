package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/google/go-cmp/cmp"
)

// goPretty formats x as package testing prints a benchmark's ns/op and
// b.ReportMetric's values (prettyPrint): whole from 999.95 up, else four
// significant digits.
func goPretty(x float64) string {
	prec := 7
	for i, lim := range []float64{999.95, 99.995, 9.9995, 0.99995, 0.099995, 0.0099995, 0.00099995} {
		if x >= lim {
			prec = i
			break
		}
	}
	return fmt.Sprintf("%.*f", prec, x)
}

// rateSide is one side of a benchmark in rounds first… as go test prints
// it: ns(r) ns/op, b.SetBytes(bytes) (MB/s with two decimals), 64 items
// per op as items/s, hits(r) per op (not the same in every round) as
// hits/s.
func rateSide(first, rounds int, bytes float64, ns, hits func(r int) float64) string {
	var b strings.Builder
	b.WriteString("pkg: example.com/rates\n")
	for r := first; r < first+rounds; r++ {
		t := ns(r)
		fmt.Fprintf(&b, "round: %d\nBenchmarkEncode \t   10000\t%10s ns/op\t%7.2f MB/s\t%s items/s\t%s hits/s\t       0 B/op\t       0 allocs/op\n",
			r, goPretty(t), bytes/t*1e3, goPretty(64/t*1e9), goPretty(hits(r)/t*1e9))
	}
	return b.String()
}

// noisyTime is time/op about 2600 ns × factor, with the machine's state
// of round r (shared by the sides) and noise per side and round (a
// normal spread of the logarithm), reproducibly.
func noisyTime(factor, noise float64, seed uint64) func(int) float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	return func(r int) float64 {
		return 2600 * factor * (1 + 0.2*math.Sin(float64(r))) * math.Exp(noise*rng.NormFloat64())
	}
}

// encodeRow is the row of Encode in unit.
func encodeRow(t *testing.T, v Verdict, unit string) Result {
	t.Helper()
	return rowOf(t, v, "Encode", unit)
}

// varyingHits is a count per op that is not the same in every round.
func varyingHits(seed uint64) func(int) float64 {
	rng := rand.New(rand.NewPCG(seed, 9))
	return func(int) float64 { return 21 * math.Exp(0.08*rng.NormFloat64()) }
}

// The script's case under a CPU hog: head's b.SetBytes counts 80 % of
// the bytes at the same speed, and time/op jitters by 50 % a side and round. The
// B/s row's own paired test cannot see the 20 % drop through that noise;
// the bytes per op can: 4096 in every base run, 3276 in every head run.
func TestRateAmountChangedUnderNoise(t *testing.T) {
	base := rateSide(0, 20, 4096, noisyTime(1, 0.5, 1), varyingHits(2))
	head := rateSide(0, 20, 3276, noisyTime(1, 0.5, 3), varyingHits(4))
	v := judgeRaw(t, base, head, DefaultPolicy())
	want := []string{
		"Encode sec/op unchanged lower gated=true",
		"Encode B/s regression higher gated=true",
		"Encode items/s unchanged higher gated=true",
		"Encode hits/s unchanged higher gated=true",
		"Encode B/op unchanged lower gated=true",
		"Encode allocs/op unchanged lower gated=true",
	}
	if diff := cmp.Diff(want, rowsOf(v)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	bs := encodeRow(t, v, "B/s")
	if bs.Paired == nil || bs.Paired.P < 0.01 {
		t.Fatalf("fixture: the B/s values' own paired test should miss the change (p %v)", bs.Paired)
	}
	if bs.Reason.Code != ReasonAmountChange || bs.Test != "" || bs.P != nil || bs.Delta == nil || math.Abs(*bs.Delta-(3276.0/4096-1)) > 1e-4 {
		t.Errorf("B/s: %s, test %q, p %v, delta %v; want an exact −20.0%%", bs.Reason.Code, bs.Test, bs.P, bs.Delta)
	}
	if got, want := reasonText(bs), "the bytes per op went 4.000Ki → 3.199Ki in every run (SetBytes): -20.02% ≤ -4.76% (higher is better); time/op is judged on its own row"; got != want {
		t.Errorf("B/s reason:\n got %s\nwant %s", got, want)
	}
	if v.Pass {
		t.Error("the gate passes the B/s regression")
	}
	// items/s (64 per op on both sides) follows time/op; hits/s (a count
	// that is not per op) keeps the paired test on its own values.
	if r := encodeRow(t, v, "items/s"); r.Reason.Code != ReasonFollowsTime {
		t.Errorf("items/s: %s, want follows-time: %s", r.Reason.Code, reasonText(r))
	}
	if r := encodeRow(t, v, "hits/s"); r.Test != TestPaired || r.Reason.Code == ReasonFollowsTime || r.Reason.Code == ReasonAmountChange {
		t.Errorf("hits/s: test %q %s, want the paired test on its values", r.Test, r.Reason.Code)
	}
	// Swapped, the same change is an improvement; with the policy's
	// direction lower, the drop is one too.
	if r := encodeRow(t, judgeRaw(t, head, base, DefaultPolicy()), "B/s"); r.Status != Improvement || r.Reason.Code != ReasonAmountChange {
		t.Errorf("swapped: %s %s, want an exact improvement", r.Status, r.Reason.Code)
	}
	p := DefaultPolicy()
	p.File = mustPolicy(t, "units:\n  - match: 'B/s'\n    direction: lower\n")
	if r := encodeRow(t, judgeRaw(t, base, head, p), "B/s"); r.Status != Improvement || r.Direction() != "lower" {
		t.Errorf("direction lower: %s %s, want an improvement", r.Status, r.Direction())
	}
	// A units entry's threshold of 30 %: the −20 % amount is within it, and
	// the row follows time/op (unchanged), saying so.
	p.File = mustPolicy(t, "units:\n  - match: 'B/s'\n    threshold: 30%\n")
	r := encodeRow(t, judgeRaw(t, base, head, p), "B/s")
	if r.Status != Unchanged || r.Reason.Code != ReasonFollowsTime || r.Reason.Threshold != 0.3 {
		t.Errorf("threshold 30%%: %s %s, want unchanged, following time/op", r.Status, r.Reason.Code)
	}
	if got := reasonText(r); !strings.HasPrefix(got, "the bytes per op went 4.000Ki → 3.199Ki in every run (SetBytes), within ±30%: B/s takes time/op's judgement: ") {
		t.Errorf("threshold 30%% reason: %s", got)
	}
}

func mustPolicy(t *testing.T, yml string) *policy.Policy {
	t.Helper()
	f, err := policy.Parse(".benchgate.yml", []byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The same bytes per op on both sides: B/s and items/s carry nothing
// time/op does not, and take its judgement: a 20 % slowdown is their
// regression, with time/op's p-values and the inverted change, outside
// the metric family (hits/s, judged on its values, is a family of one).
func TestRateFollowsTime(t *testing.T) {
	base := rateSide(0, 12, 4096, noisyTime(1, 0.02, 5), varyingHits(6))
	head := rateSide(0, 12, 4096, noisyTime(1.2, 0.02, 7), varyingHits(8))
	v := judgeRaw(t, base, head, DefaultPolicy())
	want := []string{
		"Encode sec/op regression lower gated=true",
		"Encode B/s regression higher gated=true",
		"Encode items/s regression higher gated=true",
		"Encode hits/s regression higher gated=true",
		"Encode B/op unchanged lower gated=true",
		"Encode allocs/op unchanged lower gated=true",
	}
	if diff := cmp.Diff(want, rowsOf(v)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	tm := encodeRow(t, v, "sec/op")
	for _, unit := range []string{"B/s", "items/s"} {
		r := encodeRow(t, v, unit)
		if r.Reason.Code != ReasonFollowsTime || r.Test != tm.Test || !cmp.Equal(r.P, tm.P) || !cmp.Equal(r.PAdjusted, tm.PAdjusted) {
			t.Errorf("%s: %s test %q p %v/%v; want time/op's %q p %v/%v", unit, r.Reason.Code, r.Test, r.P, r.PAdjusted, tm.Test, tm.P, tm.PAdjusted)
		}
		if r.Delta == nil || math.Abs((1+*r.Delta)*(1+*tm.Delta)-1) > 1e-12 {
			t.Errorf("%s: delta %v, want the inverse of time/op's %v", unit, r.Delta, *tm.Delta)
		}
		if iv, tiv := r.Interval, tm.Interval; tiv == nil || iv == nil || math.Abs((1+iv.Low)*(1+tiv.High)-1) > 1e-12 || math.Abs((1+iv.High)*(1+tiv.Low)-1) > 1e-12 {
			t.Errorf("%s: interval %v, want time/op's %v inverted", unit, iv, tiv)
		}
	}
	got := reasonText(encodeRow(t, v, "B/s"))
	if want := fmt.Sprintf("the bytes per op are 4.000Ki in every run on both sides (SetBytes): B/s changes only with time/op and takes its judgement: %s, p", pctTest(*inverse(tm.Delta))); !strings.HasPrefix(got, want) {
		t.Errorf("B/s reason:\n got %s\nwant %s…", got, want)
	}
	if got := reasonText(encodeRow(t, v, "items/s")); !strings.HasPrefix(got, "the items per op are 64.00 in every run on both sides: items/s changes only with time/op") {
		t.Errorf("items/s reason: %s", got)
	}
	// Only hits/s is in the metric family: its p is not adjusted for the
	// rates that follow time/op.
	if r := encodeRow(t, v, "hits/s"); r.Test != TestPaired || r.PAdjusted == nil || *r.PAdjusted != *r.P {
		t.Errorf("hits/s: test %q, p %v adjusted %v; want the paired test in a family of one", r.Test, r.P, r.PAdjusted)
	}
	// A rate the policy says is lower-is-better improves when time/op
	// regresses; without metrics in --fail-on the rates are not gated;
	// with only metrics, B/s fails the gate that time/op does not.
	p := DefaultPolicy()
	p.File = mustPolicy(t, "units:\n  - match: 'B/s'\n    direction: lower\n")
	if r := encodeRow(t, judgeRaw(t, base, head, p), "B/s"); r.Status != Improvement {
		t.Errorf("direction lower: %s, want an improvement", r.Status)
	}
	if r := encodeRow(t, judgeRaw(t, base, head, withoutMetrics(DefaultPolicy())), "B/s"); r.Gated || r.Status != Regression {
		t.Errorf("fail-on without metrics: %s gated %v, want an ungated regression", r.Status, r.Gated)
	}
	p = DefaultPolicy()
	p.FailOn = map[Kind]bool{Other: true}
	if v := judgeRaw(t, base, head, p); v.Pass || !encodeRow(t, v, "B/s").Fails() || encodeRow(t, v, "sec/op").Gated {
		t.Errorf("fail-on metrics: pass %v, want B/s to fail the gate", v.Pass)
	}
	// The amount 2.3 % lower on head, within the 5 % threshold: the row
	// still follows time/op, and says what the amount did.
	head = rateSide(0, 12, 4000, noisyTime(1.2, 0.02, 7), varyingHits(8))
	r := encodeRow(t, judgeRaw(t, base, head, DefaultPolicy()), "B/s")
	if r.Status != Regression || r.Reason.Code != ReasonFollowsTime || !strings.HasPrefix(reasonText(r), "the bytes per op went 4.000Ki → 3.906Ki in every run (SetBytes), within ±5%: B/s takes time/op's judgement: -17.26%, p") {
		t.Errorf("amount within the threshold: %s %s: %s", r.Status, r.Reason.Code, reasonText(r))
	}
}

// pctTest is a change as the reasons print it ("-16.72%").
func pctTest(d float64) string { return fmt.Sprintf("%+.2f%%", 100*d) }

// A confirmation changes time rows after Judge: a rate that follows time
// follows the pooled decision (here a screen regression that the fresh
// rounds do not reproduce).
func TestRateFollowsConfirmation(t *testing.T) {
	p := DefaultPolicy()
	p.ConfirmRounds = 12
	screen := judgeRaw(t, rateSide(0, 12, 4096, noisyTime(1, 0.02, 11), varyingHits(12)),
		rateSide(0, 12, 4096, noisyTime(1.1, 0.02, 13), varyingHits(14)), p)
	if tm, bs := encodeRow(t, screen, "sec/op"), encodeRow(t, screen, "B/s"); tm.Status != Regression || bs.Status != Regression {
		t.Fatalf("fixture: screen sec/op %s, B/s %s; want two regressions", tm.Status, bs.Status)
	}
	fp := DefaultPolicy()
	fresh := judgeRaw(t, rateSide(12, 30, 4096, noisyTime(1, 0.02, 15), varyingHits(16)),
		rateSide(12, 30, 4096, noisyTime(1, 0.02, 17), varyingHits(18)), fp)
	v := Confirm(screen, fresh)
	tm, bs := encodeRow(t, v, "sec/op"), encodeRow(t, v, "B/s")
	if tm.Status != Unchanged || tm.Confirmed == nil || *tm.Confirmed {
		t.Fatalf("fixture: confirmed sec/op %s (%s), want not confirmed", tm.Status, reasonText(tm))
	}
	if bs.Status != Unchanged || !cmp.Equal(bs.P, tm.P) || bs.Fails() || !v.Pass {
		t.Errorf("after confirmation: B/s %s (%s), pass %v; want it unchanged with time/op (%s)", bs.Status, reasonText(bs), v.Pass, reasonText(tm))
	}
}

// printedError: half a unit of the last digit present, relative; after
// benchfmt's scaling (sec/op, B/s) as before it.
func TestPrintedError(t *testing.T) {
	for _, c := range []struct {
		x, want float64
	}{
		{1391e-9, 0.5 / 1391},          // "1391 ns/op"
		{0.8427e-9, 0.00005 / 0.8427},  // "0.8427 ns/op"
		{2945.61e6, 0.005 / 2945.61},   // "2945.61 MB/s"
		{643.36e6, 0.005 / 643.36},     // " 643.36 MB/s"
		{3038613713, 5.0 / 3038613713}, // "3038613713 items/s": nine digits credited
		{303861371, 0.5 / 303861371},   // "303861371 items/s"
		{2600e-9, 50.0 / 2600},         // "2600 ns/op": trailing zeros credited as unknown
		{1048576, 0.5 / 1048576},       // "1048576 B/op"
		{1575.4e6, 0.05 / 1575.4},      // "1575.40 MB/s"
	} {
		if got := printedError(c.x); math.Abs(got/c.want-1) > 1e-6 {
			t.Errorf("printedError(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	if e := printedError(1.0 / 3); e > 1e-8 || e <= 0 {
		t.Errorf("printedError(1/3) = %g, want nine digits' worth", e)
	}
	if !math.IsInf(printedError(0), 1) {
		t.Error("printedError(0) is finite")
	}
	// Values that are not normal floats carry no precision, and the
	// search ends for every value (round 3's L1: 5e-324 looped forever,
	// its powers of ten underflowing to 0).
	for _, x := range []float64{5e-324, 1e-323, 3e-320, math.SmallestNonzeroFloat64, math.Inf(1), math.NaN()} {
		if got := printedError(x); !math.IsInf(got, 1) {
			t.Errorf("printedError(%g) = %g, want +Inf", x, got)
		}
	}
	for _, x := range []float64{smallestNormal, 1e-300, 1.2345678901234e-200, math.MaxFloat64, 1e308, 9.999999999999e307} {
		if got := printedError(x); !(got > 0) {
			t.Errorf("printedError(%g) = %g, want a positive error", x, got)
		}
	}
}

// The tolerance on real go test -bench -benchmem output (testdata/rates):
// every b.SetBytes size and the per-op items/s give their exact amount in
// every run, pinned to amountPrecision; hits/s (a random count) and
// setups/s (one a run) vary; a run 1 % off is caught.
func TestRateAmountOnRealOutput(t *testing.T) {
	data, err := os.ReadFile("testdata/rates/go1.26.txt")
	if err != nil {
		t.Fatal(err)
	}
	set, err := stats.Load(stats.Input{Name: "base.txt", R: strings.NewReader(string(data))}, stats.Input{Name: "head.txt", R: strings.NewReader(string(data))})
	if err != nil {
		t.Fatal(err)
	}
	cmps := stats.CompareAlpha(set, 0.95, 0.01)
	byKey := map[stats.Key]stats.Comparison{}
	for _, c := range cmps {
		byKey[c.Key] = c
	}
	amount := func(name, unit string, edit func(*stats.Summary)) (Range, bool) {
		c, ok := byKey[stats.Key{Package: "example.com/ratereal", Name: name, Unit: unit}]
		tc := byKey[stats.Key{Package: "example.com/ratereal", Name: name, Unit: "sec/op"}]
		if !ok || tc.Base == nil {
			t.Fatalf("no %s %s row", name, unit)
		}
		s := *c.Base
		s.Values = append([]stats.Obs(nil), s.Values...)
		if edit != nil {
			edit(&s)
		}
		slop := elapsedSlop
		if unit == "B/s" {
			slop = 0
		}
		return sideAmount(&s, tc.Base, slop)
	}
	for _, c := range []struct {
		name, unit string
		n, off     float64
	}{
		{"Tiny-2", "B/s", 1, 0}, {"Small-2", "B/s", 7, 0}, {"Mid-2", "B/s", 4096, 0}, {"Big-2", "B/s", 1 << 20, 0},
		// b.Elapsed is read before the timer stops: items/s × sec/op
		// comes out a little above 64 (0.01 % in runs of 20ms).
		{"Items-2", "items/s", 64, elapsedSlop},
	} {
		a, ok := amount(c.name, c.unit, nil)
		if !ok || a.Min > c.n*(1+c.off) || a.Max < c.n {
			t.Errorf("%s %s: amount %v (ok %v), want a range around %g", c.name, c.unit, a, ok, c.n)
		}
		// One run 1 % off is not the same amount.
		if a, ok := amount(c.name, c.unit, func(s *stats.Summary) { s.Values[2].Value *= 1.01 }); ok {
			t.Errorf("%s %s with a run 1%% off: amount %v, want none", c.name, c.unit, a)
		}
	}
	for _, c := range []struct{ name, unit string }{{"Hits-2", "hits/s"}, {"Setups-2", "setups/s"}} {
		if a, ok := amount(c.name, c.unit, nil); ok {
			t.Errorf("%s %s: amount %v, want none (it varies)", c.name, c.unit, a)
		}
	}
	// Judged against itself: the rates follow time/op (6 runs without
	// rounds: inconclusive at α = 0.01), hits/s is tested on its values.
	v := Judge(cmps, nil, DefaultPolicy())
	for _, r := range v.Results {
		if !rateUnit(r.Unit) {
			continue
		}
		tm := rowOf(t, v, r.Name, "sec/op")
		follows := r.Reason.Code == ReasonFollowsTime
		if follows != (r.Unit != "hits/s" && r.Unit != "setups/s") || follows && r.Status != tm.Status {
			t.Errorf("%s %s: %s %s; time/op %s", r.Name, r.Unit, r.Status, r.Reason.Code, tm.Status)
		}
	}
}

// The e2e script's raw files on a loaded machine (time/op noise 49 % a
// round) and under two CPU hogs (97 %): B/s is judged on the bytes per
// op, 4096 → 3276 in every run, although its own values' U test gives
// p = 0.014 and 0.512; items/s (64 per op over b.Elapsed()) pins its
// amount only with elapsedSlop, and follows time/op.
func TestRateAmountOnE2ERun(t *testing.T) {
	for _, dir := range []string{"e2e", "e2e-hog"} {
		read := func(name string) string {
			data, err := os.ReadFile("testdata/rates/" + dir + "/" + name)
			if err != nil {
				t.Fatal(err)
			}
			return string(data)
		}
		base, head := read("base.txt"), read("head.txt")
		p := DefaultPolicy()
		p.Threshold = 0.10
		v := judgeRaw(t, base, head, p)
		bs, items, tm := encodeRow(t, v, "B/s"), encodeRow(t, v, "items/s"), encodeRow(t, v, "sec/op")
		if bs.Status != Regression || bs.Reason.Code != ReasonAmountChange || bs.Reason.Base.Min > 4096 || bs.Reason.Base.Max < 4096 || bs.Reason.Head.Min > 3276 || bs.Reason.Head.Max < 3276 {
			t.Errorf("%s: B/s: %s: %s", dir, bs.Status, reasonText(bs))
		}
		if items.Reason.Code != ReasonFollowsTime || items.Status != tm.Status || !strings.HasPrefix(reasonText(items), "the items per op are 64.00 in every run on both sides: items/s changes only with time/op") {
			t.Errorf("%s: items/s: %s %s, time/op %s: %s", dir, items.Status, items.Reason.Code, tm.Status, reasonText(items))
		}
		// Without the slop the base side's items/s runs do not agree.
		set, err := stats.Load(stats.Input{Name: "base.txt", R: strings.NewReader(base)}, stats.Input{Name: "head.txt", R: strings.NewReader(head)})
		if err != nil {
			t.Fatal(err)
		}
		var ic, tc stats.Comparison
		for _, c := range stats.CompareAlpha(set, 0.95, 0.01) {
			switch c.Unit {
			case "items/s":
				ic = c
			case "sec/op":
				tc = c
			}
		}
		if a, ok := sideAmount(ic.Base, tc.Base, 0); ok {
			t.Errorf("%s: items/s without the slop: amount %v, want none", dir, a)
		}
	}
}
