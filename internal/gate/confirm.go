package gate

import (
	"math"
	"reflect"
	"slices"

	"github.com/benchgate/benchgate/internal/stats"
)

// PromisingP is the widest raw p-value cut of the promising zone
// ([Promising]): the cut of a suite of up to [promisingWide] time rows.
// Wider than the audit's 0.05 so that the screen's 10 rounds do not
// discard real changes (at --threshold 2%, 5 % noise and a +5 % change,
// 0.05 let 1 in 8 go unconfirmed; TestSimPromisingZone).
const PromisingP = 0.2

// promisingWide is the largest suite whose promising cut is PromisingP.
const promisingWide = 20

// PromisingLevel returns the raw p-value below which a screened time row
// of a family of m goes on to the confirmation stage: PromisingP for up to
// 20 rows, then PromisingP·√(20/m) (0.063 at 200 rows, 0.02 at 2,000), and
// never below alpha. The pooled decision of a larger family needs a
// smaller p-value (Holm's first step is α/m), which a row far from it in
// the screen reaches only rarely: at 200 rows a screen p of 0.2 needs a
// fresh-round z of about 4.5. Which rows are re-run costs no error
// control (see [Confirm]), only re-runs or power.
func PromisingLevel(m int, alpha float64) float64 {
	cut := PromisingP
	if m > promisingWide {
		cut *= math.Sqrt(promisingWide / float64(m))
	}
	return math.Max(cut, alpha)
}

// Promising returns the time rows of a screening verdict that go on to
// the confirmation stage (the "promising zone"): rows of the family
// judged by a test (not inconclusive, not failed) whose raw p-value is
// below [PromisingLevel] for the family's size and whose change is at
// least half the threshold either way (≥ +Threshold/2, or ≤ the inverse
// of +Threshold/2). The screen never fails the gate alone: the decision
// is [Confirm]'s, on the screen's and the fresh rounds pooled. A row the
// screen alone would call a regression or an improvement is always
// promising. Keys are in the verdict's order.
func Promising(v Verdict) []stats.Key {
	p := v.Policy
	level := PromisingLevel(v.Family, p.Alpha)
	var out []stats.Key
	for _, r := range v.Results {
		if r.Kind != Time || r.Base == nil || r.Head == nil || r.Status == Failed || r.Test == "" || r.P == nil || r.Delta == nil {
			continue
		}
		rp, _ := p.row(r.Package, r.Name)
		half := rp.Threshold / 2
		d := *r.Delta
		screenSays := r.Status == Regression || r.Status == Improvement
		if screenSays || promiseP(r) < level && (d >= half-thresholdSlack || d <= ImprovementThreshold(half)+thresholdSlack) {
			out = append(out, r.Key)
		}
	}
	return out
}

// promiseP is the p-value a judged time row's promise is judged by: its
// test's, or, for a paired row, the smaller of it and the sign test's on
// the same rounds ([signTestP]). A burst (a round whose sides a hog or a
// neighbour's job hit unevenly) takes one of the largest ranks of the
// signed-rank test with a sign that is a coin's: two in ten rounds leave
// a +10 % change at 2 % noise with p ≈ 0.3, where the sign test counts
// them as two rounds against (p = 0.11). Which rows are re-run may rest
// on anything (selection only removes rejections, [Confirm]); under the
// null the two tests' smaller p-value is below the cut a little more
// often than one's, and costs a few more re-runs (TestConfirmCost).
func promiseP(r Result) float64 {
	if burstAware && r.Test == TestPaired && r.Paired != nil {
		return math.Min(*r.P, signTestP(r.Paired.LogRatios))
	}
	return *r.P
}

// burstAware is whether the confirmation plans for bursts: promise and
// continuing judged by the sign test too ([promiseP]), a row's noise
// read with its bursts ([freshNoise]) and its count planned again after
// the first stage ([replanned]). A variable only so that the tests can
// measure the procedure without it (TestConfirmHog).
var burstAware = true

// signTestP is the exact two-sided sign test's p-value of d (zeros
// dropped): 2·P(Binomial(n, ½) ≤ the fewer of the signs), at most 1.
func signTestP(d []float64) float64 {
	pos, n := 0, 0
	for _, v := range d {
		switch {
		case v > 0:
			pos++
			n++
		case v < 0:
			n++
		}
	}
	if n == 0 {
		return 1
	}
	k := min(pos, n-pos)
	// Σ_{i≤k} C(n, i) / 2^n, in logs for large n.
	sum := 0.0
	for i := 0; i <= k; i++ {
		lc, _ := math.Lgamma(float64(n + 1))
		li, _ := math.Lgamma(float64(i + 1))
		lr, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lc - li - lr - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*sum)
}

// ConfirmRounds returns the number of fresh rounds the promising rows of
// a screen of n rounds get, for a family of m time/op benchmarks under p:
// as many as the screen had, and more when the pooled test needs them to
// reach Alpha for m benchmarks with room to spare (five rounds beyond the
// smallest count at which its floor allows it, [MinRounds], split over
// the looks of p): at α = 0.01 the default 10 rounds of a suite of up to
// 163 benchmarks get 10 more, of 1,000 benchmarks 13, of 5,000 15.
func ConfirmRounds(n, m int, p Policy) int {
	k := max(1, len(p.Looks))
	need := MinRounds(p.Alpha/float64(k), max(m, 1), p.Correction) + 5
	return max(n, need-n, 1)
}

// Confirm decides the promising time rows of a screening verdict (see
// [Promising]) on the pooled rounds: second is [Judge] of fresh
// interleaved rounds of (at least) the promising rows, [FreshRounds] of
// them, numbered after the screen's (rounds that
// collide with the screen's are renumbered after them). Each promising
// row's screen and fresh observations are pooled into one comparison
// (with the screen's estimator), and the row is
//
//   - a regression (an improvement) when the pooled test's p-value,
//     adjusted over the screen's whole family of m time rows (rows not
//     re-run enter with p = 1, which is a valid p-value), is below Alpha,
//     the pooled change is beyond the threshold, and the fresh rounds'
//     own estimate is at least half the pooled change, the same way (a
//     replication check: the change did not vanish, and the screen's
//     rounds do not carry it alone — a disturbance of the screen that
//     the fresh rounds do not show leaves a pooled change about half the
//     screen's, and a fresh estimate near 0);
//   - unchanged otherwise, with the pooled figures; with the reason
//     [ReasonVanished] when only the replication check failed.
//
// The pooled test is the test the screen chose for the row (its choice
// rests on statistics the null's sign flips leave unchanged).
//
// The decision has two looks, α split between them ([efficacyShare]):
// α₁ = α/4 after the first stage ([FirstFresh]), α₂ = α − α₁ at the end.
// A promising row planned for more fresh rounds than the first stage's
// that ran exactly the first stage's is decided there when its pooled
// change is beyond the threshold, it passes the replication check, and
// the correction over the whole family at α₁ rejects its pooled p-value,
// every other row entering with p = 1 (an efficacy stop: a regression or
// an improvement on the first stage's rounds; [Continuing] gives it no
// more). Any other row that ran fewer fresh rounds than [FreshRounds]
// planned (a futility stop, [Continuing]) enters with p = 1 and is
// unchanged. The rows that ran all their rounds are decided at α₂, the
// efficacy stops entering that correction as already rejected (p = 0).
// Both looks are recomputed from the rounds alone: a row's fresh rounds
// say which stage it stopped at. Under Benjamini–Hochberg there is no
// efficacy stop (α₁ = 0, α₂ = α): see below.
//
// Why this keeps the false-fail rate at Alpha (statistics audit, round
// 2): imagine every row re-run for its own count of fresh rounds; each
// row's pooled p-value would then be exact. A row is rejected only if it
// was promising, ran all its rounds and Holm over the p-values, with 1
// for every other row, rejects it; Holm is monotone, so these rejections
// are a subset of Holm's on the every-row-re-run p-values, whose
// family-wise rate is at most Alpha (BH's false discovery rate likewise).
// The property is unconditional: the pooled p-value of a row that was
// re-run because it looked promising is not valid on its own (a null row
// so selected reaches raw p < α about 5× as often as α). It needs a row's
// count not to depend on its signs, which is why [FreshRounds] measures
// the noise about 0. The replication check lowers the rate further.
//
// The two looks keep it (Bonferroni over the looks, nothing assumed of
// how they correlate). First look: imagine every row re-run for its
// first-stage count; the same monotonicity bounds the chance of any
// false efficacy stop (event E₁) by α₁. Last look: on the complement of
// E₁ every row entered at p = 0 is a real change, and every unchanged
// row enters with its all-rounds p-value or 1. Holm's proof looks only
// at the first unchanged row it rejects: at most m − m₀ rows (m₀
// unchanged) come before it, so its p-value is at most α₂/m₀, and the
// chance that any of the m₀ all-rounds p-values is, is at most α₂; what
// the changed rows' p-values are (0 here) does not enter. So the
// family-wise rate is at most α₁ + α₂ = α (without a correction, each
// row's rate likewise). BH's proof does rest on the joint law of every
// p-value, which forcing a data-chosen few to 0 changes; with no proof
// at hand, BH gets no efficacy stop. The paired test's floor limits the
// first look: after 10 + 7 rounds its smallest p-value is 2/2¹⁷ =
// 1.5·10⁻⁵, and Holm's first step at α = 0.01 is α₁/m = 2.5·10⁻³/m, so a
// suite of more than 163 time rows at the default rounds has no efficacy
// stop (its confirmation runs as before, at α₂ = 0.75α), and in one of
// 20 a row stops when the rounds against it are its two or three
// smallest ([efficacyShare]). In
// simulation (TestSimPromisingZone, TestConfirmCost) the rate stays at or
// below α while the power is 2–8× that of "screen AND confirm, each at
// α" (statistics audit: 0.72 against 0.185 at +10 % with 10 % noise).
//
// With sequential looks (Policy.Looks, --max-time) the screen stopped
// each row at a look of its own choosing; the pooled analysis then
// happened at that look plus the fresh rounds, so its p-value is paid
// for across the looks moved by the fresh rounds ([LookThreshold]), as
// the screen's was. The fresh rounds alone (Result.Confirmation) are a
// run of fixed length, judged without looks.
//
// Result.Screen holds a decided row's screening row, Result.Confirmation
// its fresh rounds judged alone, Confirmed is true on a pooled
// regression or improvement and false on a row the screen alone would
// have called one but the pooled decision did not. A promising row that
// was not re-measured (missing, or failed in the confirmation run) keeps
// the screen's status; a screen regression so kept is Unconfirmed.
// Failures of the confirmation run are added; warnings of the fresh
// rounds that the screen does not have are added with
// Warning.Confirmation set. Pass is recomputed.
func Confirm(screen, second Verdict) Verdict {
	if len(second.Results) == 0 && len(second.Failures) == 0 && len(FreshRounds(screen)) == len(Promising(screen)) {
		return screen // nothing re-run, nothing too noisy to be
	}
	var fresh []stats.Comparison
	for _, r := range second.Results {
		fresh = append(fresh, r.Comparison)
	}
	return confirmPooled(screen, poolComparisons(screen, fresh), fresh, second.Failures)
}

// poolComparisons returns, for every time row of fresh with both sides
// that screen also has, the comparison of the screen's and the fresh
// observations together.
func poolComparisons(screen Verdict, fresh []stats.Comparison) []stats.Comparison {
	byKey := map[stats.Key]stats.Comparison{}
	last := 0
	for _, r := range screen.Results {
		if r.Kind != Time || r.Base == nil || r.Head == nil {
			continue
		}
		byKey[r.Key] = r.Comparison
		for _, s := range []*stats.Summary{r.Base, r.Head} {
			for _, o := range s.Values {
				last = max(last, o.Round)
			}
		}
	}
	first := math.MaxInt
	for _, c := range fresh {
		for _, s := range []*stats.Summary{c.Base, c.Head} {
			if s != nil {
				for _, o := range s.Values {
					if o.Round >= 0 {
						first = min(first, o.Round)
					}
				}
			}
		}
	}
	shift := 0
	if first <= last {
		shift = last + 1 - first
	}
	var out []stats.Comparison
	for _, c := range fresh {
		sc, ok := byKey[c.Key]
		if !ok || c.Base == nil || c.Head == nil {
			continue
		}
		k := c.Key
		set := &stats.Set{Keys: []stats.Key{k}, Base: map[stats.Key][]stats.Obs{}, Head: map[stats.Key][]stats.Obs{}, Estimator: sc.Estimator}
		for _, side := range []struct {
			dst      map[stats.Key][]stats.Obs
			scr, new *stats.Summary
		}{{set.Base, sc.Base, c.Base}, {set.Head, sc.Head, c.Head}} {
			obs := slices.Clone(side.scr.Values)
			for _, o := range side.new.Values {
				if o.Round >= 0 {
					o.Round += shift
				}
				obs = append(obs, o)
			}
			side.dst[k] = obs
		}
		pc := stats.CompareAlpha(set, 0.95, screen.Policy.Alpha)[0]
		pc.Better = sc.Better
		out = append(out, pc)
	}
	return out
}

// confirmPooled is Confirm with the pooled and the fresh comparisons
// and the confirmation run's failures.
func confirmPooled(screen Verdict, pooled, fresh []stats.Comparison, failures []Failure) Verdict {
	p := screen.Policy
	freshP := p
	freshP.Looks, freshP.ConfirmRounds, freshP.Screened = nil, 0, 0
	second := Judge(fresh, failures, freshP)
	freshBy := map[stats.Key]Result{}
	for _, r := range second.Results {
		freshBy[r.Key] = r
	}
	pooledBy := map[stats.Key]stats.Comparison{}
	for _, c := range pooled {
		pooledBy[c.Key] = c
	}
	promising := map[stats.Key]bool{}
	for _, k := range Promising(screen) {
		promising[k] = true
	}
	planned := FreshRounds(screen)

	v := screen
	v.Results = slices.Clone(screen.Results)
	var family []int
	for i, r := range v.Results {
		if r.Kind == Time && r.Base != nil && r.Head != nil && r.Status != Failed {
			family = append(family, i)
		}
	}
	m := max(len(family), screen.Family)
	type decided struct {
		r       Result
		looks   []int
		u       uData
		stopped bool // fewer fresh rounds than planned: a change only by efficacy
		early   bool // decided after the first stage ([efficacyShare])
	}
	a1, a2 := efficacyLevels(p)
	first := FirstFresh(screen)
	rows := map[int]*decided{}
	seqPs, firstPs := padded(len(family), m), padded(len(family), m)
	for j, i := range family {
		seqPs[j], firstPs[j] = 1, 1
		r := v.Results[i]
		if !promising[r.Key] {
			continue
		}
		if _, ok := planned[r.Key]; !ok {
			// Too noisy to confirm: not re-run, with the change it
			// could not see.
			mde, _ := tooNoisyToConfirm(r, p, m)
			v.Results[i].TooNoisy, v.Results[i].MDE = true, ptr(mde)
			v.Results[i].NotRerun = max(p.ConfirmRounds, 1, freshCap*r.Paired.N/10)
			continue
		}
		c, ok := pooledBy[r.Key]
		f, fok := freshBy[r.Key]
		if !ok || !fok || f.Status == Failed || c.Base == nil || c.Head == nil {
			if r.Status == Regression {
				v.Results[i].Unconfirmed = true
				if fok {
					v.Results[i].Confirmation = ptr(f)
				}
			}
			continue
		}
		test := r.Test
		if test == TestPaired && c.Paired == nil {
			test = TestUTest
		}
		nr := Result{Comparison: c, Kind: Time, Gated: r.Gated, Test: test, Suspect: r.Suspect}
		u := uDataOf(c)
		figures(&nr, test, u)
		if nr.P == nil {
			continue
		}
		// The screen's looks, moved by the fresh rounds this row got.
		added := pooledN(c, test) - pooledN(r.Comparison, test)
		looks := shiftLooks(p.Looks, max(added, 0))
		got := pooledN(f.Comparison, test)
		want := planned[r.Key]
		if got > first {
			want = replanned(r, f, first, p, m)
		}
		stopped := got < want
		sp := sequentialP(*nr.P, looks, floorFn(test))
		if !stopped {
			seqPs[j] = sp
		} else if a1 > 0 && got == first && beyond(nr, p) && replicated(freshEstimate(f), *nr.Delta) {
			firstPs[j] = sp
		}
		rows[i] = &decided{r: nr, looks: looks, u: u, stopped: stopped}
	}
	corr := correctionOf(p.Correction)
	adj1 := adjust(firstPs, corr)
	steps1 := stepFactors(firstPs, corr, a1)
	for j, i := range family {
		if d, ok := rows[i]; ok && a1 > 0 && adj1[j] < a1 {
			d.early = true
			seqPs[j] = 0 // already rejected ([Confirm])
		}
	}
	adj := adjust(seqPs, corr)
	steps := stepFactors(seqPs, corr, a2)
	for j, i := range family {
		d, ok := rows[i]
		if !ok {
			continue
		}
		scr := v.Results[i]
		nr := d.r
		lp, _ := p.row(nr.Package, nr.Name)
		lp.Looks, lp.ConfirmRounds = d.looks, 0
		step := steps[j]
		nr.PAdjusted = ptr(adj[j])
		lp.Alpha = a2
		if d.early {
			nr.PAdjusted, step, lp.Alpha = ptr(adj1[j]), steps1[j], a1
			d.stopped = false
		}
		decide(&nr, m, step, lp)
		if lp.Alpha != p.Alpha {
			nr.Reason.PolicyAlpha = p.Alpha // the share of it this look had
		}
		lp.Alpha = a2 // the MDE is the procedure's, at the last look
		assess(&nr, d.u, m, lp, nil)
		f := freshBy[nr.Key]
		nr.Confirmation = ptr(f)
		nr.Screen = ptr(scr)
		changed := nr.Status == Regression || nr.Status == Improvement
		if changed && !replicated(freshEstimate(f), *nr.Delta) || d.stopped && (scr.Status == Regression || scr.Status == Improvement) {
			// Not reproduced, or stopped short of its planned rounds.
			nr.Status = Unchanged
			nr.Reason.Code = ReasonVanished
		}
		switch {
		case nr.Status == Regression || nr.Status == Improvement:
			nr.Confirmed = ptr(true)
		case scr.Status == Regression || scr.Status == Improvement:
			nr.Confirmed = ptr(false)
		}
		nr.Rule = scr.Rule
		v.Results[i] = nr
	}

	seenF := map[Failure]bool{}
	for _, f := range screen.Failures {
		seenF[f] = true
	}
	v.Failures = slices.Clone(screen.Failures)
	for _, f := range failures {
		if !seenF[f] {
			seenF[f] = true
			v.Failures = append(v.Failures, f)
		}
	}
	v.Warnings = slices.Clone(screen.Warnings)
	for _, w := range second.Warnings {
		if !slices.ContainsFunc(screen.Warnings, func(x Warning) bool { return reflect.DeepEqual(x, w) }) {
			w.Confirmation = true
			v.Warnings = append(v.Warnings, w)
		}
	}
	v.Confirmed = true
	accept(&v)
	v.Pass = pass(v)
	return v
}

// efficacyShare is the share of Alpha that [Confirm] spends on deciding
// rows after the first stage of fresh rounds (α₁ = α/4); the final
// decision gets the rest. The paired test's floor is what limits the
// first look (after 10 + 7 rounds its smallest p-value is 2/2¹⁷ =
// 1.5·10⁻⁵, and Holm's first step α₁/m): at α/20 a row of a suite of 20
// stopped only when all its 17 rounds pointed the same way, at α/4 when
// the rounds against it are the two or three smallest. A test without
// that floor (Student's t on the log-ratios) is not valid at these
// levels: under an order effect that the random order turns into ±c per
// round its rate at α/(20·m) is 11 times the level
// (TestFirstLookTTest). α/4 rather than α/20 cost no power in
// simulation (TestSimSuite's +5 % at --threshold 2%) and cut the fresh
// rounds of clear changes at 7 % noise by a third (TestConfirmEfficacy).
// A variable only so that the tests can measure the rounds without it.
var efficacyShare = 1.0 / 4

// efficacyLevels returns the levels of [Confirm]'s two looks under p: α₁
// after the first stage and α₂ = α − α₁ at the end; α₁ = 0 (no decision
// after the first stage, α₂ = α) under Benjamini–Hochberg.
func efficacyLevels(p Policy) (a1, a2 float64) {
	if correctionOf(p.Correction) == BH || efficacyShare <= 0 {
		return 0, p.Alpha
	}
	a1 = p.Alpha * efficacyShare
	return a1, p.Alpha - a1
}

// beyond reports whether judged time row r's change is beyond its
// threshold under p, either way.
func beyond(r Result, p Policy) bool {
	if r.Delta == nil {
		return false
	}
	rp, _ := p.row(r.Package, r.Name)
	d := *r.Delta
	return d >= rp.Threshold-thresholdSlack || d <= ImprovementThreshold(rp.Threshold)+thresholdSlack
}

// pooledN is the number of rounds (pairs, or values a side) test sees in
// c.
func pooledN(c stats.Comparison, test Test) int {
	if test == TestPaired && c.Paired != nil {
		return c.Paired.N
	}
	nb, nh := uSizes(c)
	return min(nb, nh)
}

// replicated reports whether the fresh rounds alone estimate at least half
// the pooled change, in its direction (in log terms: a change the fresh
// rounds reproduce, not one the screen's rounds carry alone). A real
// change passes almost always (at +10 % with 10 % noise per round and 10
// fresh rounds, 93 %); a disturbance of the screen's rounds that the fresh
// ones do not show, whose pooled estimate is about half the screen's, does
// not.
func replicated(fresh *float64, pooled float64) bool {
	if fresh == nil || !(*fresh > -1) || !(pooled > -1) {
		return false
	}
	f, p := math.Log1p(*fresh), math.Log1p(pooled)
	if p > 0 {
		return f >= p/2
	}
	return f <= p/2
}

// freshEstimate is the change the fresh rounds alone estimate: the
// paired Hodges–Lehmann ratio − 1 when they have pairs, else the change
// of the medians; nil when there is none.
func freshEstimate(f Result) *float64 {
	if f.Paired != nil {
		return ptr(f.Paired.Ratio - 1)
	}
	return uDataOf(f.Comparison).delta
}

func ptr[T any](v T) *T { return &v }

// FreshRounds returns the fresh rounds each promising row of a screen
// gets at most ([Promising]), by key: the screen's Policy.ConfirmRounds at
// least, and more when the row's own noise needs them for the pooled
// paired test to see a change of its own threshold (the MDE at the level
// one changed benchmark of the family must reach, 80 % power, falls to
// the threshold), at most 3.8× the row's screen rounds ([freshCap]). The
// noise is planned with a margin ([freshNoise]). Each row gets what it
// needs, not the most any promising row needs: one noisy row no longer
// buys the most rounds for every other. At --threshold 2% and 5 % noise
// per round, 10 screen rounds get 38 more; a 1 %-noise row gets 10.
//
// A promising row too noisy to confirm ([tooNoisyToConfirm]) has no
// count: it is not re-run.
//
// The rounds come in two stages: every promising row gets
// [FirstFresh] of them (its whole count when that is smaller), and only
// the rows that [Continuing] names after that get the rest, planned
// again on their screen's and first stage's rounds ([replanned]).
//
// A row's count rests on its threshold and on the magnitudes of its
// log-ratios ([freshNoise]), which the null's sign flips leave unchanged:
// never on its estimate or its p-value, so the pooled p-value of a row
// that ran them all is the one it would have had had every row been
// re-run to its count, which is what makes the pooled decision valid
// ([Confirm]).
func FreshRounds(screen Verdict) map[stats.Key]int {
	out := map[stats.Key]int{}
	for _, k := range Promising(screen) {
		for _, r := range screen.Results {
			if r.Key == k {
				if _, skip := tooNoisyToConfirm(r, screen.Policy, screen.Family); !skip {
					out[k] = rowFresh(r, screen.Policy, screen.Family)
				}
				break
			}
		}
	}
	return out
}

// tooNoisyStop is whether promising rows too noisy to confirm are not
// re-run ([tooNoisyToConfirm]); a variable only so that the tests can
// measure the procedure without it.
var tooNoisyStop = true

// tooNoisyShare is the share of a row's noise ([stats.SymmetricNoise] of
// its screen's log-ratios) that [tooNoisyToConfirm] holds against its
// threshold: about the lower end of what 10 rounds of that noise read
// (one time in six below 0.57σ), so that a row is not re-run only when
// even a low reading of its noise leaves the change it could see beyond
// twice its threshold. At the noise itself, +5 % at --threshold 2% and 5
// % noise a round (the cap's MDE is 3.5 %) was left unconfirmed in a
// quarter of the suites. The same share holds after the first stage,
// on the screen's and the first stage's rounds ([Continuing]).
const tooNoisyShare = 0.6

// tooNoisyToConfirm returns, for a promising time row r of a screen of a
// family of m under p, the smallest change its pooled test could see
// with the most fresh rounds the row could get ([freshCap]), at the
// level of the confirmation's last look, and whether the row is too
// noisy to confirm: that change is more than twice its threshold and the
// screen's own change is smaller than it. Such a row is not re-run (a
// futility stop before the first stage; it costs no error control, as
// any selection of the rows to re-run). Its noise is the bulk of its
// rounds ([stats.SymmetricNoise] without the planning margin), which
// reads a row whose rounds burst now and then at what a rank test can
// still see; a row the screen alone calls a change is always re-run.
func tooNoisyToConfirm(r Result, p Policy, m int) (mde float64, skip bool) {
	if r.Status == Regression || r.Status == Improvement || r.Paired == nil {
		return 0, false
	}
	return cannotSee(r, r.Paired.LogRatios, r.Paired.N, tooNoisyShare, p, m)
}

// cannotSee is [tooNoisyToConfirm]'s rule for time row r (its figures
// those of n screen rounds, or pooled) with log-ratios d: the MDE of the
// pooled paired test at n plus the most fresh rounds the row could get,
// at share of d's noise, and whether it is beyond twice the row's
// threshold with the row's change within it.
func cannotSee(r Result, d []float64, n int, share float64, p Policy, m int) (mde float64, hopeless bool) {
	if !tooNoisyStop || r.Test != TestPaired || r.Delta == nil {
		return 0, false
	}
	rp, _ := p.row(r.Package, r.Name)
	if rp.Threshold <= 0 {
		return 0, false
	}
	most := max(p.ConfirmRounds, 1, freshCap*n/10)
	_, a2 := efficacyLevels(p)
	level := lookThresholdFor(TestPaired, a2, max(m, 1), p.Correction, shiftLooks(p.Looks, most))
	mde = stats.MDE(n+most, share*stats.SymmetricNoise(d), level)
	return mde, mde > 2*rp.Threshold+thresholdSlack && math.Abs(math.Log1p(*r.Delta)) < math.Log1p(mde)
}

// FirstFresh is the first stage of the confirmation's fresh rounds: 7 in
// 10 of the screen's Policy.ConfirmRounds, rounded up (7 of the default
// 10; at least 1). A promising row planned for more ([FreshRounds]) gets
// the rest only if [Continuing] names it. Seven rather than all ten: the
// first stage is paid by every promising row, most of them unchanged
// (3.8 of an A/A suite of 20 at --threshold 2%), and the rounds it saves
// pay for the larger cap of [FreshRounds] (TestSimSuite, TestConfirmCost;
// docs/dev/evidence-log.md has the candidates measured).
func FirstFresh(screen Verdict) int { return max((7*screen.Policy.ConfirmRounds+9)/10, 1) }

// continueShare is the share of the promising cut that a row's pooled
// p-value after the first stage must stay below for it to get the rest of
// its fresh rounds ([Continuing]).
const continueShare = 0.5

// continueChange is the share of its threshold that a row's pooled change
// after the first stage must reach, either way, for it to get the rest of
// its fresh rounds ([Continuing]). Three quarters rather than half: an
// unchanged row that looks promising after the first stage mostly does so
// with a change well under its threshold, a real change beyond it rarely.
// With the p-value cut at half the promising cut (not 0.4), it stops more
// unchanged rows than half the threshold did (TestConfirmCost's second
// stage at --threshold 5%: +5.2 % rounds against +7.5 %) and fewer real
// changes (TestSimSuite's +5 % rows: 0.69 % against 0.86 %).
const continueChange = 0.75

// Continuing returns the promising rows of screen planned for more fresh
// rounds than the first stage's ([FreshRounds], [FirstFresh]) that get
// the rest: first is [Judge] of the first stage's fresh rounds, and a row
// continues when its screen's and first-stage rounds pooled give a raw
// p-value ([promiseP]: the smaller of the signed-rank and sign tests')
// below half the promising cut ([PromisingLevel]; 0.1 in a suite of up to
// 20) and a change of at least three quarters of its threshold either
// way, and it is not too noisy to confirm on those rounds
// ([tooNoisyToConfirm]'s rule), unless [Confirm] already decides it on
// them (an efficacy stop: its pooled p-value rejected at α₁). The others stop for
// futility: [Confirm] decides them unchanged, which costs no error
// control — selection only removes rejections, so the argument of
// [Confirm] holds — and costs power only where a real change looked small
// twice (at +5 % with 5 % noise per round, --threshold 2%, 10 + 7 rounds
// pooled, about 1 in 150).
func Continuing(screen, first Verdict) []stats.Key {
	plan := FreshRounds(screen)
	level := math.Max(PromisingLevel(screen.Family, screen.Policy.Alpha)*continueShare, screen.Policy.Alpha)
	pooled := map[stats.Key]Result{}
	for _, r := range Confirm(screen, first).Results {
		pooled[r.Key] = r
	}
	var out []stats.Key
	for _, k := range Promising(screen) {
		r, ok := pooled[k]
		if !ok || plan[k] <= FirstFresh(screen) || r.P == nil || r.Delta == nil || r.Status == Regression || r.Status == Improvement {
			continue
		}
		rp, _ := screen.Policy.row(k.Package, k.Name)
		need := rp.Threshold * continueChange
		if r.Paired != nil {
			if _, hopeless := cannotSee(r, r.Paired.LogRatios, r.Paired.N-FirstFresh(screen), tooNoisyShare, screen.Policy, screen.Family); hopeless {
				continue // too noisy to confirm, read on the rounds so far
			}
		}
		if promiseP(r) < level && (*r.Delta >= need-thresholdSlack || *r.Delta <= ImprovementThreshold(need)+thresholdSlack) {
			out = append(out, k)
		}
	}
	return out
}

// freshCap is the most fresh rounds a row gets, in tenths of its screen
// rounds: 3.8× (38 after the default 10). At 3× a +5 % change at
// --threshold 2% and 5 % noise per round was missed 1 time in 100 on all
// its rounds, at 3.8× about 1 in 500 (TestSimSuite); 4× cost more than
// +30 % rounds on an A/A suite of 20 (TestConfirmCost).
const freshCap = 38

// freshNoise is the noise a row's fresh rounds are planned for, from
// its log-ratios d and the same for d with any signs flipped (so that
// the count stays valid, [Confirm]): [stats.SymmetricNoise] times
// noiseMargin, or, when larger, the root mean square of |d| about its
// median over that of a normal's (0.603σ), which a shift of d hardly
// moves and a burst does: the bulk of a row's rounds says what a rank
// test sees when nothing bursts, the second what it needs to absorb the
// bursts (a negative one takes a top rank). On a machine whose rounds
// burst one time in eight, planning by the bulk alone left +10 % at the
// defaults undecided in 25 of 100 suites ([burstAware], TestConfirmHog).
func freshNoise(d []float64) float64 {
	bulk := noiseMargin * stats.SymmetricNoise(d)
	if !burstAware || len(d) < 2 {
		return bulk
	}
	abs := make([]float64, len(d))
	for i, v := range d {
		abs[i] = math.Abs(v)
	}
	med := medianOf(abs)
	ss := 0.0
	for _, a := range abs {
		ss += (a - med) * (a - med)
	}
	return math.Max(bulk, math.Sqrt(ss/float64(len(d)))/0.603)
}

// noiseMargin raises [stats.SymmetricNoise] for planning: the smaller of
// two spreads of |d|, it reads low from 10 rounds (median 0.86σ, below
// 0.57σ one time in 6), and a 5 %-noise row at --threshold 2% so planned
// for fewer rounds missed a +5 % change 15 times in 100. A factor keeps
// what SymmetricNoise is for (a real change does not read as noise); the
// root mean square of d about 0, also sign-free, gained as much power but
// planned a clear +10 % change for every round it could.
const noiseMargin = 1.3

// rowFresh is the fresh rounds of time row r of a screen in a family of m
// under p ([FreshRounds]).
func rowFresh(r Result, p Policy, m int) int {
	if r.Paired == nil {
		return max(p.ConfirmRounds, 1)
	}
	return rowFreshBy(r, r.Paired.LogRatios, p, m)
}

// rowFreshBy is rowFresh with the row's noise read from the log-ratios
// d (the screen's, or the screen's and the first stage's: [replanned]).
func rowFreshBy(r Result, d []float64, p Policy, m int) int {
	fresh := max(p.ConfirmRounds, 1)
	if r.Paired == nil || r.Test != TestPaired {
		return fresh
	}
	rp, _ := p.row(r.Package, r.Name)
	if rp.Threshold <= 0 {
		return fresh
	}
	limit := max(fresh, freshCap*r.Paired.N/10)
	noise := freshNoise(d)
	m = max(m, 1)
	for fresh < limit {
		level := lookThresholdFor(TestPaired, p.Alpha, m, p.Correction, shiftLooks(p.Looks, fresh))
		if stats.MDE(r.Paired.N+fresh, noise, level) <= rp.Threshold {
			break
		}
		fresh++
	}
	return fresh
}

// replanned is the fresh rounds of screen row r that continues after
// the first stage, f its fresh rounds so far (the first stage's first,
// at least): its count planned again from the magnitudes of its screen's
// and first stage's log-ratios together (a burst in the first stage buys
// the rounds a rank test needs to absorb it), never fewer than planned
// from the screen's. Magnitudes only: the count does not depend on which
// way any round went, which the pooled decision's validity needs.
func replanned(r Result, f Result, first int, p Policy, m int) int {
	n := rowFresh(r, p, m)
	if !burstAware || r.Paired == nil || f.Paired == nil || len(f.Paired.LogRatios) < first {
		return n
	}
	d := append(slices.Clone(r.Paired.LogRatios), f.Paired.LogRatios[:first]...)
	return max(n, rowFreshBy(r, d, p, m))
}
