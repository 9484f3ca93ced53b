package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/ledger"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/stats"
	"github.com/benchgate/benchgate/internal/testenv"
)

func sha(i int) string { return fmt.Sprintf("%07x%033d", 0xabc0000+i, 0) }

// creepLedger writes a ledger of 12 merges of two benchmarks: Parse gets
// +4 % at merges 3, 6 and 9, Encode nothing.
func creepLedger(t *testing.T, dir string) string {
	t.Helper()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var entries []ledger.Entry
	for i := range 12 {
		for _, name := range []string{"Parse", "Encode"} {
			lr := 0.001 * float64(i%3-1)
			if name == "Parse" && (i == 3 || i == 6 || i == 9) {
				lr = math.Log(1.04)
			}
			entries = append(entries, ledger.Entry{
				V: ledger.Version, Recorded: t0.Add(time.Duration(i) * time.Hour),
				Base:    ledger.Commit{SHA: sha(i), Time: t0.Add(time.Duration(i) * 24 * time.Hour), Subject: "merge " + fmt.Sprint(i)},
				Head:    ledger.Commit{SHA: sha(i + 1), Time: t0.Add(time.Duration(i+1) * 24 * time.Hour), Subject: "merge " + fmt.Sprint(i+1)},
				Package: "example.com/p", Name: name, Unit: "sec/op", Direction: ledger.Lower,
				Change: math.Expm1(lr), LogRatio: lr, Low: lr - 0.006, High: lr + 0.006, Confidence: 0.95, SE: 0.003,
				Test: "paired", N: 20, Status: "unchanged", BaseMedian: 1e-6, HeadMedian: 1e-6 * math.Exp(lr), Go: "go1.26.0",
			})
		}
	}
	p := filepath.Join(dir, "ledger.jsonl")
	if err := ledger.Append(p, entries); err != nil {
		t.Fatal(err)
	}
	return p
}

func runIn(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Run(context.Background(), args, Env{Stdout: &o, Stderr: &e, Dir: dir, Environ: testenv.EnvWith()})
	return code, o.String(), e.String()
}

func TestHistoryJSON(t *testing.T) {
	dir := t.TempDir()
	creepLedger(t, dir)
	code, out, errs := runIn(t, dir, "history", "--ledger", "ledger.jsonl", "--format", "json", "--json", "h.json", "--export", "bencher=b.json")
	if code != ExitFail {
		t.Fatalf("exit %d, want 1 (a running creep)\n%s", code, errs)
	}
	var doc struct {
		Benchmarks []struct {
			Package, Benchmark, Unit string
			Level                    float64
			Merges                   []json.RawMessage
		}
		Creeps []struct {
			Package, Benchmark, Unit string
			Change, Low, High        float64
			First, Last              string
			Contributors             []struct {
				SHA    string
				Change float64
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Benchmarks) != 2 || len(doc.Benchmarks[0].Merges) != 12 {
		t.Fatalf("benchmarks %+v", doc.Benchmarks)
	}
	if len(doc.Creeps) != 1 {
		t.Fatalf("creeps %+v, want 1 (Parse)", doc.Creeps)
	}
	c := doc.Creeps[0]
	if c.Benchmark != "Parse" || c.Unit != "sec/op" || math.Abs(c.Change-(1.04*1.04*1.04-1)) > 0.005 || c.First != sha(4) || c.Last != sha(10) {
		t.Errorf("creep %+v, want Parse +12.5%% from %s to %s", c, sha(4), sha(10))
	}
	if len(c.Contributors) < 3 || math.Abs(c.Contributors[0].Change-0.04) > 1e-9 {
		t.Errorf("contributors %+v", c.Contributors)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "h.json")); err != nil || string(b) != out {
		t.Errorf("--json file differs from stdout: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "b.json"))
	if err != nil || !strings.Contains(string(b), `"example.com/p.Parse"`) || !strings.Contains(string(b), `"latency"`) {
		t.Errorf("--export bencher: %v\n%s", err, b)
	}
}

func TestHistoryTextAndMarkdown(t *testing.T) {
	dir := t.TempDir()
	creepLedger(t, dir)
	code, md, errs := runIn(t, dir, "history", "--ledger", "ledger.jsonl", "--format", "markdown")
	if code != ExitFail {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, w := range []string{"benchgate history: 1 creep", "Creeps (1)", "Levels (2)", "Merges (12)", "+12.7%", "`abc0004`"} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}
	code, text, _ := runIn(t, dir, "history", "--ledger", "ledger.jsonl")
	if code != ExitFail || !strings.Contains(text, "Parse") || !strings.Contains(text, "+12.7%") {
		t.Errorf("text (exit %d):\n%s", code, text)
	}
	// Since the last step: no creep left to find, exit 0.
	code, out, errs := runIn(t, dir, "history", "--ledger", "ledger.jsonl", "--since", sha(10)[:10], "--format", "json")
	if code != ExitPass || !strings.Contains(out, `"creeps": []`) {
		t.Errorf("--since the last step: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runIn(t, dir, "history", "--ledger", "ledger.jsonl", "--since", "2026-11-09", "--format", "json")
	var h struct{ Benchmarks []struct{ Merges []any } }
	if json.Unmarshal([]byte(out), &h); code != ExitPass || len(h.Benchmarks) == 0 || len(h.Benchmarks[0].Merges) != 5 {
		t.Errorf("--since 2026-11-09: exit %d, %+v", code, h)
	}
}

// Bad input: exit 2 with one line naming the flag, nothing on stdout.
func TestHistoryBadInput(t *testing.T) {
	dir := t.TempDir()
	creepLedger(t, dir)
	os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte("{\"v\":1}\nnot json\n"), 0o644)
	os.Symlink(filepath.Join(dir, "ledger.jsonl"), filepath.Join(dir, "link.jsonl"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"history"}, "history needs --ledger FILE"},
		{[]string{"history", "--ledger", "missing.jsonl"}, "--ledger missing.jsonl: no such file"},
		{[]string{"history", "--ledger", "bad.jsonl"}, "--ledger bad.jsonl:1: no head commit"},
		{[]string{"history", "--ledger", "link.jsonl"}, "--ledger link.jsonl: "},
		{[]string{"history", "--ledger", "ledger.jsonl", "--since", "yesterday"}, "--since yesterday: "},
		{[]string{"history", "--ledger", "ledger.jsonl", "--format", "pdf"}, `--format "pdf"`},
		{[]string{"history", "--ledger", "ledger.jsonl", "--threshold", "-1%"}, "--threshold"},
		{[]string{"history", "--ledger", "ledger.jsonl", "--json", "nodir/h.json"}, "--json nodir/h.json"},
		{[]string{"run", "--base", "HEAD~1", "--ledger", "link.jsonl", "--record"}, "--ledger link.jsonl: "},
	} {
		code, out, errs := runIn(t, dir, tc.args...)
		if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and one line with %q", tc.args, code, out, errs, tc.want)
		}
	}
	if historyPage == nil {
		code, _, errs := runIn(t, dir, "history", "--ledger", "ledger.jsonl", "--format", "html")
		if code != ExitUsage || !strings.Contains(errs, "--format html") {
			t.Errorf("--format html without a page: exit %d %q", code, errs)
		}
	}
}

// compare with --ledger: the regression's row gets its trend and the
// running creep's line; without --ledger the report has neither.
func TestCompareShowsTrend(t *testing.T) {
	dir := t.TempDir()
	creepLedger(t, dir)
	rng := rand.New(rand.NewPCG(5, 6))
	base := writeRounds([]string{"Parse", "Encode"}, 12, nil, nil, rng)
	head := writeRounds([]string{"Parse", "Encode"}, 12, map[string]float64{"Parse": 1.2}, nil, rng)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte(base), 0o644)
	os.WriteFile(filepath.Join(dir, "h.txt"), []byte(head), 0o644)
	code, md, errs := runIn(t, dir, "compare", "b.txt", "h.txt", "--format", "markdown", "--ledger", "ledger.jsonl")
	if code != ExitFail {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if !strings.Contains(md, "to a creep of +12.8% since <code>abc0004</code> (2026-11-05)") || !strings.Contains(md, "**Trend**") {
		t.Errorf("markdown lacks the trend and the creep line:\n%s", md)
	}
	_, plain, _ := runIn(t, dir, "compare", "b.txt", "h.txt", "--format", "markdown")
	if strings.Contains(plain, "creep") || strings.Contains(plain, "**Trend**") {
		t.Errorf("report without --ledger shows a trend")
	}
}

// record appends the verdict's rows with both commits' times and
// subjects from the repository, and this machine.
func TestRecord(t *testing.T) {
	env := testenv.Env(t)
	repo := testenv.TempDir(t)
	testenv.Git(t, env, repo, "init", "-q")
	testenv.Git(t, env, repo, "commit", "-q", "--allow-empty", "-m", "base subject")
	testenv.Git(t, env, repo, "commit", "-q", "--allow-empty", "-m", "head subject\n\nbody")
	baseSHA := testenv.Git(t, env, repo, "rev-parse", "HEAD~1")
	headSHA := testenv.Git(t, env, repo, "rev-parse", "HEAD")

	rng := rand.New(rand.NewPCG(7, 8))
	set, err := stats.Load(
		stats.Input{Name: "b", R: strings.NewReader(writeRounds([]string{"Parse"}, 12, nil, nil, rng))},
		stats.Input{Name: "h", R: strings.NewReader(writeRounds([]string{"Parse"}, 12, map[string]float64{"Parse": 1.1}, nil, rng))})
	if err != nil {
		t.Fatal(err)
	}
	v := gate.Judge(stats.CompareAlpha(set, 0.95, 0.01), nil, gate.DefaultPolicy())
	var e bytes.Buffer
	a := &app{env: Env{Stderr: &e, Dir: repo, Environ: env}, cfg: &configForRecord}
	if err := a.record(v, report.Meta{Record: pipeline.Record{BaseSHA: baseSHA, HeadSHA: headSHA, HeadGo: "go1.26.0"}}); err != nil {
		t.Fatal(err)
	}
	got, err := ledger.ReadFile(filepath.Join(repo, "l.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 { // sec/op, B/op, allocs/op
		t.Fatalf("%d entries, want 3: %+v", len(got), got)
	}
	g := got[0]
	if g.Name != "Parse" || g.Package != "example.com/p" || g.Unit != "sec/op" || g.Test != "paired" || g.Status != "regression" ||
		math.Abs(g.Change-0.1) > 0.03 || g.Base.SHA != baseSHA || g.Head.SHA != headSHA ||
		g.Base.Subject != "base subject" || g.Head.Subject != "head subject" || g.Head.Time.IsZero() || g.Go != "go1.26.0" || g.Machine.Cores == 0 {
		t.Errorf("entry %+v", g)
	}
	if got[2].Unit != "allocs/op" || got[2].Test != "exact" || got[2].SE != 0 || got[2].Change != 0 {
		t.Errorf("allocs entry %+v", got[2])
	}
	if !strings.Contains(e.String(), "recorded 3 changes") {
		t.Errorf("stderr %q", e.String())
	}
}

var configForRecord = func() config.Config {
	c := config.Defaults()
	c.Command, c.Ledger, c.Record = "run", "l.jsonl", true
	return c
}()

// --since REV resolves a revision in the repository of -C when the ledger
// does not name it as given.
func TestHistorySinceRevision(t *testing.T) {
	env := testenv.Env(t)
	repo := testenv.TempDir(t)
	testenv.Git(t, env, repo, "init", "-q")
	var shas []string
	for i := range 4 {
		testenv.Git(t, env, repo, "commit", "-q", "--allow-empty", "-m", fmt.Sprint("c", i))
		shas = append(shas, testenv.Git(t, env, repo, "rev-parse", "HEAD"))
	}
	var entries []ledger.Entry
	for i := 0; i+1 < len(shas); i++ {
		entries = append(entries, ledger.Entry{V: ledger.Version, Base: ledger.Commit{SHA: shas[i]}, Head: ledger.Commit{SHA: shas[i+1]},
			Name: "A", Unit: "sec/op", Direction: ledger.Lower, SE: 0.01, Low: -0.02, High: 0.02, N: 10})
	}
	if err := ledger.Append(filepath.Join(repo, "l.jsonl"), entries); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	code := Run(context.Background(), []string{"history", "--ledger", "l.jsonl", "--since", "HEAD~1", "--format", "json"}, Env{Stdout: &o, Stderr: &e, Dir: repo, Environ: env})
	var h struct{ Benchmarks []struct{ Merges []any } }
	if err := json.Unmarshal(o.Bytes(), &h); err != nil || code != ExitPass || len(h.Benchmarks) != 1 || len(h.Benchmarks[0].Merges) != 1 {
		t.Errorf("--since HEAD~1: exit %d, %v, %+v\n%s", code, err, h, e.String())
	}
}
