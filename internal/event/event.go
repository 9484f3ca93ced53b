// Package event decides which two commits benchgate compares from the
// GitHub Actions event that started the run, and refuses the privileged
// events (pull_request_target, workflow_run, issue_comment, ...) that would
// run a fork's code with secrets unless the workflow opted in. It is pure: the
// caller passes the event name, payload and GITHUB_SHA ([Input]) and gets a
// [Target]. Event by event rules are in docs/events.md.
package event

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/benchgate/benchgate/internal/gitrev"
)

// Input is everything Parse needs, read from the environment by the caller.
type Input struct {
	EventName string // GITHUB_EVENT_NAME; empty outside GitHub Actions
	EventPath string // GITHUB_EVENT_PATH, used only to name the file in errors
	Payload   []byte // contents of the event file (see ReadPayload)
	SHA       string // GITHUB_SHA

	Base string // the base input or flag; empty means "from the event"
	Head string // the head input or flag; empty means "from the event"

	// AllowPrivileged is the allow-privileged-events input (or its old name
	// allow-pull-request-target): run on privileged events.
	AllowPrivileged bool
	// MergeOnly says that benchgate will run none of the revisions' code (mode
	// merge): privileged events are allowed, and workflow_run needs no base.
	MergeOnly bool
}

// Target is the pair of revisions to compare and what is known about them.
type Target struct {
	// Base and Head are revisions for git to resolve: full commit names from the
	// event, or whatever the user passed as inputs (branches, tags, commits).
	Base, Head string

	// BaseFromMergeParent reports that Base is the first parent of MergeCommit
	// (Base == MergeCommit+"^1"): pull_request events without a base input, where
	// MergeCommit is GITHUB_SHA, GitHub's test merge commit (and Head unless the
	// head input is set). In a shallow clone "^1" does not resolve: the caller
	// reads the parent from the commit object (git cat-file -p) and fetches it.
	BaseFromMergeParent bool
	MergeCommit         string

	// PRNumber is the pull request number, 0 when the event has none.
	PRNumber int
	// Fork reports that the pull request's head branch lives in another
	// repository than its base (or in a repository that has been deleted). Its
	// workflows get a read-only token, so commenting fails with 403.
	Fork bool
	// Private reports that the base repository is private: its owners may
	// let fork pull requests have a write token (a repository setting).
	Private bool
	// HeadSHA is pull_request.head.sha, the tip of the pull request branch (the
	// commit to attach checks to); empty for events without a pull request.
	HeadSHA string
	// Labels are the pull request's labels when the event fired
	// (pull_request.labels[].name); nil for events without a pull request.
	Labels []string
	// Action is the pull_request event's activity type ("opened",
	// "synchronize", "labeled", ...): the payload's action.
	Action string
	// LabelAdded is, for the action "labeled", the label that was added
	// (label.name), and Sender who added it (sender.login): GitHub fills
	// both, so they are facts, unlike anything the pull request's author
	// writes. HeadSHA is then the commit the label was added for.
	LabelAdded string
	Sender     string
	// SenderType is the sender's account type (sender.type): "User",
	// "Bot" for an app or a bot account, "Organization".
	SenderType string
	// Author is the pull request's author (pull_request.user.login).
	Author string
	// BaseRef is the branch the pull request merges into
	// (pull_request.base.ref) and DefaultBranch the repository's default
	// branch (repository.default_branch); they differ for a stacked pull
	// request, whose base branch is another pull request's.
	BaseRef, DefaultBranch string
	// Ref is the ref a push event updated ("refs/heads/main"); DefaultBranch
	// is set for push events too.
	Ref string

	// WorkflowRun is set for workflow_run events: the run that finished.
	WorkflowRun *WorkflowRun

	// Description says in words what is compared, for logs and reports, e.g.
	// "pull request #12: merge commit abc1234def56 vs its first parent".
	Description string
}

// WorkflowRun is what a workflow_run event says about the run that finished.
// It comes from GitHub, not from the run: a job that posts the run's results
// trusts these fields, and nothing in the run's artifacts.
type WorkflowRun struct {
	ID    int64  // workflow_run.id
	Event string // workflow_run.event: what started the run, e.g. "pull_request"
	// HeadSHA is workflow_run.head_sha: the commit the run was for (for a
	// pull_request run, the pull request's head commit, not the test merge
	// commit it measured).
	HeadSHA string
	// HeadBranch is workflow_run.head_branch (in HeadRepo).
	HeadBranch string
	// HeadRepo is workflow_run.head_repository.full_name, "owner/name": the
	// fork for a pull request from a fork; empty if it was deleted.
	HeadRepo string
	// PullRequests are the numbers in workflow_run.pull_requests; GitHub fills
	// them only for pull requests whose head is in this repository (empty for
	// forks).
	PullRequests []int
}

// Trusted lists the events benchgate runs code on without
// Input.AllowPrivileged: they are started by someone with write access (a
// push, a dispatch, a release, a schedule, the merge queue), or GitHub gives
// a fork's run neither secrets nor a write token (pull_request and its
// reviews). workflow_dispatch is trusted: only people with write access can
// start it, on a ref they choose.
var Trusted = []string{
	"", "push", "pull_request", "pull_request_review", "pull_request_review_comment",
	"merge_group", "workflow_dispatch", "repository_dispatch", "schedule",
	"release", "create", "delete", "deployment",
}

// ErrPullRequestTarget is returned for pull_request_target events unless
// Input.AllowPrivileged is set. It matches ErrPrivilegedEvent too.
var ErrPullRequestTarget error = &privilegedError{event: "pull_request_target", why: "refusing to run on pull_request_target: " +
	"that event runs with a read/write token and the repository's secrets even for pull requests from forks, " +
	"and benchmarking compiles and runs the pull request's code (init functions, TestMain, benchmarks), " +
	`which could steal them (a "pwn request"); ` +
	"run benchgate on pull_request instead, and post comments for forks from a separate workflow_run workflow (mode merge), " +
	"or set allow-privileged-events: true if every pull request is trusted"}

// ErrPrivilegedEvent matches (errors.Is) the error Parse returns for a
// privileged event (see the package documentation) when Input.AllowPrivileged
// and Input.MergeOnly are not set. The error names the event and the input.
var ErrPrivilegedEvent = errors.New("refusing to run on a privileged event")

type privilegedError struct{ event, why string }

func (e *privilegedError) Error() string { return e.why }

func (e *privilegedError) Is(target error) bool { return target == ErrPrivilegedEvent }

// privileged returns the refusal for event.
func privileged(event string) error {
	if event == "pull_request_target" {
		return ErrPullRequestTarget
	}
	hint := "run the benchmarks on pull_request instead"
	switch event {
	case "workflow_run":
		hint = "a workflow_run job that posts a pull_request run's results needs mode: merge, which runs no code"
	case "issue_comment":
		hint = "anyone can comment, and a comment-triggered workflow that checks out the pull request runs a fork's code"
	}
	return &privilegedError{event: event, why: fmt.Sprintf("refusing to run on %s without allow-privileged-events: true: "+
		"that event runs with a read/write token and the repository's secrets, people without write access can start it, "+
		"and benchmarking compiles and runs the code it checks out, which may be a fork's and could steal them; %s, "+
		"or set allow-privileged-events: true if every revision benchmarked there is trusted", event, hint)}
}

// ErrNoBase is wrapped by the errors Parse returns when the event does not say
// what to compare against and the base input is empty.
var ErrNoBase = errors.New("no base revision to compare against")

// zeroSHA matches the all-zero object name GitHub sends for a missing commit
// (the before of a push that created a branch).
var zeroSHA = regexp.MustCompile(`^0+$`)

// fullSHA matches a full SHA-1 or SHA-256 object name.
var fullSHA = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)

// Parse returns the commits to compare for the event described by in.
func Parse(in Input) (Target, error) {
	base, err := checkRevision("base", in.Base)
	if err != nil {
		return Target{}, err
	}
	head, err := checkRevision("head", in.Head)
	if err != nil {
		return Target{}, err
	}
	in.Base, in.Head = base, head

	if !in.AllowPrivileged && !in.MergeOnly && !slices.Contains(Trusted, in.EventName) {
		// Refused before the payload is read.
		return Target{}, privileged(in.EventName)
	}
	switch in.EventName {
	case "pull_request":
		return pullRequest(in)
	case "pull_request_target":
		return pullRequestTarget(in)
	case "push":
		return push(in)
	case "merge_group":
		return mergeGroup(in)
	case "workflow_run":
		return workflowRun(in)
	default:
		return fromInputs(in)
	}
}

// ReadPayload reads the event file named by GITHUB_EVENT_PATH with readFile
// (os.ReadFile in production).
func ReadPayload(path string, readFile func(name string) ([]byte, error)) ([]byte, error) {
	if path == "" {
		return nil, errors.New("GITHUB_EVENT_PATH is not set: cannot read the event that started the workflow")
	}
	data, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_EVENT_PATH %s: read event file: %w", path, err)
	}
	return data, nil
}

// The parts of the event payloads benchgate reads. These are deliberately not
// go-github's event types: those decode the whole payload strictly, and an
// unrelated field that does not match them (go-github v60 declares
// repository.custom_properties as map[string]string, but multi-select
// properties are arrays) would make every run fail.

type repo struct {
	FullName string `json:"full_name"`
	Fork     bool   `json:"fork"`
	Private  bool   `json:"private"`
}

type branch struct {
	SHA  string `json:"sha"`
	Ref  string `json:"ref"`
	Repo *repo  `json:"repo"` // null when the head repository was deleted
}

type user struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

type pullRequestEvent struct {
	Number      int    `json:"number"`
	Action      string `json:"action"`
	PullRequest *struct {
		Number int    `json:"number"`
		Head   branch `json:"head"`
		Base   branch `json:"base"`
		User   *user  `json:"user"`
		Labels []struct {
			Name string `json:"name"`
		} `json:"labels"`
	} `json:"pull_request"`
	Label *struct {
		Name string `json:"name"`
	} `json:"label"`
	Sender     *user `json:"sender"`
	Repository *struct {
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
}

type pushEvent struct {
	Ref        string `json:"ref"`
	Before     string `json:"before"`
	After      string `json:"after"`
	Created    bool   `json:"created"`
	Deleted    bool   `json:"deleted"`
	Repository struct {
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
}

type workflowRunEvent struct {
	WorkflowRun *struct {
		ID             int64  `json:"id"`
		Event          string `json:"event"`
		HeadSHA        string `json:"head_sha"`
		HeadBranch     string `json:"head_branch"`
		HeadRepository *repo  `json:"head_repository"` // null when deleted
		PullRequests   []struct {
			Number int `json:"number"`
		} `json:"pull_requests"`
	} `json:"workflow_run"`
}

type mergeGroupEvent struct {
	MergeGroup *struct {
		HeadSHA string `json:"head_sha"`
		BaseSHA string `json:"base_sha"`
		BaseRef string `json:"base_ref"`
	} `json:"merge_group"`
}

func pullRequest(in Input) (Target, error) {
	var ev pullRequestEvent
	if err := decode(in, &ev); err != nil {
		return Target{}, err
	}
	t, err := checkPullRequest(in, &ev)
	if err != nil {
		return Target{}, err
	}
	var sha string
	if in.Base == "" || in.Head == "" {
		if sha, err = checkSHA(in.EventName, "GITHUB_SHA", in.SHA); err != nil {
			return Target{}, err
		}
	}
	headDesc, baseDesc := "merge commit "+gitrev.ShortRef(sha), "its first parent"
	if in.Head == "" {
		t.Head = sha
	} else {
		t.Head, headDesc = in.Head, gitrev.ShortRef(in.Head)
		baseDesc = "the first parent of merge commit " + gitrev.ShortRef(sha)
	}
	if in.Base == "" {
		t.Base, t.MergeCommit, t.BaseFromMergeParent = sha+"^1", sha, true
	} else {
		t.Base, baseDesc = in.Base, gitrev.ShortRef(in.Base)
	}
	t.Description = fmt.Sprintf("pull request #%d: %s vs %s", t.PRNumber, headDesc, baseDesc)
	return t, nil
}

func pullRequestTarget(in Input) (Target, error) {
	var ev pullRequestEvent
	if err := decode(in, &ev); err != nil {
		return Target{}, err
	}
	t, err := checkPullRequest(in, &ev)
	if err != nil {
		return Target{}, err
	}
	if t.Head, err = pick(in, "head", in.Head, "pull_request.head.sha", ev.PullRequest.Head.SHA); err != nil {
		return Target{}, err
	}
	if t.Base, err = pick(in, "base", in.Base, "pull_request.base.sha", ev.PullRequest.Base.SHA); err != nil {
		return Target{}, err
	}
	how := "allowed by allow-privileged-events"
	if !in.AllowPrivileged {
		how = "mode merge"
	}
	t.Description = fmt.Sprintf("pull request #%d (pull_request_target, %s): head %s vs base %s",
		t.PRNumber, how, gitrev.ShortRef(t.Head), gitrev.ShortRef(t.Base))
	return t, nil
}

// checkPullRequest fills the pull request fields of a Target.
func checkPullRequest(in Input, ev *pullRequestEvent) (Target, error) {
	if ev.PullRequest == nil {
		return Target{}, fieldError(in, "pull_request", "missing")
	}
	n := ev.Number
	if n == 0 {
		n = ev.PullRequest.Number
	}
	if n <= 0 {
		return Target{}, fieldError(in, "number", "missing or not a positive number")
	}
	headSHA, err := checkSHA(in.EventName, "pull_request.head.sha", ev.PullRequest.Head.SHA)
	if err != nil {
		return Target{}, fmt.Errorf("%s: %w", eventFile(in), err)
	}
	private := ev.PullRequest.Base.Repo != nil && ev.PullRequest.Base.Repo.Private
	var labels []string
	for _, l := range ev.PullRequest.Labels {
		labels = append(labels, l.Name)
	}
	t := Target{PRNumber: n, HeadSHA: headSHA, Fork: isFork(ev.PullRequest.Head.Repo, ev.PullRequest.Base.Repo), Private: private, Labels: labels,
		Action: ev.Action, BaseRef: ev.PullRequest.Base.Ref}
	if u := ev.PullRequest.User; u != nil {
		t.Author = u.Login
	}
	if ev.Action == "labeled" && ev.Label != nil && ev.Sender != nil {
		t.LabelAdded, t.Sender, t.SenderType = ev.Label.Name, ev.Sender.Login, ev.Sender.Type
	}
	if ev.Repository != nil {
		t.DefaultBranch = ev.Repository.DefaultBranch
	}
	return t, nil
}

// isFork reports whether the head branch lives in another repository than the
// base branch. head.repo.fork alone is not enough: it is also true for
// branches inside a repository that is itself a fork of something else, where
// the token is not restricted.
func isFork(head, base *repo) bool {
	if head == nil || base == nil {
		return true // the head repository was deleted: assume the worst
	}
	return !strings.EqualFold(head.FullName, base.FullName)
}

func push(in Input) (Target, error) {
	var ev pushEvent
	if err := decode(in, &ev); err != nil {
		return Target{}, err
	}
	if (ev.Deleted || zeroSHA.MatchString(ev.After)) && in.Head == "" {
		return Target{}, fmt.Errorf("push event: %s was deleted, there is nothing to benchmark", orUnknown(ev.Ref))
	}
	var t Target
	var err error
	if t.Head, err = pick(in, "head", in.Head, "after", ev.After); err != nil {
		return Target{}, err
	}
	switch {
	case in.Base != "":
		t.Base = in.Base
	case ev.Before == "" || zeroSHA.MatchString(ev.Before) || ev.Created:
		return Target{}, fmt.Errorf("push event: %w: the push created %s, so it has no previous commit; "+
			"set the base input (for example the default branch)", ErrNoBase, orUnknown(ev.Ref))
	default:
		if t.Base, err = checkSHA(in.EventName, "before", ev.Before); err != nil {
			return Target{}, fmt.Errorf("%s: %w", eventFile(in), err)
		}
	}
	t.Ref, t.DefaultBranch = ev.Ref, ev.Repository.DefaultBranch
	t.Description = fmt.Sprintf("push to %s: %s vs %s", orUnknown(ev.Ref), gitrev.ShortRef(t.Head), gitrev.ShortRef(t.Base))
	return t, nil
}

func mergeGroup(in Input) (Target, error) {
	var ev mergeGroupEvent
	if err := decode(in, &ev); err != nil {
		return Target{}, err
	}
	if ev.MergeGroup == nil {
		return Target{}, fieldError(in, "merge_group", "missing")
	}
	var t Target
	var err error
	if t.Head, err = pick(in, "head", in.Head, "merge_group.head_sha", ev.MergeGroup.HeadSHA); err != nil {
		return Target{}, err
	}
	if t.Base, err = pick(in, "base", in.Base, "merge_group.base_sha", ev.MergeGroup.BaseSHA); err != nil {
		return Target{}, err
	}
	t.Description = fmt.Sprintf("merge queue for %s: %s vs %s", orUnknown(ev.MergeGroup.BaseRef), gitrev.ShortRef(t.Head), gitrev.ShortRef(t.Base))
	return t, nil
}

func workflowRun(in Input) (Target, error) {
	var ev workflowRunEvent
	if err := decode(in, &ev); err != nil {
		return Target{}, err
	}
	if ev.WorkflowRun == nil {
		return Target{}, fieldError(in, "workflow_run", "missing")
	}
	w := ev.WorkflowRun
	sha, err := checkSHA(in.EventName, "workflow_run.head_sha", w.HeadSHA)
	if err != nil {
		return Target{}, fmt.Errorf("%s: %w", eventFile(in), err)
	}
	run := &WorkflowRun{ID: w.ID, Event: w.Event, HeadSHA: sha, HeadBranch: w.HeadBranch}
	if w.HeadRepository != nil {
		run.HeadRepo = w.HeadRepository.FullName
	}
	for _, pr := range w.PullRequests {
		if pr.Number > 0 {
			run.PullRequests = append(run.PullRequests, pr.Number)
		}
	}
	from := orUnknown(run.Event) + " run"
	if run.ID != 0 {
		from = fmt.Sprintf("%s %d", from, run.ID)
	}
	if in.MergeOnly && in.Base == "" && in.Head == "" {
		return Target{WorkflowRun: run, Description: fmt.Sprintf("workflow_run of %s: head %s of %s",
			from, gitrev.ShortRef(run.HeadSHA), orUnknownRepo(run.HeadRepo))}, nil
	}
	t, err := fromInputs(in)
	if err != nil {
		return Target{}, err
	}
	t.WorkflowRun = run
	return t, nil
}

func orUnknownRepo(name string) string {
	if name == "" {
		return "a deleted repository"
	}
	return name
}

func fromInputs(in Input) (Target, error) {
	name := in.EventName
	if name == "" {
		name = "local run"
	} else {
		name += " event"
	}
	if in.Base == "" {
		return Target{}, fmt.Errorf("%s: %w: set the base input (a branch, tag or commit)", name, ErrNoBase)
	}
	t := Target{Base: in.Base, Head: in.Head}
	if t.Head == "" && in.SHA != "" {
		sha, err := checkSHA(in.EventName, "GITHUB_SHA", in.SHA)
		if err != nil {
			return Target{}, err
		}
		t.Head = sha
	}
	if t.Head == "" {
		t.Head = "HEAD"
	}
	t.Description = fmt.Sprintf("%s: %s vs %s", name, gitrev.ShortRef(t.Head), gitrev.ShortRef(t.Base))
	return t, nil
}

// pick returns the input if set, else the event's commit, checked.
func pick(in Input, input, value, field, sha string) (string, error) {
	if value != "" {
		return value, nil
	}
	sha, err := checkSHA(in.EventName, field, sha)
	if err != nil {
		return "", fmt.Errorf("%s: %w (or set the %s input)", eventFile(in), err, input)
	}
	return sha, nil
}

func decode(in Input, v any) error {
	if len(strings.TrimSpace(string(in.Payload))) == 0 {
		return fmt.Errorf("%s: the event file is empty", eventFile(in))
	}
	if err := json.Unmarshal(in.Payload, v); err != nil {
		return fmt.Errorf("%s: parse %s event: %w", eventFile(in), in.EventName, err)
	}
	return nil
}

func fieldError(in Input, field, problem string) error {
	return fmt.Errorf("%s: %s event: %s: %s", eventFile(in), in.EventName, field, problem)
}

func eventFile(in Input) string {
	if in.EventPath == "" {
		return "GITHUB_EVENT_PATH"
	}
	return "GITHUB_EVENT_PATH " + in.EventPath
}

// checkSHA checks a commit name GitHub provides.
func checkSHA(event, name, sha string) (string, error) {
	switch {
	case sha == "":
		return "", fmt.Errorf("%s event: %s is missing", event, name)
	case !fullSHA.MatchString(sha):
		return "", fmt.Errorf("%s event: %s %q is not a full commit name", event, name, sha)
	}
	return sha, nil
}

// checkRevision checks a revision given as an input before git sees it.
func checkRevision(input, rev string) (string, error) {
	rev = strings.TrimSpace(rev)
	switch {
	case rev == "":
		return "", nil
	case strings.HasPrefix(rev, "-"):
		return "", fmt.Errorf("%s %q: a revision may not start with %q", input, rev, "-")
	case strings.Contains(rev, ".."):
		return "", fmt.Errorf("%s %q: a revision may not contain %q (give one commit, not a range)", input, rev, "..")
	case strings.IndexFunc(rev, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return "", fmt.Errorf("%s %q: a revision may not contain white space or control characters", input, rev)
	}
	return rev, nil
}

func orUnknown(ref string) string {
	if ref == "" {
		return "an unknown ref"
	}
	return ref
}
