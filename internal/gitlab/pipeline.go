package gitlab

import (
	"errors"
	"fmt"
	"strings"
)

// Pipeline sources (CI_PIPELINE_SOURCE) that decide the commits.
const (
	SourceMergeRequest = "merge_request_event"
	SourcePush         = "push"
)

// Merge request pipeline types (CI_MERGE_REQUEST_EVENT_TYPE).
const (
	Detached     = "detached"      // the source branch's head, not merged with anything
	MergedResult = "merged_result" // the source merged into the target branch's tip
	MergeTrain   = "merge_train"   // the source merged onto the train car ahead of it (or the target tip)
)

// Pipeline is what GitLab's predefined variables say about the job's
// pipeline, read once by the caller (the CLI's config) and checked there:
// every SHA is a full object name, every ID a positive number. The field
// comments name the variable.
type Pipeline struct {
	Source    string // CI_PIPELINE_SOURCE: merge_request_event, push, web, schedule, api, trigger, ...
	EventType string // CI_MERGE_REQUEST_EVENT_TYPE: detached, merged_result, merge_train; "" outside merge request pipelines

	CommitSHA string // CI_COMMIT_SHA: the commit checked out
	BeforeSHA string // CI_COMMIT_BEFORE_SHA: the branch's previous tip on a push; zeros otherwise

	IID             int    // CI_MERGE_REQUEST_IID; 0 outside merge request pipelines
	DiffBaseSHA     string // CI_MERGE_REQUEST_DIFF_BASE_SHA: the merge base of the MR's diff
	TargetBranchSHA string // CI_MERGE_REQUEST_TARGET_BRANCH_SHA: what the merged result was built on
	SourceBranchSHA string // CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: the MR's head (merged results and trains)
	TargetBranch    string // CI_MERGE_REQUEST_TARGET_BRANCH_NAME
	SourceBranch    string // CI_MERGE_REQUEST_SOURCE_BRANCH_NAME

	ProjectID       string // CI_PROJECT_ID: the project the pipeline runs in
	MRProjectID     string // CI_MERGE_REQUEST_PROJECT_ID: the merge request's (target) project
	SourceProjectID string // CI_MERGE_REQUEST_SOURCE_PROJECT_ID: where the source branch lives
	MRProjectURL    string // CI_MERGE_REQUEST_PROJECT_URL, for the note's link

	Ref           string // CI_COMMIT_REF_NAME: the branch or tag
	DefaultBranch string // CI_DEFAULT_BRANCH

	APIURL     string // CI_API_V4_URL
	ProjectDir string // CI_PROJECT_DIR: the checkout
	BuildsDir  string // CI_BUILDS_DIR: every project's checkouts on this runner
	JobURL     string // CI_JOB_URL
}

// IsZeroSHA reports whether s is GitLab's all-zero commit name (no commit:
// the "before" of a new branch, of a tag, of a merge request pipeline).
func IsZeroSHA(s string) bool {
	return s != "" && strings.Trim(s, "0") == ""
}

// Target is the pair of commits to compare and what publishing needs.
type Target struct {
	// Base and Head are revisions for git: full SHAs from the variables,
	// or the --base and --head flags as given.
	Base, Head string
	// BaseLabel and HeadLabel name them in reports; BaseFrom and HeadFrom
	// the variable or flag each came from, for errors.
	BaseLabel, HeadLabel string
	BaseFrom, HeadFrom   string
	// IID and Project are the merge request and its project (the note's
	// place); 0 and "" outside merge request pipelines.
	IID     int
	Project string
	// MRHead is the merge request's own head commit (its source branch's
	// tip), for what is read from it; "" outside merge requests.
	MRHead string
	// Fork reports a merge request from another project. InFork says
	// that its pipeline runs in that project, which cannot see the
	// target project's CI/CD variables (no note token); otherwise it runs
	// in the target project, started by one of its members, with its
	// variables: Privileged.
	Fork, InFork, Privileged bool
	// TargetBranch is the branch the merge request merges into and
	// DefaultBranch the project's default branch: they differ for a
	// stacked merge request.
	TargetBranch, DefaultBranch string
	// Description says in words what is compared, for the log.
	Description string
}

// ErrNoBase is wrapped by the error of a pipeline that says nothing to
// compare against when --base is not given.
var ErrNoBase = errors.New("no base revision to compare against")

// Target decides the two commits, as the GitHub mode does: what would land
// against what it would land on, so that the two differ only by the
// change. base and head are the --base and --head flags ("" for the
// pipeline's own); they win over the variables.
//
//   - merge request, merged results or merge train: head is CI_COMMIT_SHA,
//     the commit GitLab built of the merge request and the target branch
//     (for a train, the car ahead of it), and base is
//     CI_MERGE_REQUEST_TARGET_BRANCH_SHA, the commit it was built on;
//   - merge request, detached: head is CI_COMMIT_SHA, the source branch's
//     tip, and base CI_MERGE_REQUEST_DIFF_BASE_SHA, its merge base with
//     the target branch: the merge request's diff;
//   - push: CI_COMMIT_BEFORE_SHA against CI_COMMIT_SHA (a new branch or a
//     tag has no before: --base);
//   - every other source (web, schedule, api, trigger, pipeline, ...):
//     --base, against CI_COMMIT_SHA.
func (p Pipeline) Target(base, head string) (Target, error) {
	t := Target{DefaultBranch: p.DefaultBranch, Base: base, Head: head, BaseLabel: base, HeadLabel: head, BaseFrom: "--base", HeadFrom: "--head"}
	fromFlags := func(what string) (Target, error) {
		if t.Base == "" {
			return Target{}, fmt.Errorf("%s: %w: pass --base (a branch, tag or commit)", what, ErrNoBase)
		}
		if t.Head == "" {
			t.Head, t.HeadLabel, t.HeadFrom = p.CommitSHA, short(p.CommitSHA), "CI_COMMIT_SHA"
		}
		t.Description = fmt.Sprintf("%s: %s vs %s", what, t.HeadLabel, t.BaseLabel)
		return t, nil
	}
	switch p.Source {
	case "":
		return Target{}, errors.New("CI_PIPELINE_SOURCE is not set: benchgate gitlab runs in a GitLab CI job (benchgate run --base REV elsewhere)")
	case SourceMergeRequest:
	case SourcePush:
		if t.Base == "" && !IsZeroSHA(p.BeforeSHA) && p.BeforeSHA != "" {
			t.Base, t.BaseLabel, t.BaseFrom = p.BeforeSHA, short(p.BeforeSHA), "CI_COMMIT_BEFORE_SHA"
		}
		if t.Base == "" {
			return fromFlags(fmt.Sprintf("push to %s (a new branch or a tag: CI_COMMIT_BEFORE_SHA is zeros)", orUnknown(p.Ref)))
		}
		return fromFlags("push to " + orUnknown(p.Ref))
	default:
		return fromFlags(p.Source + " pipeline")
	}
	if p.IID <= 0 {
		return Target{}, errors.New("CI_MERGE_REQUEST_IID: missing in a merge request pipeline")
	}
	t.IID, t.Project, t.TargetBranch = p.IID, p.MRProjectID, p.TargetBranch
	if t.Project == "" {
		t.Project = p.ProjectID
	}
	t.Fork = p.SourceProjectID != "" && t.Project != "" && p.SourceProjectID != t.Project
	t.InFork = t.Fork && p.ProjectID == p.SourceProjectID
	t.Privileged = t.Fork && !t.InFork
	what := fmt.Sprintf("merge request !%d", p.IID)
	headDesc, baseDesc := "", ""
	switch p.EventType {
	case MergedResult, MergeTrain:
		t.MRHead = p.SourceBranchSHA
		kind := "merged result"
		if p.EventType == MergeTrain {
			kind = "merge train commit"
		}
		headDesc = kind + " " + short(p.CommitSHA)
		if t.Base == "" {
			if p.TargetBranchSHA == "" {
				return Target{}, fmt.Errorf("%s (%s pipeline): CI_MERGE_REQUEST_TARGET_BRANCH_SHA is missing: the commit the %s was built on (or pass --base)", what, p.EventType, kind)
			}
			t.Base, t.BaseLabel, t.BaseFrom = p.TargetBranchSHA, orUnknown(p.TargetBranch)+"@"+short(p.TargetBranchSHA), "CI_MERGE_REQUEST_TARGET_BRANCH_SHA"
			baseDesc = "the " + orUnknown(p.TargetBranch) + " commit it was built on, " + short(p.TargetBranchSHA)
			if p.EventType == MergeTrain {
				baseDesc = "the commit it was built on (the train car ahead, or " + orUnknown(p.TargetBranch) + "), " + short(p.TargetBranchSHA)
			}
		}
	case Detached, "":
		t.MRHead = p.CommitSHA
		headDesc = "source branch head " + short(p.CommitSHA)
		if t.Base == "" {
			if p.DiffBaseSHA == "" {
				return Target{}, fmt.Errorf("%s (detached pipeline): CI_MERGE_REQUEST_DIFF_BASE_SHA is missing: the merge base of the diff (or pass --base)", what)
			}
			t.Base, t.BaseLabel, t.BaseFrom = p.DiffBaseSHA, "merge-base@"+short(p.DiffBaseSHA), "CI_MERGE_REQUEST_DIFF_BASE_SHA"
			baseDesc = "its merge base with " + orUnknown(p.TargetBranch) + ", " + short(p.DiffBaseSHA)
		}
	default:
		return Target{}, fmt.Errorf("CI_MERGE_REQUEST_EVENT_TYPE %q: want detached, merged_result or merge_train", p.EventType)
	}
	if t.Head == "" {
		t.Head, t.HeadLabel, t.HeadFrom = p.CommitSHA, short(p.CommitSHA), "CI_COMMIT_SHA"
	} else {
		headDesc = t.Head
	}
	if baseDesc == "" {
		baseDesc = t.Base
	}
	if t.Head == "" {
		return Target{}, fmt.Errorf("%s: CI_COMMIT_SHA is missing", what)
	}
	t.Description = fmt.Sprintf("%s: %s vs %s", what, headDesc, baseDesc)
	return t, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown ref"
	}
	return s
}
