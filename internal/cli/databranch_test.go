package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/event"
)

// The data branch is a branch of its own: input history may not name the
// default branch, the pushed branch or a pull request's base (round 3's
// L6: every recorded push would commit to the code branch).
func TestCheckHistoryBranch(t *testing.T) {
	push := event.Target{Ref: "refs/heads/release", DefaultBranch: "main"}
	pr := event.Target{BaseRef: "develop", DefaultBranch: "main"}
	for _, c := range []struct {
		branch string
		target event.Target
		want   string
	}{
		{"main", push, "the default branch"},
		{"release", push, "the branch this push updated"},
		{"develop", pr, "the pull request's base branch"},
		{"main", pr, "the default branch"},
		{"benchgate-data", push, ""},
		{"benchgate-data", event.Target{}, ""},
		{"main", event.Target{}, ""}, // nothing known to compare with
	} {
		err := checkHistoryBranch(c.branch, c.target)
		if (err == nil) != (c.want == "") || err != nil && (!strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "input history: ")) {
			t.Errorf("%s %+v: %v, want %q", c.branch, c.target, err, c.want)
		}
	}
}

// A push that records runs 3× the default rounds unless count is set; a
// run that only reads keeps its count.
func TestRecordRounds(t *testing.T) {
	for _, c := range []struct {
		record, given bool
		want          int
	}{{true, false, 30}, {true, true, 10}, {false, false, 10}} {
		cfg := config.Defaults()
		if c.given {
			cfg.Given = map[string]bool{"count": true}
		}
		recordRounds(&cfg, &dataBranch{record: c.record}, io.Discard)
		if cfg.Count != c.want {
			t.Errorf("record %v, count given %v: %d rounds, want %d", c.record, c.given, cfg.Count, c.want)
		}
	}
	cfg := config.Defaults()
	recordRounds(&cfg, nil, io.Discard)
	if cfg.Count != 10 {
		t.Errorf("no data branch: %d rounds", cfg.Count)
	}
}
