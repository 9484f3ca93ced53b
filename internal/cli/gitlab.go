package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/event"
	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gitlab"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
)

// ciHost is what the sandbox must know of the CI job a command runs in,
// other than the GitHub Action's (which it reads from GITHUB_*): the paths
// to close to the change's code, the sandbox home's default, and why the
// run is privileged ("" when it is not): then a path that cannot be closed
// refuses the run.
type ciHost struct {
	close      []string
	home       string
	privileged string
}

// gitlab runs benchgate in a GitLab CI job: the two commits from GitLab's
// predefined variables (read once: config.GitLab, gitlab.Pipeline.Target),
// the same measurement and judgement as run (measure), then the reports
// the merge request shows (JUnit, Code Quality; Markdown and JSON as
// artifacts) and one sticky note. Publishing problems are one line each;
// the exit status is the gate's.
func (a *app) gitlab(ctx context.Context) int {
	ci, err := config.GitLab(a.env.Getenv)
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	target, err := ci.Target(a.cfg.Base, a.cfg.Head)
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	fmt.Fprintf(a.env.Stderr, "benchgate: %s\n", target.Description)
	a.host = &ciHost{close: []string{ci.ProjectDir, ci.BuildsDir}}
	if ci.ProjectDir != "" {
		// File-type variables and the runner's git credentials live
		// beside the checkout; the sandbox home in it can be cached
		// (GitLab caches only paths inside the project directory).
		a.host.close = append(a.host.close, ci.ProjectDir+".tmp")
		a.host.home = filepath.Join(ci.ProjectDir, ".benchgate-sandbox")
	}
	if target.Privileged {
		a.host.privileged = fmt.Sprintf("merge request !%d from a fork, run in the target project with its CI/CD variables", target.IID)
	}
	dir := a.resolve(a.cfg.Dir)
	repo, shas, err := a.openRepo(ctx, dir, "", flagRef{target.HeadFrom, target.Head}, flagRef{target.BaseFrom, target.Base})
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	headSHA, baseSHA := shas[0], shas[1]
	if baseSHA == headSHA && !a.cfg.AllowSame {
		return a.errorf(ExitUsage, "%s and %s are the same commit %s: nothing to compare (pass --base)", target.BaseFrom, target.HeadFrom, gitrev.Short(baseSHA))
	}
	j := job{
		base: pipeline.Rev{SHA: baseSHA, Label: target.BaseLabel}, head: pipeline.Rev{SHA: headSHA, Label: target.HeadLabel},
		dir: dir, out: a.cfg.Out, confirm: a.cfg.Confirm, prHead: target.MRHead,
		dest:   dest{json: a.cfg.JSON, markdown: a.cfg.Markdown, request: mrRequest(target.IID)},
		accept: localAcceptance(a.cfg.AcceptTrailers, cmp.Or(target.MRHead, headSHA)),
	}
	// A stacked merge request (into another one's branch): the policy
	// comes from the merge base of its target and the default branch.
	stacked := event.Target{PRNumber: target.IID, BaseRef: target.TargetBranch, DefaultBranch: target.DefaultBranch}
	if at, err := stackedPolicy(ctx, repo, stacked, baseSHA); err != nil {
		return a.errorf(ExitTool, "%v", pipeline.OneLine(err))
	} else if at.SHA != "" {
		j.policyAt = at
		fmt.Fprintf(a.env.Stderr, "benchgate: the policy file is read from %s, %s\n", gitrev.Short(at.SHA), at.Label)
	}
	o := a.measure(ctx, repo, j)
	if o.verdict == nil {
		return o.code
	}
	code := o.code
	if err := a.gitlabReports(o, repo.Root(), dir); err != nil {
		fmt.Fprintf(a.env.Stderr, "benchgate: %v\n", err)
		code = max(code, ExitTool)
	}
	a.gitlabNote(ctx, o, ci, target)
	return code
}

// gitlabReports writes the JUnit and Code Quality reports the merge
// request shows, with each row's benchmark function found in the checkout
// (root; the module in dir), never through a symbolic link.
func (a *app) gitlabReports(o outcome, root, dir string) error {
	locate := func(pkg, name string) (string, int) { return findBenchmark(root, dir, pkg, name) }
	fallback := "go.mod"
	if mod, err := explain.ModuleRoot(dir); err == nil {
		if rel, err := filepath.Rel(root, filepath.Join(mod, "go.mod")); err == nil && !strings.HasPrefix(rel, "..") {
			fallback = filepath.ToSlash(rel)
		}
	}
	var errs []error
	if p := a.cfg.GitLab.JUnit; p != "" {
		data, err := report.JUnit(*o.verdict, o.meta, locate)
		if err == nil {
			err = a.writeOutput("--junit", p, data)
		}
		errs = append(errs, err)
	}
	if p := a.cfg.GitLab.CodeQuality; p != "" {
		data, err := report.CodeQuality(*o.verdict, o.meta, locate, fallback)
		if err == nil {
			err = a.writeOutput("--codequality", p, data)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// gitlabNote keeps the sticky note of the merge request, with the token
// read here, after the change's processes are gone, and nowhere else.
// Every way it cannot is one line on stderr; none changes the exit status.
func (a *app) gitlabNote(ctx context.Context, o outcome, ci gitlab.Pipeline, t gitlab.Target) {
	say := func(format string, args ...any) { fmt.Fprintf(a.env.Stderr, "benchgate: "+format+"\n", args...) }
	switch {
	case t.IID == 0:
		return // not a merge request pipeline: nowhere to write
	case a.cfg.GitLab.Note == "never":
		say("no merge request note (--note never)")
		return
	}
	token := strings.TrimSpace(a.env.Getenv(config.GitLabTokenVar))
	if token == "" {
		if t.InFork {
			say("no merge request note: !%d comes from a fork and its pipeline runs in the fork's project, which cannot see the target project's %s; the verdict and exit status stand (docs/gitlab.md#merge-requests-from-forks)", t.IID, config.GitLabTokenVar)
			return
		}
		say("no merge request note: %s is not set (a masked CI/CD variable holding a project access token with the api scope; CI_JOB_TOKEN cannot write notes: docs/gitlab.md#the-note)", config.GitLabTokenVar)
		return
	}
	c, err := gitlab.NewClient(gitlab.Options{APIURL: ci.APIURL, Token: token, Logf: func(f string, args ...any) { say(f, args...) }})
	if err != nil {
		say("no merge request note: %v", err)
		return
	}
	v, key := *o.verdict, a.cfg.GitLab.NoteKey
	if a.cfg.GitLab.Note == "on-change" && !changed(v) {
		exists, err := c.Exists(ctx, t.Project, t.IID, key)
		if err != nil {
			say("%s", noteFailure(err, t))
			return
		}
		if !exists {
			say("nothing changed; no merge request note (--note on-change)")
			return
		}
	}
	// report fits the note to what GitLab takes (bytes: never fewer than
	// its characters), behind the marker's line.
	opts := report.Options{DetailsURL: ci.JobURL, MaxChars: gitlab.MaxNoteLength - len(gitlab.Marker(key)) - 1}
	res, err := c.Upsert(ctx, t.Project, t.IID, key, report.Markdown(v, o.meta, opts), nil)
	if err != nil {
		say("%s", noteFailure(err, t))
		return
	}
	where := fmt.Sprintf("note %d on !%d", res.ID, t.IID)
	if ci.MRProjectURL != "" {
		where = fmt.Sprintf("%s/-/merge_requests/%d#note_%d", strings.TrimRight(ci.MRProjectURL, "/"), t.IID, res.ID)
	}
	say("merge request note %s: %s", res.Action, where)
}

// noteFailure is the one line that says why the note could not be written.
func noteFailure(err error, t gitlab.Target) string {
	const head = "no merge request note: "
	switch {
	case errors.Is(err, gitlab.ErrUnauthorized):
		return head + "GitLab refused " + config.GitLabTokenVar + " (401: a wrong, expired or revoked token); the verdict and exit status stand"
	case errors.Is(err, gitlab.ErrForbidden):
		return fmt.Sprintf(head+"%s may not write notes on !%d (403: it needs the api scope and at least the Reporter role in project %s); the verdict and exit status stand", config.GitLabTokenVar, t.IID, t.Project)
	case errors.Is(err, gitlab.ErrNotFound):
		return fmt.Sprintf(head+"GitLab answered 404 for !%d of project %s (a token of another project cannot see it); the verdict and exit status stand", t.IID, t.Project)
	}
	return head + pipeline.OneLine(err) + "; the verdict and exit status stand"
}

// mrRequest is what the reports call the change a GitLab pipeline judges:
// "MR" in a merge request's pipeline, "" (this change) in a branch's.
func mrRequest(iid int) string {
	if iid > 0 {
		return "MR"
	}
	return ""
}
