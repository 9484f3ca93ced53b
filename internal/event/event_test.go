package event

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const (
	mergeSHA  = "3d1f4a0c9b2e8f7a6d5c4b3a29180716f5e4d3c2" // GITHUB_SHA of the pull_request fixtures, after of push.json
	prHeadSHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678" // pull_request.head.sha
	prBaseSHA = "0f9e8d7c6b5a49382716f5e4d3c2b1a098765432" // pull_request.base.sha, before of push.json
	mgHeadSHA = "7e6d5c4b3a2918f0e1d2c3b4a5968778695a4b3c" // merge_group.head_sha
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      Input
		fixture string // file under testdata read into in.Payload
		payload string // used when fixture is empty
		want    Target
	}{
		{
			name:    "pull_request compares the merge commit with its first parent",
			in:      Input{EventName: "pull_request", SHA: mergeSHA},
			fixture: "pull_request.json",
			want: Target{
				Base: mergeSHA + "^1", Head: mergeSHA,
				BaseFromMergeParent: true, MergeCommit: mergeSHA,
				PRNumber: 12, HeadSHA: prHeadSHA,
				Description: "pull request #12: merge commit 3d1f4a0c9b2e vs its first parent",
			},
		},
		{
			name:    "pull_request from a fork",
			in:      Input{EventName: "pull_request", SHA: mergeSHA},
			fixture: "pull_request_fork.json",
			want: Target{
				Base: mergeSHA + "^1", Head: mergeSHA,
				BaseFromMergeParent: true, MergeCommit: mergeSHA,
				PRNumber: 31, Fork: true, HeadSHA: prHeadSHA,
				Description: "pull request #31: merge commit 3d1f4a0c9b2e vs its first parent",
			},
		},
		{
			name:    "pull_request whose head repository was deleted counts as a fork",
			in:      Input{EventName: "pull_request", SHA: mergeSHA},
			fixture: "pull_request_deleted_fork.json",
			want: Target{
				Base: mergeSHA + "^1", Head: mergeSHA,
				BaseFromMergeParent: true, MergeCommit: mergeSHA,
				PRNumber: 31, Fork: true, HeadSHA: prHeadSHA,
				Description: "pull request #31: merge commit 3d1f4a0c9b2e vs its first parent",
			},
		},
		{
			name:    "pull_request between branches of a repository that is itself a fork is not a fork PR",
			in:      Input{EventName: "pull_request", SHA: mergeSHA},
			fixture: "pull_request_in_fork.json",
			want: Target{
				Base: mergeSHA + "^1", Head: mergeSHA,
				BaseFromMergeParent: true, MergeCommit: mergeSHA,
				PRNumber: 12, HeadSHA: prHeadSHA,
				Description: "pull request #12: merge commit 3d1f4a0c9b2e vs its first parent",
			},
		},
		{
			name:    "pull_request with base and head inputs",
			in:      Input{EventName: "pull_request", SHA: mergeSHA, Base: "v1.4.0", Head: " release-2 "},
			fixture: "pull_request.json",
			want: Target{
				Base: "v1.4.0", Head: "release-2",
				PRNumber: 12, HeadSHA: prHeadSHA,
				Description: "pull request #12: release-2 vs v1.4.0",
			},
		},
		{
			name:    "pull_request with a base input",
			in:      Input{EventName: "pull_request", SHA: mergeSHA, Base: "main"},
			fixture: "pull_request.json",
			want: Target{
				Base: "main", Head: mergeSHA,
				PRNumber: 12, HeadSHA: prHeadSHA,
				Description: "pull request #12: merge commit 3d1f4a0c9b2e vs main",
			},
		},
		{
			name:    "pull_request with a head input keeps the merge commit's first parent as base",
			in:      Input{EventName: "pull_request", SHA: mergeSHA, Head: prHeadSHA},
			fixture: "pull_request.json",
			want: Target{
				Base: mergeSHA + "^1", Head: prHeadSHA,
				BaseFromMergeParent: true, MergeCommit: mergeSHA,
				PRNumber: 12, HeadSHA: prHeadSHA,
				Description: "pull request #12: a1b2c3d4e5f6 vs the first parent of merge commit 3d1f4a0c9b2e",
			},
		},
		{
			name:    "pull_request with both inputs needs no GITHUB_SHA",
			in:      Input{EventName: "pull_request", Base: "main", Head: "feature"},
			fixture: "pull_request.json",
			want: Target{
				Base: "main", Head: "feature",
				PRNumber: 12, HeadSHA: prHeadSHA,
				Description: "pull request #12: feature vs main",
			},
		},
		{
			name:    "pull_request_target when allowed",
			in:      Input{EventName: "pull_request_target", SHA: prBaseSHA, AllowPrivileged: true},
			fixture: "pull_request_target.json",
			want: Target{
				Base: prBaseSHA, Head: prHeadSHA,
				PRNumber: 31, Fork: true, HeadSHA: prHeadSHA,
				Description: "pull request #31 (pull_request_target, allowed by allow-privileged-events): head a1b2c3d4e5f6 vs base 0f9e8d7c6b5a",
			},
		},
		{
			name:    "pull_request_target when allowed, with a base input",
			in:      Input{EventName: "pull_request_target", SHA: prBaseSHA, AllowPrivileged: true, Base: "main"},
			fixture: "pull_request_target.json",
			want: Target{
				Base: "main", Head: prHeadSHA,
				PRNumber: 31, Fork: true, HeadSHA: prHeadSHA,
				Description: "pull request #31 (pull_request_target, allowed by allow-privileged-events): head a1b2c3d4e5f6 vs base main",
			},
		},
		{
			name:    "pull_request_target in mode merge runs no code: allowed",
			in:      Input{EventName: "pull_request_target", SHA: prBaseSHA, MergeOnly: true},
			fixture: "pull_request_target.json",
			want: Target{
				Base: prBaseSHA, Head: prHeadSHA,
				PRNumber: 31, Fork: true, HeadSHA: prHeadSHA,
				Description: "pull request #31 (pull_request_target, mode merge): head a1b2c3d4e5f6 vs base 0f9e8d7c6b5a",
			},
		},
		{
			name:    "workflow_run of a fork's pull request, mode merge",
			in:      Input{EventName: "workflow_run", SHA: prBaseSHA, MergeOnly: true},
			fixture: "workflow_run.json",
			want: Target{
				WorkflowRun: &WorkflowRun{ID: 10823456789, Event: "pull_request", HeadSHA: prHeadSHA, HeadBranch: "faster-parser", HeadRepo: "mona/widgets"},
				Description: "workflow_run of pull_request run 10823456789: head a1b2c3d4e5f6 of mona/widgets",
			},
		},
		{
			name:    "workflow_run of a same-repository pull request lists it, mode merge",
			in:      Input{EventName: "workflow_run", SHA: prBaseSHA, MergeOnly: true},
			fixture: "workflow_run_same_repo.json",
			want: Target{
				WorkflowRun: &WorkflowRun{ID: 10823456789, Event: "pull_request", HeadSHA: prHeadSHA, HeadBranch: "faster-parser", HeadRepo: "octo-org/widgets", PullRequests: []int{12}},
				Description: "workflow_run of pull_request run 10823456789: head a1b2c3d4e5f6 of octo-org/widgets",
			},
		},
		{
			name:    "workflow_run whose head repository was deleted, mode merge",
			in:      Input{EventName: "workflow_run", MergeOnly: true},
			payload: `{"workflow_run": {"id": 5, "event": "pull_request", "head_sha": "` + prHeadSHA + `", "head_repository": null, "pull_requests": []}}`,
			want: Target{
				WorkflowRun: &WorkflowRun{ID: 5, Event: "pull_request", HeadSHA: prHeadSHA},
				Description: "workflow_run of pull_request run 5: head a1b2c3d4e5f6 of a deleted repository",
			},
		},
		{
			name:    "workflow_run measuring when allowed: like workflow_dispatch, with the run",
			in:      Input{EventName: "workflow_run", SHA: mergeSHA, Base: "main", AllowPrivileged: true},
			fixture: "workflow_run.json",
			want: Target{
				Base: "main", Head: mergeSHA,
				WorkflowRun: &WorkflowRun{ID: 10823456789, Event: "pull_request", HeadSHA: prHeadSHA, HeadBranch: "faster-parser", HeadRepo: "mona/widgets"},
				Description: "workflow_run event: 3d1f4a0c9b2e vs main",
			},
		},
		{
			name:    "issue_comment when allowed",
			in:      Input{EventName: "issue_comment", SHA: mergeSHA, Base: "main", Head: "refs/pull/31/head", AllowPrivileged: true},
			fixture: "issue_comment.json",
			want: Target{
				Base: "main", Head: "refs/pull/31/head",
				Description: "issue_comment event: refs/pull/31/head vs main",
			},
		},
		{
			name: "pull_request_review is like pull_request for forks: trusted",
			in:   Input{EventName: "pull_request_review", SHA: mergeSHA, Base: "main"},
			want: Target{
				Base: "main", Head: mergeSHA,
				Description: "pull_request_review event: 3d1f4a0c9b2e vs main",
			},
		},
		{
			name:    "push compares before and after",
			in:      Input{EventName: "push", SHA: mergeSHA},
			fixture: "push.json",
			want: Target{
				Base: prBaseSHA, Head: mergeSHA, Ref: "refs/heads/main", DefaultBranch: "main",
				Description: "push to refs/heads/main: 3d1f4a0c9b2e vs 0f9e8d7c6b5a",
			},
		},
		{
			name:    "push that created a branch, with a base input",
			in:      Input{EventName: "push", SHA: mergeSHA, Base: "origin/main"},
			fixture: "push_new_branch.json",
			want: Target{
				Base: "origin/main", Head: mergeSHA, Ref: "refs/heads/new-feature", DefaultBranch: "main",
				Description: "push to refs/heads/new-feature: 3d1f4a0c9b2e vs origin/main",
			},
		},
		{
			name:    "push with a head input",
			in:      Input{EventName: "push", SHA: mergeSHA, Head: "v2.0.0"},
			fixture: "push.json",
			want: Target{
				Base: prBaseSHA, Head: "v2.0.0", Ref: "refs/heads/main", DefaultBranch: "main",
				Description: "push to refs/heads/main: v2.0.0 vs 0f9e8d7c6b5a",
			},
		},
		{
			name:    "merge_group compares the queue's head with its base",
			in:      Input{EventName: "merge_group", SHA: mgHeadSHA},
			fixture: "merge_group.json",
			want: Target{
				Base: prBaseSHA, Head: mgHeadSHA,
				Description: "merge queue for refs/heads/main: 7e6d5c4b3a29 vs 0f9e8d7c6b5a",
			},
		},
		{
			name:    "workflow_dispatch takes base from the input and head from GITHUB_SHA",
			in:      Input{EventName: "workflow_dispatch", SHA: mergeSHA, Base: "v1.4.0"},
			fixture: "workflow_dispatch.json",
			want: Target{
				Base: "v1.4.0", Head: mergeSHA,
				Description: "workflow_dispatch event: 3d1f4a0c9b2e vs v1.4.0",
			},
		},
		{
			name:    "schedule with both inputs",
			in:      Input{EventName: "schedule", SHA: mergeSHA, Base: "v1.4.0", Head: "main"},
			fixture: "schedule.json",
			want: Target{
				Base: "v1.4.0", Head: "main",
				Description: "schedule event: main vs v1.4.0",
			},
		},
		{
			name: "workflow_dispatch does not need the event file",
			in:   Input{EventName: "workflow_dispatch", SHA: mergeSHA, Base: "main"},
			want: Target{
				Base: "main", Head: mergeSHA,
				Description: "workflow_dispatch event: 3d1f4a0c9b2e vs main",
			},
		},
		{
			name: "local run defaults head to HEAD",
			in:   Input{Base: "main"},
			want: Target{Base: "main", Head: "HEAD", Description: "local run: HEAD vs main"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.fixture != "" {
				tt.in.Payload = fixture(t, tt.fixture)
				tt.in.EventPath = "/github/workflow/event.json"
			}
			if tt.payload != "" {
				tt.in.Payload = []byte(tt.payload)
			}
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			// Who did what is TestParseLabeled's.
			people := cmpopts.IgnoreFields(Target{}, "Action", "LabelAdded", "Sender", "Author", "BaseRef", "DefaultBranch")
			if diff := cmp.Diff(tt.want, got, people); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      Input
		fixture string
		payload string   // used when fixture is empty
		is      error    // if set, errors.Is(err, is) must hold
		want    []string // substrings of the message
	}{
		{
			name:    "pull_request_target refused by default",
			in:      Input{EventName: "pull_request_target", SHA: prBaseSHA},
			fixture: "pull_request_target.json",
			is:      ErrPullRequestTarget,
			want:    []string{"pull_request_target", "pwn request", "allow-privileged-events: true", "mode merge"},
		},
		{
			name:    "pull_request_target refusal is a privileged-event refusal",
			in:      Input{EventName: "pull_request_target", SHA: prBaseSHA},
			fixture: "pull_request_target.json",
			is:      ErrPrivilegedEvent,
		},
		{
			name:    "workflow_run measuring refused by default, even with a base",
			in:      Input{EventName: "workflow_run", SHA: mergeSHA, Base: "main"},
			fixture: "workflow_run.json",
			is:      ErrPrivilegedEvent,
			want:    []string{"refusing to run on workflow_run without allow-privileged-events: true", "secrets", "mode: merge"},
		},
		{
			name:    "issue_comment refused by default",
			in:      Input{EventName: "issue_comment", SHA: mergeSHA, Base: "main", Head: "refs/pull/31/head"},
			fixture: "issue_comment.json",
			is:      ErrPrivilegedEvent,
			want:    []string{"refusing to run on issue_comment without allow-privileged-events: true", "anyone can comment"},
		},
		{
			name: "other events that strangers can start are refused before reading the payload",
			in:   Input{EventName: "issues", SHA: mergeSHA, Base: "main"},
			is:   ErrPrivilegedEvent,
			want: []string{"refusing to run on issues without allow-privileged-events: true"},
		},
		{
			name:    "workflow_run without head_sha",
			in:      Input{EventName: "workflow_run", MergeOnly: true},
			payload: `{"workflow_run": {"id": 5, "event": "pull_request", "pull_requests": []}}`,
			want:    []string{"workflow_run.head_sha is missing"},
		},
		{
			name:    "workflow_run with an injected head_sha",
			in:      Input{EventName: "workflow_run", MergeOnly: true},
			payload: `{"workflow_run": {"head_sha": "--upload-pack=x"}}`,
			want:    []string{"workflow_run.head_sha", "is not a full commit name"},
		},
		{
			name:    "workflow_run without workflow_run",
			in:      Input{EventName: "workflow_run", MergeOnly: true},
			payload: `{"action": "completed"}`,
			want:    []string{"workflow_run: missing"},
		},
		{
			name: "pull_request_target refused before reading the payload",
			in:   Input{EventName: "pull_request_target"},
			is:   ErrPullRequestTarget,
		},
		{
			name:    "push that created a branch needs a base",
			in:      Input{EventName: "push", SHA: mergeSHA},
			fixture: "push_new_branch.json",
			is:      ErrNoBase,
			want:    []string{"refs/heads/new-feature", "set the base input"},
		},
		{
			name:    "push that deleted a branch",
			in:      Input{EventName: "push", SHA: prBaseSHA},
			fixture: "push_deleted_branch.json",
			want:    []string{"push event: refs/heads/old-feature was deleted"},
		},
		{
			name:    "workflow_dispatch without base",
			in:      Input{EventName: "workflow_dispatch", SHA: mergeSHA},
			fixture: "workflow_dispatch.json",
			is:      ErrNoBase,
			want:    []string{"workflow_dispatch event", "set the base input"},
		},
		{
			name: "schedule without base",
			in:   Input{EventName: "schedule", SHA: mergeSHA},
			is:   ErrNoBase,
			want: []string{"schedule event", "base input"},
		},
		{
			name: "unknown event without base",
			in:   Input{EventName: "release", SHA: mergeSHA},
			is:   ErrNoBase,
			want: []string{"release event", "base input"},
		},
		{
			name: "local run without base",
			in:   Input{},
			is:   ErrNoBase,
			want: []string{"local run", "base input"},
		},
		{
			name:    "malformed event file",
			in:      Input{EventName: "pull_request", SHA: mergeSHA},
			fixture: "truncated.json",
			want:    []string{"GITHUB_EVENT_PATH /github/workflow/event.json", "parse pull_request event", "unexpected end of JSON input"},
		},
		{
			name: "empty event file",
			in:   Input{EventName: "push", SHA: mergeSHA},
			want: []string{"GITHUB_EVENT_PATH", "empty"},
		},
		{
			name:    "pull_request event without pull_request",
			in:      Input{EventName: "pull_request", SHA: mergeSHA},
			fixture: "push.json",
			want:    []string{"GITHUB_EVENT_PATH /github/workflow/event.json", "pull_request event: pull_request: missing"},
		},
		{
			name:    "pull_request without GITHUB_SHA",
			in:      Input{EventName: "pull_request"},
			fixture: "pull_request.json",
			want:    []string{"GITHUB_SHA is missing"},
		},
		{
			name:    "pull_request with an abbreviated GITHUB_SHA",
			in:      Input{EventName: "pull_request", SHA: "3d1f4a0"},
			fixture: "pull_request.json",
			want:    []string{`GITHUB_SHA "3d1f4a0" is not a full commit name`},
		},
		{
			name:    "pull_request with a strange number",
			in:      Input{EventName: "pull_request", SHA: mergeSHA},
			payload: `{"number": 0, "pull_request": {"head": {"sha": "` + prHeadSHA + `"}}}`,
			want:    []string{"number: missing or not a positive number"},
		},
		{
			name:    "pull_request with an injected head sha",
			in:      Input{EventName: "pull_request", SHA: mergeSHA},
			payload: `{"number": 3, "pull_request": {"head": {"sha": "--upload-pack=touch /tmp/x"}}}`,
			want:    []string{"pull_request.head.sha", "is not a full commit name"},
		},
		{
			name:    "merge_group without merge_group",
			in:      Input{EventName: "merge_group", SHA: mergeSHA},
			payload: `{"action": "checks_requested"}`,
			want:    []string{"merge_group: missing"},
		},
		{
			name:    "merge_group without base_sha",
			in:      Input{EventName: "merge_group", SHA: mergeSHA},
			payload: `{"merge_group": {"head_sha": "` + mgHeadSHA + `"}}`,
			want:    []string{"merge_group.base_sha is missing (or set the base input)"},
		},
		{
			name: "base input that looks like an option",
			in:   Input{EventName: "workflow_dispatch", SHA: mergeSHA, Base: "--output=/etc/passwd"},
			want: []string{`base "--output=/etc/passwd": a revision may not start with "-"`},
		},
		{
			name: "head input with a space",
			in:   Input{EventName: "workflow_dispatch", SHA: mergeSHA, Base: "main", Head: "main feature"},
			want: []string{`head "main feature": a revision may not contain white space`},
		},
		{
			name: "base input that is a range",
			in:   Input{EventName: "workflow_dispatch", Base: "v1..v2"},
			want: []string{`base "v1..v2": a revision may not contain ".."`},
		},
		{
			name: "head input with a newline",
			in:   Input{EventName: "workflow_dispatch", Base: "main", Head: "a\nb"},
			want: []string{`head "a\nb"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			switch {
			case tt.fixture != "":
				tt.in.Payload = fixture(t, tt.fixture)
			case tt.payload != "":
				tt.in.Payload = []byte(tt.payload)
			}
			if tt.in.Payload != nil {
				tt.in.EventPath = "/github/workflow/event.json"
			}
			got, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse = %+v, want an error", got)
			}
			if diff := cmp.Diff(Target{}, got); diff != "" {
				t.Errorf("Parse returned a partial target with its error (-want +got):\n%s", diff)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Parse error %q does not wrap %q", err, tt.is)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Parse error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestReadPayload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "event.json")
	if err := os.WriteFile(path, []byte(`{"number": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}

	got, err := ReadPayload(path, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"number": 1}`, string(got)); diff != "" {
		t.Errorf("ReadPayload mismatch (-want +got):\n%s", diff)
	}

	missing := filepath.Join(dir, "missing.json")
	_, err = ReadPayload(missing, os.ReadFile)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "GITHUB_EVENT_PATH "+missing) {
		t.Errorf("ReadPayload(missing) error = %v, want one naming GITHUB_EVENT_PATH and the file, wrapping fs.ErrNotExist", err)
	}

	_, err = ReadPayload("", os.ReadFile)
	if err == nil || !strings.Contains(err.Error(), "GITHUB_EVENT_PATH is not set") {
		t.Errorf("ReadPayload(\"\") error = %v, want GITHUB_EVENT_PATH is not set", err)
	}
}

// TestParseLabels reads the pull request's labels (the accept-label input
// looks for one of them).
func TestParseLabels(t *testing.T) {
	data, err := os.ReadFile("testdata/pull_request.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	ev["pull_request"].(map[string]any)["labels"] = []any{
		map[string]any{"id": 1, "name": "slower-on-purpose", "color": "f29513"},
		map[string]any{"id": 2, "name": "bug"},
	}
	payload, _ := json.Marshal(ev)
	got, err := Parse(Input{EventName: "pull_request", SHA: mergeSHA, Payload: payload})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"slower-on-purpose", "bug"}; !slices.Equal(got.Labels, want) {
		t.Errorf("Labels = %q, want %q", got.Labels, want)
	}
	if got, _ := Parse(Input{EventName: "pull_request", SHA: mergeSHA, Payload: data}); got.Labels != nil {
		t.Errorf("no labels: Labels = %q", got.Labels)
	}
}

// TestParseLabeled reads who added which label for which commit (the
// accept-label input trusts only that), the pull request's author and, for
// a stacked pull request, its base branch and the default branch.
func TestParseLabeled(t *testing.T) {
	data, err := os.ReadFile("testdata/pull_request.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(Input{EventName: "pull_request", SHA: mergeSHA, Payload: data})
	if err != nil {
		t.Fatal(err)
	}
	want := [6]string{"synchronize", "mona", "", "", "main", "main"}
	if g := [6]string{got.Action, got.Author, got.LabelAdded, got.Sender, got.BaseRef, got.DefaultBranch}; g != want {
		t.Errorf("synchronize: got %+v, want %+v", g, want)
	}

	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	ev["action"] = "labeled"
	ev["label"] = map[string]any{"id": 7, "name": "benchgate-accept", "color": "0e8a16"}
	ev["sender"] = map[string]any{"login": "maintainer", "id": 99, "type": "User"}
	pr := ev["pull_request"].(map[string]any)
	pr["base"].(map[string]any)["ref"] = "feature-1"
	payload, _ := json.Marshal(ev)
	got, err = Parse(Input{EventName: "pull_request", SHA: mergeSHA, Payload: payload})
	if err != nil {
		t.Fatal(err)
	}
	if got.LabelAdded != "benchgate-accept" || got.Sender != "maintainer" || got.Author != "mona" || got.HeadSHA != "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678" {
		t.Errorf("labeled: label %q by %q, author %q, head %s", got.LabelAdded, got.Sender, got.Author, got.HeadSHA)
	}
	if got.BaseRef != "feature-1" || got.DefaultBranch != "main" {
		t.Errorf("stacked: base ref %q, default branch %q", got.BaseRef, got.DefaultBranch)
	}

	// Another action's label field (unlabeled) is not an added label.
	ev["action"] = "unlabeled"
	payload, _ = json.Marshal(ev)
	if got, err = Parse(Input{EventName: "pull_request", SHA: mergeSHA, Payload: payload}); err != nil || got.LabelAdded != "" || got.Sender != "" {
		t.Errorf("unlabeled: label %q by %q, %v", got.LabelAdded, got.Sender, err)
	}
}

// TestParseMergeGroupHasNoHeadSHA: a merge queue's run has no pull request
// head commit, so no trailer is read there.
func TestParseMergeGroupHasNoHeadSHA(t *testing.T) {
	data, err := os.ReadFile("testdata/merge_group.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(Input{EventName: "merge_group", Payload: data})
	if err != nil {
		t.Fatal(err)
	}
	if got.HeadSHA != "" || got.PRNumber != 0 || got.Author != "" {
		t.Errorf("merge_group: head sha %q, pr %d, author %q", got.HeadSHA, got.PRNumber, got.Author)
	}
}
