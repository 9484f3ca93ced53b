package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// JSON renders v and m as the JSON report, indented, with a final
// newline. Its schema is the set of json* types below, documented field by
// field in docs/json-schema.md (a test keeps the two in step). Every string
// is kept exactly as measured: JSON is data, and its readers escape for
// their own output. Reasons, warnings and suspicions carry their code,
// their figures and the words of the text report ("text").
func JSON(v gate.Verdict, m Meta) ([]byte, error) {
	doc := jsonDoc{
		Verdict:   "fail",
		Headline:  strings.TrimSpace(Plain(headline(v, m))),
		Counts:    tallyOf(v).String(),
		Blind:     len(v.Blind()),
		Tool:      m.Tool,
		Base:      jsonRev{Ref: m.BaseRef, SHA: m.BaseSHA},
		Head:      jsonRev{Ref: m.HeadRef, SHA: m.HeadSHA},
		Go:        jsonGo{Base: m.BaseGo, Head: m.HeadGo},
		Count:     m.Count,
		Benchtime: m.Benchtime,
		Estimator: "",
		Seed:      m.Seed,
		Partial:   m.Partial,
		Policy: jsonPolicy{
			Threshold:          finite(v.Policy.Threshold),
			InstrThreshold:     finite(v.Policy.InstructionThreshold),
			Alpha:              finite(v.Policy.Alpha),
			FailOn:             []string{},
			FailOnFailure:      v.Policy.FailOnFailure,
			FailOnRemoved:      v.Policy.FailOnRemoved,
			FailOnInconclusive: v.Policy.FailOnInconclusive,
			FailOnScaling:      v.Policy.FailOnScaling,
			Looks:              append([]int{}, v.Policy.Looks...),
		},
		Correction:   string(v.Correction),
		Family:       v.Family,
		Inconclusive: Inconclusive(v),
		Confirmed:    v.Confirmed,
		Benchmarks:   make([]jsonBenchmark, 0, len(v.Results)),
		Failures:     make([]jsonFailure, 0, len(v.Failures)),
		Scaling:      make([]jsonScaling, 0, len(v.Scaling)),
		Warnings:     make([]jsonWarning, 0, len(v.Warnings)+1),
		Notes:        append(append([]string{}, runLines(m.Run)...), noteTexts(m.Notes)...),
		Run:          runJSON(m.Run),
	}
	if v.Pass {
		doc.Verdict = "pass"
	}
	doc.Runs, doc.Estimator = runsOf(v)
	doc.Runs = max(doc.Runs, 1)
	if w := m.GoWarning(); w != "" {
		doc.Warnings = append(doc.Warnings, jsonWarning{Code: "go-toolchains", Text: w, Benchmarks: []jsonBench{}})
	}
	for _, w := range v.Warnings {
		doc.Warnings = append(doc.Warnings, jsonWarningOf(w, v.Scaling))
	}
	for _, w := range runWarnings(m.Run) {
		doc.Warnings = append(doc.Warnings, jsonWarning{Code: "run", Text: w, Benchmarks: []jsonBench{}})
	}
	if doc.Correction == "" {
		doc.Correction = string(gate.Holm)
	}
	if pi := m.Policy; pi != nil {
		doc.Policy.File = &jsonPolicyFile{Source: pi.Source, HeadChanges: append([]string{}, pi.HeadChanges...), HeadAffected: append([]string{}, pi.HeadAffected...), HeadError: pi.HeadError}
	}
	if v.MinCount > 0 {
		doc.MinCount = &v.MinCount
	}
	for _, k := range []gate.Kind{gate.Time, gate.Allocs, gate.Bytes, gate.Instructions, gate.Other} {
		if v.Policy.FailOn[k] {
			w := string(k)
			if k == gate.Other {
				w = "metrics" // the word of --fail-on
			}
			doc.Policy.FailOn = append(doc.Policy.FailOn, w)
		}
	}
	for _, r := range v.Results {
		b := jsonBenchmarkOf(r)
		b.Explain = m.explanation(r)
		doc.Benchmarks = append(doc.Benchmarks, b)
	}
	for _, f := range v.Failures {
		if f.Unit != "" {
			continue // the instruction lane's: unavailable rows
		}
		doc.Failures = append(doc.Failures, jsonFailure{Package: f.Package, Name: f.Name, Side: f.Side, Message: f.Message})
	}
	for _, s := range v.Scaling {
		doc.Scaling = append(doc.Scaling, jsonScalingOf(s))
	}
	// encoding/json's HTML escaping stays on (<, > and & as \u003c…): names
	// and messages come from the change, and a dashboard that pastes the
	// report into a page gets them inert.
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode JSON report: %w", err)
	}
	return append(out, '\n'), nil
}

type jsonDoc struct {
	Verdict      string          `json:"verdict"`
	Headline     string          `json:"headline"`
	Counts       string          `json:"counts"`
	Blind        int             `json:"blind"`
	Tool         string          `json:"tool"`
	Base         jsonRev         `json:"base"`
	Head         jsonRev         `json:"head"`
	Go           jsonGo          `json:"go"`
	Count        int             `json:"count"`
	Benchtime    string          `json:"benchtime"`
	Runs         int             `json:"runs"`
	Estimator    string          `json:"estimator"`
	Seed         int64           `json:"seed"`
	Partial      bool            `json:"partial"`
	Policy       jsonPolicy      `json:"policy"`
	Correction   string          `json:"correction"`
	Family       int             `json:"time_comparisons"`
	MinCount     *int            `json:"min_count"`
	Inconclusive string          `json:"inconclusive"`
	Confirmed    bool            `json:"confirmed"`
	Benchmarks   []jsonBenchmark `json:"benchmarks"`
	Failures     []jsonFailure   `json:"failures"`
	Scaling      []jsonScaling   `json:"scaling"`
	Warnings     []jsonWarning   `json:"warnings"`
	Notes        []string        `json:"notes"`
	Run          *jsonRun        `json:"run,omitempty"`
}

func jsonBenchmarkOf(r gate.Result) jsonBenchmark {
	b := jsonBenchmark{
		Package:   r.Package,
		Name:      r.Name,
		Unit:      r.Unit,
		Kind:      string(r.Kind),
		Direction: r.Direction(),
		Base:      jsonSummaryOf(r.Base),
		Head:      jsonSummaryOf(r.Head),
		Status:    string(r.Status),
		Gated:     r.Gated,
		Reason:    jsonReasonOf(r.Reason, Plain(reasonSpans(r))),
		Warnings:  []string{},
		TooNoisy:  r.TooNoisy,
		NotRerun:  r.NotRerun,
		Suspect:   []jsonSuspicion{},
	}
	if r.Test != "" {
		b.Test = ptr(string(r.Test))
	}
	if r.Delta != nil {
		b.Delta = finite(*r.Delta)
	}
	if !exactKind(r.Kind) && r.Kind != gate.Instructions {
		b.P = numPtr(r.P)
		b.PAdjusted = numPtr(r.PAdjusted)
		if r.Base != nil && r.Head != nil {
			b.Benchstat = &jsonBenchstat{Delta: numPtr(r.Comparison.Delta), P: numPtr(r.Comparison.P)}
		}
		b.Warnings = append(b.Warnings, r.Warnings...)
		for _, w := range summaryWarnings(r.Base) {
			b.Warnings = append(b.Warnings, "base: "+w)
		}
		for _, w := range summaryWarnings(r.Head) {
			b.Warnings = append(b.Warnings, "head: "+w)
		}
	}
	if pr := r.Paired; pr != nil {
		b.Paired = &jsonPaired{
			N: pr.N, Ratio: finite(pr.Ratio), Low: finite(pr.Low), High: finite(pr.High), Confidence: finite(pr.Confidence),
			P: finite(pr.P), Exact: pr.Exact, Noise: finite(pr.Noise),
			Runs: max(pr.Runs, 1), Estimator: pr.Estimator.String(), MedianRatio: finiteOmit(pr.MedianRatio), MinRatio: finiteOmit(pr.MinRatio),
		}
		if math.IsInf(pr.High, 1) {
			b.Paired.Low, b.Paired.Confidence = nil, nil
		}
	}
	b.Noise = numPtr(r.Noise)
	b.MDE = numPtr(r.MDE)
	b.Interval = jsonIntervalOf(r.Interval)
	b.Confirmed = r.Confirmed
	if a := r.Accepted; a != nil {
		b.Accepted = true
		b.Acceptance = &jsonAcceptance{Pattern: a.Pattern, By: a.By, Via: a.Via}
	}
	if ru := r.Rule; ru != nil {
		b.Rule = &jsonRule{Source: ru.Source, Match: ru.Match, Reason: ru.Reason, Required: ru.Required}
	}
	if c := r.Confirmation; c != nil {
		b.Confirmation = &jsonConfirmation{Status: string(c.Status), Delta: numPtr(c.Delta), P: numPtr(c.P), PAdjusted: numPtr(c.PAdjusted), Reason: jsonReasonOf(c.Reason, Plain(reasonSpans(*c)))}
		if c.Paired != nil {
			b.Confirmation.N = c.Paired.N
		} else if c.Head != nil {
			b.Confirmation.N = c.Head.N
		}
	}
	for _, sp := range r.Suspect {
		b.Suspect = append(b.Suspect, jsonSuspicion{Code: sp.Code, Text: Plain(suspicionSpans(sp, r.Unit)), Sides: append([]string{}, sp.Sides...),
			Value: finiteOmit(sp.Value), NoAllocs: sp.NoAllocs, Base: jsonRangeOf(sp.Base), Head: jsonRangeOf(sp.Head)})
	}
	return b
}

func ptr[T any](v T) *T { return &v }

// numPtr is num for an optional value.
func numPtr(v *float64) *float64 {
	if v == nil {
		return nil
	}
	return finite(*v)
}

type jsonRev struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
}

type jsonGo struct {
	Base string `json:"base"`
	Head string `json:"head"`
}

type jsonPolicy struct {
	Threshold          *float64 `json:"threshold"`
	InstrThreshold     *float64 `json:"instructions_threshold"`
	Alpha              *float64 `json:"alpha"`
	FailOn             []string `json:"fail_on"`
	FailOnFailure      bool     `json:"fail_on_failure"`
	FailOnRemoved      bool     `json:"fail_on_removed"`
	FailOnInconclusive bool     `json:"fail_on_inconclusive"`
	FailOnScaling      bool     `json:"fail_on_scaling"`
	Looks              []int    `json:"looks"`
	// File is the per-benchmark policy file; null without one.
	File *jsonPolicyFile `json:"file"`
}

type jsonBenchmark struct {
	Package      string            `json:"package"`
	Name         string            `json:"name"`
	Unit         string            `json:"unit"`
	Kind         string            `json:"kind"`
	Direction    string            `json:"direction"`
	Base         *jsonSummary      `json:"base"`
	Head         *jsonSummary      `json:"head"`
	Test         *string           `json:"test"`
	Delta        *float64          `json:"delta"`
	P            *float64          `json:"p"`
	PAdjusted    *float64          `json:"p_adjusted"`
	Benchstat    *jsonBenchstat    `json:"benchstat"`
	Paired       *jsonPaired       `json:"paired"`
	Noise        *float64          `json:"noise"`
	MDE          *float64          `json:"mde"`
	Interval     *jsonInterval     `json:"interval"`
	TooNoisy     bool              `json:"too_noisy"`
	NotRerun     int               `json:"not_rerun,omitempty"`
	Status       string            `json:"status"`
	Gated        bool              `json:"gated"`
	Reason       jsonReason        `json:"reason"`
	Confirmed    *bool             `json:"confirmed"`
	Confirmation *jsonConfirmation `json:"confirmation"`
	Suspect      []jsonSuspicion   `json:"suspect"`
	Warnings     []string          `json:"warnings"`
	// Accepted marks a regression accepted on purpose (not gated);
	// Acceptance says who and how. Rule is the policy rule of the row.
	Accepted   bool            `json:"accepted"`
	Acceptance *jsonAcceptance `json:"acceptance"`
	Rule       *jsonRule       `json:"rule"`
	// Explain is where the change comes from (Meta.Explain).
	Explain *explain.Explanation `json:"explain"`
}

type jsonAcceptance struct {
	Pattern string `json:"pattern"`
	By      string `json:"by"`
	Via     string `json:"via"`
}

type jsonRule struct {
	Source   string `json:"source"`
	Match    string `json:"match"`
	Reason   string `json:"reason"`
	Required bool   `json:"required"`
}

// jsonPolicyFile is the policy file of the run (Meta.Policy).
type jsonPolicyFile struct {
	Source       string   `json:"source"`
	HeadChanges  []string `json:"head_changes"`
	HeadAffected []string `json:"head_affected"`
	HeadError    string   `json:"head_error"`
}

type jsonBenchstat struct {
	Delta *float64 `json:"delta"`
	P     *float64 `json:"p"`
}

type jsonPaired struct {
	N           int      `json:"n"`
	Ratio       *float64 `json:"ratio"`
	Low         *float64 `json:"low"`
	High        *float64 `json:"high"`
	Confidence  *float64 `json:"confidence"`
	P           *float64 `json:"p"`
	Exact       bool     `json:"exact"`
	Noise       *float64 `json:"noise"`
	Runs        int      `json:"runs"`
	Estimator   string   `json:"estimator"`
	MedianRatio *float64 `json:"median_ratio"`
	MinRatio    *float64 `json:"min_ratio"`
}

type jsonConfirmation struct {
	Status    string     `json:"status"`
	Delta     *float64   `json:"delta"`
	P         *float64   `json:"p"`
	PAdjusted *float64   `json:"p_adjusted"`
	N         int        `json:"n"`
	Reason    jsonReason `json:"reason"`
}

type jsonSuspicion struct {
	Code     string     `json:"code"`
	Text     string     `json:"text"`
	Sides    []string   `json:"sides"`
	Value    *float64   `json:"value,omitempty"`
	NoAllocs bool       `json:"no_allocs,omitempty"`
	Base     *jsonRange `json:"base,omitempty"`
	Head     *jsonRange `json:"head,omitempty"`
}

type jsonSummary struct {
	Center *float64 `json:"center"`
	Low    *float64 `json:"low"`
	High   *float64 `json:"high"`
	N      int      `json:"n"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
}

type jsonScaling struct {
	Package string            `json:"package"`
	Name    string            `json:"name"`
	CPUs    []int             `json:"cpus"`
	Base    []*float64        `json:"base"`
	Head    []*float64        `json:"head"`
	Change  *float64          `json:"change"`
	Worse   bool              `json:"worse"`
	Reason  jsonScalingReason `json:"reason"`
}

func jsonScalingOf(s gate.Scaling) jsonScaling {
	j := jsonScaling{Package: s.Package, Name: s.Name, CPUs: append([]int{}, s.CPUs...), Base: []*float64{}, Head: []*float64{},
		Change: numPtr(s.Change), Worse: s.Worse, Reason: jsonScalingReasonOf(s)}
	for _, v := range s.Base {
		j.Base = append(j.Base, finite(v))
	}
	for _, v := range s.Head {
		j.Head = append(j.Head, finite(v))
	}
	return j
}

type jsonFailure struct {
	Package string `json:"package"`
	Name    string `json:"name"`
	Side    string `json:"side"`
	Message string `json:"message"`
}

func jsonSummaryOf(s *stats.Summary) *jsonSummary {
	if s == nil {
		return nil
	}
	return &jsonSummary{Center: finite(s.Center), Low: finite(s.Low), High: finite(s.High), N: s.N, Min: finite(s.Min), Max: finite(s.Max)}
}

// num returns a pointer to v, or nil (JSON null) for NaN and infinities.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// jsonReason is a reason: its code, its words and the figures that apply
// to the code (the others are left out).
type jsonReason struct {
	Code       string        `json:"code"`
	Text       string        `json:"text"`
	Delta      *float64      `json:"delta,omitempty"`
	P          *float64      `json:"p,omitempty"`
	PAdjusted  *float64      `json:"p_adjusted,omitempty"`
	Looks      int           `json:"looks,omitempty"`
	Correction string        `json:"correction,omitempty"`
	Alpha      *float64      `json:"alpha,omitempty"`
	Threshold  *float64      `json:"threshold,omitempty"`
	Better     *int          `json:"better,omitempty"`
	Rounds     int           `json:"rounds,omitempty"`
	BaseN      int           `json:"base_n,omitempty"`
	HeadN      int           `json:"head_n,omitempty"`
	Family     int           `json:"family,omitempty"`
	MinP       *float64      `json:"min_p,omitempty"`
	Adjusted   bool          `json:"adjusted,omitempty"`
	Base       *jsonRange    `json:"base,omitempty"`
	Head       *jsonRange    `json:"head,omitempty"`
	Interval   *jsonInterval `json:"interval,omitempty"`
	Side       string        `json:"side,omitempty"`
	Detail     string        `json:"detail,omitempty"`
}

type jsonRange struct {
	Min *float64 `json:"min"`
	Max *float64 `json:"max"`
}

type jsonInterval struct {
	Confidence *float64 `json:"confidence"`
	Estimate   *float64 `json:"estimate"`
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
}

func jsonRangeOf(r *gate.Range) *jsonRange {
	if r == nil {
		return nil
	}
	return &jsonRange{Min: finite(r.Min), Max: finite(r.Max)}
}

func jsonIntervalOf(iv *gate.Interval) *jsonInterval {
	if iv == nil {
		return nil
	}
	return &jsonInterval{Confidence: finite(iv.Confidence), Estimate: finite(iv.Estimate), Low: finite(iv.Low), High: finite(iv.High)}
}

// finiteOmit is finite for a figure left out when it is 0.
func finiteOmit(v float64) *float64 {
	if v == 0 {
		return nil
	}
	return finite(v)
}

func jsonReasonOf(rs gate.Reason, text string) jsonReason {
	j := jsonReason{
		Code: string(rs.Code), Text: text, Delta: numPtr(rs.Delta), P: numPtr(rs.P), PAdjusted: numPtr(rs.PAdjusted),
		Looks: rs.Looks, Correction: string(rs.Correction), Alpha: finiteOmit(rs.Alpha), Threshold: nil,
		Rounds: rs.Rounds, BaseN: rs.BaseN, HeadN: rs.HeadN, Family: rs.Family, MinP: finiteOmit(rs.MinP), Adjusted: rs.Adjusted,
		Base: jsonRangeOf(rs.Base), Head: jsonRangeOf(rs.Head), Interval: jsonIntervalOf(rs.Interval),
		Side: rs.Side, Detail: rs.Detail,
	}
	switch rs.Code {
	case gate.ReasonSignificant, gate.ReasonNotSignificant, gate.ReasonWithinThreshold, gate.ReasonNoChange, gate.ReasonEquivalent, gate.ReasonVanished,
		gate.ReasonRangesSeparated, gate.ReasonRangesOverlap, gate.ReasonBelowThreshold, gate.ReasonAmountChange:
		j.Threshold = finite(rs.Threshold)
	case gate.ReasonFollowsTime:
		j.Threshold = finiteOmit(rs.Threshold)
	}
	if rs.Better >= 0 && rs.P != nil {
		j.Better = ptr(rs.Better)
	}
	return j
}

// jsonScalingReason is a scaling's reason.
type jsonScalingReason struct {
	Code      string        `json:"code"`
	Text      string        `json:"text"`
	CPUs      []int         `json:"cpus,omitempty"`
	Rounds    []int         `json:"rounds,omitempty"`
	Threshold *float64      `json:"threshold"`
	Lo        *jsonInterval `json:"lo,omitempty"`
	Hi        *jsonInterval `json:"hi,omitempty"`
}

func jsonScalingReasonOf(s gate.Scaling) jsonScalingReason {
	rs := s.Reason
	return jsonScalingReason{Code: string(rs.Code), Text: Plain(scalingSpans(s)), CPUs: rs.CPUs, Rounds: rs.Rounds,
		Threshold: finite(rs.Threshold), Lo: jsonIntervalOf(rs.Lo), Hi: jsonIntervalOf(rs.Hi)}
}

// jsonWarning is a warning: its code, its words, the benchmarks it
// concerns and the figures that apply to the code.
type jsonWarning struct {
	Code         string      `json:"code"`
	Text         string      `json:"text"`
	Benchmarks   []jsonBench `json:"benchmarks"`
	Unit         string      `json:"unit,omitempty"`
	Confirmation bool        `json:"confirmation,omitempty"`
	Rounds       int         `json:"rounds,omitempty"`
	BaseN        int         `json:"base_n,omitempty"`
	HeadN        int         `json:"head_n,omitempty"`
	Family       int         `json:"family,omitempty"`
	MinP         *float64    `json:"min_p,omitempty"`
	Adjusted     bool        `json:"adjusted,omitempty"`
	Alpha        *float64    `json:"alpha,omitempty"`
	Threshold    *float64    `json:"threshold,omitempty"`
	MinCount     int         `json:"min_count,omitempty"`
	Low          *float64    `json:"low,omitempty"`
	High         *float64    `json:"high,omitempty"`
	Limit        *float64    `json:"limit,omitempty"`
	Gated        bool        `json:"gated,omitempty"`
	Count        int         `json:"count,omitempty"`
	Correction   string      `json:"correction,omitempty"`
	UTest        bool        `json:"utest,omitempty"`
	Source       string      `json:"source,omitempty"`
	Detail       string      `json:"detail,omitempty"`
}

type jsonBench struct {
	Package string `json:"package"`
	Name    string `json:"name"`
}

func jsonWarningOf(w gate.Warning, scaling []gate.Scaling) jsonWarning {
	j := jsonWarning{
		Code: string(w.Code), Text: Plain(warningSpans(w, scaling)), Benchmarks: []jsonBench{}, Unit: w.Unit, Confirmation: w.Confirmation,
		Rounds: w.Rounds, BaseN: w.BaseN, HeadN: w.HeadN, Family: w.Family, MinP: finiteOmit(w.MinP), Adjusted: w.Adjusted,
		Alpha: finiteOmit(w.Alpha), MinCount: w.MinCount, Low: finiteOmit(w.Low), High: finiteOmit(w.High),
		Limit: finiteOmit(w.Limit), Gated: w.Gated, Count: w.Count, Correction: string(w.Correction), UTest: w.UTest,
		Source: w.Source,
	}
	if w.Code == gate.WarnTooNoisy || w.Code == gate.WarnScalingWorse {
		j.Threshold = finite(w.Threshold)
	}
	if w.Code == gate.WarnRequiredMissing {
		j.Detail = w.Detail // the pattern
	}
	for _, b := range w.Benchmarks {
		j.Benchmarks = append(j.Benchmarks, jsonBench{Package: b.Package, Name: b.Name})
	}
	return j
}

func summaryWarnings(s *stats.Summary) []string {
	if s == nil {
		return nil
	}
	return s.Warnings
}
