package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// history --format html is the page: one chart per series, the creep
// marked, the same analysis as --json.
func TestHistoryHTML(t *testing.T) {
	dir := t.TempDir()
	creepLedger(t, dir)
	code, page, errs := runIn(t, dir, "history", "--ledger", "ledger.jsonl", "--format", "html", "--json", "h.json")
	if code != ExitFail && code != ExitPass {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, js, _ := runIn(t, dir, "history", "--ledger", "ledger.jsonl", "--format", "json")
	var h struct {
		Series []json.RawMessage `json:"benchmarks"`
		Creeps []json.RawMessage `json:"creeps"`
	}
	if err := json.Unmarshal([]byte(js), &h); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || strings.Count(page, `<section class="chart"`) != len(h.Series) || len(h.Series) == 0 {
		t.Errorf("page: %d charts for %d series:\n%.400s", strings.Count(page, `<section class="chart"`), len(h.Series), page)
	}
	if strings.Count(page, `<g class="creep">`) != len(h.Creeps) || len(h.Creeps) == 0 {
		t.Errorf("page marks %d creeps, the analysis has %d", strings.Count(page, `<g class="creep">`), len(h.Creeps))
	}
}
