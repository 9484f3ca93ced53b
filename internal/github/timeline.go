package github

import (
	"context"
	"fmt"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// LabelEvent is the last time a label was added to an issue or pull
// request, and by whom, as GitHub recorded it.
type LabelEvent struct {
	Actor string    // the login that added it
	At    time.Time // when GitHub recorded it
}

// maxTimelinePages bounds the timeline read (100 events a page).
const maxTimelinePages = 50

// LastLabeled reads the timeline of issue or pull request number (GET
// /repos/{owner}/{repo}/issues/{number}/timeline, every page, oldest event
// first) and returns the last "labeled" event of label that no "unlabeled"
// event followed; ok is false when there is none. It says nothing about
// commits: the timeline records no server time for an ordinary push.
func (c *Commenter) LastLabeled(ctx context.Context, owner, repo string, number int, label string) (ev LabelEvent, ok bool, err error) {
	if err := checkTarget(owner, repo, number); err != nil {
		return LabelEvent{}, false, err
	}
	for page := 1; page != 0; {
		if page > maxTimelinePages {
			return LabelEvent{}, false, fmt.Errorf("timeline of %s/%s#%d: more than %d pages", owner, repo, number, maxTimelinePages)
		}
		var events []*gh.Timeline
		var next int
		err := c.do(ctx, fmt.Sprintf("list the timeline of %s/%s#%d", owner, repo, number), func(int) (*gh.Response, error) {
			var resp *gh.Response
			var err error
			events, resp, err = c.client().Issues.ListIssueTimeline(ctx, owner, repo, number, &gh.ListOptions{Page: page, PerPage: 100})
			if resp != nil {
				next = resp.NextPage
			}
			return resp, err
		})
		if err != nil {
			return LabelEvent{}, false, err
		}
		for _, e := range events {
			if e.GetLabel().GetName() != label {
				continue
			}
			switch e.GetEvent() {
			case "labeled":
				ev, ok = LabelEvent{Actor: e.GetActor().GetLogin(), At: e.GetCreatedAt().Time}, true
			case "unlabeled":
				ev, ok = LabelEvent{}, false
			}
		}
		page = next
	}
	return ev, ok, nil
}
