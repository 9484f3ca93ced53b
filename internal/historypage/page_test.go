package historypage

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/ledger"
	"github.com/benchgate/benchgate/internal/testenv"
)

// history is a ledger of twelve merges: Work creeps (+4 % at three of
// them), Steady and Work's allocations stay; a hostile subject and name.
func history(t *testing.T) ledger.History {
	t.Helper()
	var entries []ledger.Entry
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= 12; i++ {
		base := ledger.Commit{SHA: fmt.Sprintf("%040x", i-1), Time: t0.Add(time.Duration(i-1) * time.Hour), Subject: fmt.Sprintf("c%d", i-1)}
		head := ledger.Commit{SHA: fmt.Sprintf("%040x", i), Time: t0.Add(time.Duration(i) * time.Hour), Subject: fmt.Sprintf("c%d <script>alert(1)</script>", i)}
		for _, s := range []struct {
			name, unit string
			change     float64
		}{
			{"Work", "sec/op", map[bool]float64{true: 0.04}[i%4 == 0]},
			{"Steady", "sec/op", 0},
			{`Evil"><img src=x onerror=alert(1)>`, "sec/op", 0},
			{"Work", "allocs/op", 0},
		} {
			lr := math.Log1p(s.change) + 0.001*math.Sin(float64(i))
			entries = append(entries, ledger.Entry{V: ledger.Version, Recorded: head.Time, Base: base, Head: head, Package: "example.com/lib",
				Name: s.name, Unit: s.unit, Direction: ledger.Lower, Change: math.Expm1(lr), LogRatio: lr, Low: lr - 0.004, High: lr + 0.004,
				Confidence: 0.95, SE: 0.002, Test: "paired", N: 10, Status: "unchanged"})
		}
	}
	h := ledger.Analyze(entries, ledger.DefaultOptions())
	if len(h.Creeps) == 0 {
		t.Fatalf("the fixture has no creep: %+v", h)
	}
	return h
}

func render(t *testing.T, h ledger.History, o Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, h, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWrite(t *testing.T) {
	h := history(t)
	page := render(t, h, Options{RepoURL: "https://github.com/o/r/"})
	if n := strings.Count(page, `<section class="chart"`); n != len(h.Series) {
		t.Errorf("%d charts, want one per series (%d)", n, len(h.Series))
	}
	if n := strings.Count(page, `<g class="creep">`); n != len(h.Creeps) {
		t.Errorf("%d creep marks, want %d", n, len(h.Creeps))
	}
	if !strings.Contains(page, `href="https://github.com/o/r/commit/`+fmt.Sprintf("%040x", 4)+`"`) {
		t.Errorf("no link to commit 4")
	}
	for _, bad := range []string{"<script>alert", "<img", "http://", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q: unescaped input or a fetch", bad)
		}
	}
	if tag := regexp.MustCompile(`<[a-z]+(\s+[a-z-]+="[^"]*")*\s+(src|srcset|data)=`).FindString(page); tag != "" {
		t.Errorf("an element that loads something: %s", tag)
	}
	if strings.Count(page, "<script>") != 1 {
		t.Errorf("want exactly the page's own script")
	}
	// Without a repository: no links at all.
	if page := render(t, h, Options{}); strings.Contains(page, "<a href") {
		t.Errorf("links without a repository URL")
	}
	// A repository URL that is not http(s) makes no links.
	if page := render(t, h, Options{RepoURL: "javascript:alert(1)//"}); strings.Contains(page, "<a href") {
		t.Errorf("links under a javascript: URL")
	}
}

func TestWriteEmpty(t *testing.T) {
	page := render(t, ledger.Analyze(nil, ledger.DefaultOptions()), Options{})
	if !strings.Contains(page, "No creep.") || strings.Contains(page, `<section class="chart"`) {
		t.Errorf("empty history:\n%s", page)
	}
}

var shownRe = regexp.MustCompile(`<span id="shown" class="meta">(\d+) of (\d+)</span>`)

// TestBrowser loads the page from disk in headless Chromium: no console
// message (no error, no refused script or fetch), the script ran (it
// counts the charts it shows), and one chart per series was drawn. It
// needs chromium (BENCHGATE_CHROMIUM names another); skipped without it
// unless BENCHGATE_BROWSER=1, which fails it.
func TestBrowser(t *testing.T) {
	chrome := testenv.Chromium(t)
	h := history(t)
	file := filepath.Join(t.TempDir(), "index.html")
	if err := os.WriteFile(file, []byte(render(t, h, Options{RepoURL: "https://github.com/o/r"})), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, stderr := testenv.RunChromium(t, chrome, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
		"--virtual-time-budget=10000", "--window-size=1000,1000", "--dump-dom", "file://"+file)
	for _, line := range strings.Split(string(stderr), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			t.Errorf("console: %s", line)
		}
	}
	m := shownRe.FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the page's script did not run (no count of shown charts): %.300s", dom)
	}
	want := fmt.Sprint(len(h.Series))
	if string(m[1]) != want || string(m[2]) != want {
		t.Errorf("script shows %s of %s charts, want %s of %s", m[1], m[2], want, want)
	}
	if n := bytes.Count(dom, []byte(`<polyline class="level"`)); n != len(h.Series) {
		t.Errorf("%d charts drawn, want one per series (%d)", n, len(h.Series))
	}
}
