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
//     fail", with the number of rows of each status (and how many
//     regressions were confirmed or vanished on confirmation, and how
//     many rows are too noisy, and how many benchmarks' parallel scaling
//     got worse);
//   - the refs and short SHAs compared, rounds, benchtime, seed, the
//     threshold and α, the correction and the number of time/op
//     comparisons it covers, sequential looks and confirmation when used,
//     the tool, and the Go toolchain ("Go: go1.26.8 (both sides)"); a
//     prominent warning when base and head were built with different Go
//     toolchains (Meta.BaseGo, HeadGo: with GOTOOLCHAIN=auto, a go or
//     toolchain line of go.mod changed, and the comparison measures the
//     compiler too); a warning when the results are partial; when time/op
//     rows could not be judged, the gate's plain explanation with the
//     --count that would work ("time/op could not be judged for 120
//     benchmarks: with 6 rounds and 120 benchmarks the smallest possible
//     adjusted p is 0.260 ≥ α=0.01; use --count ≥ 15"); Meta.Notes;
//   - Regressions: every regression (gated ones first), every removal and
//     inconclusive row that fails the gate, always complete;
//   - Failures: each benchmark that failed, with its side and the first
//     lines of its output in a fenced code block;
//   - Improvements;
//   - Vanished on confirmation: time regressions of the screening run that
//     the confirmation run did not find again (gate.Confirm);
//   - Largest time/op changes: a Mermaid chart (GitHub renders ```mermaid
//     blocks in comments and job summaries; elsewhere it reads as text),
//     when at least 2 time rows have a paired estimate with a 95%
//     interval (6 rounds or more). It shows up to 15 of them,
//     regressions first, then improvements, then the rest, each by
//     decreasing size of the change. Mermaid's xychart draws bars from
//     the axis minimum, never from 0, so signed bars would mislead: the
//     chart is a horizontal xychart-beta of the size |head/base − 1| in
//     % on an axis from 0, as two bar series (slower in red, faster in
//     green; one of the two is 0 in each row), with two lines bounding
//     the interval of that size; each label is the benchmark name with
//     the signed change ("Encode-8 +7.3%"). The figures are the paired
//     (Hodges–Lehmann) estimate and interval, the ones the change column
//     shows for a paired row;
//   - CPU scaling: for runs with several GOMAXPROCS values (--cpu
//     1,2,4,8; gate.Verdict.Scaling), one row per benchmark with the
//     base → head speed-ups t(smallest cpu)/t(cpu) of the medians in one
//     column per cpu value, "⚠️" (and listed first) when parallel scaling
//     got worse, and the gate's reason;
//   - every other row (failed, inconclusive, removed, new, unstable,
//     unchanged) collapsed in a <details> element;
//   - Warnings: the verdict's warnings (rows that could not be judged or
//     were judged by the U test for want of rounds, too-noisy rows,
//     benchmarks that lie, unstable allocations), then what each
//     suspicious row does wrong (the first 20), then the distinct per-row
//     caveats of benchmath with the number of rows each applies to;
//   - a legend of the columns, and how to reproduce the numbers:
//     `benchgate compare` on the raw files (every number) and `benchstat
//     -ignore round` (benchstat's).
//
// Rows are grouped per package (a bold package line above each table).
// Columns: benchmark, unit, base, head, change, p (adj.), noise / MDE,
// benchstat, n, why.
//
//   - base, head: "center ± spread" as benchstat prints it ("1.234µ ±
//     2%": the median and the half-width of its confidence interval, in
//     one SI or binary scale per row, benchunit.CommonScale). Allocation
//     rows (allocs/op, B/op) show exact figures: "2" → "3", a varying side
//     as its range "7–8".
//   - change: the delta the row was judged on. For a time row judged by
//     the paired test, the Hodges–Lehmann estimate of head/base − 1 with
//     its 95% interval ("+7.31% [+5.1%, +9.8%]", no interval below 6
//     rounds); otherwise the change of the medians. Allocation rows show
//     the absolute change, "+1", "+5" for 0 → 5 (never a percentage).
//   - p (adj.): the p-value the row was judged on (paired signed-rank or
//     U test), with the adjusted one in parentheses when the correction
//     (or sequential looks) changed it: "0.002 (0.008)". None for exact
//     checks.
//   - noise / MDE: for time rows measured in rounds, the round-to-round
//     noise of the ratio and the smallest change the run could detect;
//     "⚠️" when the MDE exceeds the threshold (too noisy to judge).
//   - benchstat: benchstat's own delta of the medians and U-test p, for
//     comparison ("+6.90% p=0.004"), whatever test judged the row.
//   - n: the number of paired rounds for a paired row, else the samples
//     per side ("10", or "10+9").
//   - why: the gate's reason (confirmation included), with "(not gated)"
//     for a regression or improvement that does not count toward the
//     verdict, and "⚠️ optimized away?" or "⚠️ runs too short" for
//     suspicious benchmarks.
//
// "—" marks what does not apply.
//
// With Options.MaxChars > 0 the whole text fits in MaxChars bytes (GitHub
// counts characters; a byte count is never smaller). Regressions are kept
// complete; then failures, warnings, improvements, vanished regressions
// and the collapsed rows are added while they fit, and a line says how
// many of each were cut, linking Options.DetailsURL (an http or https
// URL) when set. Only if the regressions alone do not fit are they cut
// too, and the line says so. The minimum useful MaxChars is about 1,000.
// The chart is optional content: it is shown only when every row and
// every other section fits with it, so it is the first thing dropped
// (and the line says so); the CPU scaling rows are cut like table rows,
// after the vanished regressions and before the collapsed rows.
//
// # Untrusted text
//
// Benchmark names, package paths, units, refs, failure output, notes and
// warnings can come from the pull request being measured. Every such
// string goes through [Escape] (or, for output, into a fenced code block
// whose fence the output cannot close), so it cannot break a table, inject
// HTML or images, start a link (a bare URL or address is not autolinked
// either), mention a user or team, or reference an issue; invisible
// characters (zero-width, bidi) are shown by their code point, "<U+200B>",
// so that two names cannot look alike. Names longer than 200 runes are
// truncated with "…"; failure output is limited to 20 lines of 300 runes.
// The JSON report keeps every string exactly as measured (it is data; its
// readers escape it for their own output). In the Mermaid chart, where
// Markdown escapes mean nothing, a name keeps only letters, digits,
// spaces and / = . , _ + - ( ); any other character (quotes, brackets,
// backticks, "%", "#", ";", "<", ">", "&", braces, line breaks, control
// and bidi characters) becomes "_", so a label cannot end its string,
// start a Mermaid comment, directive or entity, or close the fence; it is
// cut at 40 runes.
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
//	  "go": {"base": string, "head": string}, // Go toolchain that built each side (go env GOVERSION: "go1.26.8"),
//	                                       // "" if unknown; different ones add a warning (first in "warnings")
//	  "count": int,                        // interleaved rounds requested
//	  "benchtime": string,
//	  "seed": int,                         // order seed (an int64)
//	  "partial": bool,                     // the run was interrupted
//	  "policy": {"threshold": number, "alpha": number,
//	             "fail_on": ["time", "allocs", "bytes"],
//	             "fail_on_failure": bool, "fail_on_removed": bool,
//	             "fail_on_inconclusive": bool,
//	             "fail_on_scaling": bool,  // worse parallel scaling fails the gate (off by default)
//	             "looks": [int]},           // rounds of the planned sequential looks; [] for a fixed run
//	  "correction": "holm" | "bh" | "none", // over the time/op comparisons
//	  "time_comparisons": int,             // how many the correction covers (m)
//	  "min_count": int | null,             // smallest --count that can judge the time rows (paired test; U test without rounds)
//	  "inconclusive": string,              // why time rows could not be judged, "" if all could
//	  "confirmed": bool,                   // time regressions went through a confirmation run
//	  "benchmarks": [{
//	    "package": string,                 // import path, "" if unknown
//	    "name": string,                    // benchfmt name, no "Benchmark" prefix: "Encode/format=json-8"
//	    "unit": string,                    // benchfmt unit: "sec/op", "B/op", "allocs/op", "B/s", custom
//	    "kind": "time" | "allocs" | "bytes" | "other",
//	    "base": {"center": number, "low": number|null, "high": number|null,
//	             "n": int, "min": number, "max": number} | null,
//	    "head": {...} | null,              // null: the benchmark is missing on that side
//	    "test": "paired" | "utest" | null, // the test that judged a time row
//	    "delta": number | null,            // the change judged (0.05 = +5%): paired Hodges–Lehmann ratio − 1
//	                                       // when "test" is "paired" (also, for information, on an inconclusive
//	                                       // row with pairs), else head/base − 1 of the medians
//	    "p": number | null,                // the p-value judged: paired signed-rank or U test; null for allocs
//	                                       // and bytes (exact checks) and one-sided rows
//	    "p_adjusted": number | null,       // p after the correction over time rows (and looks); null outside
//	    "benchstat": {"delta": number|null, "p": number|null} | null,  // benchstat's median delta and U-test p
//	    "paired": {"n": int, "ratio": number, "low": number|null, "high": number|null,
//	               "confidence": number|null, "p": number, "exact": bool, "noise": number} | null,
//	                                       // the paired analysis of a time row measured in rounds
//	    "noise": number | null,            // robust SD of the per-round log-ratios (0.02 ≈ 2%)
//	    "mde": number | null,              // smallest change detectable (80% power) at the corrected level
//	    "too_noisy": bool,                 // mde > threshold
//	    "status": "regression" | "improvement" | "unchanged" | "unstable" | "inconclusive" | "new" | "removed" | "failed",
//	    "gated": bool,                     // counts toward the verdict
//	    "reason": string,
//	    "confirmed": bool | null,          // time regression of the screening run: found again (true) or vanished (false)
//	    "confirmation": {"status": string, "delta": number|null, "p": number|null,
//	                     "p_adjusted": number|null, "n": int, "reason": string} | null,
//	    "suspect": [{"code": "optimized-away" | "allocs-vary" | "short-runs", "message": string}],
//	    "warnings": [string]               // benchmath's caveats ("base: "/"head: " for one side's); none for exact checks
//	  }],
//	  "failures": [{"package": string, "name": string, "side": "base" | "head", "message": string}],
//	  "scaling": [{                        // runs with several GOMAXPROCS values (--cpu 1,2,4,8); [] otherwise
//	    "package": string,
//	    "name": string,                    // benchmark name without the "-GOMAXPROCS" suffix: "Encode/size=64"
//	    "cpus": [int],                     // GOMAXPROCS values measured on both sides, ascending (≥ 2)
//	    "base": [number],                  // speed-ups t(cpus[0])/t(cpu) of the medians, one per cpu; base[0] = 1
//	    "head": [number],
//	    "change": number | null,           // paired head/base at the largest cpu ÷ at the smallest − 1 (+1.5: base's
//	                                       // speed-up is 2.5 × head's); null without paired rounds
//	    "worse": bool,                     // parallel scaling got worse: change ≥ threshold, intervals disjoint
//	    "reason": string
//	  }],
//	  "warnings": [string],
//	  "notes": [string]
//	}
//
// Numbers are in the unit's base units (seconds, bytes). center is the
// median; low and high bound its confidence interval and are null when
// there are too few samples for one. No NaN or infinity is ever written:
// such a value becomes null (an infinite MDE, when no change can be
// detected, is null). Arrays are never null. Every field of earlier
// versions keeps its name and meaning, except that "delta" and "p" are the
// paired figures for rows judged by the paired test; benchstat's are in
// "benchstat".
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
	// BaseGo and HeadGo are the Go toolchains that built each side
	// ("go1.26.8", as go env GOVERSION reports it); "" if unknown.
	BaseGo, HeadGo string
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
	var regs, imps, gone, rest []gate.Result
	for _, r := range v.Results {
		switch {
		case r.Status == gate.Regression || (r.Fails() && (r.Status == gate.Removed || r.Status == gate.Inconclusive)):
			regs = append(regs, r)
		case r.Status == gate.Improvement:
			imps = append(imps, r)
		case r.Confirmed != nil && !*r.Confirmed:
			gone = append(gone, r)
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
	if len(v.Results) > 0 {
		footer = legend + footer
	}

	pic := chart(v.Results)
	sections := []cut{
		{total: len(regs), what: "regressions"},
		{total: len(fails), what: "failures"},
		{total: len(warns), what: "warnings"},
		{total: len(imps), what: "improvements"},
		{total: len(gone), what: "vanished regressions"},
		{total: len(v.Scaling), what: "cpu scaling rows"},
		{total: len(rest), what: "other results"},
		{total: boolRank(pic != ""), whole: "the chart of the largest changes"},
	}
	budget := -1 // unlimited
	if opt.MaxChars > 0 {
		budget = opt.MaxChars - len(top) - len(footer) - len(cutNote(sections, opt.DetailsURL))
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
	goneText, nGone := tableSection("\n#### Vanished on confirmation ("+strconv.Itoa(len(gone))+")\n\n", "", gone, budget)
	spend(goneText)
	scaleText, nScale := scalingSection(v, budget)
	spend(scaleText)
	restText, nRest := tableSection(
		"\n<details><summary>"+restSummary(rest)+"</summary>\n\n", "\n</details>\n", rest, budget)
	spend(restText)
	// The chart is optional: it is dropped before any row is cut.
	nPic := 0
	if pic != "" && (budget < 0 || len(pic) <= budget) && nRegs == len(regs) && nFails == len(fails) &&
		nWarns == len(warns) && nImps == len(imps) && nGone == len(gone) && nScale == len(v.Scaling) && nRest == len(rest) {
		spend(pic)
		nPic = 1
	} else {
		pic = ""
	}

	var b strings.Builder
	b.WriteString(top)
	b.WriteString(regText)
	b.WriteString(failText)
	b.WriteString(impText)
	b.WriteString(goneText)
	b.WriteString(pic)
	b.WriteString(scaleText)
	b.WriteString(restText)
	b.WriteString(warnText)
	for i, n := range []int{nRegs, nFails, nWarns, nImps, nGone, nScale, nRest, nPic} {
		sections[i].shown = n
	}
	if cutAny(sections) {
		b.WriteString(cutNote(sections, opt.DetailsURL))
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
	gate.Failed: 0, gate.Inconclusive: 1, gate.Removed: 2, gate.New: 3, gate.Unstable: 4, gate.Regression: 5, gate.Improvement: 5, gate.Unchanged: 6,
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
	b.WriteString(metaLine(m, v))
	b.WriteString("\n")
	b.WriteString(goWarningBlock(m))
	if m.Partial {
		b.WriteString("\n> ⚠️ **Partial results**: the run was interrupted; only what was measured before is reported.\n")
	}
	if v.Inconclusive != "" {
		b.WriteString("\n> ⚠️ **" + Escape(truncate(v.Inconclusive, 1000)) + "**\n")
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
	inconclusive := v.Count(gate.Inconclusive)
	inconclusiveGated := 0
	confirmed, vanished, noisy := 0, 0, 0
	for _, r := range v.Results {
		if r.Status == gate.Inconclusive && r.Fails() {
			inconclusiveGated++
		}
		if r.Confirmed != nil {
			if *r.Confirmed {
				confirmed++
			} else {
				vanished++
			}
		}
		if r.TooNoisy {
			noisy++
		}
	}
	add(inconclusiveGated, "inconclusive benchmark failing the gate", "inconclusive benchmarks failing the gate")
	add(confirmed, "confirmed", "confirmed")
	add(vanished, "vanished on confirmation", "vanished on confirmation")
	add(v.Count(gate.Improvement), "improvement", "improvements")
	add(ungated, "ungated regression", "ungated regressions")
	add(inconclusive-inconclusiveGated, "inconclusive", "inconclusive")
	add(len(v.ScalingWorse()), "benchmark scaling worse", "benchmarks scaling worse")
	add(noisy, "too noisy", "too noisy")
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

func metaLine(m Meta, v gate.Verdict) string {
	p := v.Policy
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
	if corr := correctionName(v.Correction); corr != "" && v.Family > 1 {
		parts = append(parts, corr+" over "+plural(v.Family, "time/op comparison", "time/op comparisons"))
	}
	if len(p.Looks) > 0 {
		parts = append(parts, "sequential looks after rounds "+joinInts(p.Looks))
	}
	if v.Confirmed {
		parts = append(parts, "time regressions re-measured to confirm")
	}
	if m.Tool != "" {
		parts = append(parts, esc(m.Tool))
	}
	if g := goPart(m); g != "" {
		parts = append(parts, g)
	}
	return strings.Join(parts, " · ")
}

// correctionName is the name of a correction for people ("" for none).
func correctionName(c string) string {
	switch c {
	case gate.Holm:
		return "Holm"
	case gate.BH:
		return "Benjamini–Hochberg"
	}
	return ""
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
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
	for _, s := range []gate.Status{gate.Failed, gate.Inconclusive, gate.Removed, gate.New, gate.Unstable, gate.Regression, gate.Improvement, gate.Unchanged} {
		if n := counts[s]; n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+string(s))
		}
	}
	return plural(len(rest), "other result", "other results") + ": " + strings.Join(parts, ", ")
}

const tableHeader = "| benchmark | unit | base | head | change | p (adj.) | noise / MDE | benchstat | n | why |\n|:--|:--|--:|--:|--:|--:|--:|--:|--:|:--|\n"

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
				chunk = packageHeading(i, pkg) + tableHeader
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
	// What each suspicious benchmark does wrong, for the first few (the
	// verdict's warnings above name them all; the JSON has every message).
	shown, more := 0, 0
	for _, r := range v.Results {
		for _, sp := range r.Suspect {
			if shown == maxSuspectLines {
				more++
				continue
			}
			shown++
			pkg := r.Package
			if pkg != "" {
				pkg += "."
			}
			out = append(out, "- "+Escape(truncate(pkg+r.Name+" "+r.Unit, 300))+": "+Escape(truncate(sp.Message, 1000))+"\n")
		}
	}
	if more > 0 {
		out = append(out, "- … and "+plural(more, "more suspicion", "more suspicions")+" (every message is in the JSON report)\n")
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

// maxSuspectLines is the number of per-row suspicion lines in the
// Markdown warnings.
const maxSuspectLines = 20

func summaryWarnings(s *stats.Summary) []string {
	if s == nil {
		return nil
	}
	return s.Warnings
}

// cut counts the shown and total items of one section of the report.
// A section of one whole item (the chart) is named by whole instead.
type cut struct {
	shown, total int
	what, whole  string
}

func cutAny(cs []cut) bool {
	for _, c := range cs {
		if c.shown < c.total {
			return true
		}
	}
	return false
}

// cutNote says what was cut. With every shown count 0 it is the longest
// note, which Markdown reserves room for.
func cutNote(cs []cut, detailsURL string) string {
	var parts []string
	for _, c := range cs {
		switch {
		case c.shown >= c.total:
		case c.whole != "":
			parts = append(parts, c.whole)
		default:
			parts = append(parts, strconv.Itoa(c.total-c.shown)+" of "+strconv.Itoa(c.total)+" "+c.what)
		}
	}
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
	return "Reproduce the numbers: " + codeSpan("benchgate compare "+shellQuote(base)+" "+shellQuote(head)) +
		"; benchstat's (base, head, benchstat): " + codeSpan("benchstat -ignore round "+shellQuote(base)+" "+shellQuote(head)) + "\n"
}

// legend explains the columns of the tables.
const legend = "\nColumns: **change** is head/base − 1: for time/op measured in interleaved rounds the paired (Hodges–Lehmann) estimate with its 95% interval, otherwise the change of the medians; " +
	"**p (adj.)** the p-value the row was judged on (paired Wilcoxon signed-rank, or benchstat's U test), adjusted for the number of time/op comparisons; " +
	"**noise / MDE** the round-to-round noise of the ratio and the smallest change this run could detect (⚠: larger than the threshold); " +
	"**benchstat** the change of the medians and the U-test p, as benchstat prints them.\n"

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=+-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// row renders one table row.
func row(r gate.Result) string {
	c := cells(r)
	why := esc(r.Reason)
	if !r.Gated && (r.Status == gate.Regression || r.Status == gate.Improvement) {
		why += " (not gated)"
	}
	for _, s := range r.Suspect {
		if label, ok := suspectLabel[s.Code]; ok {
			why += " ⚠️ " + label
		}
	}
	return "| " + esc(r.Name) + " | " + esc(r.Unit) + " | " + c.base + " | " + c.head + " | " + c.change + " | " + c.p + " | " +
		c.noise + " | " + c.benchstat + " | " + c.n + " | " + why + " |\n"
}

// suspectLabel is the short mark of a suspicion in the why column (the
// full message is under Warnings). Varying allocations are already the
// reason of their unstable row.
var suspectLabel = map[string]string{
	gate.SuspectOptimizedAway: "optimized away?",
	gate.SuspectShortRuns:     "runs too short",
}

const none = "—"

// rowCells are the rendered cells of a row.
type rowCells struct {
	base, head, change, p, noise, benchstat, n string
}

func cells(r gate.Result) rowCells {
	c := rowCells{change: none, p: none, noise: none, benchstat: none, n: sampleSizes(r)}
	if exactKind(r.Kind) {
		c.base, c.head = exactCell(r.Base), exactCell(r.Head)
		if r.Base != nil && r.Head != nil && r.Base.Constant && r.Head.Constant {
			d := r.Head.Min - r.Base.Min
			c.change = exact(d)
			if d > 0 {
				c.change = "+" + c.change
			}
		}
		return c
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
	c.base, c.head = cell(r.Base), cell(r.Head)
	if r.Delta != nil {
		c.change = pct(*r.Delta)
	}
	paired := r.Paired != nil && (r.Test == gate.TestPaired || (r.Test == "" && r.Status == gate.Inconclusive))
	if paired && r.Delta != nil && !math.IsInf(r.Paired.High, 1) {
		c.change += " " + Escape("["+pct1(r.Paired.Low-1)+", "+pct1(r.Paired.High-1)+"]")
	}
	if paired {
		c.n = strconv.Itoa(r.Paired.N)
	}
	if r.P != nil {
		c.p = gate.FormatP(*r.P)
		if r.PAdjusted != nil && gate.FormatP(*r.PAdjusted) != c.p {
			c.p += " (" + gate.FormatP(*r.PAdjusted) + ")"
		}
		c.p = Escape(c.p)
	}
	if r.Noise != nil {
		c.noise = pct1abs(*r.Noise)
		if r.MDE != nil {
			c.noise += " / " + pct1abs(*r.MDE)
		}
		if r.TooNoisy {
			c.noise = "⚠️ " + c.noise
		}
	}
	if r.Base != nil && r.Head != nil && (r.Comparison.Delta != nil || r.Comparison.P != nil) {
		var parts []string
		if r.Comparison.Delta != nil {
			parts = append(parts, pct(*r.Comparison.Delta))
		}
		if r.Comparison.P != nil {
			parts = append(parts, pString(*r.Comparison.P))
		}
		c.benchstat = Escape(strings.Join(parts, " "))
	}
	return c
}

// pString formats "p=0.002" or "p<0.001".
func pString(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return "p=" + gate.FormatP(p)
}

// pct formats a relative change as benchstat does: "+9.95%".
func pct(d float64) string { return fmt.Sprintf("%+.2f%%", 100*d) }

// pct1 formats a relative change with one decimal: "+9.1%".
func pct1(d float64) string { return fmt.Sprintf("%+.1f%%", 100*d) }

// pct1abs formats a fraction without sign: "1.2%", "∞".
func pct1abs(d float64) string {
	if math.IsInf(d, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.1f%%", 100*d)
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
		Go:        jsonGo{Base: m.BaseGo, Head: m.HeadGo},
		Count:     m.Count,
		Benchtime: m.Benchtime,
		Seed:      m.Seed,
		Partial:   m.Partial,
		Policy: jsonPolicy{
			Threshold:          num(v.Policy.Threshold),
			Alpha:              num(v.Policy.Alpha),
			FailOn:             []string{},
			FailOnFailure:      v.Policy.FailOnFailure,
			FailOnRemoved:      v.Policy.FailOnRemoved,
			FailOnInconclusive: v.Policy.FailOnInconclusive,
			FailOnScaling:      v.Policy.FailOnScaling,
			Looks:              append([]int{}, v.Policy.Looks...),
		},
		Correction:   v.Correction,
		Family:       v.Family,
		Inconclusive: v.Inconclusive,
		Confirmed:    v.Confirmed,
		Benchmarks:   make([]jsonBenchmark, 0, len(v.Results)),
		Failures:     make([]jsonFailure, 0, len(v.Failures)),
		Scaling:      make([]jsonScaling, 0, len(v.Scaling)),
		Warnings:     append([]string{}, v.Warnings...),
		Notes:        append([]string{}, m.Notes...),
	}
	if v.Pass {
		doc.Verdict = "pass"
	}
	if w := m.GoWarning(); w != "" {
		doc.Warnings = append([]string{w}, doc.Warnings...)
	}
	if doc.Correction == "" {
		doc.Correction = gate.Holm
	}
	if v.MinCount > 0 {
		doc.MinCount = &v.MinCount
	}
	for _, k := range []gate.Kind{gate.Time, gate.Allocs, gate.Bytes, gate.Other} {
		if v.Policy.FailOn[k] {
			doc.Policy.FailOn = append(doc.Policy.FailOn, string(k))
		}
	}
	for _, r := range v.Results {
		doc.Benchmarks = append(doc.Benchmarks, jsonBenchmarkOf(r))
	}
	for _, f := range v.Failures {
		doc.Failures = append(doc.Failures, jsonFailure{Package: f.Package, Name: f.Name, Side: f.Side, Message: f.Message})
	}
	for _, s := range v.Scaling {
		doc.Scaling = append(doc.Scaling, jsonScalingOf(s))
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode JSON report: %w", err)
	}
	return append(out, '\n'), nil
}

type jsonDoc struct {
	Verdict      string          `json:"verdict"`
	Tool         string          `json:"tool"`
	Base         jsonRev         `json:"base"`
	Head         jsonRev         `json:"head"`
	Go           jsonGo          `json:"go"`
	Count        int             `json:"count"`
	Benchtime    string          `json:"benchtime"`
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
	Warnings     []string        `json:"warnings"`
	Notes        []string        `json:"notes"`
}

func jsonBenchmarkOf(r gate.Result) jsonBenchmark {
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
		TooNoisy: r.TooNoisy,
		Suspect:  []jsonSuspicion{},
	}
	if r.Test != "" {
		b.Test = ptr(string(r.Test))
	}
	if r.Delta != nil {
		b.Delta = num(*r.Delta)
	}
	if !exactKind(r.Kind) {
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
			N: pr.N, Ratio: num(pr.Ratio), Low: num(pr.Low), High: num(pr.High), Confidence: num(pr.Confidence),
			P: num(pr.P), Exact: pr.Exact, Noise: num(pr.Noise),
		}
		if math.IsInf(pr.High, 1) {
			b.Paired.Low, b.Paired.Confidence = nil, nil
		}
	}
	b.Noise = numPtr(r.Noise)
	b.MDE = numPtr(r.MDE)
	b.Confirmed = r.Confirmed
	if c := r.Confirmation; c != nil {
		b.Confirmation = &jsonConfirmation{Status: string(c.Status), Delta: numPtr(c.Delta), P: numPtr(c.P), PAdjusted: numPtr(c.PAdjusted), Reason: c.Reason}
		if c.Paired != nil {
			b.Confirmation.N = c.Paired.N
		} else if c.Head != nil {
			b.Confirmation.N = c.Head.N
		}
	}
	for _, sp := range r.Suspect {
		b.Suspect = append(b.Suspect, jsonSuspicion{Code: sp.Code, Message: sp.Message})
	}
	return b
}

func ptr[T any](v T) *T { return &v }

// numPtr is num for an optional value.
func numPtr(v *float64) *float64 {
	if v == nil {
		return nil
	}
	return num(*v)
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
	Alpha              *float64 `json:"alpha"`
	FailOn             []string `json:"fail_on"`
	FailOnFailure      bool     `json:"fail_on_failure"`
	FailOnRemoved      bool     `json:"fail_on_removed"`
	FailOnInconclusive bool     `json:"fail_on_inconclusive"`
	FailOnScaling      bool     `json:"fail_on_scaling"`
	Looks              []int    `json:"looks"`
}

type jsonBenchmark struct {
	Package      string            `json:"package"`
	Name         string            `json:"name"`
	Unit         string            `json:"unit"`
	Kind         string            `json:"kind"`
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
	TooNoisy     bool              `json:"too_noisy"`
	Status       string            `json:"status"`
	Gated        bool              `json:"gated"`
	Reason       string            `json:"reason"`
	Confirmed    *bool             `json:"confirmed"`
	Confirmation *jsonConfirmation `json:"confirmation"`
	Suspect      []jsonSuspicion   `json:"suspect"`
	Warnings     []string          `json:"warnings"`
}

type jsonBenchstat struct {
	Delta *float64 `json:"delta"`
	P     *float64 `json:"p"`
}

type jsonPaired struct {
	N          int      `json:"n"`
	Ratio      *float64 `json:"ratio"`
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	Confidence *float64 `json:"confidence"`
	P          *float64 `json:"p"`
	Exact      bool     `json:"exact"`
	Noise      *float64 `json:"noise"`
}

type jsonConfirmation struct {
	Status    string   `json:"status"`
	Delta     *float64 `json:"delta"`
	P         *float64 `json:"p"`
	PAdjusted *float64 `json:"p_adjusted"`
	N         int      `json:"n"`
	Reason    string   `json:"reason"`
}

type jsonSuspicion struct {
	Code    string `json:"code"`
	Message string `json:"message"`
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
	Package string     `json:"package"`
	Name    string     `json:"name"`
	CPUs    []int      `json:"cpus"`
	Base    []*float64 `json:"base"`
	Head    []*float64 `json:"head"`
	Change  *float64   `json:"change"`
	Worse   bool       `json:"worse"`
	Reason  string     `json:"reason"`
}

func jsonScalingOf(s gate.Scaling) jsonScaling {
	j := jsonScaling{Package: s.Package, Name: s.Name, CPUs: append([]int{}, s.CPUs...), Base: []*float64{}, Head: []*float64{},
		Change: numPtr(s.Change), Worse: s.Worse, Reason: s.Reason}
	for _, v := range s.Base {
		j.Base = append(j.Base, num(v))
	}
	for _, v := range s.Head {
		j.Head = append(j.Head, num(v))
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
	return &jsonSummary{Center: num(s.Center), Low: num(s.Low), High: num(s.High), N: s.N, Min: num(s.Min), Max: num(s.Max)}
}

// num returns a pointer to v, or nil (JSON null) for NaN and infinities.
func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// packageHeading is the bold package line above a package's table (the
// first of a section without a blank line before it).
func packageHeading(i int, pkg string) string {
	chunk := ""
	if i > 0 {
		chunk = "\n"
	}
	label := esc(pkg)
	if pkg == "" {
		label = "(no package)"
	}
	return chunk + "**" + label + "**\n\n"
}
