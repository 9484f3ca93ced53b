package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/cli"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/reports.md's terminal example from the binary's output")

// TestReportsExample: docs/reports.md's terminal example is what
// `benchgate compare base.txt head.txt` prints on testdata/reports/: the
// block's lines up to its closing "…" are the output's first lines, so a
// change to the report's words fails here until the example is drawn
// again (go test -run TestReportsExample . -args -update-docs).
func TestReportsExample(t *testing.T) {
	const doc, cmd = "docs/reports.md", "$ benchgate compare base.txt head.txt"
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "```\n"+cmd+"\n")
	if start < 0 {
		t.Fatalf("%s has no block that starts with %q", doc, cmd)
	}
	bodyStart := start + len("```\n"+cmd+"\n")
	end := strings.Index(text[bodyStart:], "```\n")
	if end < 0 {
		t.Fatalf("%s: the example's block does not end", doc)
	}
	block := text[bodyStart : bodyStart+end]

	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("testdata/reports")
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), []string{"compare", "base.txt", "head.txt"}, cli.Env{
		Getenv: func(string) string { return "" }, Stdout: &out, Stderr: &errOut,
	})
	if code != cli.ExitFail {
		t.Fatalf("compare exited %d, want %d (the example's regressions)\n%s", code, cli.ExitFail, errOut.String())
	}
	got := strings.Split(out.String(), "\n")

	if *updateDocs {
		// The example shows the output up to its improvements.
		n := len(got)
		for i, l := range got {
			if strings.HasPrefix(l, "Improvements (") {
				n = i
				break
			}
		}
		example := strings.Join(got[:n], "\n") + "\n…\n"
		if err := os.WriteFile(wd+"/"+doc, []byte(text[:bodyStart]+example+text[bodyStart+end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
	if len(want) < 2 || want[len(want)-1] != "…" {
		t.Fatalf("%s: the example's block should end with a line \"…\"", doc)
	}
	want = want[:len(want)-1]
	if len(want) < 10 {
		t.Fatalf("%s: the example shows %d lines, want the verdict and the regressions", doc, len(want))
	}
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			g := "(none)"
			if i < len(got) {
				g = got[i]
			}
			t.Fatalf("%s: the terminal example's line %d is stale:\n doc:    %q\n binary: %q\ndraw it again: go test -run TestReportsExample . -args -update-docs", doc, i+1, w, g)
		}
	}
}
