package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/github"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
)

// A platform is where a CI shows a verdict: the one sticky comment of the
// change under review, a summary of the job, the step's outputs, and
// annotations at lines of the repository. publish gives every platform
// the same report input and the same annotations; the action's platform
// is GitHub (githubPlatform), and a second CI's command implements the
// same five methods.
type platform interface {
	// comment makes v's report the change's sticky comment, fitted by
	// report to what the platform takes; a note says why it did not.
	comment(ctx context.Context, v gate.Verdict, meta report.Meta) *report.Note
	// summary writes v's report where the job shows it (report fits it
	// to the room).
	summary(v gate.Verdict, meta report.Meta)
	outputs(map[string]string)
	annotate([]report.Annotation)
}

// publish shows the verdict of o on pl: the sticky comment when the run
// comments, then the summary with the note of a comment that could not be
// made, the outputs and the annotations. None of it changes the exit
// status.
func (a *app) publish(ctx context.Context, pl platform, o outcome, comment bool) {
	v, meta := *o.verdict, o.meta
	if comment {
		if n := pl.comment(ctx, v, meta); n != nil {
			meta.Notes = append(meta.Notes, *n)
		}
	}
	pl.summary(v, meta)
	pl.outputs(map[string]string{
		"verdict":     map[bool]string{true: "pass", false: "fail"}[v.Pass],
		"regressions": strconv.Itoa(len(v.Regressions())),
		"blind":       strconv.Itoa(len(v.Blind())),
		"report-json": reportJSON,
	})
	pl.annotate(report.Annotations(v, meta))
}

// githubPlatform publishes to GitHub: the job summary, the step outputs
// and annotations as workflow commands, the sticky comment through the
// action's API client.
type githubPlatform struct {
	app     *app
	actions *github.Actions
	run     *actionRun
}

// warn is a warning annotation, or a line on stderr when that fails.
func (pl *githubPlatform) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if err := pl.actions.Annotate(github.Warning, "", 0, "benchgate", msg); err != nil {
		fmt.Fprintf(pl.app.env.Stderr, "benchgate: warning: %s\n", msg)
	}
}

// summary writes the report to the job summary, with the old inputs the
// workflow still sets (the summary's, not the pull request's), in the
// room earlier steps left.
func (pl *githubPlatform) summary(v gate.Verdict, meta report.Meta) {
	meta.Deprecated = pl.run.act.Deprecated
	room, err := pl.actions.SummaryRoom()
	if err != nil {
		room = github.MaxStepSummary
	}
	pl.markdown(report.Markdown(v, meta, report.Options{MaxChars: room}))
}

// markdown appends markdown to the job summary.
func (pl *githubPlatform) markdown(md string) {
	if err := pl.actions.StepSummary(md); err != nil && !errors.Is(err, github.ErrNotInActions) {
		pl.warn("job summary: %v", err)
	}
}

func (pl *githubPlatform) outputs(out map[string]string) {
	if err := pl.actions.SetOutputs(out); err != nil && !errors.Is(err, github.ErrNotInActions) {
		pl.warn("step outputs: %v", err)
	}
}

// comment upserts the sticky comment and returns a note (also warned
// about) when it could not.
func (pl *githubPlatform) comment(ctx context.Context, v gate.Verdict, meta report.Meta) *report.Note {
	n := pl.upsert(ctx, v, meta)
	if n != nil {
		pl.warn("%s", report.NoteText(*n))
	}
	return n
}

func (pl *githubPlatform) upsert(ctx context.Context, v gate.Verdict, meta report.Meta) *report.Note {
	a, r := pl.app, pl.run
	if readOnlyFork(a.gh.EventName, r.target) {
		return &report.Note{Code: report.NoteFork}
	}
	owner, repo, ok := a.gh.OwnerRepo()
	switch {
	case a.gh.Token == "":
		return &report.Note{Code: report.NoteNoToken}
	case !ok:
		return &report.Note{Code: report.NoteNoRepository}
	case r.clientErr != nil:
		return commentNote(r.clientErr)
	}
	c := r.client
	if err := r.trust.checkPullRequest(ctx, c, owner, repo, r.target.PRNumber); err != nil {
		return &report.Note{Code: report.NoteNotThisPR, Err: err.Error()}
	}
	if r.act.Comment == "on-change" && !changed(v) {
		exists, err := c.Exists(ctx, owner, repo, r.target.PRNumber, r.act.CommentKey)
		if err != nil {
			return commentNote(err)
		}
		if !exists {
			fmt.Fprintf(a.env.Stderr, "benchgate: nothing changed; no comment (comment: on-change)\n")
			return nil
		}
		// An earlier comment exists: bring it up to date rather than
		// leave a stale regression on the pull request.
	}
	opts := report.Options{DetailsURL: a.gh.RunURL(), MaxChars: github.CommentRoom(r.act.CommentKey)}
	body := report.Markdown(v, meta, opts)
	res, err := c.Upsert(ctx, owner, repo, r.target.PRNumber, r.act.CommentKey, body)
	if errors.Is(err, github.ErrTooLong) {
		// A server with a lower limit than github.com's: half as much.
		opts.MaxChars = len(body) / 2
		res, err = c.Upsert(ctx, owner, repo, r.target.PRNumber, r.act.CommentKey, report.Markdown(v, meta, opts))
	}
	if err != nil {
		return commentNote(err)
	}
	fmt.Fprintf(a.env.Stderr, "benchgate: pull request comment %s: %s\n", res.Action, res.URL)
	return nil
}

func commentNote(err error) *report.Note {
	if errors.Is(err, github.ErrForbidden) {
		return &report.Note{Code: report.NoteReadOnly}
	}
	return &report.Note{Code: report.NoteCommentFailed, Err: pipeline.OneLine(err)}
}

// annotate places report's annotations in the workspace (place) and
// emits the worst of each level that GitHub shows.
func (pl *githubPlatform) annotate(as []report.Annotation) {
	ws := firstNonEmpty(pl.app.gh.Workspace, pl.app.env.Dir)
	var out []github.Annotation
	for _, an := range as {
		if g, ok := place(an, pl.app.gh.Workspace, ws, pl.run.dir); ok {
			out = append(out, g)
		}
	}
	if dropped, err := pl.actions.AnnotateWorst(out); err != nil && !errors.Is(err, github.ErrNotInActions) {
		fmt.Fprintf(pl.app.env.Stderr, "benchgate: warning: annotations: %v\n", err)
	} else if dropped > 0 {
		fmt.Fprintf(pl.app.env.Stderr, "benchgate: %d more regressions are in the summary (GitHub shows 10 annotations per type)\n", dropped)
	}
}

// place puts annotation an at its line of the workspace ws, whose
// module is in moduleDir (the working-directory input): a regression at
// its benchmark's function, found in the checkout (GITHUB_WORKSPACE; ""
// for none), an explanation at its line of the module, never outside the
// workspace (ok false: not shown).
func place(an report.Annotation, checkout, ws, moduleDir string) (github.Annotation, bool) {
	g := github.Annotation{Level: github.Level(an.Level), Title: an.Title, Message: an.Message, Severity: an.Severity}
	switch {
	case an.Bench != nil:
		g.File, g.Line = findBenchmark(checkout, moduleDir, an.Bench.Package, an.Bench.Name)
	case an.File != "":
		mod, err := explain.ModuleRoot(moduleDir)
		if err != nil || ws == "" || !filepath.IsLocal(filepath.FromSlash(an.File)) {
			return g, false
		}
		rel, err := filepath.Rel(ws, filepath.Join(mod, filepath.FromSlash(an.File)))
		if err != nil || !filepath.IsLocal(rel) {
			return g, false
		}
		g.File, g.Line = filepath.ToSlash(rel), an.Line
	}
	return g, true
}
