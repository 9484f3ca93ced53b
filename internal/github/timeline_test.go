package github

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/github/githubtest"
)

// TestLastLabeled reads every page of the timeline (GitHub's Link
// pagination) and returns the last time the label was added, unless it was
// removed after.
func TestLastLabeled(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	add := func(event, actor, label string) {
		h.srv.AddTimelineEvent(githubtest.TimelineEvent{Owner: "o", Repo: "r", Issue: 7, Event: event, Actor: actor, Label: label})
	}
	ctx := context.Background()
	if _, ok, err := h.c.LastLabeled(ctx, "o", "r", 7, "benchgate-accept"); ok || err != nil {
		t.Fatalf("empty timeline: %v, %v", ok, err)
	}
	add("labeled", "early", "benchgate-accept")
	add("unlabeled", "early", "benchgate-accept")
	for i := 0; i < 150; i++ { // two pages of 100
		add("committed", "", "")
	}
	add("labeled", "maintainer", "benchgate-accept")
	add("labeled", "someone", "docs")
	// Another issue's events are not this one's.
	h.srv.AddTimelineEvent(githubtest.TimelineEvent{Owner: "o", Repo: "r", Issue: 8, Event: "unlabeled", Actor: "x", Label: "benchgate-accept"})

	ev, ok, err := h.c.LastLabeled(ctx, "o", "r", 7, "benchgate-accept")
	if err != nil || !ok || ev.Actor != "maintainer" || ev.At.IsZero() {
		t.Fatalf("LastLabeled = %+v, %v, %v; want maintainer's", ev, ok, err)
	}
	pages := 0
	for _, c := range h.calls() {
		if strings.HasPrefix(c, "GET /api/v3/repos/o/r/issues/7/timeline") {
			pages++
		}
	}
	if pages != 3 { // the empty timeline's page, then two pages
		t.Errorf("%d timeline requests, want 1 + 2 pages: %q", pages, h.calls())
	}

	add("unlabeled", "other", "benchgate-accept")
	if ev, ok, err := h.c.LastLabeled(ctx, "o", "r", 7, "benchgate-accept"); ok || err != nil {
		t.Errorf("removed after: %+v, %v, %v", ev, ok, err)
	}
	if ev, ok, err := h.c.LastLabeled(ctx, "o", "r", 7, "docs"); !ok || err != nil || ev.Actor != "someone" {
		t.Errorf("docs: %+v, %v, %v", ev, ok, err)
	}
}

// TestFakeTimelineShape: the fake serves timeline events in GitHub's
// shape, with the time given.
func TestFakeTimelineShape(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	at := time.Date(2026, 9, 2, 8, 0, 0, 0, time.UTC)
	h.srv.AddTimelineEvent(githubtest.TimelineEvent{Owner: "o", Repo: "r", Issue: 7, Event: "labeled", Actor: "maintainer", Label: "benchgate-accept", CreatedAt: at})
	events, _, err := h.c.client().Issues.ListIssueTimeline(context.Background(), "o", "r", 7, nil)
	if err != nil || len(events) != 1 {
		t.Fatalf("%v, %v", events, err)
	}
	e := events[0]
	if e.GetEvent() != "labeled" || e.GetActor().GetLogin() != "maintainer" || e.GetLabel().GetName() != "benchgate-accept" || !e.GetCreatedAt().Time.Equal(at) {
		t.Errorf("event %+v", e)
	}
}
