package cli

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/github"
	"github.com/benchgate/benchgate/internal/report"
	"golang.org/x/perf/benchunit"
)

// whyAnnotations point at the line each explained regression comes from:
// its top allocation site (or, for a site outside the module, the line of
// the module's code that called it) or its top function, in the module
// directory moduleDir of the workspace ws. They are notices: the
// regression's own annotation is an error at the benchmark.
func whyAnnotations(ws, moduleDir string, v gate.Verdict, m report.Meta) []github.Annotation {
	if ws == "" || moduleDir == "" {
		return nil
	}
	var anns []github.Annotation
	vis := report.Visible // the names come from the code measured
	for _, r := range v.Regressions() {
		w := whyOf(m, r)
		if w == nil || w.Err != "" {
			continue
		}
		var file, title, msg string
		var line int64
		switch {
		case len(w.Explain.Sites) > 0:
			s := w.Explain.Sites[0]
			file, line = s.File, s.Line
			where := ""
			if s.Caller != nil {
				file, line = s.Caller.File, s.Caller.Line
				where = fmt.Sprintf(" in %s (%s:%d), called here by %s", vis(s.Function), vis(s.File), s.Line, vis(s.Caller.Function))
			} else {
				where = " in " + vis(s.Function)
			}
			title = fmt.Sprintf("benchgate: %s %s %s here", report.Visible(r.Name), signedNum(s.Head-s.Base), r.Unit)
			msg = fmt.Sprintf("%s: %s → %s %s%s; the regression of %s.%s %s", vis(position(file, line)), num(s.Base), num(s.Head), r.Unit, where, vis(r.Package), vis(r.Name), r.Unit)
		case len(w.Explain.Functions) > 0 && r.Kind == gate.Instructions:
			f := w.Explain.Functions[0]
			file, line = f.File, f.Line
			title = fmt.Sprintf("benchgate: %s instructions/op: %s runs more instructions", report.Visible(r.Name), report.Visible(f.Function))
			msg = fmt.Sprintf("%s: %s → %s instructions/op of its own code (%.0f%% → %.0f%% of the count), the largest change in the instruction lane's counts; the regression of %s.%s %s",
				vis(f.Function), num(math.Round(f.Base)), num(math.Round(f.Head)), 100*f.ShareBase, 100*f.ShareHead, vis(r.Package), vis(r.Name), r.Unit)
		case len(w.Explain.Functions) > 0:
			f := w.Explain.Functions[0]
			file, line = f.File, f.Line
			title = fmt.Sprintf("benchgate: %s sec/op: %s got slower", report.Visible(r.Name), report.Visible(f.Function))
			msg = fmt.Sprintf("%s: %s → %s sec/op of its own time (%.0f%% → %.0f%% of the profile), the largest change in the CPU profiles; the regression of %s.%s %s",
				vis(f.Function), secs(f.Base), secs(f.Head), 100*f.ShareBase, 100*f.ShareHead, vis(r.Package), vis(r.Name), r.Unit)
		default:
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(file)) || line <= 0 {
			continue
		}
		rel, err := filepath.Rel(ws, filepath.Join(moduleDir, filepath.FromSlash(file)))
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		sev := 1.0
		if r.Delta != nil && !math.IsInf(*r.Delta, 0) {
			sev = math.Abs(*r.Delta)
		}
		anns = append(anns, github.Annotation{Level: github.Notice, File: filepath.ToSlash(rel), Line: int(line), Severity: sev, Title: title, Message: msg})
	}
	return anns
}

// whyOf finds r's explanation in m.
func whyOf(m report.Meta, r gate.Result) *explain.Why {
	for i := range m.Explain {
		w := &m.Explain[i]
		if w.Package == r.Package && w.Name == r.Name && w.Unit == r.Unit {
			return w
		}
	}
	return nil
}

// secs formats seconds as the report does: "6.070n".
func secs(v float64) string {
	if v == 0 {
		return "0"
	}
	return benchunit.Scale(v, benchunit.ClassOf("sec/op"))
}

func position(file string, line int64) string { return fmt.Sprintf("%s:%d", file, line) }

// num formats a per-op figure: whole numbers as such, others with up to
// three decimals.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

func signedNum(v float64) string {
	if v > 0 {
		return "+" + num(v)
	}
	return num(v)
}
