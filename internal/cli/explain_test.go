package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/github"
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

// An explanation's annotation goes to its line of the module in the
// workspace; one whose file leaves the module, or the workspace, is not
// shown.
func TestPlaceAnnotations(t *testing.T) {
	ws := t.TempDir()
	mod := filepath.Join(ws, "sub")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file string
		want string // "" for not shown
	}{{"mix.go", "sub/mix.go"}, {"p/lib.go", "sub/p/lib.go"}, {"../../etc/passwd", ""}, {"/etc/passwd", ""}} {
		g, ok := place(report.Annotation{Level: report.Notice, File: c.file, Line: 3}, ws, ws, mod)
		if ok != (c.want != "") || ok && (g.File != c.want || g.Line != 3 || g.Level != github.Notice) {
			t.Errorf("%s: %+v, shown %v; want %q", c.file, g, ok, c.want)
		}
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
