package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/ledger"
	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/safefile"
)

// trendMerges is how many of the last merges a row's trend shows.
const trendMerges = 20

// checkLedger checks --ledger before anything is measured: a ledger that
// exists must be a regular file (not a link) that parses; with --record a
// missing one must be creatable. The error names the flag.
func (a *app) checkLedger() error {
	if a.cfg.Ledger == "" {
		return nil
	}
	p := a.path(a.cfg.Ledger)
	fi, err := os.Lstat(p)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("--ledger %s: %s %w", a.cfg.Ledger, p, safefile.ErrSymlink)
	case err == nil && a.cfg.Command == "history":
		// history reads it at once.
	case err == nil:
		if _, _, err := a.readLedgerTail(); err != nil {
			return err
		}
	case errors.Is(err, fs.ErrNotExist) && a.cfg.Record:
		if err := checkOutput(p, false); err != nil {
			return fmt.Errorf("--ledger %s: %v", a.cfg.Ledger, err)
		}
	case errors.Is(err, fs.ErrNotExist) && a.cfg.Command == "history":
		return fmt.Errorf("--ledger %s: no such file", a.cfg.Ledger)
	case errors.Is(err, fs.ErrNotExist):
		// Nothing recorded yet: no trends.
	default:
		return fmt.Errorf("--ledger %s: %v", a.cfg.Ledger, unwrapPath(err))
	}
	return nil
}

// readLedger reads --ledger (a regular file, not a link); a missing file
// is an empty ledger. Errors name the flag and the file as given.
// A ledger past its limits (docs/ledger.md#limits) is read from its
// newest part, with a warning.
func (a *app) readLedger() ([]ledger.Entry, error) {
	entries, skipped, err := a.readLedgerTail()
	if skipped.Any() {
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: --ledger %s: past the ledger's limits (docs/ledger.md#limits), %s were not read\n", a.cfg.Ledger, skipped)
	}
	return entries, err
}

func (a *app) readLedgerTail() ([]ledger.Entry, ledger.Skipped, error) {
	f, err := safefile.OpenRegular(a.path(a.cfg.Ledger))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ledger.Skipped{}, nil
	}
	if err != nil {
		return nil, ledger.Skipped{}, fmt.Errorf("--ledger %s: %v", a.cfg.Ledger, unwrapPath(err))
	}
	defer f.Close()
	entries, skipped, err := ledger.ReadTail(f, a.cfg.Ledger)
	if err != nil {
		return nil, skipped, fmt.Errorf("--ledger %v", pipeline.OneLine(err))
	}
	return entries, skipped, nil
}

// recordedNoise is the per-round noise the ledger (--ledger, the
// action's history) recorded for each benchmark on this kind of machine,
// which plans the screen's rounds (gate.PlanScreen); nil without a ledger,
// for a calibration, and when it cannot be read (a warning: the gate
// does not depend on it).
func (a *app) recordedNoise(j job) map[string]float64 {
	if a.cfg.Ledger == "" || j.dest.calibrate {
		return nil
	}
	entries, err := a.readLedger()
	if err != nil {
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: no budget from the ledger: %v\n", err)
		return nil
	}
	return ledger.Noise(entries, machine.Here("", a.environ()))
}

// trends are the ledger's history of the verdict's rows that gate or
// changed, for the report; nil without --ledger or a ledger. A ledger
// that cannot be read is a warning: the gate does not depend on it.
func (a *app) trends(v gate.Verdict) []report.Trend {
	if a.cfg.Ledger == "" {
		return nil
	}
	entries, err := a.readLedger()
	if err != nil {
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: no trends: %v\n", err)
		return nil
	}
	if len(entries) == 0 {
		return nil
	}
	o := ledger.DefaultOptions()
	o.Threshold, o.Alpha = v.Policy.Threshold, v.Policy.Alpha
	return trendsOf(v, ledger.Analyze(entries, o))
}

// trendsOf matches the rows that gate or changed to the ledger's series.
func trendsOf(v gate.Verdict, h ledger.History) []report.Trend {
	names := ledger.Names(v.Results)
	var out []report.Trend
	for i, r := range v.Results {
		if !(r.Fails() || r.Status == gate.Regression || r.Status == gate.Improvement) {
			continue
		}
		k := ledger.Key{Package: r.Package, Name: names[i], Unit: r.Unit}
		s := h.Find(k)
		if s == nil {
			continue
		}
		t := report.Trend{Package: r.Package, Name: r.Name, Unit: r.Unit, Levels: s.Recent(trendMerges), Scale: h.Options.Threshold}
		if c := h.Running(k); c != nil {
			t.Creep = &report.Creep{Change: c.Standing, First: c.First, Since: c.Since}
		}
		out = append(out, t)
	}
	return out
}

// record appends the verdict's changes to --ledger (--record): one line
// per benchmark and unit, base and head with their times and subjects,
// the toolchain and this machine. A partial run records nothing.
func (a *app) record(v gate.Verdict, meta report.Meta) error {
	if !a.cfg.Record || meta.Partial {
		return nil
	}
	run := ledger.Run{
		Recorded: time.Now(),
		Base:     a.commitOf(meta.BaseSHA), Head: a.commitOf(meta.HeadSHA),
		Go:      meta.HeadGo,
		Machine: machine.Here(meta.HeadGo, a.environ()),
	}
	entries := ledger.FromVerdict(v, run, 0.95)
	if err := ledger.Append(a.path(a.cfg.Ledger), entries); err != nil {
		return fmt.Errorf("--ledger %s: %v", a.cfg.Ledger, unwrapPath(err))
	}
	if !a.cfg.Quiet {
		fmt.Fprintf(a.env.Stderr, "benchgate: recorded %d changes in %s\n", len(entries), a.cfg.Ledger)
	}
	return nil
}

// commitOf is sha with its time and subject from the repository of -C;
// without them (no repository) the SHA alone, with a warning.
func (a *app) commitOf(sha string) ledger.Commit {
	c := ledger.Commit{SHA: sha}
	ctx := context.Background()
	repo, err := gitrev.Open(ctx, a.resolve(a.cfg.Dir), a.gitOptions()...)
	if err == nil {
		c.Time, c.Subject, err = repo.Info(ctx, sha)
	}
	if err != nil {
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: ledger: commit %s: %v\n", gitrev.Short(sha), pipeline.OneLine(err))
	}
	return c
}
