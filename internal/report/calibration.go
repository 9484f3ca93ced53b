package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/english"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/machine"
)

// Calibration is the result of `benchgate calibrate`: an A/A run of one
// commit against itself.
type Calibration struct {
	Rev string
	SHA string
	// Machine is the computer measured: the noise floor is this
	// machine's; nil when unknown.
	Machine    *machine.Info
	Rounds     int
	Benchtime  string
	Alpha      float64
	Correction gate.Correction
	Benchmarks []CalibrationBench
	// Alarms are the rows of the A/A verdict that changed between
	// identical commits: false alarms.
	Alarms    []gate.Result
	Recommend Recommendation
}

// CalibrationBench is one benchmark's noise floor.
type CalibrationBench struct {
	Package, Name string
	Center        float64 // median sec/op of base
	Noise         float64 // robust SD of the per-round log-ratio
	MDE           float64 // smallest detectable change at Rounds (+Inf: none)
	// MDERecommended is the smallest detectable change at the recommended
	// count, after the suite-wide correction.
	MDERecommended float64
}

// Recommendation is what calibrate suggests.
type Recommendation struct {
	Count     int
	Threshold float64 // fraction
	Benchtime string
	// Asked is the threshold asked for (--threshold); Reached says
	// whether Count rounds reach it (else Count is the count with the best
	// threshold up to 100 rounds).
	Asked   float64
	Reached bool
	// Longer says Benchtime was made longer than the one measured because
	// Count is large.
	Longer bool
	// TooNoisy lists benchmarks whose smallest detectable change stays
	// above the recommended threshold: report them, do not gate them.
	TooNoisy []string
}

// recommendSpans says why the recommendation is what it is.
func recommendSpans(c Calibration) []Span {
	r := c.Recommend
	var l line
	if r.Reached {
		l.num(strconv.Itoa(r.Count)).text(" rounds detect a ").num(pct1abs(r.Threshold)).text(" change in 90% of the benchmarks at α=").
			num(strconv.FormatFloat(c.Alpha, 'g', -1, 64)).text(" over " + english.Plural(max(len(c.Benchmarks), 1), "benchmark", "benchmarks") + " (" + string(c.Correction) + ")")
	} else {
		l.text("no count up to 100 reaches a ").num(pct1abs(r.Asked)).text(" threshold at this noise; ").num(strconv.Itoa(r.Count)).
			text(" rounds reach ").num(pct1abs(r.Threshold)).text(": raise --threshold, use a longer --benchtime, or exclude the noisiest benchmarks")
	}
	if r.Longer {
		l.text("; that many rounds is slow: a longer --benchtime (").name(r.Benchtime).text(") usually lowers the noise, so calibrate again with it")
	}
	return l
}

// pct1abs formats a fraction as a percentage with one decimal: "2.5%",
// "—" for infinity (nothing detectable).
func pct1abs(f float64) string {
	if math.IsInf(f, 1) || math.IsNaN(f) {
		return none
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}

// BuildCalibration makes the document of a calibration: the settings
// recommended and why, the false alarms of the A/A run, and each
// benchmark's noise per round and smallest detectable change.
func BuildCalibration(c Calibration, m Meta) *Document {
	d := &Document{Pass: len(c.Alarms) == 0}
	d.Title = []Span{{Kind: SpanText, Text: "benchgate calibrate: the noise floor of this machine", Style: Strong}}
	var run line
	run.name(c.Rev)
	if c.SHA != "" {
		run.text(" ").add(codeText(c.SHA[:min(len(c.SHA), 12)]))
	}
	run.text(" measured against itself")
	if c.Machine != nil && c.Machine.String() != "" {
		run.text(" on ").name(c.Machine.String())
	}
	run.text(" · " + english.Plural(c.Rounds, "round", "rounds") + " · benchtime ").name(c.Benchtime).
		text(" · α=").num(strconv.FormatFloat(c.Alpha, 'g', -1, 64)).text(" (" + string(c.Correction) + " over " + english.Plural(len(c.Benchmarks), "benchmark", "benchmarks") + ")")
	rec := line{strong("Recommended:"), txt(" ")}
	rec.add(codeText(fmt.Sprintf("--count %d --threshold %.1f%% --benchtime %s", c.Recommend.Count, 100*c.Recommend.Threshold, c.Recommend.Benchtime)))
	rec.text(": ").add(recommendSpans(c)...).text(".")
	d.Head = []Block{Paragraph{Spans: run}, Paragraph{Spans: rec}}
	if n := len(c.Alarms); n > 0 {
		d.Head = append(d.Head, Paragraph{Alert: true, Spans: []Span{mark(markWarn, Warn), txt(" This A/A run reported " + english.Plural(n, "change", "changes") +
			" between identical commits: false alarms at these settings. Use the recommended settings, or a quieter machine.")}})
		l := &List{}
		for _, r := range c.Alarms {
			l.Items = append(l.Items, append([]Span{nameSpan(r.Name), txt(" "), unitSpan(r.Unit), txt(": ")}, reasonSpans(r)...))
		}
		d.Head = append(d.Head, l)
	} else {
		d.Head = append(d.Head, Paragraph{Spans: []Span{txt("No false alarm: the A/A verdict passed.")}})
	}
	t := &Table{Columns: []Column{
		{Title: "benchmark"},
		{Title: "time/op", Right: true},
		{Title: "noise per round", Right: true},
		{Title: "detectable at " + strconv.Itoa(c.Rounds) + " rounds", Right: true},
		{Title: "detectable at " + strconv.Itoa(c.Recommend.Count) + " rounds, suite-wide", Right: true},
	}}
	g := Group{}
	for _, x := range c.Benchmarks {
		n := x.Name
		if x.Package != "" {
			n = x.Package + "." + n
		}
		last := one(pct1abs(x.MDERecommended))
		if x.MDERecommended > c.Recommend.Threshold {
			last = []Span{numSpan(pct1abs(x.MDERecommended)), txt(" "), mark(markWarn, Warn)}
		}
		g.Rows = append(g.Rows, Row{Cells: [][]Span{{nameSpan(n)}, one(fmtSec(x.Center)), one(pct1abs(x.Noise)), one(pct1abs(x.MDE)), last}})
	}
	if len(g.Rows) > 0 {
		t.Groups = []Group{g}
	}
	d.Sections = []*Section{{Title: []Span{txt("Noise per benchmark (" + strconv.Itoa(len(c.Benchmarks)) + ")")}, Body: t, What: "benchmarks"}}
	if len(c.Recommend.TooNoisy) > 0 {
		d.Foot = append(d.Foot, Paragraph{Spans: []Span{mark(markWarn, Warn), txt(" marks benchmarks too noisy to gate at "), numSpan(pct1abs(c.Recommend.Threshold)),
			txt(" even with the recommended count; benchgate reports them as too noisy rather than passing them silently.")}})
	}
	d.Foot = append(d.Foot, Paragraph{Spans: []Span{strong("noise per round"), txt(" is the robust standard deviation of log(head/base) over the rounds; "),
		strong("detectable"), txt(" is the smallest change the paired test finds with 80% power.")}})
	if len(m.Notes) > 0 || len(runItems(m.Run)) > 0 {
		l := &List{Items: runItems(m.Run)}
		for _, n := range m.Notes {
			l.Items = append(l.Items, []Span{prose(NoteText(n))})
		}
		d.Foot = append(d.Foot, l)
	}
	return d
}

func fmtSec(s float64) string {
	switch {
	case s == 0:
		return none
	case s < 1e-6:
		return fmt.Sprintf("%.3gns", s*1e9)
	case s < 1e-3:
		return fmt.Sprintf("%.3gµs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.3gms", s*1e3)
	}
	return fmt.Sprintf("%.3gs", s)
}

// CalibrationJSON writes a calibration as JSON (schema in
// docs/json-schema.md), indented, with a final newline. An infinite or
// undefined figure (no detectable change at all) is written as -1.
func CalibrationJSON(c Calibration) ([]byte, error) {
	j := jsonCalibration{
		Rev: c.Rev, SHA: c.SHA, Machine: c.Machine, Rounds: c.Rounds, Benchtime: c.Benchtime, Alpha: c.Alpha, Correction: string(c.Correction),
		Benchmarks: []jsonCalibrationBench{}, FalseAlarms: len(c.Alarms), Alarms: []string{},
		Recommend: jsonRecommendation{Count: c.Recommend.Count, Threshold: c.Recommend.Threshold, Benchtime: c.Recommend.Benchtime,
			Reason: Plain(recommendSpans(c)), TooNoisy: append([]string{}, c.Recommend.TooNoisy...)},
	}
	orMinus1 := func(v float64) float64 {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return -1
		}
		return v
	}
	for _, b := range c.Benchmarks {
		j.Benchmarks = append(j.Benchmarks, jsonCalibrationBench{Package: b.Package, Name: b.Name, Center: orMinus1(b.Center),
			Noise: orMinus1(b.Noise), MDE: orMinus1(b.MDE), MDERecommended: orMinus1(b.MDERecommended)})
	}
	for _, r := range c.Alarms {
		j.Alarms = append(j.Alarms, r.Name+" "+r.Unit+": "+ReasonText(r))
	}
	out, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode JSON calibration: %w", err)
	}
	return append(out, '\n'), nil
}

type jsonCalibration struct {
	Rev         string                 `json:"rev"`
	SHA         string                 `json:"sha"`
	Machine     *machine.Info          `json:"machine,omitempty"`
	Rounds      int                    `json:"rounds"`
	Benchtime   string                 `json:"benchtime"`
	Alpha       float64                `json:"alpha"`
	Correction  string                 `json:"correction"`
	Benchmarks  []jsonCalibrationBench `json:"benchmarks"`
	FalseAlarms int                    `json:"false_alarms"`
	Alarms      []string               `json:"alarms"`
	Recommend   jsonRecommendation     `json:"recommend"`
}

type jsonCalibrationBench struct {
	Package        string  `json:"package"`
	Name           string  `json:"name"`
	Center         float64 `json:"center"`
	Noise          float64 `json:"noise"`
	MDE            float64 `json:"mde"`
	MDERecommended float64 `json:"mde_recommended"`
}

type jsonRecommendation struct {
	Count     int      `json:"count"`
	Threshold float64  `json:"threshold"`
	Benchtime string   `json:"benchtime"`
	Reason    string   `json:"reason"`
	TooNoisy  []string `json:"too_noisy"`
}

// CalibrationMarkdown renders a calibration as GitHub Markdown.
func CalibrationMarkdown(c Calibration, m Meta) string {
	var b strings.Builder
	_ = WriteMarkdown(&b, BuildCalibration(c, m), Options{})
	return b.String()
}
