package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testenv"
)

// The commands that read files an artifact or a pull request may have
// written, fuzzed end to end in-process: whatever the files hold,
// benchgate returns in time with a documented status (0, 1 or 2; never a
// panic or 3, "could not finish"), and the JSON it prints is JSON.

// fuzzRun runs benchgate in dir with args, within the fuzz bound.
func fuzzRun(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var code int
	var o, e strings.Builder
	testenv.Within(t, 30*time.Second, func() {
		code = Run(context.Background(), args, Env{Stdout: &o, Stderr: &e, Dir: dir, Getenv: func(string) string { return "" }})
	})
	if code != ExitPass && code != ExitFail && code != ExitUsage {
		t.Fatalf("benchgate %s: exit %d\n%s", strings.Join(args, " "), code, e.String())
	}
	return code, o.String(), e.String()
}

func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, b := range files {
		if b == nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzCompare: benchgate compare of any two files (text or go test
// -json), in every format.
func FuzzCompare(f *testing.F) {
	f.Add([]byte("pkg: p\nround: 1\nBenchmarkA-2 10 100 ns/op 10 items/s\nround: 2\nBenchmarkA-2 10 101 ns/op 10 items/s\n"),
		[]byte("pkg: p\nround: 1\nBenchmarkA-2 10 130 ns/op 5e-324 items/s\nround: 2\nBenchmarkA-2 10 131 ns/op 5e-324 items/s\n"), uint8(0))
	f.Fuzz(func(t *testing.T, base, head []byte, format uint8) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string][]byte{"base.txt": base, "head.txt": head})
		f := []string{"json", "markdown", "text"}[int(format)%3]
		code, out, _ := fuzzRun(t, dir, "compare", "base.txt", "head.txt", "--format", f, "--markdown", "r.md")
		if code != ExitUsage && f == "json" && !json.Valid([]byte(out)) {
			t.Fatalf("--format json: not JSON:\n%.500s", out)
		}
	})
}

// FuzzHistory: benchgate history of any ledger, in every format.
func FuzzHistory(f *testing.F) {
	f.Add([]byte(`{"v":1,"head":{"sha":"a"},"name":"X","unit":"sec/op","direction":"lower","log_ratio":0.1,"low":0,"high":0.2,"se":0.05,"change":0.1,"n":10}`+"\n"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string][]byte{"ledger.jsonl": data})
		f := []string{"json", "html", "markdown", "text"}[int(format)%4]
		code, out, _ := fuzzRun(t, dir, "history", "--ledger", "ledger.jsonl", "--format", f)
		if code != ExitUsage && f == "json" && !json.Valid([]byte(out)) {
			t.Fatalf("--format json: not JSON:\n%.500s", out)
		}
	})
}

// FuzzMerge: benchgate merge of a shard directory (a fork's artifact in
// the workflow_run recipe) of any manifest, raw files, failures and
// explanations.
func FuzzMerge(f *testing.F) {
	f.Add([]byte(`{"format":1,"shard":"1/1","all":["p.A"],"assigned":["p.A"],"complete":true,"rounds":2,"base_sha":"a","head_sha":"b","tool":"benchgate dev"}`),
		[]byte("pkg: p\nround: 1\nBenchmarkA-2 10 100 ns/op\nround: 2\nBenchmarkA-2 10 101 ns/op\n"),
		[]byte("pkg: p\nround: 1\nBenchmarkA-2 10 130 ns/op\nround: 2\nBenchmarkA-2 10 131 ns/op\n"),
		[]byte(`[{"package":"p","name":"B","side":"head","message":"panic: ::error::x"}]`), []byte(`[]`))
	f.Fuzz(func(t *testing.T, manifest, base, head, failures, explain []byte) {
		dir := t.TempDir()
		shard := filepath.Join(dir, "shard")
		if err := os.Mkdir(shard, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, shard, map[string][]byte{"shard.json": manifest, "base.txt": base, "head.txt": head, "failures.json": failures, "explain.json": explain})
		code, out, _ := fuzzRun(t, dir, "merge", "shard", "--format", "json", "--markdown", "r.md")
		if code != ExitUsage && !json.Valid([]byte(out)) {
			t.Fatalf("--format json: not JSON:\n%.500s", out)
		}
	})
}
