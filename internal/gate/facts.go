package gate

// ReasonCode says why a row has its status. The figures a code speaks of
// are in the [Reason] that carries it; package report puts them in words.
type ReasonCode string

// The reasons of a row ([Result.Reason]) or of a sequential decision
// ([Decision.Reason]).
const (
	// ReasonNoSamples: neither side has samples.
	ReasonNoSamples ReasonCode = "no-samples"
	// ReasonOnlyHead: a new row (status new).
	ReasonOnlyHead ReasonCode = "only-head"
	// ReasonOnlyBase: a removed row (status removed).
	ReasonOnlyBase ReasonCode = "only-base"
	// ReasonFailedHead, ReasonFailedBase: a [Failure] covers the row.
	ReasonFailedHead ReasonCode = "failed-head"
	ReasonFailedBase ReasonCode = "failed-base"
	// ReasonExactSame: an allocation row with one value on both sides in
	// every round (Base).
	ReasonExactSame ReasonCode = "exact-same"
	// ReasonExactChange: an allocation row whose value changed from Base to
	// Head, the same in every round (a regression or an improvement).
	ReasonExactChange ReasonCode = "exact-change"
	// ReasonVaries: an allocation row whose values vary between rounds on
	// a side and whose ranges overlap (status unstable); Base and Head
	// are the ranges, BaseN and HeadN the values compared.
	ReasonVaries ReasonCode = "varies"
	// ReasonBackground: an allocation row whose values vary between rounds
	// but, both sides together, by at most one allocation or byte per op
	// (status unchanged, no warning); Base and Head are the ranges,
	// BaseN and HeadN the values compared.
	ReasonBackground ReasonCode = "background"
	// ReasonSeparated: an allocation row whose values vary between rounds
	// but every head value lies above every base value (a regression) or
	// below (an improvement); Base and Head are the ranges of the rounds'
	// values, BaseN and HeadN their numbers.
	ReasonSeparated ReasonCode = "separated"
	// ReasonNoTest: no test applies (no p-value).
	ReasonNoTest ReasonCode = "no-test"
	// ReasonSignificant: PAdjusted (or P) < Alpha and |Delta| ≥ Threshold:
	// a regression or an improvement. With Delta nil the base median is 0
	// and Base, Head hold the medians.
	ReasonSignificant ReasonCode = "significant"
	// ReasonNotSignificant: |Delta| ≥ Threshold (or, with Delta nil, a
	// change from a zero base) but p ≥ Alpha.
	ReasonNotSignificant ReasonCode = "not-significant"
	// ReasonWithinThreshold: significant but |Delta| < Threshold.
	ReasonWithinThreshold ReasonCode = "within-threshold"
	// ReasonNoChange: neither significant nor beyond the threshold.
	ReasonNoChange ReasonCode = "no-change"
	// ReasonZeroBoth: the medians are 0 on both sides (Base).
	ReasonZeroBoth ReasonCode = "zero-both"
	// ReasonCannotJudge: an inconclusive time row: with Rounds (or BaseN,
	// HeadN) and Family benchmarks the smallest possible p, MinP
	// (adjusted when Adjusted), is ≥ Alpha.
	ReasonCannotJudge ReasonCode = "cannot-judge"
	// ReasonVanished: a screening regression that the confirmation run did
	// not find again (status unchanged); Delta and P are the screen's
	// figures, Result.Confirmation the confirmation's row.
	ReasonVanished ReasonCode = "vanished"
	// ReasonEquivalent: a sequential look found the change's 1−2α
	// interval (Interval) inside ±Threshold after Rounds rounds.
	ReasonEquivalent ReasonCode = "equivalent"
	// ReasonAmountChange: a rate (a custom unit ending in "/s") whose
	// per-op amount, rate × sec/op, was the same in every run of a side
	// and moved the rate beyond Threshold from Base to Head (the amount's
	// ranges at the printed precision; Delta is the ratio of their
	// middles − 1): a regression or an improvement, exactly; time/op is
	// judged on its own row. BaseN and HeadN are the runs.
	ReasonAmountChange ReasonCode = "amount-change"
	// ReasonFollowsTime: a rate whose per-op amount was the same in every
	// run, Base on base and Head on head (equal at the printed precision,
	// or apart by less than Threshold when Threshold is set): it changes
	// only with time/op and takes the time row's status, P, PAdjusted
	// (with Looks, Correction, Alpha) and inverted change (Delta).
	ReasonFollowsTime ReasonCode = "follows-time"
	// ReasonIgnored: a policy rule ignores the benchmark (status ignored).
	ReasonIgnored ReasonCode = "ignored"
	// ReasonSameBinary: the package's test binaries ran the same code
	// on both sides; not measured (status same-binary).
	ReasonSameBinary ReasonCode = "same-binary"
	// ReasonWithinAllowance: an allocation row whose increase (Base to
	// Head) the policy's max-increase, Allowance, accepts (status
	// unchanged).
	ReasonWithinAllowance ReasonCode = "within-allowance"
)

// The reasons of a [Scaling].
const (
	// ScalingUnpaired: not judged: no paired rounds at the cpu values in
	// ScalingReason.CPUs.
	ScalingUnpaired ReasonCode = "scaling-unpaired"
	// ScalingFewRounds: not judged: too few rounds for an interval at the
	// cpu values in CPUs (with Rounds rounds each).
	ScalingFewRounds ReasonCode = "scaling-few-rounds"
	// ScalingWorse: Change ≥ Threshold and the intervals are disjoint.
	ScalingWorse ReasonCode = "scaling-worse"
	// ScalingBetter: Change ≤ −Threshold and the intervals are disjoint.
	ScalingBetter ReasonCode = "scaling-better"
	// ScalingWithin: the intervals are disjoint but |Change| < Threshold.
	ScalingWithin ReasonCode = "scaling-within"
	// ScalingSame: the intervals overlap: no significant change of scaling.
	ScalingSame ReasonCode = "scaling-same"
)

// Range is the smallest and the largest value of a side (equal when the
// side has one value).
type Range struct{ Min, Max float64 }

// Constant reports whether the range holds one value.
func (r Range) Constant() bool { return r.Min == r.Max }

// Interval is a relative change with its confidence interval, each as
// head/base − 1.
type Interval struct {
	Confidence          float64
	Estimate, Low, High float64
}

// Reason is why a row has its status: a code and the figures it rests on.
// Figures that do not apply to the code are zero (or nil).
type Reason struct {
	Code ReasonCode
	// Delta is the relative change judged (head/base − 1); nil when the
	// base median is 0 or no change was measured.
	Delta *float64
	// P is the p-value judged, before any adjustment; PAdjusted after the
	// sequential looks and the correction (nil when neither applies).
	P, PAdjusted *float64
	// Looks is the number of planned looks that multiplied P (≥ 2), 0
	// when none did. Correction is the correction that adjusted P ("holm",
	// "bh"; "" when it did not: one benchmark, or none).
	Looks      int
	Correction Correction
	// Alpha is the level P was compared with: the policy's α, or the
	// share of it one of [Confirm]'s looks had; PolicyAlpha is then the
	// policy's α (0 when Alpha is the policy's).
	Alpha, PolicyAlpha float64
	Threshold          float64
	// Better is the direction of a custom metric (kind Other): 1 higher
	// is better, 0 lower is better; -1 for the other kinds.
	Better int
	// Rounds is the number of paired rounds (0 without pairs); BaseN and
	// HeadN the samples per side.
	Rounds, BaseN, HeadN int
	// Family is m, the number of time rows the correction covers.
	Family int
	// MinP is the smallest possible p-value (ReasonCannotJudge); Adjusted
	// says it is after the correction or the looks.
	MinP     float64
	Adjusted bool
	// Base and Head are the values compared by an exact check, or the
	// medians when the base median is 0.
	Base, Head *Range
	// Interval is the change's interval of a sequential decision
	// (ReasonEquivalent).
	Interval *Interval
	// Side is the side without a count (ReasonUnavailable: SideBase,
	// SideHead, or "" for both); Detail the instruction lane's account.
	Side, Detail string
	// Allowance is the policy's max-increase that accepted the change
	// (ReasonWithinAllowance): "1" (allocs/op, B/op) or "5%".
	Allowance string
}

// ScalingReason is why a [Scaling] is judged as it is.
type ScalingReason struct {
	Code ReasonCode
	// CPUs are the cpu values without paired rounds (ScalingUnpaired) or
	// with too few rounds for an interval (ScalingFewRounds, whose Rounds
	// are theirs).
	CPUs, Rounds []int
	Threshold    float64
	// Lo and Hi are the paired head/base changes at the smallest and the
	// largest cpu value, with their 95% intervals; nil when not judged.
	Lo, Hi *Interval
}

// WarningCode names a suite-level caveat.
type WarningCode string

// The codes of a [Warning].
const (
	// WarnCannotJudge: time rows (Benchmarks) could not be judged: with
	// Rounds (or BaseN, HeadN) and Family benchmarks the smallest
	// possible p, MinP (adjusted when Adjusted), is ≥ Alpha; MinCount
	// rounds would work.
	WarnCannotJudge WarningCode = "cannot-judge"
	// WarnUTestFallback: time rows (Benchmarks) were judged by the U test
	// because with Rounds pairs and Family benchmarks the paired test's
	// smallest possible adjusted p, MinP, is ≥ Alpha; MinCount rounds
	// would allow the paired test.
	WarnUTestFallback WarningCode = "utest-fallback"
	// WarnTooNoisy: Benchmarks cannot see changes under Low to High (their
	// MDEs) at Threshold.
	WarnTooNoisy WarningCode = "too-noisy"
	// WarnOptimizedAway: Benchmarks run under Limit seconds per op with 0
	// allocs/op (SuspectOptimizedAway).
	WarnOptimizedAway WarningCode = "optimized-away"
	// WarnShortRuns: Benchmarks timed less than Limit seconds of work per
	// run (SuspectShortRuns).
	WarnShortRuns WarningCode = "short-runs"
	// WarnAllocsVary: the Unit values of Benchmarks vary between rounds
	// (unstable rows).
	WarnAllocsVary WarningCode = "allocs-vary"
	// WarnItersDiffer: the Unit rows of Benchmarks were measured at
	// different iteration counts (b.N) on base and head.
	WarnItersDiffer WarningCode = "iters-differ"
	// WarnScalingWorse: the parallel scaling of Benchmarks got worse by at
	// least Threshold; Gated when that fails the gate.
	WarnScalingWorse WarningCode = "scaling-worse"
	// WarnRequiredMissing: the policy file's required rule at Source
	// (pattern Detail) matches no benchmark on head; Gated: it fails the
	// gate.
	WarnRequiredMissing WarningCode = "required-missing"
	// WarnHeadPolicyInvalid: head's copy of the policy file does not parse
	// (Detail: its errors); Gated.
	WarnHeadPolicyInvalid WarningCode = "head-policy-invalid"
	// WarnCountTooLow: before measuring, Count rounds cannot let the paired
	// test reach Alpha for Family benchmarks under Correction (smallest
	// possible adjusted p MinP); UTest says whether the U test can judge
	// instead; MinCount rounds would work ([CountAdvice]).
	WarnCountTooLow WarningCode = "count-too-low"
	// WarnShardsIncomplete: the shards a merge judged together do not
	// cover the suite (a shard missing, incomplete or disagreeing with
	// the others, or Count benchmarks that no shard measured); it fails
	// the gate ([Incomplete]).
	WarnShardsIncomplete WarningCode = "shards-incomplete"
	// WarnInput: a problem of the input that the statistics skipped (a
	// non-finite value); Detail is package stats' account of it
	// ("file:line: ...").
	WarnInput WarningCode = "input"
)

// Bench names a benchmark.
type Bench struct{ Package, Name string }

// Warning is a suite-level caveat: a code, the benchmarks it concerns (all
// of them, in order, each once) and its figures. Figures that do not
// apply to the code are zero.
type Warning struct {
	Code       WarningCode
	Benchmarks []Bench
	Unit       string
	// Confirmation says the confirmation run raised it ([Confirm]).
	Confirmation bool

	Rounds, BaseN, HeadN int
	Family               int
	MinP                 float64
	Adjusted             bool
	Alpha, Threshold     float64
	MinCount             int
	Low, High            float64
	Limit                float64
	Gated                bool
	Count                int
	Correction           Correction
	UTest                bool
	Detail               string
	// Source is where a policy rule is ("FILE:LINE",
	// WarnRequiredMissing; Detail is its pattern).
	Source string
}
