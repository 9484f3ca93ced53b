package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/event"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

const (
	headSHA1 = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
	mergeSHA = "3d1f4a0c9b2e8f7a6d5c4b3a29180716f5e4d3c2"
)

// TestActionAcceptance: in the action, trailers accept only when the
// workflow opts in, only on pull_request, credited to the pull request's
// author; the label only in its own labeled run, credited to its sender,
// and never after a push.
func TestActionAcceptance(t *testing.T) {
	pr := func(action string, labels ...string) event.Target {
		return event.Target{PRNumber: 7, HeadSHA: headSHA1, Author: "mona", Action: action, Labels: labels}
	}
	labeled := pr("labeled", "benchgate-accept")
	labeled.LabelAdded, labeled.Sender = "benchgate-accept", "maintainer"
	otherLabel := pr("labeled", "benchgate-accept", "docs")
	otherLabel.LabelAdded, otherLabel.Sender = "docs", "maintainer"
	for _, c := range []struct {
		name       string
		event      string
		target     event.Target
		trailersOn bool
		// want
		off                policy.TrailersOff
		by, label, labelBy string
		note               policy.NoteCode
	}{
		{name: "default: trailers off", event: "pull_request", target: pr("synchronize"),
			off: policy.OffInput},
		{name: "opted in: credited to the author's login", event: "pull_request", target: pr("synchronize"), trailersOn: true,
			by: "@mona, the pull request's author"},
		{name: "merge queue: never", event: "merge_group", target: event.Target{Head: mergeSHA}, trailersOn: true,
			off: policy.OffMergeQueue},
		{name: "push: not a pull request", event: "push", target: event.Target{Head: mergeSHA}, trailersOn: true,
			off: policy.OffEvent},
		{name: "labeled: the sender accepts the payload's head", event: "pull_request", target: labeled,
			off: policy.OffInput, label: "benchgate-accept", labelBy: "@maintainer"},
		{name: "a push after the label gates", event: "pull_request", target: pr("synchronize", "benchgate-accept"),
			off: policy.OffInput, note: policy.LabelOlder},
		{name: "another label's event cannot tell", event: "pull_request", target: otherLabel,
			off: policy.OffInput, note: policy.LabelUnknown},
		{name: "reopened cannot tell", event: "pull_request", target: pr("reopened", "benchgate-accept"),
			off: policy.OffInput, note: policy.LabelUnknown},
		{name: "no label, no note", event: "pull_request", target: pr("opened", "docs"),
			off: policy.OffInput},
	} {
		t.Run(c.name, func(t *testing.T) {
			acc := actionAcceptance(c.event, c.target, "benchgate-accept", c.trailersOn, mergeSHA)
			wantOf := headSHA1
			if c.target.HeadSHA == "" {
				wantOf = mergeSHA
			}
			if acc.TrailersOf != wantOf {
				t.Errorf("trailers read from %s, want %s", acc.TrailersOf, wantOf)
			}
			if acc.TrailersOff != c.off {
				t.Errorf("trailers off %q, want %q", acc.TrailersOff, c.off)
			}
			if c.off == policy.OffInput && acc.AcceptLabel != "benchgate-accept" {
				t.Errorf("trailers off by the input: the note names the label %q, want benchgate-accept", acc.AcceptLabel)
			}
			if acc.TrailersBy != c.by || acc.Label != c.label || acc.LabelBy != c.labelBy {
				t.Errorf("trailers by %q, label %q by %q; want %q, %q by %q", acc.TrailersBy, acc.Label, acc.LabelBy, c.by, c.label, c.labelBy)
			}
			if c.label != "" && acc.LabelAt != headSHA1 {
				t.Errorf("label added at %s, want the payload's head %s", acc.LabelAt, headSHA1)
			}
			var codes []policy.NoteCode
			for _, n := range acc.Notes {
				codes = append(codes, n.Code)
				if n.Label != "benchgate-accept" || n.Commit != gitrev.Short(headSHA1) {
					t.Errorf("note %+v: want the label and commit %s", n, gitrev.Short(headSHA1))
				}
			}
			if (c.note == "") != (len(codes) == 0) || len(codes) > 1 || len(codes) == 1 && codes[0] != c.note {
				t.Errorf("notes %q, want %q", codes, c.note)
			}
		})
	}
}

// TestTrailerAcceptsNeverCreditTheAuthorField: a commit whose author field
// names someone else accepts nothing by default; opted in, the acceptance
// is credited to whom the caller says (the pull request's login) or to
// nobody ("author unverified"), never to the typed name.
func TestTrailerAcceptsNeverCreditTheAuthorField(t *testing.T) {
	env := testenv.Env(t)
	dir := testenv.TempDir(t)
	testenv.Git(t, env, dir, "init", "-q", "-b", "main")
	testenv.Git(t, env, dir, "commit", "-q", "--allow-empty", "-m", "base")
	testenv.Git(t, env, dir, "commit", "-q", "--allow-empty", "--author", "Trusted Maintainer <maintainer@example.org>", "-m", "refactor: tidy", "-m", "Benchgate-Accept: .")
	head := testenv.Git(t, env, dir, "rev-parse", "HEAD")
	ctx := context.Background()
	repo, err := gitrev.Open(ctx, dir, gitrev.WithEnv(env))
	if err != nil {
		t.Fatal(err)
	}

	var notes []policy.Note
	got, err := pipeline.TrailerAccepts(ctx, repo, localAcceptance(false, head), &notes)
	if err != nil || len(got) != 0 {
		t.Fatalf("default: accepts %v, %v", got, err)
	}
	if want := []policy.Note{{Code: policy.TrailersNotApplied, Commit: gitrev.Short(head), Off: policy.OffFlag}}; !cmp.Equal(notes, want) {
		t.Errorf("default: notes %+v, want %+v", notes, want)
	}

	notes = nil
	got, err = pipeline.TrailerAccepts(ctx, repo, localAcceptance(true, head), &notes)
	if err != nil || len(got) != 1 || len(notes) != 0 {
		t.Fatalf("--accept-trailers: accepts %v, notes %q, %v", got, notes, err)
	}
	if got[0].By != "" || got[0].Trailer != "Benchgate-Accept: . (commit "+gitrev.Short(head)+", author unverified)" {
		t.Errorf("--accept-trailers: by %q via %q", got[0].By, got[0].Trailer)
	}

	acc := actionAcceptance("pull_request", event.Target{PRNumber: 1, HeadSHA: head, Author: "attacker", Action: "synchronize"}, "", true, head)
	got, err = pipeline.TrailerAccepts(ctx, repo, acc, &notes)
	if err != nil || len(got) != 1 {
		t.Fatalf("action: accepts %v, %v", got, err)
	}
	if got[0].By != "@attacker, the pull request's author" || strings.Contains(got[0].By+got[0].Trailer, "Maintainer") {
		t.Errorf("action: by %q via %q", got[0].By, got[0].Trailer)
	}
}
