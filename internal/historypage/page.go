// Package historypage renders a ledger's history (internal/ledger) as one
// self-contained HTML page: for every series (a benchmark's unit) an SVG
// chart of its level over the recorded merges with the level's interval
// as a band, its creeps marked, each merge linked to its commit when the
// repository's URL is known, and a box that filters the charts by name.
// Everything is inline (CSS, SVG and a small script, allowed by the
// page's Content-Security-Policy by its hash): the page fetches nothing,
// so it works opened from disk and from GitHub Pages alike.
package historypage

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/benchgate/benchgate/internal/ledger"
)

// Options are what the page knows beyond the history.
type Options struct {
	// RepoURL is the repository's web address ("https://github.com/o/r");
	// commits link to RepoURL/commit/SHA. Empty: no links.
	RepoURL string
	// Title is the page's title; empty: "benchgate history".
	Title string
}

// Write renders h as the page.
func Write(w io.Writer, h ledger.History, o Options) error {
	if o.Title == "" {
		o.Title = "benchgate history"
	}
	p := page{Title: o.Title, Script: template.JS(script), CSP: csp(), Windows: h.Windows, Threshold: pct(h.Options.Threshold)}
	for _, s := range h.Series {
		p.Charts = append(p.Charts, chartOf(s, h.Creeps, strings.TrimRight(o.RepoURL, "/")))
	}
	for _, c := range h.Creeps {
		p.Creeps = append(p.Creeps, creepLine{Name: c.Key.String(), Change: pct(c.Change), Low: pct(c.Low), High: pct(c.High), Merges: c.Merges, Running: c.Running,
			First: short(c.First), Last: short(c.Last), FirstURL: commitURL(o.RepoURL, c.First), LastURL: commitURL(o.RepoURL, c.Last)})
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, p); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// csp allows only the inline style and the page's own script.
func csp() string {
	sum := sha256.Sum256([]byte(script))
	return "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; img-src data:"
}

type page struct {
	Title, CSP, Threshold string
	Script                template.JS
	Charts                []chart
	Creeps                []creepLine
	Windows               int
}

type creepLine struct {
	Name, Change, Low, High, First, Last, FirstURL, LastURL string
	Merges                                                  int
	Running                                                 bool
}

// Chart geometry, in SVG units.
const (
	width, height = 720.0, 200.0
	left, right   = 56.0, 12.0
	top, bottom   = 12.0, 24.0
)

type chart struct {
	Name, Unit, Direction, Level, Interval string
	Merges, Shown                          int    // the series' merges, the chart's
	Band, Line                             string // SVG points
	Points                                 []point
	Marks                                  []mark
	Ticks                                  []tick
	Zero                                   float64
	W, H, Left, Right                      float64
}

type point struct {
	X, Y                     float64
	SHA, Short, Subject, URL string
	Change, Level            string
}

type mark struct {
	X, W, H float64
	Label   string
	Running bool
}

type tick struct {
	Y     float64
	Label string
}

// maxPoints is how many of a series' last merges its chart draws: a
// chart is 720 units wide, and the page stays small whatever the ledger.
const maxPoints = 500

func chartOf(s ledger.Series, creeps []ledger.Creep, repo string) chart {
	c := chart{Name: s.Key.Package + "." + s.Key.Name, Unit: s.Key.Unit, Direction: s.Direction, Merges: len(s.Merges),
		Level: pct(s.Level), Interval: "[" + pct(s.Low) + ", " + pct(s.High) + "]", W: width, H: height, Left: left, Right: width - right}
	if s.Key.Package == "" {
		c.Name = s.Key.Name
	}
	// The chart starts at the level before the first merge it draws (0
	// before the series' first).
	ms := s.Merges[max(0, len(s.Merges)-maxPoints):]
	c.Shown = len(ms)
	var start ledger.Merge
	if len(ms) < len(s.Merges) {
		start = s.Merges[len(s.Merges)-len(ms)-1]
	}
	lo, hi := math.Min(0, start.LevelLow), math.Max(0, start.LevelHigh)
	for _, m := range ms {
		lo, hi = math.Min(lo, m.LevelLow), math.Max(hi, m.LevelHigh)
	}
	if hi-lo < 0.01 {
		hi, lo = hi+0.005, lo-0.005
	}
	x := func(i int) float64 { return left + (width-left-right)*float64(i)/float64(max(len(ms), 1)) }
	// Halved, so that no difference of levels overflows (they are finite:
	// internal/ledger caps them).
	y := func(v float64) float64 { return top + (height-top-bottom)*(hi/2-v/2)/(hi/2-lo/2) }
	c.Zero = y(0)
	var upper, lower, line []string
	upper, lower, line = append(upper, xy(x(0), y(start.LevelHigh))), append(lower, xy(x(0), y(start.LevelLow))), append(line, xy(x(0), y(start.Level)))
	at := map[string]int{}
	for i, m := range ms {
		at[m.Head.SHA] = i
		px := x(i + 1)
		upper = append(upper, xy(px, y(m.LevelHigh)))
		lower = append(lower, xy(px, y(m.LevelLow)))
		line = append(line, xy(px, y(m.Level)))
		c.Points = append(c.Points, point{X: px, Y: y(m.Level), SHA: m.Head.SHA, Short: short(m.Head.SHA), Subject: m.Head.Subject,
			URL: commitURL(repo, m.Head.SHA), Change: pct(m.Change), Level: pct(m.Level)})
	}
	for i, j := 0, len(lower)-1; i < j; i, j = i+1, j-1 {
		lower[i], lower[j] = lower[j], lower[i]
	}
	c.Band = strings.Join(append(upper, lower...), " ")
	c.Line = strings.Join(line, " ")
	for _, cr := range creeps {
		if cr.Key != s.Key {
			continue
		}
		f, ok1 := at[cr.First]
		l, ok2 := at[cr.Last]
		if !ok1 || !ok2 {
			continue
		}
		// The window spans from its first merge's base to its last merge.
		c.Marks = append(c.Marks, mark{X: x(f), W: x(l+1) - x(f), H: height, Label: "creep " + pct(cr.Change), Running: cr.Running})
	}
	for _, v := range []float64{hi, (hi + lo) / 2, lo} {
		c.Ticks = append(c.Ticks, tick{Y: y(v), Label: pct(v)})
	}
	return c
}

func xy(x, y float64) string { return fmt.Sprintf("%.1f,%.1f", x, y) }

func pct(f float64) string { return fmt.Sprintf("%+.1f%%", 100*f) }

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// commitURL links a commit under repo; "" without a repository or for a
// SHA that is not hexadecimal.
func commitURL(repo, sha string) string {
	repo = strings.TrimRight(repo, "/")
	if repo == "" || sha == "" || strings.Trim(strings.ToLower(sha), "0123456789abcdef") != "" {
		return ""
	}
	if !strings.HasPrefix(repo, "https://") && !strings.HasPrefix(repo, "http://") {
		return ""
	}
	return repo + "/commit/" + sha
}

// script filters the charts by the box's words (every word must occur in
// the chart's name and unit) and the creeps-only box.
const script = `
(function () {
  var box = document.getElementById("filter");
  var only = document.getElementById("creeps-only");
  var charts = document.querySelectorAll("section.chart");
  var count = document.getElementById("shown");
  function apply() {
    var words = box.value.toLowerCase().split(/\s+/).filter(function (w) { return w; });
    var shown = 0;
    charts.forEach(function (c) {
      var name = c.getAttribute("data-name").toLowerCase();
      var ok = words.every(function (w) { return name.indexOf(w) >= 0; });
      if (only.checked && c.getAttribute("data-creep") !== "true") { ok = false; }
      c.hidden = !ok;
      if (ok) { shown++; }
    });
    count.textContent = shown + " of " + charts.length;
  }
  box.addEventListener("input", apply);
  only.addEventListener("change", apply);
  apply();
})();
`

var tmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 760px; color: #1f2328; padding: 0 1em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.05em; margin: 0 0 .2em; word-break: break-all; }
.meta { color: #59636e; font-size: .9em; }
section.chart { border: 1px solid #d1d9e0; border-radius: 6px; padding: .8em; margin: 1em 0; }
svg { width: 100%; height: auto; }
.band { fill: #54aeff; fill-opacity: .25; stroke: none; }
.level { fill: none; stroke: #0969da; stroke-width: 2; }
.zero { stroke: #59636e; stroke-dasharray: 4 3; }
.tick { font-size: 11px; fill: #59636e; }
.creep rect { fill: #cf222e; fill-opacity: .12; stroke: #cf222e; stroke-opacity: .5; }
.creep text { font-size: 11px; fill: #cf222e; }
circle { fill: #0969da; }
.creeps li { margin: .2em 0; }
input[type=search] { width: 60%; padding: .3em; font: inherit; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="meta">Each chart is one benchmark's level since its first recorded merge: the paired changes measured at every merge, chained (the band is the level's interval, wider with every merge). Creeps are runs of merges whose summed change passes {{.Threshold}} with suite-wide error control ({{.Windows}} windows tested).</p>
{{if .Creeps}}<h2>Creeps</h2>
<ul class="creeps">{{range .Creeps}}
<li><strong>{{.Name}}</strong> {{.Change}} [{{.Low}}, {{.High}}] over {{.Merges}} merge(s), {{if .FirstURL}}<a href="{{.FirstURL}}">{{.First}}</a>{{else}}{{.First}}{{end}}..{{if .LastURL}}<a href="{{.LastURL}}">{{.Last}}</a>{{else}}{{.Last}}{{end}}{{if .Running}} (running){{end}}</li>{{end}}
</ul>{{else}}<p>No creep.</p>{{end}}
<p><label>Filter <input id="filter" type="search" placeholder="benchmark or unit"></label>
<label><input id="creeps-only" type="checkbox"> creeps only</label>
<span id="shown" class="meta"></span></p>
{{range .Charts}}
<section class="chart" data-name="{{.Name}} {{.Unit}}" data-creep="{{if .Marks}}true{{else}}false{{end}}">
<h2>{{.Name}} <span class="meta">{{.Unit}} ({{.Direction}} is better)</span></h2>
<p class="meta">level {{.Level}} {{.Interval}} after {{.Merges}} merge(s){{if lt .Shown .Merges}}; the chart shows the last {{.Shown}}{{end}}</p>
<svg class="history" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="{{.Name}} {{.Unit}} level over merges">
{{range .Marks}}<g class="creep"><rect x="{{.X}}" y="0" width="{{.W}}" height="{{.H}}"></rect><text x="{{.X}}" y="10">{{.Label}}{{if .Running}} (running){{end}}</text></g>
{{end}}<polygon class="band" points="{{.Band}}"></polygon>
<line class="zero" x1="{{.Left}}" x2="{{.Right}}" y1="{{.Zero}}" y2="{{.Zero}}"></line>
{{range .Ticks}}<text class="tick" x="2" y="{{.Y}}">{{.Label}}</text>
{{end}}<polyline class="level" points="{{.Line}}"></polyline>
{{range .Points}}{{if .URL}}<a href="{{.URL}}">{{end}}<circle cx="{{.X}}" cy="{{.Y}}" r="3.5"><title>{{.Short}} {{.Subject}}: {{.Change}}, level {{.Level}}</title></circle>{{if .URL}}</a>{{end}}
{{end}}</svg>
</section>
{{end}}
<script>{{.Script}}</script>
</body>
</html>
`))
