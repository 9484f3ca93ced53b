// Package report renders a verdict of package gate, with the metadata of
// the run, as Markdown (for people: a PR comment, a job summary, a
// terminal) and as JSON (for programs).
//
// # Markdown
//
// [Markdown] writes, in this order:
//
//   - Options.Marker, verbatim, on the first line (a hidden HTML comment
//     that identifies a sticky comment; it is never cut);
//   - a one-line verdict header, "✅ benchgate: pass" or "❌ benchgate:
//     fail", with the number of rows of each status;
//   - the refs and short SHAs compared, rounds, benchtime, seed and tool,
//     a warning when the results are partial, and Meta.Notes;
//   - Regressions: every regression (gated ones first) and every removal
//     that fails the gate (Policy.FailOnRemoved), always complete;
//   - Failures: each benchmark that failed, with its side and the first
//     lines of its output in a fenced code block;
//   - Improvements;
//   - every other row (failed, removed, new, unstable, unchanged) collapsed
//     in a <details> element;
//   - Warnings: the verdict's warnings, then the distinct per-row caveats
//     of benchmath (for rows judged by p-value) with the number of rows
//     each applies to;
//   - how to reproduce the numbers: `benchstat -ignore round base.txt
//     head.txt` with Meta.RawBase and Meta.RawHead.
//
// Rows are grouped per package (a bold package line above each table).
// Columns: benchmark, unit, base, head, delta, p, n, why. Time and other
// units show "center ± spread" as benchstat does ("1.234µ ± 2%": the median
// and the half-width of its confidence interval, in one SI or binary scale
// per row, benchunit.CommonScale), the delta as a percentage and the U-test
// p-value. Allocation rows (allocs/op, B/op) show exact figures: "2" → "3"
// with delta "+1", "0" → "5" with delta "+5" (never a percentage), a varying
// side as its range "7–8", and no p-value, since the check is exact. "—"
// marks what does not apply. "why" is the gate's reason, with "(not gated)"
// for a regression or improvement that does not count toward the verdict.
//
// With Options.MaxChars > 0 the whole text fits in MaxChars bytes (GitHub
// counts characters; a byte count is never smaller). Regressions are kept
// complete; then failures, warnings, improvements and the collapsed rows
// are added while they fit, and a line says how many of each were cut,
// linking Options.DetailsURL (an http or https URL) when set. Only if the
// regressions alone do not fit are they cut too, and the line says so.
// The minimum useful MaxChars is about 1,000.
//
// # Untrusted text
//
// Benchmark names, package paths, units, refs, failure output, notes and
// warnings can come from the pull request being measured. Every such
// string goes through [Escape] (or, for output, into a fenced code block
// whose fence the output cannot close), so it cannot break a table, inject
// HTML or images, start a link, mention a user or team, or reference an
// issue. Names longer than 200 runes are truncated with "…"; failure output
// is limited to 20 lines of 300 runes.
//
// # JSON
//
// [JSON] writes one object (a public interface, documented in the README):
//
//	{
//	  "verdict": "pass" | "fail",
//	  "tool": string,                      // Meta.Tool, "benchgate vX"
//	  "base": {"ref": string, "sha": string},
//	  "head": {"ref": string, "sha": string},
//	  "count": int,                        // interleaved rounds requested
//	  "benchtime": string,
//	  "seed": int,                         // order seed (an int64)
//	  "partial": bool,                     // the run was interrupted
//	  "policy": {"threshold": number, "alpha": number,
//	             "fail_on": ["time", "allocs", "bytes"],
//	             "fail_on_failure": bool, "fail_on_removed": bool},
//	  "benchmarks": [{
//	    "package": string,                 // import path, "" if unknown
//	    "name": string,                    // benchfmt name, no "Benchmark" prefix: "Encode/format=json-8"
//	    "unit": string,                    // benchfmt unit: "sec/op", "B/op", "allocs/op", "B/s", custom
//	    "kind": "time" | "allocs" | "bytes" | "other",
//	    "base": {"center": number, "low": number|null, "high": number|null,
//	             "n": int, "min": number, "max": number} | null,
//	    "head": {...} | null,              // null: the benchmark is missing on that side
//	    "delta": number | null,            // head/base - 1 of the centers (0.05 = +5%)
//	    "p": number | null,                // U-test p-value; null for allocs and bytes (exact checks) and one-sided rows
//	    "status": "regression" | "improvement" | "unchanged" | "unstable" | "new" | "removed" | "failed",
//	    "gated": bool,                     // counts toward the verdict
//	    "reason": string,
//	    "warnings": [string]               // benchmath's caveats ("base: "/"head: " for one side's); none for exact checks
//	  }],
//	  "failures": [{"package": string, "name": string, "side": "base" | "head", "message": string}],
//	  "warnings": [string],
//	  "notes": [string]
//	}
//
// Numbers are in the unit's base units (seconds, bytes). center is the
// median; low and high bound its confidence interval and are null when
// there are too few samples for one. No NaN or infinity is ever written:
// such a value becomes null. Arrays are never null.
package report

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
	"golang.org/x/perf/benchunit"
)

// Meta describes the run.
type Meta struct {
	Tool                               string // "benchgate vX"
	BaseRef, HeadRef, BaseSHA, HeadSHA string
	Count                              int // interleaved rounds
	Benchtime                          string
	Seed                               int64
	RawBase, RawHead                   string // paths of the raw benchfmt files, "" if unknown
	Partial                            bool   // the run was interrupted
	Notes                              []string
}

// Options controls Markdown.
type Options struct {
	// MaxChars is the largest output, in bytes; 0 means unlimited.
	// GitHub comments allow 65536 characters.
	MaxChars int
	// DetailsURL is linked as the full report when rows are cut.
	DetailsURL string
	// Marker is written verbatim first, e.g. "<!-- benchgate:key -->".
	Marker string
}

// Markdown renders v and m as GitHub Markdown. See the package
// documentation for the layout.
func Markdown(v gate.Verdict, m Meta, opt Options) string {
	var regs, imps, rest []gate.Result
	for _, r := range v.Results {
		switch {
		case r.Status == gate.Regression || (r.Fails() && r.Status == gate.Removed):
			regs = append(regs, r)
		case r.Status == gate.Improvement:
			imps = append(imps, r)
		default:
			rest = append(rest, r)
		}
	}
	// Gate-failing rows first within the regressions; the rest by status.
	slices.SortStableFunc(regs, func(a, b gate.Result) int { return boolRank(b.Fails()) - boolRank(a.Fails()) })
	slices.SortStableFunc(rest, func(a, b gate.Result) int { return restRank[a.Status] - restRank[b.Status] })
	fails := append(v.HeadFailures(), baseFailures(v.Failures)...)
	warns := warningLines(v)

	top := renderTop(v, m, opt)
	footer := "\n" + reproduce(m)

	budget := -1 // unlimited
	if opt.MaxChars > 0 {
		budget = opt.MaxChars - len(top) - len(footer) -
			len(cutNote(0, len(regs), 0, len(fails), 0, len(warns), 0, len(imps), 0, len(rest), opt.DetailsURL))
		if budget < 0 {
			return truncateBytes(top, opt.MaxChars)
		}
	}
	spend := func(s string) {
		if budget >= 0 {
			budget -= len(s)
		}
	}
	regText, nRegs := tableSection("\n#### Regressions ("+strconv.Itoa(len(regs))+")\n\n", "", regs, budget)
	spend(regText)
	failText, nFails := blockSection("\n#### Failures ("+strconv.Itoa(len(fails))+")\n", failureBlocks(fails), budget)
	spend(failText)
	warnText, nWarns := blockSection("\n#### Warnings\n\n", warns, budget)
	spend(warnText)
	impText, nImps := tableSection("\n#### Improvements ("+strconv.Itoa(len(imps))+")\n\n", "", imps, budget)
	spend(impText)
	restText, nRest := tableSection(
		"\n<details><summary>"+restSummary(rest)+"</summary>\n\n", "\n</details>\n", rest, budget)
	spend(restText)

	var b strings.Builder
	b.WriteString(top)
	b.WriteString(regText)
	b.WriteString(failText)
	b.WriteString(impText)
	b.WriteString(restText)
	b.WriteString(warnText)
	if nRegs < len(regs) || nFails < len(fails) || nWarns < len(warns) || nImps < len(imps) || nRest < len(rest) {
		b.WriteString(cutNote(nRegs, len(regs), nFails, len(fails), nWarns, len(warns), nImps, len(imps), nRest, len(rest), opt.DetailsURL))
	}
	b.WriteString(footer)
	return b.String()
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// restRank orders the collapsed rows: the most remarkable first, so that
// cutting removes unchanged rows first.
var restRank = map[gate.Status]int{
	gate.Failed: 0, gate.Removed: 1, gate.New: 2, gate.Unstable: 3, gate.Regression: 4, gate.Improvement: 4, gate.Unchanged: 5,
}

func baseFailures(fs []gate.Failure) []gate.Failure {
	var out []gate.Failure
	for _, f := range fs {
		if f.Side != gate.SideHead {
			out = append(out, f)
		}
	}
	return out
}

func renderTop(v gate.Verdict, m Meta, opt Options) string {
	var b strings.Builder
	if opt.Marker != "" {
		b.WriteString(strings.NewReplacer("\n", " ", "\r", " ").Replace(opt.Marker))
		b.WriteString("\n")
	}
	if v.Pass {
		b.WriteString("### ✅ benchgate: pass")
	} else {
		b.WriteString("### ❌ benchgate: fail")
	}
	if c := headerCounts(v); c != "" {
		b.WriteString(" — " + c)
	}
	b.WriteString("\n\n")
	b.WriteString(metaLine(m, v.Policy))
	b.WriteString("\n")
	if m.Partial {
		b.WriteString("\n> ⚠️ **Partial results**: the run was interrupted; only what was measured before is reported.\n")
	}
	if len(m.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range m.Notes {
			b.WriteString("- " + Escape(truncate(n, 500)) + "\n")
		}
	}
	return b.String()
}

func headerCounts(v gate.Verdict) string {
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, strconv.Itoa(n)+" "+many)
		}
	}
	gated, ungated := 0, 0
	for _, r := range v.Regressions() {
		if r.Gated {
			gated++
		} else {
			ungated++
		}
	}
	removedGated := 0
	for _, r := range v.Results {
		if r.Status == gate.Removed && r.Fails() {
			removedGated++
		}
	}
	add(gated, "regression", "regressions")
	add(removedGated, "removed benchmark failing the gate", "removed benchmarks failing the gate")
	add(len(v.HeadFailures()), "head failure", "head failures")
	add(len(v.Failures)-len(v.HeadFailures()), "base failure", "base failures")
	add(v.Count(gate.Improvement), "improvement", "improvements")
	add(ungated, "ungated regression", "ungated regressions")
	add(v.Count(gate.Unstable), "unstable", "unstable")
	add(v.Count(gate.New), "new", "new")
	add(v.Count(gate.Removed), "removed", "removed")
	add(v.Count(gate.Unchanged), "unchanged", "unchanged")
	if len(v.Results) == 0 && len(v.Failures) == 0 {
		return "no benchmark results"
	}
	return strings.Join(parts, ", ")
}

var hexSHA = regexp.MustCompile(`^[0-9a-fA-F]{4,64}$`)

func side(label, ref, sha string) string {
	s := label
	if ref != "" {
		s += " **" + esc(ref) + "**"
	}
	if sha != "" {
		if hexSHA.MatchString(sha) {
			s += " " + codeSpan(sha[:min(len(sha), 7)])
		} else {
			s += " " + esc(sha)
		}
	}
	return s
}

func metaLine(m Meta, p gate.Policy) string {
	parts := []string{side("base", m.BaseRef, m.BaseSHA) + " → " + side("head", m.HeadRef, m.HeadSHA)}
	if m.Count > 0 {
		parts = append(parts, plural(m.Count, "round", "rounds"))
	}
	if m.Benchtime != "" {
		parts = append(parts, "benchtime "+esc(m.Benchtime))
	}
	if m.Seed != 0 {
		parts = append(parts, "seed "+strconv.FormatInt(m.Seed, 10))
	}
	parts = append(parts, "threshold "+fmtNum(100*p.Threshold)+"%, α="+fmtNum(p.Alpha))
	if m.Tool != "" {
		parts = append(parts, esc(m.Tool))
	}
	return strings.Join(parts, " · ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func restSummary(rest []gate.Result) string {
	counts := map[gate.Status]int{}
	for _, r := range rest {
		counts[r.Status]++
	}
	var parts []string
	for _, s := range []gate.Status{gate.Failed, gate.Removed, gate.New, gate.Unstable, gate.Regression, gate.Improvement, gate.Unchanged} {
		if n := counts[s]; n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+string(s))
		}
	}
	return plural(len(rest), "other result", "other results") + ": " + strings.Join(parts, ", ")
}

const tableHeader = "| benchmark | unit | base | head | delta | p | n | why |\n|:--|:--|--:|--:|--:|--:|--:|:--|\n"

// tableSection renders rows grouped per package between open and close,
// adding rows while the text fits in budget bytes (budget < 0: no limit).
// It returns "" when there are no rows or not even one fits.
func tableSection(open, close string, rows []gate.Result, budget int) (string, int) {
	if len(rows) == 0 {
		return "", 0
	}
	// Group per package, packages in order of first appearance.
	var pkgs []string
	byPkg := map[string][]gate.Result{}
	for _, r := range rows {
		if _, ok := byPkg[r.Package]; !ok {
			pkgs = append(pkgs, r.Package)
		}
		byPkg[r.Package] = append(byPkg[r.Package], r)
	}
	var b strings.Builder
	b.WriteString(open)
	n := 0
	for i, pkg := range pkgs {
		for j, r := range byPkg[pkg] {
			var chunk string
			if j == 0 {
				if i > 0 {
					chunk = "\n"
				}
				label := esc(pkg)
				if pkg == "" {
					label = "(no package)"
				}
				chunk += "**" + label + "**\n\n" + tableHeader
			}
			chunk += row(r)
			if budget >= 0 && b.Len()+len(chunk)+len(close) > budget {
				return finish(&b, close, n)
			}
			b.WriteString(chunk)
			n++
		}
	}
	return finish(&b, close, n)
}

func finish(b *strings.Builder, close string, n int) (string, int) {
	if n == 0 {
		return "", 0
	}
	b.WriteString(close)
	return b.String(), n
}

// blockSection renders blocks after a title while they fit in budget.
func blockSection(title string, blocks []string, budget int) (string, int) {
	if len(blocks) == 0 {
		return "", 0
	}
	var b strings.Builder
	b.WriteString(title)
	n := 0
	for _, bl := range blocks {
		if budget >= 0 && b.Len()+len(bl) > budget {
			break
		}
		b.WriteString(bl)
		n++
	}
	if n == 0 {
		return "", 0
	}
	return b.String(), n
}

func failureBlocks(fs []gate.Failure) []string {
	var out []string
	for _, f := range fs {
		name := esc(strings.TrimPrefix(f.Name, "Benchmark"))
		if f.Name == "" {
			name = "(whole package)"
		}
		pkg := esc(f.Package)
		if f.Package == "" {
			pkg = "(no package)"
		}
		out = append(out, "\n**"+esc(f.Side)+"** · "+pkg+" · "+name+"\n\n"+codeBlock(f.Message))
	}
	return out
}

func warningLines(v gate.Verdict) []string {
	var out []string
	for _, w := range v.Warnings {
		out = append(out, "- "+Escape(truncate(w, 1000))+"\n")
	}
	// benchmath's per-row caveats, deduplicated.
	var msgs []string
	count := map[string]int{}
	for _, r := range v.Results {
		if exactKind(r.Kind) {
			continue // no interval or test is shown for exact checks
		}
		seen := map[string]bool{}
		for _, list := range [][]string{r.Warnings, summaryWarnings(r.Base), summaryWarnings(r.Head)} {
			for _, w := range list {
				if seen[w] {
					continue
				}
				seen[w] = true
				if count[w] == 0 {
					msgs = append(msgs, w)
				}
				count[w]++
			}
		}
	}
	for _, w := range msgs {
		out = append(out, "- "+Escape(truncate(w, 1000))+" ("+plural(count[w], "row", "rows")+")\n")
	}
	return out
}

func summaryWarnings(s *stats.Summary) []string {
	if s == nil {
		return nil
	}
	return s.Warnings
}

func cutNote(nRegs, regs, nFails, fails, nWarns, warns, nImps, imps, nRest, rest int, detailsURL string) string {
	var parts []string
	add := func(shown, total int, what string) {
		if shown < total {
			parts = append(parts, strconv.Itoa(total-shown)+" of "+strconv.Itoa(total)+" "+what)
		}
	}
	add(nRegs, regs, "regressions")
	add(nFails, fails, "failures")
	add(nWarns, warns, "warnings")
	add(nImps, imps, "improvements")
	add(nRest, rest, "other results")
	s := "\n**Cut to fit the size limit:** not shown are " + strings.Join(parts, ", ") + "."
	if u := safeURL(detailsURL); u != "" {
		s += " [Full report](" + u + ")."
	}
	return s + "\n"
}

// safeURL returns u fit for a Markdown link destination, or "" if it is not
// an absolute http or https URL.
func safeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return ""
	}
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E", "\n", "", "\r", "").Replace(p.String())
}

func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	return strings.ToValidUTF8(s, "")
}

func reproduce(m Meta) string {
	base, head := m.RawBase, m.RawHead
	if base == "" {
		base = "base.txt"
	}
	if head == "" {
		head = "head.txt"
	}
	return "Reproduce the numbers: " + codeSpan("benchstat -ignore round "+shellQuote(base)+" "+shellQuote(head)) + "\n"
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=+-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// row renders one table row.
func row(r gate.Result) string {
	base, head, delta, p := cells(r)
	why := esc(r.Reason)
	if !r.Gated && (r.Status == gate.Regression || r.Status == gate.Improvement) {
		why += " (not gated)"
	}
	return "| " + esc(r.Name) + " | " + esc(r.Unit) + " | " + base + " | " + head + " | " + delta + " | " + p + " | " + sampleSizes(r) + " | " + why + " |\n"
}

const none = "—"

func cells(r gate.Result) (base, head, delta, p string) {
	if exactKind(r.Kind) {
		base, head, delta, p = exactCell(r.Base), exactCell(r.Head), none, none
		if r.Base != nil && r.Head != nil && r.Base.Constant && r.Head.Constant {
			d := r.Head.Min - r.Base.Min
			delta = exact(d)
			if d > 0 {
				delta = "+" + delta
			}
		}
		return base, head, delta, p
	}
	var centers []float64
	for _, s := range []*stats.Summary{r.Base, r.Head} {
		if s != nil {
			centers = append(centers, s.Center)
		}
	}
	scaler := benchunit.CommonScale(centers, benchunit.ClassOf(r.Unit))
	cell := func(s *stats.Summary) string {
		if s == nil {
			return none
		}
		return Escape(scaler.Format(s.Center) + " ± " + s.PctRangeString())
	}
	base, head, delta, p = cell(r.Base), cell(r.Head), none, none
	if r.Delta != nil {
		delta = fmt.Sprintf("%+.2f%%", 100**r.Delta)
	}
	if r.P != nil {
		p = gate.FormatP(*r.P)
	}
	return base, head, delta, p
}

// exactKind reports whether rows of kind k are judged by exact checks.
func exactKind(k gate.Kind) bool { return k == gate.Allocs || k == gate.Bytes }

func exactCell(s *stats.Summary) string {
	switch {
	case s == nil:
		return none
	case s.Constant:
		return exact(s.Min)
	default:
		return exact(s.Min) + "–" + exact(s.Max)
	}
}

func exact(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func sampleSizes(r gate.Result) string {
	switch {
	case r.Base != nil && r.Head != nil && r.Base.N != r.Head.N:
		return strconv.Itoa(r.Base.N) + "+" + strconv.Itoa(r.Head.N)
	case r.Base != nil:
		return strconv.Itoa(r.Base.N)
	case r.Head != nil:
		return strconv.Itoa(r.Head.N)
	}
	return none
}

// JSON renders v and m as the JSON document described in the package
// documentation, indented, with a final newline.
func JSON(v gate.Verdict, m Meta) ([]byte, error) {
	doc := jsonDoc{
		Verdict:   "fail",
		Tool:      m.Tool,
		Base:      jsonRev{Ref: m.BaseRef, SHA: m.BaseSHA},
		Head:      jsonRev{Ref: m.HeadRef, SHA: m.HeadSHA},
		Count:     m.Count,
		Benchtime: m.Benchtime,
		Seed:      m.Seed,
		Partial:   m.Partial,
		Policy: jsonPolicy{
			Threshold:     num(v.Policy.Threshold),
			Alpha:         num(v.Policy.Alpha),
			FailOn:        []string{},
			FailOnFailure: v.Policy.FailOnFailure,
			FailOnRemoved: v.Policy.FailOnRemoved,
		},
		Benchmarks: make([]jsonBenchmark, 0, len(v.Results)),
		Failures:   make([]jsonFailure, 0, len(v.Failures)),
		Warnings:   append([]string{}, v.Warnings...),
		Notes:      append([]string{}, m.Notes...),
	}
	if v.Pass {
		doc.Verdict = "pass"
	}
	for _, k := range []gate.Kind{gate.Time, gate.Allocs, gate.Bytes, gate.Other} {
		if v.Policy.FailOn[k] {
			doc.Policy.FailOn = append(doc.Policy.FailOn, string(k))
		}
	}
	for _, r := range v.Results {
		b := jsonBenchmark{
			Package:  r.Package,
			Name:     r.Name,
			Unit:     r.Unit,
			Kind:     string(r.Kind),
			Base:     jsonSummaryOf(r.Base),
			Head:     jsonSummaryOf(r.Head),
			Status:   string(r.Status),
			Gated:    r.Gated,
			Reason:   r.Reason,
			Warnings: []string{},
		}
		if r.Delta != nil {
			b.Delta = num(*r.Delta)
		}
		if !exactKind(r.Kind) {
			if r.P != nil {
				b.P = num(*r.P)
			}
			b.Warnings = append(b.Warnings, r.Warnings...)
			for _, w := range summaryWarnings(r.Base) {
				b.Warnings = append(b.Warnings, "base: "+w)
			}
			for _, w := range summaryWarnings(r.Head) {
				b.Warnings = append(b.Warnings, "head: "+w)
			}
		}
		doc.Benchmarks = append(doc.Benchmarks, b)
	}
	for _, f := range v.Failures {
		doc.Failures = append(doc.Failures, jsonFailure{Package: f.Package, Name: f.Name, Side: f.Side, Message: f.Message})
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode JSON report: %w", err)
	}
	return append(out, '\n'), nil
}

type jsonDoc struct {
	Verdict    string          `json:"verdict"`
	Tool       string          `json:"tool"`
	Base       jsonRev         `json:"base"`
	Head       jsonRev         `json:"head"`
	Count      int             `json:"count"`
	Benchtime  string          `json:"benchtime"`
	Seed       int64           `json:"seed"`
	Partial    bool            `json:"partial"`
	Policy     jsonPolicy      `json:"policy"`
	Benchmarks []jsonBenchmark `json:"benchmarks"`
	Failures   []jsonFailure   `json:"failures"`
	Warnings   []string        `json:"warnings"`
	Notes      []string        `json:"notes"`
}

type jsonRev struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
}

type jsonPolicy struct {
	Threshold     *float64 `json:"threshold"`
	Alpha         *float64 `json:"alpha"`
	FailOn        []string `json:"fail_on"`
	FailOnFailure bool     `json:"fail_on_failure"`
	FailOnRemoved bool     `json:"fail_on_removed"`
}

type jsonBenchmark struct {
	Package  string       `json:"package"`
	Name     string       `json:"name"`
	Unit     string       `json:"unit"`
	Kind     string       `json:"kind"`
	Base     *jsonSummary `json:"base"`
	Head     *jsonSummary `json:"head"`
	Delta    *float64     `json:"delta"`
	P        *float64     `json:"p"`
	Status   string       `json:"status"`
	Gated    bool         `json:"gated"`
	Reason   string       `json:"reason"`
	Warnings []string     `json:"warnings"`
}

type jsonSummary struct {
	Center *float64 `json:"center"`
	Low    *float64 `json:"low"`
	High   *float64 `json:"high"`
	N      int      `json:"n"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
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
	return &jsonSummary{Center: num(s.Center), Low: num(s.Low), High: num(s.High), N: s.N, Min: num(s.Min), Max: num(s.Max)}
}

// num returns a pointer to v, or nil (JSON null) for NaN and infinities.
func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
