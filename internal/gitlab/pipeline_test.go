package gitlab_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gitlab"
)

var (
	mergeSHA  = strings.Repeat("a", 40) // CI_COMMIT_SHA of a merged result or train
	targetSHA = strings.Repeat("b", 40) // what it was built on
	sourceSHA = strings.Repeat("c", 40) // the merge request's head
	diffBase  = strings.Repeat("d", 40) // the merge base of the diff
	beforeSHA = strings.Repeat("e", 40)
	zeros     = strings.Repeat("0", 40)
)

func mr(eventType string) gitlab.Pipeline {
	p := gitlab.Pipeline{
		Source: gitlab.SourceMergeRequest, EventType: eventType, IID: 7,
		ProjectID: "42", MRProjectID: "42", SourceProjectID: "42",
		CommitSHA: mergeSHA, DiffBaseSHA: diffBase, TargetBranch: "main", SourceBranch: "feature", DefaultBranch: "main",
	}
	switch eventType {
	case gitlab.MergedResult, gitlab.MergeTrain:
		p.TargetBranchSHA, p.SourceBranchSHA = targetSHA, sourceSHA
	default:
		p.CommitSHA = sourceSHA
	}
	return p
}

// The commits of each kind of pipeline: what would land against what it
// would land on.
func TestTarget(t *testing.T) {
	for _, tc := range []struct {
		name             string
		p                gitlab.Pipeline
		base, head       string // flags
		wantBase, wantHd string
		wantMRHead       string
		desc             string
	}{
		{name: "merged results", p: mr(gitlab.MergedResult), wantBase: targetSHA, wantHd: mergeSHA, wantMRHead: sourceSHA, desc: "merged result aaaaaaaaaaaa vs the main commit it was built on, bbbbbbbbbbbb"},
		// A train's commit holds the cars ahead of it: its base is the
		// commit it was built on (CI_MERGE_REQUEST_TARGET_BRANCH_SHA is
		// the car ahead's commit, or the target's tip for the first car).
		{name: "merge train", p: mr(gitlab.MergeTrain), wantBase: targetSHA, wantHd: mergeSHA, wantMRHead: sourceSHA, desc: "merge train commit aaaaaaaaaaaa vs the commit it was built on (the train car ahead, or main)"},
		{name: "detached", p: mr(gitlab.Detached), wantBase: diffBase, wantHd: sourceSHA, wantMRHead: sourceSHA, desc: "source branch head cccccccccccc vs its merge base with main, dddddddddddd"},
		{name: "before 12.3: no event type", p: mr(""), wantBase: diffBase, wantHd: sourceSHA, wantMRHead: sourceSHA},
		{name: "flags win", p: mr(gitlab.MergedResult), base: "v1.0", head: "HEAD", wantBase: "v1.0", wantHd: "HEAD", wantMRHead: sourceSHA},
		{name: "push", p: gitlab.Pipeline{Source: "push", CommitSHA: mergeSHA, BeforeSHA: beforeSHA, Ref: "main"}, wantBase: beforeSHA, wantHd: mergeSHA, desc: "push to main"},
		{name: "new branch with --base", p: gitlab.Pipeline{Source: "push", CommitSHA: mergeSHA, BeforeSHA: zeros, Ref: "topic"}, base: "main", wantBase: "main", wantHd: mergeSHA},
		{name: "schedule", p: gitlab.Pipeline{Source: "schedule", CommitSHA: mergeSHA, BeforeSHA: zeros}, base: "v1.0", wantBase: "v1.0", wantHd: mergeSHA, desc: "schedule pipeline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.p.Target(tc.base, tc.head)
			if err != nil {
				t.Fatal(err)
			}
			if got.Base != tc.wantBase || got.Head != tc.wantHd || got.MRHead != tc.wantMRHead {
				t.Errorf("Target = base %s head %s MR head %s; want %s %s %s", got.Base, got.Head, got.MRHead, tc.wantBase, tc.wantHd, tc.wantMRHead)
			}
			if !strings.Contains(got.Description, tc.desc) {
				t.Errorf("description %q lacks %q", got.Description, tc.desc)
			}
			if tc.p.Source == gitlab.SourceMergeRequest && (got.IID != 7 || got.Project != "42") {
				t.Errorf("note place %d of %q", got.IID, got.Project)
			}
		})
	}
}

// What is refused, and why, naming the variable or the flag.
func TestTargetErrors(t *testing.T) {
	noTarget := mr(gitlab.MergedResult)
	noTarget.TargetBranchSHA = ""
	noDiff := mr(gitlab.Detached)
	noDiff.DiffBaseSHA = ""
	noIID := mr(gitlab.Detached)
	noIID.IID = 0
	odd := mr("merge_queue")
	for _, tc := range []struct {
		p    gitlab.Pipeline
		want string
	}{
		{gitlab.Pipeline{}, "CI_PIPELINE_SOURCE is not set"},
		{noTarget, "CI_MERGE_REQUEST_TARGET_BRANCH_SHA is missing"},
		{noDiff, "CI_MERGE_REQUEST_DIFF_BASE_SHA is missing"},
		{noIID, "CI_MERGE_REQUEST_IID"},
		{odd, `CI_MERGE_REQUEST_EVENT_TYPE "merge_queue"`},
		{gitlab.Pipeline{Source: "push", CommitSHA: mergeSHA, BeforeSHA: zeros, Ref: "v1.2"}, "CI_COMMIT_BEFORE_SHA is zeros"},
		{gitlab.Pipeline{Source: "web", CommitSHA: mergeSHA}, "pass --base"},
	} {
		_, err := tc.p.Target("", "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Target(%+v) = %v, want %q", tc.p, err, tc.want)
		}
	}
	if _, err := (gitlab.Pipeline{Source: "web", CommitSHA: mergeSHA}).Target("", ""); !errors.Is(err, gitlab.ErrNoBase) {
		t.Errorf("err = %v, want ErrNoBase", err)
	}
}

// A merge request from a fork: its pipeline runs in the fork (no target
// variables: no note token) or, started by a member, in the target
// project with its variables (privileged).
func TestTargetFork(t *testing.T) {
	inFork := mr(gitlab.Detached)
	inFork.ProjectID, inFork.SourceProjectID = "99", "99"
	inParent := mr(gitlab.MergedResult)
	inParent.SourceProjectID = "99"
	for _, tc := range []struct {
		p                        gitlab.Pipeline
		fork, inFork, privileged bool
	}{
		{mr(gitlab.MergedResult), false, false, false},
		{inFork, true, true, false},
		{inParent, true, false, true},
	} {
		got, err := tc.p.Target("", "")
		if err != nil {
			t.Fatal(err)
		}
		if got.Fork != tc.fork || got.InFork != tc.inFork || got.Privileged != tc.privileged || got.Project != "42" {
			t.Errorf("%+v: fork %v in fork %v privileged %v project %s", tc.p, got.Fork, got.InFork, got.Privileged, got.Project)
		}
	}
}
