package report

import (
	"fmt"
	"math"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
)

// An Annotation is a line of a report that a CI shows at a line of the
// repository: every regression at its benchmark's function (Bench), a
// failure on head, and where each explained regression comes from (File
// and Line, relative to the module's directory: its top allocation site,
// or the module's line that called it, or its top function). Names come
// from the code measured: their invisible characters are shown.
type Annotation struct {
	Level Level
	// Bench is the benchmark whose function the annotation belongs at
	// (nil: File, or nowhere).
	Bench *gate.Bench
	File  string // slash-separated, relative to the module's directory
	Line  int
	Title string
	// Message is the annotation's text; Severity orders annotations
	// (larger is worse: the size of a regression).
	Message  string
	Severity float64
}

// Level is an annotation's level.
type Level string

// The levels: a regression that fails the gate or a failure on head is
// an error; an accepted regression and where a regression comes from are
// notices.
const (
	Error  Level = "error"
	Notice Level = "notice"
)

// Annotations are the annotations of v's regressions, head failures and
// explanations (m.Explain).
func Annotations(v gate.Verdict, m Meta) []Annotation {
	var out []Annotation
	for _, r := range v.Regressions() {
		level, what := Error, "regressed"
		if r.Accepted != nil {
			// Reported, not gated: no error on a passing check.
			level, what = Notice, "regressed (accepted on purpose)"
		}
		out = append(out, Annotation{
			Level: level, Bench: &gate.Bench{Package: r.Package, Name: r.Name}, Severity: severity(r),
			Title:   fmt.Sprintf("benchgate: %s %s %s", Visible(r.Name), Visible(r.Unit), what),
			Message: Visible(fmt.Sprintf("%s.%s %s: %s", r.Package, r.Name, r.Unit, ReasonText(r))),
		})
	}
	for _, r := range v.Regressions() {
		if a, ok := whyAnnotation(r, m.why(r)); ok {
			out = append(out, a)
		}
	}
	for _, f := range v.HeadFailures() {
		out = append(out, Annotation{Level: Error, Severity: math.Inf(1), Title: "benchgate: " + Visible(f.Name) + " failed on head", Message: Visible(f.Message)})
	}
	return out
}

func severity(r gate.Result) float64 {
	if r.Delta != nil && !math.IsInf(*r.Delta, 0) {
		return math.Abs(*r.Delta)
	}
	return 1
}

// whyAnnotation points at the line regression r comes from, as w explains
// it; ok is false when nothing places it.
func whyAnnotation(r gate.Result, w *explain.Why) (Annotation, bool) {
	if w == nil || w.Err != "" {
		return Annotation{}, false
	}
	vis := Visible
	a := Annotation{Level: Notice, Severity: severity(r)}
	var line int64
	switch {
	case len(w.Explain.Sites) > 0:
		s := w.Explain.Sites[0]
		a.File, line = s.File, s.Line
		where := " in " + vis(s.Function)
		if s.Caller != nil {
			a.File, line = s.Caller.File, s.Caller.Line
			where = fmt.Sprintf(" in %s (%s:%d), called here by %s", vis(s.Function), vis(s.File), s.Line, vis(s.Caller.Function))
		}
		a.Title = fmt.Sprintf("benchgate: %s %s %s here", vis(r.Name), signed(s.Head-s.Base), r.Unit)
		a.Message = fmt.Sprintf("%s: %s → %s %s%s; the regression of %s.%s %s", vis(position(a.File, line)), perOp(s.Base), perOp(s.Head), r.Unit, where, vis(r.Package), vis(r.Name), r.Unit)
	case len(w.Explain.Functions) > 0 && r.Kind == gate.Instructions:
		f := w.Explain.Functions[0]
		a.File, line = f.File, f.Line
		a.Title = fmt.Sprintf("benchgate: %s instructions/op: %s runs more instructions", vis(r.Name), vis(f.Function))
		a.Message = fmt.Sprintf("%s: %s → %s instructions/op of its own code (%.0f%% → %.0f%% of the count), the largest change in the instruction counts; the regression of %s.%s %s",
			vis(f.Function), perOp(math.Round(f.Base)), perOp(math.Round(f.Head)), 100*f.ShareBase, 100*f.ShareHead, vis(r.Package), vis(r.Name), r.Unit)
	case len(w.Explain.Functions) > 0:
		f := w.Explain.Functions[0]
		a.File, line = f.File, f.Line
		a.Title = fmt.Sprintf("benchgate: %s sec/op: %s got slower", vis(r.Name), vis(f.Function))
		a.Message = fmt.Sprintf("%s: %s → %s sec/op of its own time (%.0f%% → %.0f%% of the profile), the largest change in the CPU profiles; the regression of %s.%s %s",
			vis(f.Function), scaled(f.Base, "sec/op"), scaled(f.Head, "sec/op"), 100*f.ShareBase, 100*f.ShareHead, vis(r.Package), vis(r.Name), r.Unit)
	default:
		return Annotation{}, false
	}
	a.Line = int(line)
	return a, a.File != "" && a.Line > 0
}
