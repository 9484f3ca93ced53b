package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/benchgate/benchgate/internal/bisect"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
)

// bisect finds the commits on the first-parent path from --good to --bad
// where benchmarks changed (internal/bisect); each step is a run of base
// against head as `run` measures it, its rows turned into changes.
func (a *app) bisect(ctx context.Context) int {
	dir := a.resolve(a.cfg.Dir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return a.errorf(ExitUsage, "-C %s: not a directory", dir)
	}
	repo, shas, err := a.openRepo(ctx, dir, "", flagRef{"--good", a.cfg.Good}, flagRef{"--bad", a.cfg.Bad})
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	if shas[0] == shas[1] {
		return a.errorf(ExitUsage, "--good %s and --bad %s are the same commit %s: nothing to bisect", a.cfg.Good, a.cfg.Bad, gitrev.Short(shas[0]))
	}
	logged, err := repo.FirstParents(ctx, shas[0], shas[1])
	if err != nil {
		return a.errorf(ExitUsage, "--good %s --bad %s: %v", a.cfg.Good, a.cfg.Bad, pipeline.OneLine(err))
	}
	path := make([]bisect.Commit, len(logged))
	for i, c := range logged {
		path[i] = bisect.Commit{SHA: c.SHA, Subject: c.Subject}
	}
	if err := repo.Cleanup(ctx); err != nil {
		return a.errorf(ExitTool, "%v", pipeline.OneLine(err))
	}
	cmp := &stepComparer{a: a, dir: dir}
	res, err := bisect.Run(ctx, cmp, path, bisect.Options{
		Rounds: a.cfg.Count, MaxRounds: a.cfg.MaxCount, Resolution: a.cfg.Resolution,
		Progress: a.bisectProgress(len(path) - 1),
	})
	var se *stepError
	switch {
	case errors.As(err, &se):
		return se.code
	case err != nil:
		return a.errorf(ExitTool, "%v", err)
	}
	if err := a.bisectReport(res); err != nil {
		return a.errorf(ExitTool, "%v", err)
	}
	return ExitPass
}

// bisectProgress prints each step on stderr with the steps left.
func (a *app) bisectProgress(commits int) func(bisect.Step) {
	if a.cfg.Quiet {
		return nil
	}
	fmt.Fprintf(a.env.Stderr, "benchgate: bisect: %d commits from %s to %s\n", commits, a.cfg.Good, a.cfg.Bad)
	return func(s bisect.Step) {
		fmt.Fprintf(a.env.Stderr, "benchgate: bisect step %d: %s..%s (%d commit(s), %d rounds); about %d step(s) left after it\n",
			s.N, gitrev.Short(s.A.SHA), gitrev.Short(s.B.SHA), s.Commits, s.Rounds, s.Remaining)
	}
}

// stepComparer measures one step with the run's stages: the user's
// configuration with the step's rounds, no confirmation, no explanation,
// no reports.
type stepComparer struct {
	a   *app
	dir string
	n   int
}

// stepError carries the exit status of a step that failed; its message
// has been printed.
type stepError struct{ code int }

func (e *stepError) Error() string { return fmt.Sprintf("a step failed (exit status %d)", e.code) }

func (c *stepComparer) Compare(ctx context.Context, x, y bisect.Commit, rounds int) ([]bisect.Change, error) {
	c.n++
	cfg := *c.a.cfg
	cfg.Count, cfg.Confirm, cfg.Explain, cfg.Quiet = rounds, false, false, true
	cfg.Exports, cfg.JSON, cfg.Markdown, cfg.Out = nil, "", "", ""
	cfg.Ledger, cfg.Record = "", false
	out := ""
	if c.a.cfg.Out != "" {
		out = filepath.Join(c.a.cfg.Out, fmt.Sprintf("step-%d", c.n))
	}
	env := c.a.env
	env.Stdout = io.Discard
	step := &app{env: env, cfg: &cfg}
	// A measurement cleans its repository up when it ends: each step
	// opens its own.
	repo, err := gitrev.Open(ctx, c.dir, c.a.gitOptions()...)
	if err != nil {
		return nil, err
	}
	o := step.measure(ctx, repo, job{
		base: pipeline.Rev{SHA: x.SHA, Label: gitrev.Short(x.SHA)}, head: pipeline.Rev{SHA: y.SHA, Label: gitrev.Short(y.SHA)},
		dir: c.dir, out: out,
	})
	if (o.code != ExitPass && o.code != ExitFail) || o.verdict == nil {
		return nil, &stepError{max(o.code, ExitTool)}
	}
	return changes(*o.verdict), nil
}

// changes are a verdict's time and allocation rows as the search reads
// them: a time row's paired interval (unknown without one); an allocation
// or instruction row's exact change (none when the gate calls it
// unchanged: below the instructions threshold). An allocation row whose sides vary across rounds
// (unstable: background allocations at a small b.N) is left out: more
// rounds would not make it exact.
func changes(v gate.Verdict) []bisect.Change {
	var out []bisect.Change
	for _, r := range v.Results {
		ch := bisect.Change{Key: bisect.Key{Package: r.Package, Benchmark: r.Name, Unit: r.Unit}}
		switch r.Kind {
		case gate.Time:
			if r.Interval != nil {
				ch.Change, ch.Low, ch.High, ch.Known = r.Interval.Estimate, r.Interval.Low, r.Interval.High, true
			} else if r.Delta != nil {
				ch.Change = *r.Delta
			}
		case gate.Allocs, gate.Bytes, gate.Instructions:
			switch r.Status {
			case gate.Unchanged:
				ch.Known = true
			case gate.Regression, gate.Improvement:
				if r.Comparison.Delta == nil {
					continue // 0 -> N: no fraction to report
				}
				d := *r.Comparison.Delta
				ch.Change, ch.Low, ch.High, ch.Known = d, d, d, true
			default:
				continue
			}
		default:
			continue
		}
		out = append(out, ch)
	}
	return out
}

// bisectJSON is `bisect --json`'s document (docs/json-schema.md).
type bisectJSON struct {
	Good      string          `json:"good"`
	Bad       string          `json:"bad"`
	Culprits  []culpritJSON   `json:"culprits"`
	Undecided []undecidedJSON `json:"undecided"`
	Steps     int             `json:"steps"`
}

type culpritJSON struct {
	Commit    string  `json:"commit"`
	Subject   string  `json:"subject"`
	Benchmark string  `json:"benchmark"`
	Package   string  `json:"package"`
	Unit      string  `json:"unit"`
	Change    float64 `json:"change"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
}

type undecidedJSON struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	Benchmark string  `json:"benchmark"`
	Package   string  `json:"package"`
	Unit      string  `json:"unit"`
	Change    float64 `json:"change"`
}

// bisectReport writes the culprits to stdout (a table, or JSON with
// --format json) and to the --json file.
func (a *app) bisectReport(res *bisect.Result) error {
	doc := bisectJSON{Good: a.cfg.Good, Bad: a.cfg.Bad, Culprits: []culpritJSON{}, Undecided: []undecidedJSON{}, Steps: res.Steps}
	for _, c := range res.Culprits {
		doc.Culprits = append(doc.Culprits, culpritJSON{c.Commit.SHA, c.Commit.Subject, c.Benchmark, c.Package, c.Unit, c.Change.Change, c.Low, c.High})
	}
	for _, u := range res.Undecided {
		doc.Undecided = append(doc.Undecided, undecidedJSON{u.From.SHA, u.To.SHA, u.Benchmark, u.Package, u.Unit, u.Change.Change})
	}
	js, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	js = append(js, '\n')
	if a.cfg.JSON != "" {
		// Like every report: never through a symbolic link at the path.
		if err := a.writeOutput("--json", a.cfg.JSON, js); err != nil {
			return err
		}
	}
	if a.cfg.Format == "json" {
		_, err := a.env.Stdout.Write(js)
		return err
	}
	return writeCulprits(a.env.Stdout, res)
}

// writeCulprits is the text report: one line per culprit, largest first.
// Commit subjects and benchmark names are untrusted (anyone who merged a
// pull request wrote one): they are printed inert (report.Inert), with no
// control character and no workflow command, as bisect runs in CI steps.
func writeCulprits(w io.Writer, res *bisect.Result) error {
	if len(res.Culprits) == 0 {
		fmt.Fprintf(w, "no commit changed a benchmark (%d step(s))\n", res.Steps)
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "commit\tbenchmark\tunit\tchange\tinterval\tsubject")
		for _, c := range res.Culprits {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%+.1f%%\t[%+.1f%%, %+.1f%%]\t%s\n", report.Inert(gitrev.Short(c.Commit.SHA)), report.Inert(c.Benchmark), report.Inert(c.Unit),
				100*c.Change.Change, 100*c.Low, 100*c.High, report.Inert(c.Commit.Subject))
		}
		tw.Flush()
		fmt.Fprintf(w, "%d culprit(s) in %d step(s)\n", len(res.Culprits), res.Steps)
	}
	for _, u := range res.Undecided {
		fmt.Fprintf(w, "undecided: %s %s between %s and %s (%+.1f%%, interval too wide at the most rounds)\n", report.Inert(u.Benchmark), report.Inert(u.Unit),
			report.Inert(gitrev.Short(u.From.SHA)), report.Inert(gitrev.Short(u.To.SHA)), 100*u.Change.Change)
	}
	return nil
}
