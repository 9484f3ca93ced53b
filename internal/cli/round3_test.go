package cli

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/ledger"
	"github.com/benchgate/benchgate/internal/testenv"
)

// The reproductions of the round-3 security review (testdata/round3,
// docs/security.md), each run as the review ran it: none does any more
// what it did.

// round3 copies the named files of testdata/round3 into a new directory.
func round3(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", "round3", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runBounded is runIn that fails the test when the command has not
// returned after limit: what a hang looks like (it leaves the command's
// goroutine behind).
func runBounded(t *testing.T, limit time.Duration, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var o, e strings.Builder
		c := Run(context.Background(), args, Env{Stdout: &o, Stderr: &e, Dir: dir, Environ: testenv.EnvWith()})
		done <- result{c, o.String(), e.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(limit):
		t.Fatalf("benchgate %s has not returned after %s", strings.Join(args, " "), limit)
		return 0, "", ""
	}
}

// L1: a rate of 5e-324 (the smallest subnormal) in head made compare loop
// forever. Now the rate is judged on its values, a regression.
func TestRound3SubnormalRate(t *testing.T) {
	dir := round3(t, "rate-base.txt", "rate-head.txt")
	code, out, errs := runBounded(t, time.Minute, dir, "compare", "rate-base.txt", "rate-head.txt", "--format", "json")
	if code != ExitFail {
		t.Fatalf("exit %d, want 1 (items/s fell to nothing)\n%s", code, errs)
	}
	var doc struct {
		Benchmarks []struct {
			Unit, Status string
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range doc.Benchmarks {
		if r.Unit == "items/s" {
			found = r.Status == "regression"
		}
	}
	if !found {
		t.Errorf("no items/s regression in %s", out)
	}
}

// L2: a ledger line with log_ratio 800 made the level +Inf: compare
// panicked in the sparkline before any report was written, and history
// failed on JSON's +Inf. Such a line is now refused by name (|log_ratio| ≤
// 20), before anything is measured; in the action, where the ledger is
// the data branch's, it is a warning and the run goes on without trends.
func TestRound3HugeLedgerValue(t *testing.T) {
	dir := round3(t, "inf.jsonl", "page-base.txt", "page-head.txt")
	for _, args := range [][]string{
		{"compare", "page-base.txt", "page-head.txt", "--ledger", "inf.jsonl"},
		{"history", "--ledger", "inf.jsonl", "--format", "json"},
	} {
		code, _, errs := runBounded(t, time.Minute, dir, args...)
		if code != ExitUsage || !strings.Contains(errs, "--ledger inf.jsonl:2: log_ratio, low, high and se must lie within ±20") {
			t.Errorf("%s: exit %d, want 2 and one line naming inf.jsonl:2 and the bound\n%s", args[0], code, errs)
		}
	}
}

// Every valid ledger makes a report: levels of merges at the bound, chained
// over hundreds of merges (a sum of log ratios far past float64's
// exponent), are capped, and the trend, history's JSON and its page are
// written.
func TestLedgerAtTheBoundReports(t *testing.T) {
	dir := round3(t, "page-base.txt", "page-head.txt")
	var entries []ledger.Entry
	for i := range 300 {
		lr := float64(ledger.MaxLogRatio)
		if i%7 == 3 {
			lr = -lr
		}
		e := ledger.Entry{V: ledger.Version, Head: ledger.Commit{SHA: sha(i + 1)}, Base: ledger.Commit{SHA: sha(i)},
			Package: "example.com/p", Name: "Enc", Unit: "sec/op", Direction: ledger.Lower,
			Change: math.MaxFloat64, LogRatio: lr, Low: lr, High: lr, SE: ledger.MaxLogRatio, Test: "paired", N: 20}
		if i%2 == 0 {
			e.Low, e.SE = -ledger.MaxLogRatio, 0
		}
		entries = append(entries, e)
	}
	if err := ledger.Append(filepath.Join(dir, "l.jsonl"), entries); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runBounded(t, time.Minute, dir, "compare", "page-base.txt", "page-head.txt", "--ledger", "l.jsonl", "--format", "markdown")
	if code != ExitFail || !strings.Contains(out, "Trend") {
		t.Errorf("compare: exit %d, want 1 with the regression's trend\n%.2000s\n%s", code, out, errs)
	}
	for _, format := range []string{"json", "html", "text"} {
		code, out, errs = runBounded(t, time.Minute, dir, "history", "--ledger", "l.jsonl", "--format", format)
		if code == ExitUsage || code == ExitTool || len(out) == 0 {
			t.Errorf("history --format %s: exit %d\n%s", format, code, errs)
		}
		if format == "json" && !json.Valid([]byte(out)) {
			t.Errorf("history --format json: not JSON:\n%.500s", out)
		}
	}
}

// L3: head's file alone declared `Unit p99-sec/op better=higher` and
// turned a +30 % regression into a passing improvement. Unit metadata is
// read from base only: the regression fails, and a warning names head's
// line.
func TestRound3HeadUnitMetadata(t *testing.T) {
	dir := round3(t, "unit-base.txt", "unit-head.txt")
	code, out, errs := runBounded(t, time.Minute, dir, "compare", "unit-base.txt", "unit-head.txt", "--format", "markdown")
	if code != ExitFail {
		t.Fatalf("exit %d, want 1 (p99-sec/op +30 %%)\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "unit-head.txt:5: ignoring Unit p99-sec/op better=higher") {
		t.Errorf("the report does not name head's Unit line:\n%s", out)
	}
}
