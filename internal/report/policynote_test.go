package report

import (
	"testing"

	"github.com/benchgate/benchgate/internal/policy"

	"github.com/google/go-cmp/cmp"
)

// TestPolicyNoteText words each policy note as the run's notes have said
// it, the timeline's actor and time after a label note.
func TestPolicyNoteText(t *testing.T) {
	for _, c := range []struct {
		n    policy.Note
		want string
	}{
		{policy.Note{Code: policy.NoPolicyFile, Commit: "abc1234", File: ".benchgate.yml", Label: "the merge base of a and main"},
			"no policy file: abc1234 has no .benchgate.yml (the merge base of a and main)"},
		{policy.Note{Code: policy.TrailersUnread, Commit: "abc1234", Err: "fatal: bad object"},
			"the message of commit abc1234 could not be read, so its Benchgate-Accept trailers were not: fatal: bad object"},
		{policy.Note{Code: policy.TrailersNotApplied, Commit: "abc1234", Off: policy.OffFlag},
			"the Benchgate-Accept trailers of commit abc1234 were not applied: --accept-trailers is off (the commit's author writes them, and its author field is unverified); pass --accept-trailers to apply them"},
		{policy.Note{Code: policy.TrailersNotApplied, Commit: "abc1234", Off: policy.OffInput, Label: "accept"},
			"the Benchgate-Accept trailers of commit abc1234 were not applied: input accept-trailers is false (the pull request's author writes them); a maintainer accepts with the label accept"},
		{policy.Note{Code: policy.TrailersNotApplied, Commit: "abc1234", Off: policy.OffMergeQueue},
			"the Benchgate-Accept trailers of commit abc1234 were not applied: trailers are never applied in a merge queue (the pull request's run decided; the queue's commit may hold a pull request's description, and the group holds other pull requests)"},
		{policy.Note{Code: policy.TrailersNotApplied, Commit: "abc1234", Off: policy.OffEvent},
			"the Benchgate-Accept trailers of commit abc1234 were not applied: trailers are applied only on pull_request events, from the pull request's head commit"},
		{policy.Note{Code: policy.TrailersNotApplied, Commit: "abc1234", Off: policy.OffNoAuthor},
			"the Benchgate-Accept trailers of commit abc1234 were not applied: the event names no pull request author to credit them to"},
		{policy.Note{Code: policy.LabelOlder, Label: "accept", Commit: "abc1234"},
			"not accepted: the regressions were accepted by a label older than this commit (accept was on the pull request before abc1234 was pushed); a maintainer accepts this commit's by adding the label again"},
		{policy.Note{Code: policy.LabelUnknown, Label: "accept", Commit: "abc1234", By: "mona", At: "2026-01-02T03:04:05Z"},
			"not accepted: the label accept is on the pull request, but this run (an unknown action) cannot tell whether it was added for commit abc1234; a maintainer accepts this commit's regressions by adding the label again (the timeline: @mona added it at 2026-01-02T03:04:05Z)"},
	} {
		if diff := cmp.Diff(c.want, PolicyNoteText(c.n)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.n.Code, diff)
		}
	}
}
