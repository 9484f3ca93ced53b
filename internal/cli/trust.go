package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/benchgate/benchgate/internal/event"
	"github.com/benchgate/benchgate/internal/github"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/pipeline"
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

// readOnlyFork reports whether the run is a fork's pull_request run, whose
// token GitHub makes read-only: writing the comment would fail with 403. A
// private repository may give forks a write token (a repository setting), so
// there benchgate tries, and a 403 becomes the same note.
func readOnlyFork(eventName string, target event.Target) bool {
	return eventName == "pull_request" && target.Fork && !target.Private
}
