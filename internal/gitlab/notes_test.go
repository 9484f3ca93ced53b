package gitlab_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/gitlab"
	"github.com/benchgate/benchgate/internal/gitlab/gitlabtest"
)

const token = "glpat-s3cret-t0ken"

type harness struct {
	srv    *gitlabtest.Server
	c      *gitlab.Client
	sleeps []time.Duration
	logs   []string
}

func newHarness(t *testing.T, cfg gitlabtest.Config) *harness {
	t.Helper()
	if cfg.Token == "" {
		cfg.Token = token
	}
	h := &harness{srv: gitlabtest.NewServer(cfg)}
	t.Cleanup(h.srv.Close)
	h.srv.AddMergeRequest("42", 7)
	c, err := gitlab.NewClient(gitlab.Options{
		APIURL: h.srv.APIURL(), Token: token,
		Sleep: func(_ context.Context, d time.Duration) error { h.sleeps = append(h.sleeps, d); return nil },
		Now:   func() time.Time { return time.Unix(1_800_000_000, 0) },
		Logf:  func(f string, a ...any) { h.logs = append(h.logs, fmt.Sprintf(f, a...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	h.c = c
	return h
}

func (h *harness) count(method string) int {
	n := 0
	for _, r := range h.srv.Requests() {
		if r.Method == method {
			n++
		}
	}
	return n
}

// One note per merge request and key: created, edited in place, left
// alone when unchanged; found on a later page among 150 notes of others,
// by its author (a marker in another account's note, or quoted later in
// a body, or in a system note, is not it).
func TestUpsertSticky(t *testing.T) {
	h := newHarness(t, gitlabtest.Config{})
	ctx := context.Background()
	marker := gitlab.Marker("benchgate")
	h.srv.AddNote("42", 7, 1, "mallory", marker+"\nforged by someone else", false)
	h.srv.AddNote("42", 7, h.srv.UserID(), "project_42_bot_5e1f", "a quote: "+marker, false)
	h.srv.AddNote("42", 7, h.srv.UserID(), "project_42_bot_5e1f", marker+"\nsystem", true)
	for i := range 150 {
		h.srv.AddNote("42", 7, 2, "alice", fmt.Sprintf("review %d", i), false)
	}
	res, err := h.c.Upsert(ctx, "42", 7, "benchgate", "first", nil)
	if err != nil || res.Action != gitlab.Created {
		t.Fatalf("first Upsert = %+v, %v; want created", res, err)
	}
	for i := range 30 {
		h.srv.AddNote("42", 7, 2, "alice", fmt.Sprintf("later %d", i), false)
	}
	res2, err := h.c.Upsert(ctx, "42", 7, "benchgate", "second", nil)
	if err != nil || res2.Action != gitlab.Updated || res2.ID != res.ID {
		t.Fatalf("second Upsert = %+v, %v; want note %d updated", res2, err, res.ID)
	}
	res3, err := h.c.Upsert(ctx, "42", 7, "benchgate", "second", nil)
	if err != nil || res3.Action != gitlab.Unchanged {
		t.Fatalf("third Upsert = %+v, %v; want unchanged", res3, err)
	}
	ours := 0
	for _, n := range h.srv.Notes("42", 7) {
		if n.AuthorID == h.srv.UserID() && strings.HasPrefix(n.Body, marker) && !n.System {
			ours++
			if n.Body != marker+"\nsecond" {
				t.Errorf("sticky note body %q", n.Body)
			}
		}
		if n.Author == "mallory" && n.Body != marker+"\nforged by someone else" {
			t.Errorf("another account's note was edited: %q", n.Body)
		}
	}
	if ours != 1 || h.count(http.MethodPost) != 1 || h.count(http.MethodPut) != 1 {
		t.Errorf("%d sticky notes, %d POST, %d PUT; want 1, 1, 1", ours, h.count(http.MethodPost), h.count(http.MethodPut))
	}
	// Every list request asked for 100 a page, oldest first, and the
	// pages were followed.
	pages := map[string]bool{}
	for _, r := range h.srv.Requests() {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/notes") {
			if !strings.Contains(r.Query, "per_page=100") || !strings.Contains(r.Query, "sort=asc") {
				t.Errorf("list query %q", r.Query)
			}
			pages[r.Query] = true
		}
		if r.Token != token {
			t.Errorf("%s %s carried token %q", r.Method, r.Path, r.Token)
		}
	}
	if len(pages) < 2 {
		t.Errorf("list pages requested: %v; want page 2 too", pages)
	}
}

// The note was deleted between the list and the edit: a new one.
func TestUpsertDeletedMeanwhile(t *testing.T) {
	h := newHarness(t, gitlabtest.Config{})
	ctx := context.Background()
	res, err := h.c.Upsert(ctx, "42", 7, "k", "one", nil)
	if err != nil {
		t.Fatal(err)
	}
	h.srv.AddFault(gitlabtest.Fault{Method: "PUT", Status: 404, Body: gitlabtest.BodyNotFound})
	res2, err := h.c.Upsert(ctx, "42", 7, "k", "two", nil)
	if err != nil || res2.Action != gitlab.Created || res2.ID == res.ID {
		t.Fatalf("Upsert after a deletion = %+v, %v; want a new note", res2, err)
	}
}

// 429: waits as GitLab asks (Retry-After, else RateLimit-Reset) and tries
// again; 5xx: backs off; a lost answer to a create that GitLab stored
// is found before a second create.
func TestUpsertRetries(t *testing.T) {
	h := newHarness(t, gitlabtest.Config{})
	ctx := context.Background()
	h.srv.AddFault(gitlabtest.Fault{Method: "GET", Path: "/user", Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: gitlabtest.BodyTooMany})
	h.srv.AddFault(gitlabtest.Fault{Method: "GET", Path: "/projects/*/merge_requests/*/notes", Status: 429,
		Header: map[string]string{"RateLimit-Reset": "1800000030"}, Body: gitlabtest.BodyTooMany})
	h.srv.AddFault(gitlabtest.Fault{Method: "POST", Status: 502, Apply: true, Body: "<html>502 Bad Gateway</html>"})
	res, err := h.c.Upsert(ctx, "42", 7, "k", "body", nil)
	if err != nil || res.Action != gitlab.Created {
		t.Fatalf("Upsert = %+v, %v", res, err)
	}
	if n := len(h.srv.Notes("42", 7)); n != 1 || h.count(http.MethodPost) != 1 {
		t.Errorf("%d notes after %d POST; want 1 and 1 (the stored one found, not posted twice)", n, h.count(http.MethodPost))
	}
	want := []time.Duration{7 * time.Second, 31 * time.Second, time.Second}
	if fmt.Sprint(h.sleeps) != fmt.Sprint(want) {
		t.Errorf("waits %v, want %v", h.sleeps, want)
	}
	if len(h.logs) != 3 {
		t.Errorf("retry log lines: %q", h.logs)
	}
}

// A 429 that asks for more than MaxWait is not waited for.
func TestUpsertRateLimitTooLong(t *testing.T) {
	h := newHarness(t, gitlabtest.Config{})
	h.srv.AddFault(gitlabtest.Fault{Path: "/user", Status: 429, Times: -1, Header: map[string]string{"Retry-After": "3600"}, Body: gitlabtest.BodyTooMany})
	_, err := h.c.Upsert(context.Background(), "42", 7, "k", "body", nil)
	var e *gitlab.APIError
	if !errors.As(err, &e) || !e.RateLimited || !strings.Contains(e.Reason, "not retried") || len(h.sleeps) != 0 {
		t.Fatalf("err = %v (sleeps %v); want a rate-limit error, not retried", err, h.sleeps)
	}
}

// 401, 403 and 404 are typed and never retried; the token never shows in
// an error, even when the server echoes it.
func TestUpsertErrors(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		is     error
	}{
		{401, gitlabtest.BodyUnauthorized, gitlab.ErrUnauthorized},
		{403, gitlabtest.BodyScope, gitlab.ErrForbidden},
		{404, `{"message":"404 Project Not Found ` + token + `"}`, gitlab.ErrNotFound},
	} {
		h := newHarness(t, gitlabtest.Config{})
		h.srv.AddFault(gitlabtest.Fault{Path: "/projects/*/merge_requests/*/notes", Status: tc.status, Times: -1, Body: tc.body})
		_, err := h.c.Upsert(context.Background(), "42", 7, "k", "body", nil)
		if !errors.Is(err, tc.is) || len(h.sleeps) != 0 {
			t.Errorf("%d: err = %v, sleeps %v; want %v, no retry", tc.status, err, h.sleeps, tc.is)
		}
		if err != nil && strings.Contains(err.Error(), token) {
			t.Errorf("%d: the token is in the error: %v", tc.status, err)
		}
	}
	// A read-only token: 403 on the create.
	h := newHarness(t, gitlabtest.Config{})
	h.srv.SetReadOnly(true)
	if _, err := h.c.Upsert(context.Background(), "42", 7, "k", "body", nil); !errors.Is(err, gitlab.ErrForbidden) {
		t.Errorf("read-only: err = %v, want ErrForbidden", err)
	}
	// A wrong token: 401 from GET /user.
	srv := gitlabtest.NewServer(gitlabtest.Config{Token: "another"})
	defer srv.Close()
	c, _ := gitlab.NewClient(gitlab.Options{APIURL: srv.APIURL(), Token: token})
	if _, err := c.Upsert(context.Background(), "42", 7, "k", "body", nil); !errors.Is(err, gitlab.ErrUnauthorized) || strings.Contains(err.Error(), token) {
		t.Errorf("wrong token: err = %v", err)
	}
}

// A body GitLab refuses as too long is sent again at half its length
// (a self-managed instance may allow less than a million characters).
func TestUpsertTooLong(t *testing.T) {
	h := newHarness(t, gitlabtest.Config{MaxBody: 3000})
	long := strings.Repeat("a line of the report\n", 250)
	res, err := h.c.Upsert(context.Background(), "42", 7, "k", long, func(max int) string { return long[:max/2] })
	if err != nil || !res.Shortened {
		t.Fatalf("Upsert = %+v, %v", res, err)
	}
	if n := h.srv.Notes("42", 7); len(n) != 1 || len(n[0].Body) > 3000 {
		t.Fatalf("notes %d", len(n))
	}
}

// Quick actions: no line of a body sent can start one.
func TestInert(t *testing.T) {
	for _, in := range []string{
		"/merge", "ok\n/approve\n", "a\r\n/close\r\n", "x\r/label ~accepted",
		"```\n/unassign\n```", "no / command / here", " /already indented", "`/shrug` in a code span\n",
	} {
		got := gitlab.Inert(in)
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(l, "/") || strings.Contains(l, "\r") {
				t.Errorf("Inert(%q) = %q: line %q", in, got, l)
			}
		}
		if strings.ReplaceAll(strings.ReplaceAll(got, " ", ""), "\n", "") != strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(in, "\r", ""), " ", ""), "\n", "") {
			t.Errorf("Inert(%q) = %q changed more than spaces", in, got)
		}
	}
	h := newHarness(t, gitlabtest.Config{})
	if _, err := h.c.Upsert(context.Background(), "42", 7, "k", "report\n/merge\n/approve", nil); err != nil {
		t.Fatal(err)
	}
	if qa := h.srv.QuickActions(); len(qa) > 0 {
		t.Errorf("GitLab would run %q", qa)
	}
}

func TestCheckTarget(t *testing.T) {
	h := newHarness(t, gitlabtest.Config{})
	for _, tc := range []struct {
		project string
		iid     int
		key     string
	}{{"group/project", 7, "k"}, {"42", 0, "k"}, {"42", 7, "a-->b"}, {"42", 7, ""}, {"../42", 7, "k"}} {
		if _, err := h.c.Upsert(context.Background(), tc.project, tc.iid, tc.key, "b", nil); err == nil {
			t.Errorf("Upsert(%q, %d, %q) = nil error", tc.project, tc.iid, tc.key)
		}
	}
	if len(h.srv.Requests()) != 0 {
		t.Errorf("requests sent for bad targets: %v", h.srv.Requests())
	}
	for _, u := range []string{"", "ftp://x/api/v4", "https://user:" + token + "@gitlab.example/api/v4", "https://gitlab.example/api/v4?x=1"} {
		if _, err := gitlab.NewClient(gitlab.Options{APIURL: u, Token: token}); err == nil || strings.Contains(err.Error(), token) {
			t.Errorf("NewClient(%q) = %v", u, err)
		}
	}
}
