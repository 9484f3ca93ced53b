package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/github"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/stats"

	"github.com/benchgate/benchgate/internal/testenv"
)

func row(name, unit string, kind gate.Kind, status gate.Status, fails bool) gate.Result {
	r := gate.Result{Kind: kind, Status: status, Gated: fails}
	r.Package, r.Name, r.Unit = "example.com/m", name, unit
	r.Base, r.Head = &stats.Summary{Center: 1}, &stats.Summary{Center: 2}
	return r
}

// The annotations point at the top site in the workspace (for a site
// outside the module, the module's line that called it) or the top
// function; never outside the workspace.
func TestWhyAnnotations(t *testing.T) {
	ws := t.TempDir()
	mod := filepath.Join(ws, "sub")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	delta := 1.0
	reg := func(name, unit string, kind gate.Kind) gate.Result {
		r := row(name, unit, kind, gate.Regression, true)
		r.Delta = &delta
		return r
	}
	v := gate.Verdict{Results: []gate.Result{
		reg("Join", "allocs/op", gate.Allocs), reg("Mix", "sec/op", gate.Time), reg("Evil", "allocs/op", gate.Allocs), reg("Lost", "B/op", gate.Bytes),
		reg("Grow", "instructions/op", gate.Instructions),
	}}
	m := report.Meta{Record: pipeline.Record{Explain: []explain.Why{
		{Package: "example.com/m", Name: "Join", Unit: "allocs/op", Explain: explain.Explanation{Sites: []explain.Site{{
			Function: "strings.Clone", File: "/usr/local/go/src/strings/clone.go", Line: 27, Base: 0, Head: 1,
			Caller: &explain.Frame{Function: "example.com/m.Join", File: "mix.go", Line: 22}}}}},
		{Package: "example.com/m", Name: "Mix", Unit: "sec/op", Explain: explain.Explanation{Functions: []explain.Func{{
			Function: "example.com/m.Mix", File: "mix.go", Line: 12, Base: 1e-7, Head: 4e-7}}}},
		{Package: "example.com/m", Name: "Evil", Unit: "allocs/op", Explain: explain.Explanation{Sites: []explain.Site{{
			Function: "example.com/m.Evil", File: "../../etc/passwd", Line: 1, Head: 1}}}},
		{Package: "example.com/m", Name: "Lost", Unit: "B/op", Err: "profiling failed"},
		{Package: "example.com/m", Name: "Grow", Unit: "instructions/op", Explain: explain.Explanation{Functions: []explain.Func{{
			Function: "example.com/m.Work\u200b", File: "lib.go", Line: 10, Base: 12000, Head: 12600, ShareBase: 1, ShareHead: 1}}}},
	}}}
	got := whyAnnotations(ws, mod, v, m)
	if len(got) != 3 {
		t.Fatalf("%d annotations, want 3: %+v", len(got), got)
	}
	want := []struct {
		file  string
		line  int
		title string
	}{
		{"sub/mix.go", 22, "benchgate: Join +1 allocs/op here"},
		{"sub/mix.go", 12, "benchgate: Mix sec/op: example.com/m.Mix got slower"},
		{"sub/lib.go", 10, "benchgate: Grow instructions/op: example.com/m.Work<U+200B> runs more instructions"},
	}
	for i, w := range want {
		a := got[i]
		if a.Level != github.Notice || a.File != w.file || a.Line != w.line || a.Title != w.title {
			t.Errorf("annotation %d: %+v, want %s:%d %q", i, a, w.file, w.line, w.title)
		}
	}
	if msg := got[0].Message; msg != "mix.go:22: 0 → 1 allocs/op in strings.Clone (/usr/local/go/src/strings/clone.go:27), called here by example.com/m.Join; the regression of example.com/m.Join allocs/op" {
		t.Errorf("message: %q", msg)
	}
	// A function's name comes from the code measured: its invisible
	// characters are shown.
	if msg := got[2].Message; msg != "example.com/m.Work<U+200B>: 12000 → 12600 instructions/op of its own code (100% → 100% of the count), the largest change in the instruction lane's counts; the regression of example.com/m.Grow instructions/op" {
		t.Errorf("message: %q", msg)
	}
}

// TestExplainDoesNotFollowLinks: an --out directory (in the action, a
// directory of the workspace, where the change's files are) whose explain
// directory is a link elsewhere; the explanation pass makes nothing
// behind it, and says why the benchmark was not profiled.
func TestExplainDoesNotFollowLinks(t *testing.T) {
	testenv.Heavy(t)
	repo, env := gitRepo(t)
	head := "package o\n\nimport \"testing\"\n\nvar sink int\n\nvar buf []byte\n\nfunc BenchmarkO(b *testing.B) {\n\tfor b.Loop() {\n\t\tbuf = make([]byte, 64)\n\t\tsink++\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(repo, "o_test.go"), []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"commit", "-q", "--amend", "-am", "head allocates"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	elsewhere := t.TempDir()
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(out, "explain")); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	code := Run(context.Background(), []string{"run", "--base", "HEAD~1", "--count", "2", "--benchtime", "100x", "--confirm=false", "--out", out},
		Env{Stdout: &o, Stderr: &e, Dir: repo, Environ: env})
	if code != ExitFail {
		t.Fatalf("exit %d, want %d (one more allocation)\n%s\n%s", code, ExitFail, o.String(), e.String())
	}
	if entries, err := os.ReadDir(elsewhere); err != nil || len(entries) > 0 {
		t.Errorf("the explanation wrote behind the link: %v %v", entries, err)
	}
	if !strings.Contains(o.String(), "explain: example.com/o.O-") || !strings.Contains(o.String(), "not profiled: ") || !strings.Contains(o.String(), "symbolic link") {
		t.Errorf("no note that the benchmark was not profiled:\n%s", o.String())
	}
	if strings.Contains(o.String(), "explain: profiled") {
		t.Errorf("a note says the benchmark was profiled:\n%s", o.String())
	}
}
