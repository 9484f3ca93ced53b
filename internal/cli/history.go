package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/export"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/ledger"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
)

// historyPage renders the history as one self-contained HTML page
// (--format html); nil until that renderer is built in.
var historyPage func(w io.Writer, h ledger.History) error

// history is `benchgate history`: the ledger's levels, merges and creeps
// (docs/ledger.md). It exits 1 when a creep is still running, 0 without
// one, 2 on bad input.
func (a *app) history(ctx context.Context) int {
	if a.cfg.Format == "html" && historyPage == nil {
		return a.errorf(ExitUsage, "--format html: this build has no history page; use text, markdown or json")
	}
	entries, err := a.readLedger()
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	if entries, err = a.since(ctx, entries); err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	o := ledger.DefaultOptions()
	o.Threshold, o.Alpha = a.cfg.Threshold, a.cfg.Alpha
	h, err := ledger.AnalyzeContext(ctx, entries, o)
	if err != nil {
		return a.errorf(ExitTool, "history: %v", err)
	}
	var js []byte
	if a.cfg.Format == "json" || a.cfg.JSON != "" {
		if js, err = historyJSON(h); err != nil {
			return a.errorf(ExitTool, "history json: %v", err)
		}
	}
	switch a.cfg.Format {
	case "json":
		_, _ = a.env.Stdout.Write(js)
	case "html":
		if err := historyPage(a.env.Stdout, h); err != nil {
			return a.errorf(ExitTool, "history page: %v", err)
		}
	case "markdown":
		if err := report.WriteMarkdown(a.env.Stdout, report.BuildHistory(h), report.Options{}); err != nil {
			return a.errorf(ExitTool, "%v", err)
		}
	default:
		opt := terminal(a.env.Stdout, a.env.Getenv)
		opt.Brief = opt.Brief && !a.cfg.Verbose
		_ = report.WriteText(a.env.Stdout, report.BuildHistory(h), opt)
	}
	if a.cfg.JSON != "" {
		if err := a.writeOutput("--json", a.cfg.JSON, js); err != nil {
			return a.errorf(ExitTool, "%v", err)
		}
	}
	if err := a.ledgerExports(entries); err != nil {
		return a.errorf(ExitTool, "%v", err)
	}
	for _, c := range h.Creeps {
		if c.Running {
			return ExitFail
		}
	}
	return ExitPass
}

// historyJSON is the JSON of the analysis (docs/ledger.md).
func historyJSON(h ledger.History) ([]byte, error) {
	if h.Series == nil {
		h.Series = []ledger.Series{}
	}
	if h.Creeps == nil {
		h.Creeps = []ledger.Creep{}
	}
	for i := range h.Creeps {
		if h.Creeps[i].Contributors == nil {
			h.Creeps[i].Contributors = []ledger.Contributor{}
		}
	}
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// since keeps the entries --since names: from a date on (2006-01-02 or
// RFC 3339), or after a commit the ledger names (a SHA or its prefix, or a
// revision of the repository in -C DIR).
func (a *app) since(ctx context.Context, entries []ledger.Entry) ([]ledger.Entry, error) {
	s := strings.TrimSpace(a.cfg.Since)
	if s == "" {
		return entries, nil
	}
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return ledger.SinceTime(entries, t), nil
		}
	}
	if out, ok := ledger.Since(entries, s); ok {
		return out, nil
	}
	repo, err := gitrev.Open(ctx, a.resolve(a.cfg.Dir), a.gitOptions()...)
	if err != nil {
		return nil, fmt.Errorf("--since %s: not a date (2006-01-02), not a commit of the ledger, and no repository to resolve it in", s)
	}
	sha, err := repo.Resolve(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("--since %s: %v", s, pipeline.OneLine(err))
	}
	if out, ok := ledger.Since(entries, sha); ok {
		return out, nil
	}
	return nil, fmt.Errorf("--since %s: commit %s is not a merge the ledger recorded", s, gitrev.Short(sha))
}

// ledgerExports writes each benchmark's last recorded head median to the
// --export files.
func (a *app) ledgerExports(entries []ledger.Entry) error {
	if len(a.cfg.Exports) == 0 {
		return nil
	}
	last := map[ledger.Key]int{}
	var order []ledger.Key
	for i, e := range entries {
		k := ledger.KeyOf(e)
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = i
	}
	var metrics []export.Metric
	for _, k := range order {
		e := entries[last[k]]
		metrics = append(metrics, export.Metric{Package: e.Package, Name: e.Name, Unit: e.Unit, Value: e.HeadMedian, Samples: e.N})
	}
	for _, t := range a.cfg.Exports {
		b, err := export.Encode(t.Format, metrics)
		if err != nil {
			return fmt.Errorf("--export %s=%s: %v", t.Format, t.Path, err)
		}
		if err := a.writeOutput("--export", t.Path, b); err != nil {
			return err
		}
	}
	return nil
}
