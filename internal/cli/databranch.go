package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/event"
	"github.com/benchgate/benchgate/internal/github"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/historypage"
	"github.com/benchgate/benchgate/internal/ledger"
)

// The files of the action's data branch (input history-branch).
const (
	ledgerFile = "ledger.jsonl"
	pageFile   = "index.html"
)

// dataBranch is the action's history (input history: true): the ledger on
// the data branch, copied into a file of benchgate's own for the run to
// read (trends) and, on a push to the default branch, to record into;
// the recorded lines are then appended to the branch's ledger and the
// history page rewritten. The token stays in this process: the benchmarks
// never see it (docs/security.md).
type dataBranch struct {
	c                   *github.Commenter
	owner, repo, branch string
	dir                 string // benchgate's own temporary directory
	local               string // the ledger's copy: the run's --ledger
	record              bool   // a push to the default branch
	read                int    // the bytes the branch's ledger had
}

// openDataBranch reads the ledger of the history-branch input into a
// temporary file and points cfg's --ledger at it; on a push to the
// default branch it sets --record too. Without a token or repository, or
// when the branch cannot be read, it returns nil and why: the run goes
// on without history.
func (a *app) openDataBranch(ctx context.Context, cfg *config.Config, r *actionRun) (*dataBranch, error) {
	owner, repo, ok := a.gh.OwnerRepo()
	c := r.client
	switch {
	case c == nil && r.clientErr != nil:
		return nil, fmt.Errorf("input history: %v", r.clientErr)
	case c == nil || !ok:
		return nil, errors.New("input history: no token input or GITHUB_REPOSITORY: no history")
	}
	d := &dataBranch{c: c, owner: owner, repo: repo, branch: r.act.HistoryBranch, record: recordsHistory(a.gh.EventName, r.target)}
	data, _, err := c.ReadFile(ctx, owner, repo, d.branch, ledgerFile)
	if err != nil && !errors.Is(err, github.ErrNoBranch) {
		return nil, fmt.Errorf("input history: reading the ledger: %v", err)
	}
	if d.dir, err = os.MkdirTemp("", "benchgate-history-"); err != nil {
		return nil, fmt.Errorf("input history: %v", err)
	}
	d.local, d.read = filepath.Join(d.dir, ledgerFile), len(data)
	if len(data) > 0 {
		if err := os.WriteFile(d.local, data, 0o600); err != nil {
			d.close()
			return nil, fmt.Errorf("input history: %v", err)
		}
	}
	cfg.Ledger, cfg.Record = d.local, d.record
	what := "reads"
	if d.record {
		what = "records into"
	}
	fmt.Fprintf(a.env.Stderr, "benchgate: history: this run %s %s on branch %s (%d bytes)\n", what, ledgerFile, d.branch, len(data))
	return d, nil
}

// recordsHistory reports whether a run records: a push to the default
// branch. Pull requests, merge queues and other events only read.
func recordsHistory(eventName string, target event.Target) bool {
	return eventName == "push" && target.DefaultBranch != "" && target.Ref == "refs/heads/"+target.DefaultBranch
}

func (d *dataBranch) close() {
	if d != nil && d.dir != "" {
		os.RemoveAll(d.dir)
	}
}

// publish appends the lines this run recorded to the branch's ledger and
// rewrites the history page from the ledger as it then stands.
func (d *dataBranch) publish(ctx context.Context, headSHA, repoURL string, o ledger.Options) (int, error) {
	if !d.record {
		return 0, nil
	}
	data, err := os.ReadFile(d.local)
	if errors.Is(err, os.ErrNotExist) || len(data) <= d.read {
		return 0, nil // nothing recorded (a partial run)
	}
	if err != nil {
		return 0, err
	}
	lines := data[d.read:]
	n := bytes.Count(lines, []byte("\n"))
	msg := fmt.Sprintf("benchgate: record %s (%d changes)", gitrev.Short(headSHA), n)
	if err := d.c.AppendFile(ctx, d.owner, d.repo, d.branch, ledgerFile, lines, msg); err != nil {
		return 0, fmt.Errorf("appending to %s on branch %s: %w", ledgerFile, d.branch, err)
	}
	all, _, err := d.c.ReadFile(ctx, d.owner, d.repo, d.branch, ledgerFile)
	if err != nil {
		return n, fmt.Errorf("the history page: %w", err)
	}
	entries, err := ledger.Read(bytes.NewReader(all), d.branch+":"+ledgerFile)
	if err != nil {
		return n, fmt.Errorf("the history page: %w", err)
	}
	var page bytes.Buffer
	if err := historypage.Write(&page, ledger.Analyze(entries, o), historypage.Options{RepoURL: repoURL, Title: "benchgate history of " + d.owner + "/" + d.repo}); err != nil {
		return n, fmt.Errorf("the history page: %w", err)
	}
	if err := d.c.PutFile(ctx, d.owner, d.repo, d.branch, pageFile, page.Bytes(), "benchgate: history page after "+gitrev.Short(headSHA)); err != nil {
		return n, fmt.Errorf("writing %s on branch %s: %w", pageFile, d.branch, err)
	}
	return n, nil
}
