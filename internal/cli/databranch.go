package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/event"
	"github.com/benchgate/benchgate/internal/github"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/historypage"
	"github.com/benchgate/benchgate/internal/ledger"
)

// The files of the action's data branch (input history).
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

// checkHistoryBranch refuses a data branch (input history) that holds code: the
// default branch, the branch pushed to, or the pull request's base. The
// data branch gets a commit from every recorded push; on a code branch,
// with a token whose pushes start workflows, each would start another
// recording run.
func checkHistoryBranch(branch string, target event.Target) error {
	for _, c := range []struct{ ref, what string }{
		{"refs/heads/" + target.DefaultBranch, "the default branch"},
		{target.Ref, "the branch this push updated"},
		{"refs/heads/" + target.BaseRef, "the pull request's base branch"},
	} {
		if c.ref == "refs/heads/"+branch {
			return fmt.Errorf("input history: %q is %s: the ledger needs a branch of its own, which benchgate creates (such as benchgate-data)", branch, c.what)
		}
	}
	return nil
}

// recordFactor is how many times the count input's default a push that
// records runs: a push is off every pull request's path, and each merge's
// noise adds up in the ledger's windows (docs/ledger.md#how-much-a-ledger-can-see).
const recordFactor = 3

// recordRounds gives a push that records recordFactor × the rounds when
// the count input is not set.
func recordRounds(cfg *config.Config, hist *dataBranch, stderr io.Writer) {
	if hist == nil || !hist.record || cfg.Given["count"] {
		return
	}
	cfg.Count *= recordFactor
	fmt.Fprintf(stderr, "benchgate: history: this push records with %d rounds (%d× the default count: off the pull requests' path, and the ledger adds up each merge's noise; --count in the args input sets it)\n", cfg.Count, recordFactor)
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
// rewrites the history page from the ledger as it then stands, in one
// commit: the page on the branch is always the one drawn from the ledger
// beside it. When another push recorded meanwhile, the commit is made
// again on top of it (github.CommitFiles), so neither loses lines and no
// page of an older ledger wins the race. The branch's ledger keeps its
// newest ledger.MaxBytes (what an analysis reads): older lines stay in
// the branch's history.
func (d *dataBranch) publish(ctx context.Context, headSHA, repoURL string, o ledger.Options) (int, error) {
	if !d.record {
		return 0, nil
	}
	data, err := os.ReadFile(d.local)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil // nothing recorded (a partial run)
	}
	if err != nil {
		return 0, err
	}
	if len(data) <= d.read {
		return 0, nil
	}
	lines := data[d.read:]
	n := bytes.Count(lines, []byte("\n"))
	msg := fmt.Sprintf("benchgate: record %s (%d changes) and the history page", gitrev.Short(headSHA), n)
	title := "benchgate history of " + d.owner + "/" + d.repo
	err = d.c.CommitFiles(ctx, d.owner, d.repo, d.branch, msg, []string{ledgerFile, pageFile}, func(old map[string][]byte) (map[string][]byte, bool, error) {
		all, appended := github.Append(old[ledgerFile], lines)
		all = tail(all, ledger.MaxBytes)
		entries, err := ledger.Read(bytes.NewReader(all), d.branch+":"+ledgerFile)
		if err != nil {
			return nil, false, fmt.Errorf("the history page: %w", err)
		}
		h, err := ledger.AnalyzeContext(ctx, entries, o)
		if err != nil {
			return nil, false, err
		}
		var page bytes.Buffer
		if err := historypage.Write(&page, h, historypage.Options{RepoURL: repoURL, Title: title}); err != nil {
			return nil, false, fmt.Errorf("the history page: %w", err)
		}
		if !appended && bytes.Equal(old[pageFile], page.Bytes()) {
			return nil, false, nil
		}
		return map[string][]byte{ledgerFile: all, pageFile: page.Bytes()}, true, nil
	})
	if err != nil {
		return 0, fmt.Errorf("recording on branch %s: %w", d.branch, err)
	}
	return n, nil
}

// tail is data from the first line that starts in its last max bytes.
func tail(data []byte, max int) []byte {
	if len(data) <= max {
		return data
	}
	cut := len(data) - max
	if data[cut-1] == '\n' {
		return data[cut:]
	}
	if i := bytes.IndexByte(data[cut:], '\n'); i >= 0 {
		return data[cut+i+1:]
	}
	return nil
}
