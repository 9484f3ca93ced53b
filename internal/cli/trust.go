package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/internal/event"
	"github.com/benchgate/benchgate/internal/github"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/policy"
)

// What the action trusts, and what it does not.
//
// The fork recipe's workflow_run job reads an artifact that a pull request's
// run wrote: results, shard.json and the pull request number. On a fork's
// pull request, that run executed the fork's code, so every byte of the
// artifact may be forged. The job itself holds a write token. benchgate
// therefore takes the facts it acts on from the workflow_run event, which
// GitHub writes:
//
//   - the pr-number input is commented on only after GET /pulls/{n} shows a
//     pull request whose head commit is workflow_run.head_sha and whose head
//     repository is workflow_run.head_repository; otherwise nothing is
//     commented and a warning says why (checkPullRequest);
//   - the report's head commit is workflow_run.head_sha, not shard.json's, and
//     the unverifiable base commit is left out (trustedCommits).
//
// Running the benchmarks themselves on such events needs the
// allow-privileged-events opt-in (event.ErrPrivilegedEvent); mode merge runs
// no code and needs none.

// trust is what the action learned from the event, for checking artifacts
// and the pr-number input against it.
type trust struct {
	event string             // GITHUB_EVENT_NAME
	run   *event.WorkflowRun // for workflow_run; nil if the event could not be read
	// prHead is the pull request's head commit (pull_request.head.sha), which
	// a shard records beside the test merge commit it measured so that a
	// workflow_run job can compare it with workflow_run.head_sha.
	prHead string
}

// artifactJob reports whether the run reads results produced by another,
// possibly untrusted, run: a workflow_run job.
func (t trust) artifactJob() bool { return t.event == "workflow_run" }

// artifact says, for a merge, that the shards' directories are another
// run's artifact (a workflow_run job): the report names the event's head
// commit, never the manifests' (pipeline.Artifact); nil otherwise.
func (t trust) artifact() *pipeline.Artifact {
	if !t.artifactJob() {
		return nil
	}
	if t.run == nil {
		return &pipeline.Artifact{}
	}
	return &pipeline.Artifact{HeadSHA: t.run.HeadSHA}
}

// checkPullRequest decides whether pull request number of owner/repo may get
// the comment. Outside a workflow_run job the number is the event's or the
// workflow author's, and trusted. In a workflow_run job it comes from an
// artifact: GitHub must confirm that the pull request's head is the run's
// commit, in the run's repository. The error says why not, for the job
// summary.
func (t trust) checkPullRequest(ctx context.Context, c *github.Commenter, owner, repo string, number int) error {
	if !t.artifactJob() {
		return nil
	}
	run := t.run
	if run == nil {
		return fmt.Errorf("the workflow_run event could not be read, so pull request #%d (the pr-number input) cannot be checked", number)
	}
	pr, err := c.PullRequest(ctx, owner, repo, number)
	var apiErr *github.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound:
		return fmt.Errorf("pr-number %d is not a pull request of %s/%s", number, owner, repo)
	case err != nil:
		return fmt.Errorf("could not check pull request #%d (the pr-number input) against the workflow_run event: %s", number, pipeline.OneLine(err))
	}
	sameSHA := strings.EqualFold(pr.HeadSHA, run.HeadSHA)
	sameRepo := pr.HeadRepo != "" && strings.EqualFold(pr.HeadRepo, run.HeadRepo)
	if sameSHA && sameRepo {
		return nil
	}
	why := "the number comes from the artifact, which the pull request's run wrote"
	if sameRepo {
		why = "the pull request has new commits since the run (its next run will comment), or " + why
	}
	return fmt.Errorf("pr-number %d is not the pull request of this run: its head is %s in %s, the workflow_run event's is %s in %s (%s)",
		number, gitrev.Short(pr.HeadSHA), orDeleted(pr.HeadRepo), gitrev.Short(run.HeadSHA), orDeleted(run.HeadRepo), why)
}

func orDeleted(repo string) string {
	if repo == "" {
		return "a deleted repository"
	}
	return repo
}

// checkLabeler lets the accept label accept only on a maintainer's word
// (docs/policy.md#accepted-regressions-who-may-accept): the labeled
// event's sender must not be the pull request's author, must not be a bot
// unless the policy file names it (trusted-bots), and must have write access
// to the repository, as GitHub's collaborator permission API states it
// (GET /repos/{owner}/{repo}/collaborators/{sender}/permission: admin,
// maintain or write; the triage role can add labels and is not enough).
// A trusted bot is not looked up (an app has no collaborator role).
// Otherwise the label accepts nothing, and a note says why.
func (a *app) checkLabeler(ctx context.Context, r *actionRun, trusted func() []string, acc *pipeline.Acceptance) {
	target := r.target
	if acc.Label == "" {
		return
	}
	sender := target.Sender
	n := policy.Note{Label: acc.Label, Commit: gitrev.Short(target.HeadSHA), Sender: sender}
	isBot := strings.EqualFold(target.SenderType, "Bot") || strings.HasSuffix(strings.ToLower(sender), "[bot]")
	trustedBot := isBot && slices.ContainsFunc(trusted(), func(b string) bool { return strings.EqualFold(b, sender) })
	switch {
	case target.Author == "":
		n.Code, n.Err = policy.LabelUnverified, "the event names no pull request author to tell the sender from"
	case strings.EqualFold(sender, target.Author):
		n.Code = policy.LabelByAuthor
	case trustedBot:
		return
	case isBot:
		n.Code = policy.LabelByBot
	default:
		p, err := a.permission(ctx, r, sender)
		switch {
		case err != nil:
			n.Code, n.Err = policy.LabelUnverified, pipeline.OneLine(err)
		case !p.CanWrite():
			n.Code, n.Access = policy.LabelNoWrite, p.String()
		default:
			return
		}
	}
	acc.Label, acc.LabelBy, acc.LabelAt = "", "", ""
	acc.Notes = append(acc.Notes, n)
}

// trustedBots are the bots that the policy file in force names
// (trusted-bots), read from commit sha, where the run reads the policy:
// base, or a stacked pull request's merge base, which only maintainers
// wrote. A file that is missing or does not parse names none (the run
// reports its errors).
func (a *app) trustedBots(ctx context.Context, repo *gitrev.Repo, sha string) []string {
	if a.cfg.Policy == "none" {
		return nil
	}
	rel, err := a.policyPath()
	if err != nil {
		return nil
	}
	name := filepath.ToSlash(rel)
	p, _, err := pipeline.ReadCommitPolicy(ctx, repo, sha, path.Join(filepath.ToSlash(repo.Subdir()), name), name)
	if err != nil || p == nil {
		return nil
	}
	return p.TrustedBots
}

// permission reads login's access to the repository with the action's
// API client.
func (a *app) permission(ctx context.Context, r *actionRun, login string) (github.Permission, error) {
	owner, repo, ok := a.gh.OwnerRepo()
	switch {
	case r.clientErr != nil:
		return github.Permission{}, r.clientErr
	case r.client == nil || !ok:
		return github.Permission{}, errors.New("no token input or GITHUB_REPOSITORY to ask GitHub with")
	}
	return r.client.Permission(ctx, owner, repo, login)
}

// readOnlyFork reports whether the run is a fork's pull_request run, whose
// token GitHub makes read-only: writing the comment would fail with 403. A
// private repository may give forks a write token (a repository setting), so
// there benchgate tries, and a 403 becomes the same note.
func readOnlyFork(eventName string, target event.Target) bool {
	return eventName == "pull_request" && target.Fork && !target.Private
}
