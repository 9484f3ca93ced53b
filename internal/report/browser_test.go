package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/benchgate/benchgate/internal/pipeline"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/testenv"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// This file renders Markdown reports the way a pull request page does
// (GitHub Flavored Markdown, GitHub's table and code styles, a 760 px
// column, <details> closed) in headless Chromium, draws their Mermaid
// blocks with mermaid.js, and measures what a reader sees.
//
// It needs chromium (or chromium-browser, google-chrome; BENCHGATE_CHROMIUM
// names another) and mermaid's dist/mermaid.min.js, found at
// $BENCHGATE_MERMAID. Without them it is skipped, unless
// BENCHGATE_BROWSER=1 (as .ci/run sets), where their absence fails it.
// Set-up, as .ci/run does it:
//
//	apt-get install chromium fonts-liberation
//	npm install --prefix /tmp/mermaid mermaid
//	BENCHGATE_BROWSER=1 BENCHGATE_MERMAID=/tmp/mermaid/node_modules/mermaid/dist/mermaid.min.js \
//	    go test -run TestBrowser ./internal/report/
//
// With -screenshots it writes docs/img/comment-*.png, the README's
// pictures of a comment.

var screenshots = flag.Bool("screenshots", false, "write docs/img/comment-*.png from TestBrowser")

// commentWidth is the width of the column a comment is read in, its
// padding included.
const commentWidth = 760

// browserTools returns the browser and mermaid's script, skipping the
// test (failing it with BENCHGATE_BROWSER=1) when either is missing.
func browserTools(t *testing.T) (chrome, mermaidJS string) {
	t.Helper()
	missing := func(what string) { testenv.BrowserMissing(t, what) }
	chrome = testenv.Chromium(t)
	mermaidJS = os.Getenv("BENCHGATE_MERMAID")
	if mermaidJS == "" {
		missing("BENCHGATE_MERMAID does not name mermaid's dist/mermaid.min.js")
	}
	if _, err := os.Stat(mermaidJS); err != nil {
		missing("BENCHGATE_MERMAID: " + err.Error())
	}
	abs, err := filepath.Abs(mermaidJS)
	if err != nil {
		t.Fatal(err)
	}
	return chrome, abs
}

// pageLayout is what the page's script measured.
type pageLayout struct {
	Column   float64 // the content's width
	Height   float64 // the page's, <details> closed
	Headline float64 // the bottom of the headline
	LineH    float64 `json:"lineHeight"`
	Tables   []struct {
		Width float64
		Text  string
	}
	Rows []struct { // outside <details>, closed
		Height, Bottom float64
		Text           string
		Gating         bool
	}
	Mermaid []struct {
		OK    bool
		Error string
	}
}

// gfmHTML renders md as GitHub does: GFM with raw HTML kept (GitHub
// sanitizes it; the reports' escaping is checked in gfm_test.go).
func gfmHTML(t *testing.T, md string) string {
	t.Helper()
	var b bytes.Buffer
	r := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := r.Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// githubCSS is the part of GitHub's Markdown style that sets a comment's
// layout: fonts, margins, tables (a block that scrolls when too wide),
// code.
const githubCSS = `
body { margin: 0; background: #fff; }
.markdown-body { box-sizing: border-box; width: 760px; padding: 16px; color: #1f2328;
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji";
  font-size: 14px; line-height: 1.5; word-wrap: break-word; }
.markdown-body > *:first-child { margin-top: 0 !important; }
.markdown-body p, .markdown-body ul, .markdown-body table, .markdown-body pre, .markdown-body blockquote, .markdown-body details { margin-top: 0; margin-bottom: 16px; }
.markdown-body h3, .markdown-body h4 { margin-top: 24px; margin-bottom: 16px; font-weight: 600; line-height: 1.25; }
.markdown-body h3 { font-size: 1.25em; }
.markdown-body h4 { font-size: 1em; }
.markdown-body ul { padding-left: 2em; }
.markdown-body blockquote { padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; margin-left: 0; }
.markdown-body table { display: block; width: max-content; max-width: 100%; overflow: auto; border-spacing: 0; border-collapse: collapse; font-variant: tabular-nums; }
.markdown-body table th { font-weight: 600; }
.markdown-body table th, .markdown-body table td { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body table tr { background: #fff; border-top: 1px solid #d1d9e0b3; }
.markdown-body code { padding: .2em .4em; margin: 0; font-size: 85%; white-space: break-spaces; background: #818b981f; border-radius: 6px;
  font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; }
.markdown-body pre { padding: 16px; overflow: auto; font-size: 85%; line-height: 1.45; background: #f6f8fa; border-radius: 6px; }
.markdown-body pre code { padding: 0; background: transparent; white-space: pre; font-size: 100%; }
.markdown-body summary { cursor: pointer; }
`

// measureJS draws the Mermaid blocks, then measures: table widths with
// every <details> open, then the rows, the headline and the page with
// them closed. "#shot" leaves the page as a reader first sees it.
const measureJS = `
async function measure() {
  const out = {mermaid: [], tables: [], rows: []};
  const body = document.querySelector('.markdown-body');
  const shot = location.hash === '#shot';
  const pres = [...document.querySelectorAll('pre > code.language-mermaid')].map(c => {
    const d = document.createElement('div'); d.className = 'mermaid'; d.dataset.src = c.textContent;
    c.parentElement.replaceWith(d); return d;
  });
  if (pres.length) {
    mermaid.initialize({startOnLoad: false});
    for (const [i, d] of pres.entries()) {
      try { const r = await mermaid.render('chart' + i, d.dataset.src); d.innerHTML = r.svg; out.mermaid.push({ok: true}); }
      catch (e) { out.mermaid.push({ok: false, error: String(e && e.message || e)}); }
    }
  }
  const details = [...document.querySelectorAll('details')];
  if (!shot) {
    details.forEach(d => d.open = true);
    out.column = body.clientWidth - 32;
    for (const t of document.querySelectorAll('table')) out.tables.push({width: t.scrollWidth, text: t.innerText.slice(0, 80)});
    details.forEach(d => d.open = false);
  }
  out.lineHeight = parseFloat(getComputedStyle(body).lineHeight);
  for (const tr of document.querySelectorAll('tbody tr')) {
    if (tr.closest('details')) continue;
    const r = tr.getBoundingClientRect();
    // A gating row: marked ❌, or (a report without marks) in the table under "Regressions".
    let e = tr.closest('table');
    while (e && e.tagName !== 'H4') e = e.previousElementSibling;
    const marked = /[❌✅⚠]/.test(tr.cells[0].innerText);
    const gating = marked ? tr.cells[0].innerText.includes('❌') : !!(e && e.textContent.startsWith('Regressions'));
    out.rows.push({height: r.height, bottom: r.bottom + window.scrollY, text: tr.innerText.slice(0, 80), gating});
  }
  const h = document.querySelector('h3');
  out.headline = h ? h.getBoundingClientRect().bottom : 0;
  out.height = document.documentElement.scrollHeight;
  document.getElementById('result').textContent = JSON.stringify(out);
}
measure().catch(e => { document.getElementById('result').textContent = JSON.stringify({error: String(e)}); });
`

// writePage writes md as a page in dir and returns its path.
func writePage(t *testing.T, dir, name, md, mermaidJS string) string {
	t.Helper()
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><style>` + githubCSS + `</style>` +
		`<script src="file://` + html.EscapeString(mermaidJS) + `"></script></head><body>` +
		`<article class="markdown-body">` + gfmHTML(t, md) + `</article><pre id="result" hidden></pre>` +
		`<script>` + measureJS + `</script></body></html>`
	p := filepath.Join(dir, name+".html")
	if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// chromeArgs are the flags of every headless run.
func chromeArgs(extra ...string) []string {
	return append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--allow-file-access-from-files", "--virtual-time-budget=20000", "--force-device-scale-factor=1"}, extra...)
}

// runChrome runs the browser on args with a time limit and returns its
// output.
func runChrome(t *testing.T, chrome string, args ...string) []byte {
	t.Helper()
	out, _ := testenv.RunChromium(t, chrome, args...)
	return out
}

var resultRe = regexp.MustCompile(`(?s)<pre id="result" hidden="">(.*?)</pre>`)

// layout renders page in the browser and returns what its script
// measured.
func layout(t *testing.T, chrome, page string) pageLayout {
	t.Helper()
	dom := runChrome(t, chrome, chromeArgs("--window-size=1000,1000", "--dump-dom", "file://"+page)...)
	m := resultRe.FindSubmatch(dom)
	if m == nil || len(m[1]) == 0 {
		t.Fatalf("the page's script reported nothing: %.500s", dom)
	}
	var l pageLayout
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &l); err != nil {
		t.Fatalf("%v: %s", err, m[1])
	}
	return l
}

// screenshot writes the page as a reader first sees it to png.
func screenshot(t *testing.T, chrome, page, png string, height float64) {
	t.Helper()
	h := int(min(height, 1400)) + 1
	runChrome(t, chrome, chromeArgs(fmt.Sprintf("--window-size=%d,%d", commentWidth, h), "--screenshot="+png, "file://"+page+"#shot")...)
}

// TestBrowser renders the report fixtures as a pull request comment and
// checks what the reader sees: no table wider than the column, no row
// outside <details> taller than two lines, the headline and every gating
// row in the first 900 px when at most five rows gate, every Mermaid
// block drawn; the held-out pull request's page at most 2,000 px high.
func TestBrowser(t *testing.T) {
	chrome, mermaidJS := browserTools(t)
	dir := t.TempDir()
	fv, fm := fixtureVerdict(t)
	hv, hm := heldOutVerdict(t)
	sv, sm := scalingVerdict(t), Meta{Record: pipeline.Record{Count: 10}}
	bv, bm := blindVerdict(t)
	cases := []struct {
		name      string
		v         gate.Verdict
		m         Meta
		maxHeight float64 // 0: not checked
	}{
		{"held-out", hv, hm, 2000},
		{"fixture", fv, fm, 0},
		{"scaling", sv, sm, 0},
		{"blind", bv, bm, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			md := Markdown(c.v, c.m, Options{MaxChars: 65536, Marker: "<!-- benchgate -->"})
			page := writePage(t, dir, c.name, md, mermaidJS)
			l := layout(t, chrome, page)
			checkLayout(t, l, c.maxHeight)
			if *screenshots {
				screenshot(t, chrome, page, filepath.Join("..", "..", "docs", "img", "comment-"+c.name+".png"), l.Height)
			}
		})
	}
	// BENCHGATE_BROWSER_DIR holds the reports the e2e scripts kept
	// (BENCHGATE_E2E_REPORTS, .ci/run): each is checked like the fixtures.
	if d := os.Getenv("BENCHGATE_BROWSER_DIR"); d != "" {
		files, err := filepath.Glob(filepath.Join(d, "*.md"))
		if err != nil || len(files) == 0 {
			t.Fatalf("BENCHGATE_BROWSER_DIR %s: no .md files (%v)", d, err)
		}
		for _, f := range files {
			t.Run("e2e/"+strings.TrimSuffix(filepath.Base(f), ".md"), func(t *testing.T) {
				md, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				checkLayout(t, layout(t, chrome, writePage(t, dir, "e2e-"+filepath.Base(f), string(md), mermaidJS)), 0)
			})
		}
	}
	// BENCHGATE_BROWSER_MD measures another Markdown file (an older
	// report, a real comment) and logs its figures.
	if f := os.Getenv("BENCHGATE_BROWSER_MD"); f != "" {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		logLayout(t, f, layout(t, chrome, writePage(t, dir, "other", string(md), mermaidJS)))
	}
}

// logLayout logs the figures of a page: its height, its widest table,
// its tallest row outside <details>, the bottom of its last gating row.
func logLayout(t *testing.T, name string, l pageLayout) {
	t.Helper()
	widest, over, tallest, lastGating := 0.0, 0, 0.0, 0.0
	for _, tb := range l.Tables {
		widest = max(widest, tb.Width)
		if tb.Width > l.Column+0.5 {
			over++
		}
	}
	for _, r := range l.Rows {
		tallest = max(tallest, r.Height)
		if r.Gating {
			lastGating = max(lastGating, r.Bottom)
		}
	}
	t.Logf("%s: page %.0f px high; %d tables, %d wider than the %.0f px column (widest %.0f px); tallest row outside <details> %.0f px (%d lines); last gating row ends at %.0f px; %d Mermaid blocks",
		name, l.Height, len(l.Tables), over, l.Column, widest, tallest, lines(tallest, l.LineH), lastGating, len(l.Mermaid))
}

// lines is how many lines of text a table row of height h holds.
func lines(h, lineH float64) int {
	const padding = 6 + 6 + 1 // cell padding and border
	return int((h-padding)/lineH + 0.5)
}

func checkLayout(t *testing.T, l pageLayout, maxHeight float64) {
	t.Helper()
	logLayout(t, "layout", l)
	if l.Column <= 0 || l.LineH <= 0 {
		t.Fatalf("nothing measured: %+v", l)
	}
	for _, tb := range l.Tables {
		if tb.Width > l.Column+0.5 {
			t.Errorf("table %.0f px wide in a %.0f px column: %q", tb.Width, l.Column, tb.Text)
		}
	}
	gating := 0
	for _, r := range l.Rows {
		if n := lines(r.Height, l.LineH); n > 2 {
			t.Errorf("row outside <details> %d lines high (%.0f px): %q", n, r.Height, r.Text)
		}
		if r.Gating {
			gating++
		}
	}
	if l.Headline <= 0 || l.Headline > 900 {
		t.Errorf("headline ends at %.0f px, not in the first 900", l.Headline)
	}
	if gating > 0 && gating <= 5 {
		for _, r := range l.Rows {
			if r.Gating && r.Bottom > 900 {
				t.Errorf("gating row ends at %.0f px, below the first 900: %q", r.Bottom, r.Text)
			}
		}
	}
	for i, m := range l.Mermaid {
		if !m.OK {
			t.Errorf("Mermaid block %d not drawn: %s", i, m.Error)
		}
	}
	if maxHeight > 0 && l.Height > maxHeight {
		t.Errorf("page %.0f px high with <details> closed, want at most %.0f", l.Height, maxHeight)
	}
}
