package report

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// This file checks Markdown reports with a real GFM renderer (goldmark,
// with GitHub's extensions: tables, autolinks, strikethrough, task lists,
// and raw HTML let through, as an injection would be): what comes out is
// what a reader of the pull request would see.

// gfm renders md to HTML as GitHub Flavored Markdown.
func gfm(t *testing.T, md string) string {
	t.Helper()
	var out bytes.Buffer
	r := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := r.Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

var (
	htmlTag   = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>`)
	htmlCode  = regexp.MustCompile(`(?s)<code[^>]*>(.*?)</code>`)
	htmlRow   = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	htmlCell  = regexp.MustCompile(`<t[hd][ >]`)
	mentionRe = regexp.MustCompile(`@[A-Za-z0-9]|#[0-9]|(?i)gh-[0-9]|(?i)https?://|(?i)www\.`)
)

// gfmTags are the elements a report may produce; the chart's and the
// outputs' fences become <pre><code>.
var gfmTags = map[string]bool{
	"h3": true, "h4": true, "p": true, "strong": true, "code": true, "pre": true, "ul": true, "li": true,
	"blockquote": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
	"details": true, "summary": true, "a": true,
}

// gfmReport is what GitHub shows of a Markdown report.
type gfmReport struct {
	html string
	// code are the texts of the inline code spans, as shown.
	code []string
	// text is everything shown outside code, as shown.
	text string
}

// checkGFM renders md and checks that it is inert: no element but the
// report's own (no image, no raw HTML, no link but the full report's), no
// autolink, mention or reference in the text outside code, and every
// table row with as many cells as its header, in the source as GitHub
// splits it and in the rendering. It returns what is shown.
func checkGFM(t *testing.T, md string) gfmReport {
	t.Helper()
	r, problems := inspectGFM(t, md)
	for _, p := range problems {
		t.Error(p)
	}
	return r
}

// inspectGFM renders md and returns what is shown and what is wrong (see
// checkGFM).
func inspectGFM(t *testing.T, md string) (gfmReport, []string) {
	t.Helper()
	var problems []string
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	out := gfm(t, md)
	for _, m := range htmlTag.FindAllStringSubmatch(out, -1) {
		tag := strings.ToLower(m[2])
		if !gfmTags[tag] {
			errorf("rendered Markdown has a <%s%s> element", tag, m[3])
		}
		if tag == "a" && m[1] == "" && !strings.HasPrefix(m[3], ` href="https://`) {
			errorf("rendered Markdown has a link %s", m[0])
		}
	}
	for _, a := range regexp.MustCompile(`(?s)<a [^>]*>(.*?)</a>`).FindAllStringSubmatch(out, -1) {
		if a[1] != "Full report" {
			errorf("rendered Markdown links %q", a[1])
		}
	}
	var r gfmReport
	r.html = out
	for _, m := range htmlCode.FindAllStringSubmatch(out, -1) {
		if !strings.Contains(m[0], `class="language-`) {
			r.code = append(r.code, html.UnescapeString(m[1]))
		}
	}
	outside := htmlCode.ReplaceAllString(out, " ")
	outside = htmlTag.ReplaceAllString(outside, " ")
	r.text = html.UnescapeString(outside)
	if m := mentionRe.FindAllString(strings.ReplaceAll(r.text, "\u200b", "\u2060"), -1); m != nil {
		errorf("rendered text outside code has mentions, references or links: %q", m)
	}
	// Rows: as many cells as the header, in the rendering...
	for _, tbl := range strings.Split(out, "<table>")[1:] {
		tbl, _, _ = strings.Cut(tbl, "</table>")
		rows := htmlRow.FindAllStringSubmatch(tbl, -1)
		want := len(htmlCell.FindAllString(rows[0][1], -1))
		for _, row := range rows[1:] {
			if n := len(htmlCell.FindAllString(row[1], -1)); n != want {
				errorf("table row with %d cells, header %d: %s", n, want, row[1])
			}
		}
	}
	// ... and in the source, where GitHub splits rows at every "|" that
	// no backslash escapes (goldmark drops extra cells silently).
	cols := 0
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "|:") && !strings.HasPrefix(line, "|-") {
			cols = 0
			continue
		}
		n := 0
		for i := 0; i < len(line); i++ {
			if line[i] == '|' && (i == 0 || line[i-1] != '\\') {
				n++
			}
		}
		if cols == 0 {
			cols = n
		} else if n != cols {
			errorf("table line with %d separators, header %d: %s", n, cols, line)
		}
	}
	return r, problems
}

// hasCode reports whether name is shown as one whole inline code span.
func (r gfmReport) hasCode(name string) bool {
	for _, c := range r.code {
		if c == name {
			return true
		}
	}
	return false
}

func TestGFMCheckerCatchesInjection(t *testing.T) {
	// The checker must see what it is for.
	for _, bad := range []string{
		"a <img src=x> b",
		"hi @octocat",
		"see https://example.com",
		"fixes #12",
		"[x](https://evil.example)",
		"| a | b |\n|:--|:--|\n| 1 | 2 | 3 |",
	} {
		if _, problems := inspectGFM(t, bad); problems == nil {
			t.Errorf("checkGFM does not catch %q", bad)
		}
	}
}
