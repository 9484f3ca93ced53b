package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/github/githubtest"
	"github.com/google/go-cmp/cmp"
)

const (
	token = "ghs_S3cr3tT0kenValue1234567890abcdef"
	owner = "octo-org"
	repo  = "widgets"
	prNum = 12
	key   = "bench"
)

var (
	now    = time.Date(2026, 9, 2, 8, 0, 0, 0, time.UTC)
	marker = Marker(key)
)

// harness is a Commenter talking to a fake GitHub, with a sleep that only
// records.
type harness struct {
	srv *githubtest.Server
	c   *Commenter

	mu     sync.Mutex
	sleeps []time.Duration
	onWait func() // called in sleep, e.g. to cancel the context
}

func newHarness(t *testing.T, cfg githubtest.Config, opts Options) *harness {
	t.Helper()
	if cfg.Token == "" {
		cfg.Token = token
	}
	h := &harness{srv: githubtest.NewServer(cfg)}
	t.Cleanup(h.srv.Close)
	if opts.APIURL == "" {
		opts.APIURL = h.srv.APIURL()
	}
	opts.Token = token
	opts.HTTPClient = h.srv.Client()
	opts.Sleep = func(ctx context.Context, d time.Duration) error {
		h.mu.Lock()
		h.sleeps = append(h.sleeps, d)
		h.mu.Unlock()
		if h.onWait != nil {
			h.onWait()
		}
		return ctx.Err()
	}
	opts.Now = func() time.Time { return now }
	c, err := NewCommenter(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.c = c
	return h
}

// calls lists the requests as "METHOD path?query".
func (h *harness) calls() []string {
	var out []string
	for _, r := range h.srv.Requests() {
		s := r.Method + " " + r.Path
		if r.Query != "" {
			s += "?" + r.Query
		}
		out = append(out, s)
	}
	return out
}

func (h *harness) upsert(body string) (Result, error) {
	return h.c.Upsert(context.Background(), owner, repo, prNum, key, body)
}

const (
	listPath   = "/api/v3/repos/octo-org/widgets/issues/12/comments"
	list1      = "GET " + listPath + "?page=1&per_page=100"
	postCall   = "POST " + listPath
	editPrefix = "PATCH /api/v3/repos/octo-org/widgets/issues/comments/"
)

func edit(id int64) string { return editPrefix + strconv.FormatInt(id, 10) }

func htmlURL(id int64) string {
	return fmt.Sprintf("https://github.com/octo-org/widgets/pull/12#issuecomment-%d", id)
}

func TestUpsertCreates(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	got, err := h.upsert("## Benchmarks\n\nno change\n")
	if err != nil {
		t.Fatal(err)
	}
	stored := h.srv.Comments(owner, repo, prNum)
	if len(stored) != 1 {
		t.Fatalf("stored %d comments, want 1", len(stored))
	}
	want := Result{Action: Created, ID: stored[0].ID, URL: htmlURL(stored[0].ID)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Upsert mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{list1, postCall}, h.calls()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
	reqs := h.srv.Requests()
	var sent struct{ Body string }
	if err := json.Unmarshal([]byte(reqs[1].Body), &sent); err != nil {
		t.Fatal(err)
	}
	wantBody := "<!-- benchgate:bench -->\n## Benchmarks\n\nno change\n"
	if diff := cmp.Diff(wantBody, sent.Body); diff != "" {
		t.Errorf("POST body mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantBody, stored[0].Body); diff != "" {
		t.Errorf("stored body mismatch (-want +got):\n%s", diff)
	}
	for _, r := range reqs {
		if r.Authorization != "Bearer "+token {
			t.Errorf("%s %s: Authorization %q, want the bearer token", r.Method, r.Path, r.Authorization)
		}
	}
}

func TestUpsertPaginates(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	var ours githubtest.Comment
	for i := range 250 {
		switch i {
		case 30: // an older sticky comment: only the newest is edited
			h.srv.AddComment(owner, repo, prNum, "github-actions[bot]", "Bot", marker+"\nold run\n")
		case 230: // on page 3
			ours = h.srv.AddComment(owner, repo, prNum, "github-actions[bot]", "Bot", marker+"\nprevious run\n")
		case 240: // a reviewer quoting the comment, newer than ours
			h.srv.AddComment(owner, repo, prNum, "mona", "User", "> "+marker+"\n> previous run\n\nwhy?")
		case 245: // another job's sticky comment
			h.srv.AddComment(owner, repo, prNum, "github-actions[bot]", "Bot", Marker("bench-linux")+"\nother\n")
		default:
			h.srv.AddComment(owner, repo, prNum, "hubot", "User", fmt.Sprintf("comment %d", i))
		}
	}
	h.srv.AddComment(owner, repo, prNum+1, "github-actions[bot]", "Bot", marker+"\nanother pull request\n")

	got, err := h.upsert("this run\n")
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Action: Updated, ID: ours.ID, URL: htmlURL(ours.ID)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Upsert mismatch (-want +got):\n%s", diff)
	}
	wantCalls := []string{
		list1,
		"GET " + listPath + "?page=2&per_page=100",
		"GET " + listPath + "?page=3&per_page=100",
		edit(ours.ID),
	}
	if diff := cmp.Diff(wantCalls, h.calls()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
	if r := h.srv.Requests()[3]; r.Body != `{"body":"<!-- benchgate:bench -->\nthis run\n"}`+"\n" {
		t.Errorf("PATCH body = %q", r.Body)
	}
	for _, c := range h.srv.Comments(owner, repo, prNum) {
		if c.ID == ours.ID && c.Body != marker+"\nthis run\n" {
			t.Errorf("edited body = %q", c.Body)
		}
	}
}

func TestUpsertChoosesComment(t *testing.T) {
	type seed struct {
		login, typ, body string
		id               int64 // 0: the login's own id
	}
	tests := []struct {
		name   string
		author string
		seeds  []seed
		want   Action
		target int // index in seeds of the comment edited or left, -1 for a new one
	}{
		{name: "none", want: Created, target: -1},
		{
			name:   "github-actions bot",
			seeds:  []seed{{"github-actions[bot]", "Bot", marker + "\nold", 0}},
			want:   Updated,
			target: 0,
		},
		{
			name:   "identical body is left alone",
			seeds:  []seed{{"github-actions[bot]", "Bot", marker + "\nsame\n", 0}},
			want:   Unchanged,
			target: 0,
		},
		{
			name:   "identical body with CRLF line ends is left alone",
			seeds:  []seed{{"github-actions[bot]", "Bot", marker + "\r\nsame\r\n", 0}},
			want:   Unchanged,
			target: 0,
		},
		{
			name:   "newest of two",
			seeds:  []seed{{"github-actions[bot]", "Bot", marker + "\nolder", 0}, {"github-actions[bot]", "Bot", marker + "\nnewer", 0}},
			want:   Updated,
			target: 1,
		},
		{
			name:   "a person quoting the marker is ignored",
			seeds:  []seed{{"mona", "User", "> " + marker, 0}},
			want:   Created,
			target: -1,
		},
		{
			name:   "a key that shares a prefix is another comment",
			seeds:  []seed{{"github-actions[bot]", "Bot", Marker("bench-linux") + "\nx", 0}, {"github-actions[bot]", "Bot", Marker("ben") + "\nx", 0}},
			want:   Created,
			target: -1,
		},
		{
			name:   "another bot is not ours by default",
			seeds:  []seed{{login: "benchgate-app[bot]", typ: "Bot", body: marker + "\nold"}},
			want:   Created,
			target: -1,
		},
		{
			name:   "github-actions[bot] is checked by id too",
			seeds:  []seed{{login: "github-actions[bot]", typ: "Bot", body: marker + "\nold", id: 41898283}},
			want:   Created,
			target: -1,
		},
		{
			name:   "the marker must start the body",
			seeds:  []seed{{"github-actions[bot]", "Bot", "Echo of the pull request:\n" + marker + "\nold", 0}, {"github-actions[bot]", "Bot", " " + marker + "\nold", 0}},
			want:   Created,
			target: -1,
		},
		{
			name:   "a bot echoing the pull request's text with the marker first is not ours",
			seeds:  []seed{{"github-actions[bot]", "Bot", marker + "\nours", 0}, {"echo-bot[bot]", "Bot", marker + "\nfrom the PR", 0}},
			want:   Updated,
			target: 0,
		},
		{
			name:   "configured author",
			author: "ci-user",
			seeds:  []seed{{"ci-user", "User", marker + "\nold", 0}, {"github-actions[bot]", "Bot", marker + "\nnot ours", 0}},
			want:   Updated,
			target: 0,
		},
		{
			name:   "configured app author",
			author: "benchgate-app[bot]",
			seeds:  []seed{{"benchgate-app[bot]", "Bot", marker + "\nold", 0}, {"benchgate-app", "User", marker + "\nnot ours", 0}},
			want:   Updated,
			target: 0,
		},
		{
			name:   "configured author ignores case",
			author: "CI-User",
			seeds:  []seed{{"ci-user", "User", marker + "\nold", 0}},
			want:   Updated,
			target: 0,
		},
		{
			name:   "configured author is exact: an app of the same name is not it",
			author: "ci-user",
			seeds:  []seed{{"ci-user[bot]", "Bot", marker + "\nnot ours", 0}},
			want:   Created,
			target: -1,
		},
		{
			name:   "configured author ignores other bots",
			author: "ci-user",
			seeds:  []seed{{"github-actions[bot]", "Bot", marker + "\nnot ours", 0}},
			want:   Created,
			target: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, githubtest.Config{Login: "ci-user", UserType: "User"}, Options{Author: tt.author})
			var ids []int64
			for _, s := range tt.seeds {
				if s.id != 0 {
					ids = append(ids, h.srv.AddCommentAs(owner, repo, prNum, s.login, s.id, s.typ, s.body).ID)
					continue
				}
				ids = append(ids, h.srv.AddComment(owner, repo, prNum, s.login, s.typ, s.body).ID)
			}
			got, err := h.upsert("same\n")
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != tt.want {
				t.Errorf("Action = %s, want %s", got.Action, tt.want)
			}
			stored := h.srv.Comments(owner, repo, prNum)
			switch {
			case tt.target < 0:
				if len(stored) != len(tt.seeds)+1 || got.ID != stored[len(stored)-1].ID {
					t.Errorf("Upsert = %+v, want a new comment; stored %+v", got, stored)
				}
			default:
				if got.ID != ids[tt.target] || len(stored) != len(tt.seeds) {
					t.Errorf("Upsert = %+v, want comment %d; stored %+v", got, ids[tt.target], stored)
				}
			}
			for i, s := range tt.seeds {
				if i != tt.target && stored[i].Body != s.body {
					t.Errorf("comment %d changed to %q", i, stored[i].Body)
				}
			}
		})
	}
}

func TestUpsertRerun(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	first, err := h.upsert("run 1\n")
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.upsert("run 2\n")
	if err != nil {
		t.Fatal(err)
	}
	third, err := h.upsert("run 2\n")
	if err != nil {
		t.Fatal(err)
	}
	got := []Result{first, second, third}
	id := first.ID
	want := []Result{{Created, id, htmlURL(id)}, {Updated, id, htmlURL(id)}, {Unchanged, id, htmlURL(id)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{list1, postCall, list1, edit(id), list1}, h.calls()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
}

func TestUpsertRecreatesDeleted(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	old := h.srv.AddComment(owner, repo, prNum, "github-actions[bot]", "Bot", marker+"\nold")
	// Deleted between the listing and the edit.
	h.srv.AddFault(githubtest.Fault{Method: "PATCH", Path: "/repos/*/*/issues/comments/*", Status: 404, Body: githubtest.BodyNotFound})
	got, err := h.upsert("new\n")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{list1, edit(old.ID), postCall}, h.calls()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
	stored := h.srv.Comments(owner, repo, prNum)
	if got.Action != Created || got.ID != stored[len(stored)-1].ID || got.ID == old.ID {
		t.Errorf("Upsert = %+v, want a new comment", got)
	}
}

func TestUpsertForbidden(t *testing.T) {
	for _, existing := range []bool{false, true} {
		t.Run(fmt.Sprintf("existing=%v", existing), func(t *testing.T) {
			h := newHarness(t, githubtest.Config{ReadOnly: true}, Options{})
			op := "create comment on octo-org/widgets#12"
			if existing {
				c := h.srv.AddComment(owner, repo, prNum, "github-actions[bot]", "Bot", marker+"\nold")
				op = fmt.Sprintf("edit comment %d on octo-org/widgets#12", c.ID)
			}
			_, err := h.upsert("new\n")
			if !errors.Is(err, ErrForbidden) {
				t.Fatalf("Upsert error = %v, want ErrForbidden", err)
			}
			want := op + ": 403 Resource not accessible by integration"
			if err.Error() != want {
				t.Errorf("Upsert error = %q, want %q", err, want)
			}
			if len(h.sleeps) != 0 {
				t.Errorf("slept %v, want no retries", h.sleeps)
			}
		})
	}
}

// A body over CommentRoom is refused before anything is sent; one the
// server refuses as too long (a smaller limit) is ErrTooLong, so that the
// caller can fit a shorter one: Upsert never cuts a body.
func TestUpsertTooLong(t *testing.T) {
	big := strings.Repeat("| BenchmarkParse-8 | 1.00µs ± 2% | 1.20µs ± 1% | +20.00% |\n", 2000) // ~120 KB
	tests := []struct {
		name      string
		cfg       githubtest.Config
		faults    []githubtest.Fault
		body      string
		wantPosts int
	}{
		{name: "over the room", body: big},
		{name: "GitHub says 422", body: big[:3000], faults: []githubtest.Fault{{Method: "POST", Status: 422, Body: githubtest.BodyTooLong}}, wantPosts: 1},
		{name: "a server with a smaller limit", cfg: githubtest.Config{MaxBody: 1000}, body: big[:1500], wantPosts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.cfg, Options{})
			for _, f := range tt.faults {
				h.srv.AddFault(f)
			}
			_, err := h.upsert(tt.body)
			if !errors.Is(err, ErrTooLong) {
				t.Errorf("Upsert error = %v, want ErrTooLong", err)
			}
			posts := 0
			for _, c := range h.calls() {
				if c == postCall {
					posts++
				}
			}
			if posts != tt.wantPosts {
				t.Errorf("%d POSTs, want %d", posts, tt.wantPosts)
			}
			if stored := h.srv.Comments(owner, repo, prNum); len(stored) != 0 {
				t.Errorf("stored %d comments, want none", len(stored))
			}
		})
	}
	h := newHarness(t, githubtest.Config{}, Options{})
	room := CommentRoom(key)
	if _, err := h.upsert(strings.Repeat("x", room)); err != nil {
		t.Errorf("a body of CommentRoom bytes: %v", err)
	}
	if stored := h.srv.Comments(owner, repo, prNum); len(stored) != 1 || len(stored[0].Body) != maxCommentLength {
		t.Errorf("the stored comment is not the marker and the body, %d bytes", maxCommentLength)
	}
}

func TestUpsertRetries(t *testing.T) {
	reset := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	tests := []struct {
		name       string
		faults     []githubtest.Fault
		wantSleeps []time.Duration
		wantErr    string // empty: success
		rateLimit  bool
	}{
		{
			name:       "502 twice while listing",
			faults:     []githubtest.Fault{{Method: "GET", Status: 502, Times: 2, Header: map[string]string{"Content-Type": "text/html"}, Body: githubtest.BodyBadGateway}},
			wantSleeps: []time.Duration{time.Second, 2 * time.Second},
		},
		{
			name:       "500 on create, every time",
			faults:     []githubtest.Fault{{Method: "POST", Status: 500, Times: -1, Body: githubtest.BodyServerError}},
			wantSleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
			wantErr:    "create comment on octo-org/widgets#12: 500 Server Error (gave up after 4 attempts)",
		},
		{
			name:       "503 with Retry-After",
			faults:     []githubtest.Fault{{Method: "POST", Status: 503, Header: map[string]string{"Retry-After": "2"}, Body: `{"message":"Service Unavailable"}`}},
			wantSleeps: []time.Duration{2 * time.Second},
		},
		{
			name:       "429 with Retry-After",
			faults:     []githubtest.Fault{{Method: "POST", Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: githubtest.BodySecondaryRateLimited}},
			wantSleeps: []time.Duration{7 * time.Second},
		},
		{
			name:       "429 with Retry-After as a date",
			faults:     []githubtest.Fault{{Method: "GET", Status: 429, Header: map[string]string{"Retry-After": now.Add(9 * time.Second).Format(http.TimeFormat)}, Body: githubtest.BodySecondaryRateLimited}},
			wantSleeps: []time.Duration{9 * time.Second},
		},
		{
			name: "429 primary rate limit waits for the reset",
			faults: []githubtest.Fault{{Method: "GET", Status: 429, Body: githubtest.BodyRateLimited,
				Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset(10 * time.Second)}}},
			wantSleeps: []time.Duration{11 * time.Second},
		},
		{
			name: "403 primary rate limit waits for the reset",
			faults: []githubtest.Fault{{Method: "POST", Status: 403, Body: githubtest.BodyRateLimited,
				Header: map[string]string{"X-RateLimit-Limit": "1000", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset(30 * time.Second)}}},
			wantSleeps: []time.Duration{31 * time.Second},
		},
		{
			name: "403 secondary rate limit with Retry-After",
			faults: []githubtest.Fault{{Method: "POST", Status: 403, Body: githubtest.BodySecondaryRateLimited,
				Header: map[string]string{"Retry-After": "3"}}},
			wantSleeps: []time.Duration{3 * time.Second},
		},
		{
			name:       "403 secondary rate limit without Retry-After waits a minute",
			faults:     []githubtest.Fault{{Method: "GET", Status: 403, Body: githubtest.BodySecondaryRateLimited}},
			wantSleeps: []time.Duration{time.Minute},
		},
		{
			name: "rate limit that resets too late gives up at once",
			faults: []githubtest.Fault{{Method: "GET", Status: 403, Body: githubtest.BodyRateLimited,
				Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset(time.Hour)}}},
			wantErr: "list comments on octo-org/widgets#12 (page 1): 403 API rate limit exceeded for installation ID 1234567. " +
				"(resets at 2026-09-02T09:00:00Z) (not retried: GitHub asks to wait 1h0m1s)",
			rateLimit: true,
		},
		{
			name: "secondary rate limits until the wait budget is spent",
			faults: []githubtest.Fault{{Method: "GET", Status: 403, Body: githubtest.BodySecondaryRateLimited, Times: -1,
				Header: map[string]string{"Retry-After": "50"}}},
			wantSleeps: []time.Duration{50 * time.Second, 50 * time.Second},
			wantErr: "list comments on octo-org/widgets#12 (page 1): 403 You have exceeded a secondary rate limit. " +
				"Please wait a few minutes before you try again. (gave up after 3 attempts: GitHub asks to wait 50s)",
			rateLimit: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, githubtest.Config{}, Options{})
			for _, f := range tt.faults {
				h.srv.AddFault(f)
			}
			got, err := h.upsert("body\n")
			if diff := cmp.Diff(tt.wantSleeps, h.sleeps); diff != "" {
				t.Errorf("sleeps mismatch (-want +got):\n%s", diff)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got.Action != Created || len(h.srv.Comments(owner, repo, prNum)) != 1 {
					t.Errorf("Upsert = %+v; stored %d comments, want 1 created", got, len(h.srv.Comments(owner, repo, prNum)))
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("Upsert error = %v\nwant %s", err, tt.wantErr)
			}
			var ae *APIError
			if !errors.As(err, &ae) || ae.RateLimited != tt.rateLimit {
				t.Errorf("error %#v: want an *APIError with RateLimited %v", err, tt.rateLimit)
			}
			if errors.Is(err, ErrForbidden) {
				t.Errorf("error %v matches ErrForbidden", err)
			}
		})
	}
}

// A create whose answer is lost but which GitHub stored is not repeated.
func TestUpsertLostCreate(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	h.srv.AddFault(githubtest.Fault{Method: "POST", Status: 502, Apply: true, Body: githubtest.BodyBadGateway})
	got, err := h.upsert("body\n")
	if err != nil {
		t.Fatal(err)
	}
	stored := h.srv.Comments(owner, repo, prNum)
	if len(stored) != 1 {
		t.Fatalf("stored %d comments, want 1", len(stored))
	}
	want := Result{Action: Created, ID: stored[0].ID, URL: htmlURL(stored[0].ID)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Upsert mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{list1, postCall, list1}, h.calls()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
}

func TestUpsertCanceled(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	h.srv.AddFault(githubtest.Fault{Status: 500, Times: -1, Body: githubtest.BodyServerError})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.onWait = cancel
	_, err := h.c.Upsert(ctx, owner, repo, prNum, key, "body")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Upsert error = %v, want context.Canceled", err)
	}
	if len(h.srv.Requests()) != 1 {
		t.Errorf("%d requests after cancel, want 1", len(h.srv.Requests()))
	}
}

func TestUpsertInvalid(t *testing.T) {
	tests := []struct {
		owner, repo string
		number      int
		key         string
		want        string
	}{
		{"../admin", repo, prNum, key, `repository owner "../admin": want letters, digits, '-', '_' or '.'`},
		{owner, "", prNum, key, `repository name "": want letters, digits, '-', '_' or '.'`},
		{owner, "..", prNum, key, `repository name ".."`},
		{owner, repo, 0, key, "pull request number 0: want a positive number"},
		{owner, repo, prNum, "", "comment key is empty"},
		{owner, repo, prNum, "a --> b", `comment key "a --> b": must not contain '<', '>'`},
		{owner, repo, prNum, "a\nb", `comment key "a\nb"`},
	}
	h := newHarness(t, githubtest.Config{}, Options{})
	for _, tt := range tests {
		_, err := h.c.Upsert(context.Background(), tt.owner, tt.repo, tt.number, tt.key, "body")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Upsert(%q, %q, %d, %q) error = %v, want %q", tt.owner, tt.repo, tt.number, tt.key, err, tt.want)
		}
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests for invalid arguments, want none", n)
	}
}

func TestAPIURL(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "", want: "https://api.github.com/"},
		{in: "https://api.github.com", want: "https://api.github.com/"},
		{in: "https://ghe.example.com/api/v3", want: "https://ghe.example.com/api/v3/"},
		{in: "https://api.acme.ghe.com/", want: "https://api.acme.ghe.com/"},
		{in: "http://127.0.0.1:8080/api/v3", want: "http://127.0.0.1:8080/api/v3/"},
		{in: "ftp://example.com", wantErr: `GITHUB_API_URL "ftp://example.com": want an http or https URL`},
		{in: "/api/v3", wantErr: `GITHUB_API_URL "/api/v3": want an http or https URL`},
		{in: "https://x-access-token:" + token + "@ghe.example.com/api/v3", wantErr: "GITHUB_API_URL must not contain credentials"},
		{in: "https://ghe.example.com/api/v3?x=1", wantErr: "must not have a query"},
	}
	for _, tt := range tests {
		c, err := NewCommenter(Options{APIURL: tt.in, Token: token})
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), token) {
				t.Errorf("NewCommenter(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("NewCommenter(%q): %v", tt.in, err)
			continue
		}
		if got := c.base.String(); got != tt.want {
			t.Errorf("NewCommenter(%q) base = %q, want %q", tt.in, got, tt.want)
		}
	}
	if _, err := NewCommenter(Options{}); err == nil || err.Error() != "github token is empty: cannot comment" {
		t.Errorf("NewCommenter without a token: error = %v", err)
	}
}

// The token goes only to the API host, even when GitHub redirects elsewhere.
func TestTokenStaysOnAPIHost(t *testing.T) {
	var (
		mu       sync.Mutex
		elseAuth []string
	)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elseAuth = append(elseAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, "[]")
	}))
	defer elsewhere.Close()

	h := newHarness(t, githubtest.Config{}, Options{})
	h.srv.AddFault(githubtest.Fault{Method: "GET", Status: 307,
		Header: map[string]string{"Location": elsewhere.URL + "/moved/comments?page=1&per_page=100"}})
	if _, err := h.upsert("body"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{""}, elseAuth); diff != "" {
		t.Errorf("Authorization sent to another host (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{list1, postCall}, h.calls()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
}

// Every error path: the token is in no error message, however it is printed.
func TestTokenNeverInErrors(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		data, _ := json.Marshal(map[string]any{
			"message": "bad request from " + r.Header.Get("Authorization"),
			"errors":  []map[string]string{{"resource": "IssueComment", "code": "custom", "message": "token " + token}},
		})
		w.Write(data)
	}))
	defer echo.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	tests := []struct {
		name   string
		cfg    githubtest.Config
		apiURL string
		faults []githubtest.Fault
		seed   bool
	}{
		{name: "bad credentials", cfg: githubtest.Config{Token: "another-token"}},
		{name: "read-only token", cfg: githubtest.Config{ReadOnly: true}},
		{name: "read-only token on edit", cfg: githubtest.Config{ReadOnly: true}, seed: true},
		{name: "not found", faults: []githubtest.Fault{{Method: "GET", Status: 404, Body: githubtest.BodyNotFound}}},
		{name: "too long twice", faults: []githubtest.Fault{{Method: "POST", Status: 422, Times: 2, Body: githubtest.BodyTooLong}}},
		{name: "server errors", faults: []githubtest.Fault{{Status: 502, Times: -1, Body: githubtest.BodyBadGateway}}},
		{name: "rate limited", faults: []githubtest.Fault{{Status: 403, Times: -1, Body: githubtest.BodySecondaryRateLimited, Header: map[string]string{"Retry-After": "100000"}}}},
		{name: "not JSON", faults: []githubtest.Fault{{Method: "GET", Status: 200, Body: "<html>"}}},
		{name: "echoing server", apiURL: echo.URL + "/api/v3"},
		{name: "connection refused", apiURL: closed.URL + "/api/v3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.cfg, Options{APIURL: tt.apiURL})
			for _, f := range tt.faults {
				h.srv.AddFault(f)
			}
			if tt.seed {
				h.srv.AddComment(owner, repo, prNum, "github-actions[bot]", "Bot", marker+"\nold")
			}
			_, err := h.upsert("body")
			if err == nil {
				t.Fatal("Upsert succeeded, want an error")
			}
			for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
				if s := fmt.Sprintf(format, err); strings.Contains(s, token) {
					t.Errorf("Printf(%q, err) contains the token: %s", format, s)
				}
			}
			for e := err; e != nil; e = errors.Unwrap(e) {
				if strings.Contains(e.Error(), token) {
					t.Errorf("wrapped error contains the token: %s", e)
				}
			}
			t.Log(err)
		})
	}
}

func TestPullRequest(t *testing.T) {
	headSHA, baseSHA := strings.Repeat("a1", 20), strings.Repeat("b2", 20)
	h := newHarness(t, githubtest.Config{}, Options{})
	h.srv.AddPullRequest(githubtest.PullRequest{Owner: owner, Repo: repo, Number: prNum, HeadSHA: headSHA, HeadRef: "faster-parser",
		HeadRepo: "mona/widgets", BaseSHA: baseSHA})
	h.srv.AddPullRequest(githubtest.PullRequest{Owner: owner, Repo: repo, Number: 13, HeadSHA: headSHA, HeadRepo: "-", State: "closed"})
	// One 502 first: reading is retried like the comment calls.
	h.srv.AddFault(githubtest.Fault{Method: "GET", Path: "/repos/*/*/pulls/12", Status: 502, Body: githubtest.BodyBadGateway})

	got, err := h.c.PullRequest(context.Background(), owner, repo, prNum)
	if err != nil {
		t.Fatal(err)
	}
	want := PullRequest{Number: prNum, State: "open", HeadSHA: headSHA, HeadRef: "faster-parser", HeadRepo: "mona/widgets",
		BaseSHA: baseSHA, BaseRef: "main", BaseRepo: "octo-org/widgets"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PullRequest mismatch (-want +got):\n%s", diff)
	}
	pr := "GET /api/v3/repos/octo-org/widgets/pulls/12"
	if diff := cmp.Diff([]string{pr, pr}, h.calls()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{time.Second}, h.sleeps); diff != "" {
		t.Errorf("sleeps mismatch (-want +got):\n%s", diff)
	}

	got, err = h.c.PullRequest(context.Background(), owner, repo, 13)
	if err != nil || got.HeadRepo != "" || got.State != "closed" || got.HeadSHA != headSHA {
		t.Errorf("PullRequest(13) = %+v, %v; want a closed pull request without a head repository", got, err)
	}

	_, err = h.c.PullRequest(context.Background(), owner, repo, 99)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 404 || !strings.Contains(err.Error(), "get pull request octo-org/widgets#99: 404 Not Found") {
		t.Errorf("PullRequest(99) error = %v, want a 404 APIError naming the pull request", err)
	}
	for _, bad := range []struct {
		owner string
		n     int
	}{{"../x", 1}, {owner, 0}} {
		if _, err := h.c.PullRequest(context.Background(), bad.owner, repo, bad.n); err == nil {
			t.Errorf("PullRequest(%q, %d) succeeded, want an error", bad.owner, bad.n)
		}
	}
}
