// Package githubtest is an in-memory fake of the GitHub REST API benchgate
// uses: an issue's comments, a pull request, an issue's timeline of label
// events, and files on a branch (contents API, git data API for large files).
//
// It answers like GitHub does (JSON bodies, status codes, Link-header
// pagination with rel="next" and rel="last", the messages GitHub sends for
// read-only tokens, missing comments and oversized bodies), under a path prefix
// ("/api/v3" by default, as on GitHub Enterprise Server) so that a client that
// drops the prefix with an absolute path fails.
//
// Use it in a test with NewServer, or serve a Fake on any listener and point
// GITHUB_API_URL at its /api/v3. Routes below the prefix:
//
//	GET    /repos/{owner}/{repo}/issues/{number}/comments   ?page=&per_page= (default 30, at most 100)
//	POST   /repos/{owner}/{repo}/issues/{number}/comments   {"body": "..."} -> 201
//	GET    /repos/{owner}/{repo}/issues/comments/{id}
//	PATCH  /repos/{owner}/{repo}/issues/comments/{id}       {"body": "..."} -> 200
//	DELETE /repos/{owner}/{repo}/issues/comments/{id}       -> 204
//	GET    /repos/{owner}/{repo}/pulls/{number}             a pull request added with AddPullRequest, else 404
//	GET    /repos/{owner}/{repo}/issues/{number}/timeline   ?page=&per_page= the events added with AddTimelineEvent, oldest first
//	GET    /repos/{owner}/{repo}/collaborators/{username}/permission   a collaborator added with AddCollaborator, else 404
//	GET    /repos/{owner}/{repo}/contents/{path}?ref=BRANCH and PUT: files on branches; git/ref, git/refs,
//	       git/trees, git/commits, git/blobs: see git.go
//
// Comment authors have GitHub's user shape (login, id, type): the id of
// github-actions[bot] is 41898282, as on github.com; other logins get a stable
// id of their own unless the comment sets one.
//
// Control routes outside the prefix, for scripts that run the fake as a process:
//
//	GET  /_fake/comments   all stored comments, as JSON
//	POST /_fake/comments   store a Comment given as JSON (owner, repo, issue, body, login, type, user_id)
//	POST /_fake/pulls      store a PullRequest given as JSON (owner, repo, number, head_sha, head_repo, ...)
//	POST /_fake/collaborators  store a Collaborator given as JSON (owner, repo, login, role)
//	GET  /_fake/requests   every API request received so far, as JSON
//	POST /_fake/faults     add a Fault given as JSON
//	POST /_fake/readonly   ?on=true|false: answer every write with 403, as for a fork's token
//
// Everything else answers 404 with a message saying why.
package githubtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Config configures a Fake. The zero value is usable.
type Config struct {
	// Prefix is the path of the API root; "" means "/api/v3". Use "/" for
	// none.
	Prefix string
	// Token, if set, is required as "Authorization: Bearer TOKEN" (or
	// "token TOKEN"); other requests get 401 Bad credentials.
	Token string
	// Login and UserType are the author of comments created through the API;
	// "" means "github-actions[bot]" of type "Bot", as for GITHUB_TOKEN.
	Login, UserType string
	// ReadOnly makes every write answer 403 "Resource not accessible by
	// integration", as for the token of a pull request from a fork.
	ReadOnly bool
	// MaxBody is the longest comment body accepted, in characters; 0 means
	// 65536, GitHub's limit. Longer bodies get 422 Validation Failed.
	MaxBody int
}

// Comment is a stored comment.
type Comment struct {
	ID        int64     `json:"id"`
	Owner     string    `json:"owner"`
	Repo      string    `json:"repo"`
	Issue     int       `json:"issue"`
	Body      string    `json:"body"`
	Login     string    `json:"login"`
	UserType  string    `json:"type"`
	UserID    int64     `json:"user_id,omitempty"` // 0: the login's usual id (see UserID)
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// PullRequest is a stored pull request, served in GitHub's shape.
type PullRequest struct {
	Owner  string `json:"owner"` // the base repository's owner and name
	Repo   string `json:"repo"`
	Number int    `json:"number"`
	State  string `json:"state"` // "" means "open"
	Title  string `json:"title"`
	// HeadSHA is head.sha; HeadRef is head.ref ("" means "pr-N"); HeadRepo is
	// head.repo.full_name ("" means the base repository; "-" means deleted,
	// served as head.repo: null).
	HeadSHA  string `json:"head_sha"`
	HeadRef  string `json:"head_ref"`
	HeadRepo string `json:"head_repo"`
	// BaseSHA is base.sha; BaseRef is base.ref ("" means "main").
	BaseSHA string `json:"base_sha"`
	BaseRef string `json:"base_ref"`
	// User is the author's login ("" means "mona").
	User string `json:"user"`
}

// Request is an API request the fake received.
type Request struct {
	Method        string `json:"method"`
	Path          string `json:"path"` // full path, prefix included
	Query         string `json:"query"`
	Body          string `json:"body"`
	Authorization string `json:"authorization"`
}

// Fault makes the fake answer matching requests with a canned response
// instead of the normal one. Faults are tried in the order they were added.
type Fault struct {
	// Method matches the request method; "" matches any.
	Method string `json:"method"`
	// Path is a path.Match pattern for the path below the prefix, such as
	// "/repos/*/*/issues/comments/*"; "" matches any.
	Path string `json:"path"`
	// Times is how many requests the fault answers; 0 means once, a negative
	// number means every time.
	Times int `json:"times"`
	// Apply makes the fake carry out the request before answering with the
	// fault, as when GitHub stores a comment but the answer is lost.
	Apply bool `json:"apply"`

	Status int               `json:"status"`
	Header map[string]string `json:"header"`
	Body   string            `json:"body"`
}

// Canned GitHub answers, for faults.
const (
	// BodyForbidden is GitHub's answer to a write with a read-only token.
	BodyForbidden = `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/issues/comments#create-an-issue-comment","status":"403"}`
	// BodyRateLimited is GitHub's answer when the primary rate limit is used up
	// (with X-RateLimit-Remaining: 0).
	BodyRateLimited = `{"message":"API rate limit exceeded for installation ID 1234567.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit","status":"403"}`
	// BodySecondaryRateLimited is GitHub's answer when a secondary rate limit
	// is hit.
	BodySecondaryRateLimited = `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits","status":"403"}`
	// BodyNotFound is GitHub's answer for a missing resource.
	BodyNotFound = `{"message":"Not Found","documentation_url":"https://docs.github.com/rest/issues/comments#update-an-issue-comment","status":"404"}`
	// BodyTooLong is GitHub's answer to a comment body over 65,536 characters.
	BodyTooLong = `{"message":"Validation Failed","errors":[{"resource":"IssueComment","code":"custom","field":"body","message":"body is too long (maximum is 65536 characters)"}],"documentation_url":"https://docs.github.com/rest/issues/comments#create-an-issue-comment","status":"422"}`
	// BodyServerError is GitHub's answer to an internal error.
	BodyServerError = `{"message":"Server Error","status":"500"}`
	// BodyBadGateway is what a proxy in front of GitHub answers on a 502.
	BodyBadGateway = "<html><body><h1>502 Bad Gateway</h1>\n</body></html>\n"
	// BodyBadCredentials is GitHub's answer to a missing or wrong token.
	BodyBadCredentials = `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}`
)

// Fake is an in-memory GitHub REST API for issue comments. It is an
// http.Handler and safe for concurrent use.
type Fake struct {
	prefix   string
	token    string
	login    string
	userType string
	maxBody  int

	mu       sync.Mutex
	readOnly bool
	nextID   int64
	comments []*Comment
	pulls    []PullRequest
	timeline []TimelineEvent
	collabs  []Collaborator
	requests []Request
	faults   []*Fault
	now      time.Time
	repos    map[string]*gitRepo // "owner/repo" -> branches and their files (git.go)
}

// New returns a Fake with no comments.
func New(cfg Config) *Fake {
	f := &Fake{
		prefix:   strings.TrimRight(cfg.Prefix, "/"),
		token:    cfg.Token,
		login:    cfg.Login,
		userType: cfg.UserType,
		maxBody:  cfg.MaxBody,
		readOnly: cfg.ReadOnly,
		nextID:   1_000_000_001,
		now:      time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC),
	}
	if cfg.Prefix == "" {
		f.prefix = "/api/v3"
	}
	if f.login == "" {
		f.login, f.userType = "github-actions[bot]", "Bot"
	}
	if f.userType == "" {
		f.userType = "User"
	}
	if f.maxBody == 0 {
		f.maxBody = 65536
	}
	return f
}

// Server is a Fake served by an httptest.Server on loopback.
type Server struct {
	*httptest.Server
	*Fake
}

// NewServer starts a Fake on loopback. Close it when done.
func NewServer(cfg Config) *Server {
	f := New(cfg)
	return &Server{Server: httptest.NewServer(f), Fake: f}
}

// APIURL is the value for GITHUB_API_URL: the server's URL and the prefix.
func (s *Server) APIURL() string { return s.URL + s.prefix }

// Prefix is the path of the API root, without a trailing slash.
func (f *Fake) Prefix() string { return f.prefix }

// AddComment stores a comment as if login (of type userType: "User" or
// "Bot") had written it, and returns it.
func (f *Fake) AddComment(owner, repo string, issue int, login, userType, body string) Comment {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.add(owner, repo, issue, login, userType, body)
}

// AddCommentAs stores a comment by an account whose id is given, as when a
// login has been taken over by another account, and returns it.
func (f *Fake) AddCommentAs(owner, repo string, issue int, login string, id int64, userType, body string) Comment {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.add(owner, repo, issue, login, userType, body)
	c.UserID = id
	return *c
}

// AddPullRequest stores a pull request (replacing one with the same owner,
// repo and number), served by GET /repos/{owner}/{repo}/pulls/{number}.
func (f *Fake) AddPullRequest(pr PullRequest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pulls = slices.DeleteFunc(f.pulls, func(p PullRequest) bool {
		return p.Owner == pr.Owner && p.Repo == pr.Repo && p.Number == pr.Number
	})
	f.pulls = append(f.pulls, pr)
}

// TimelineEvent is an event of an issue's timeline, served in GitHub's
// shape: {"event": "labeled", "actor": {"login": ...}, "label": {"name":
// ...}, "created_at": ...}. Label is for "labeled" and "unlabeled"
// events; CreatedAt, if zero, is the fake's clock, which then moves on a
// minute.
type TimelineEvent struct {
	Owner     string    `json:"owner"`
	Repo      string    `json:"repo"`
	Issue     int       `json:"issue"`
	Event     string    `json:"event"`
	Actor     string    `json:"actor"`
	Label     string    `json:"label"`
	CreatedAt time.Time `json:"created_at"`
}

// AddTimelineEvent appends an event to an issue's timeline.
func (f *Fake) AddTimelineEvent(e TimelineEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e.CreatedAt.IsZero() {
		f.now = f.now.Add(time.Minute)
		e.CreatedAt = f.now
	}
	f.timeline = append(f.timeline, e)
}

// Collaborator is a user's role on a repository: "admin", "maintain",
// "write", "triage" or "read", served by GET
// /repos/{owner}/{repo}/collaborators/{username}/permission as GitHub
// does: the base permission (maintain is write, triage is read) and the
// role's name. A user who is not a collaborator gets 404.
type Collaborator struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
	Login string `json:"login"`
	Role  string `json:"role"`
}

// roleLevel is the base permission of each role.
var roleLevel = map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read"}

// AddCollaborator gives login a role on owner/repo (replacing any it had).
func (f *Fake) AddCollaborator(owner, repo, login, role string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.collabs = slices.DeleteFunc(f.collabs, func(c Collaborator) bool {
		return strings.EqualFold(c.Owner, owner) && strings.EqualFold(c.Repo, repo) && strings.EqualFold(c.Login, login)
	})
	f.collabs = append(f.collabs, Collaborator{Owner: owner, Repo: repo, Login: login, Role: role})
}

func (f *Fake) permission(w http.ResponseWriter, owner, repo, login string) {
	i := slices.IndexFunc(f.collabs, func(c Collaborator) bool {
		return strings.EqualFold(c.Owner, owner) && strings.EqualFold(c.Repo, repo) && strings.EqualFold(c.Login, login)
	})
	if i < 0 {
		writeJSON(w, http.StatusNotFound, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user","status":"404"}`)
		return
	}
	c := f.collabs[i]
	level, ok := roleLevel[c.Role]
	if !ok {
		level = "read" // a custom role of the fake's: read-based
	}
	writeJSON(w, http.StatusOK, fmt.Sprintf(`{"permission":%q,"role_name":%q,"user":{"login":%q,"id":%d,"type":"User","site_admin":false,"permissions":{"admin":%t,"maintain":%t,"push":%t,"triage":%t,"pull":true},"role_name":%q}}`,
		level, c.Role, c.Login, UserID(c.Login), c.Role == "admin", c.Role == "admin" || c.Role == "maintain", level == "admin" || level == "write",
		c.Role != "read", c.Role))
}

// UserID is the account id the fake gives login: 41898282 for
// github-actions[bot], as on github.com, and a stable id for any other.
func UserID(login string) int64 {
	if strings.EqualFold(login, "github-actions[bot]") {
		return 41898282
	}
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(login)))
	return 100_000_000 + int64(h.Sum32()%100_000_000)
}

// Comments returns the comments of one issue or pull request, oldest first.
func (f *Fake) Comments(owner, repo string, issue int) []Comment {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Comment
	for _, c := range f.comments {
		if c.Owner == owner && c.Repo == repo && c.Issue == issue {
			out = append(out, *c)
		}
	}
	return out
}

// AllComments returns every stored comment, oldest first.
func (f *Fake) AllComments() []Comment {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Comment, len(f.comments))
	for i, c := range f.comments {
		out[i] = *c
	}
	return out
}

// DeleteComment removes a comment, as if someone deleted it on github.com.
func (f *Fake) DeleteComment(id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.comments = slices.DeleteFunc(f.comments, func(c *Comment) bool { return c.ID == id })
}

// Requests returns the API requests received so far, in order.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// AddFault adds a canned answer for matching requests.
func (f *Fake) AddFault(fault Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fault.Times == 0 {
		fault.Times = 1
	}
	f.faults = append(f.faults, &fault)
}

// SetReadOnly switches the answer to writes between normal and 403.
func (f *Fake) SetReadOnly(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.readOnly = on
}

func (f *Fake) add(owner, repo string, issue int, login, userType, body string) *Comment {
	f.nextID++
	f.now = f.now.Add(time.Minute)
	c := &Comment{
		ID: f.nextID, Owner: owner, Repo: repo, Issue: issue, Body: body,
		Login: login, UserType: userType, CreatedAt: f.now, UpdatedAt: f.now,
	}
	f.comments = append(f.comments, c)
	return c
}

// ServeHTTP answers one request.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_fake/") {
		f.control(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, `{"message":"Problems parsing JSON"}`)
		return
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, Request{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body),
		Authorization: r.Header.Get("Authorization"),
	})

	rel, ok := f.below(r.URL.Path)
	if !ok {
		writeJSON(w, http.StatusNotFound, fmt.Sprintf(`{"message":"Not Found: %s is outside the API prefix %s (absolute path in the client?)"}`,
			jsonEscape(r.URL.Path), jsonEscape(f.prefix)))
		return
	}
	fault := f.fault(r.Method, rel)
	if fault != nil && !fault.Apply {
		fault.write(w)
		return
	}
	if fault != nil {
		w = &faultWriter{real: w, fault: fault, header: http.Header{}}
	}
	if f.token != "" {
		auth := r.Header.Get("Authorization")
		if auth != "Bearer "+f.token && auth != "token "+f.token {
			writeJSON(w, http.StatusUnauthorized, BodyBadCredentials)
			return
		}
	}
	f.route(w, r, rel, body)
}

// below returns the path below the prefix.
func (f *Fake) below(p string) (string, bool) {
	if f.prefix == "" {
		return p, true
	}
	rest, ok := strings.CutPrefix(p, f.prefix)
	if !ok || !strings.HasPrefix(rest, "/") {
		return "", false
	}
	return rest, true
}

func (f *Fake) fault(method, rel string) *Fault {
	for i, ft := range f.faults {
		if ft.Method != "" && !strings.EqualFold(ft.Method, method) {
			continue
		}
		if ft.Path != "" {
			if ok, _ := path.Match(ft.Path, rel); !ok {
				continue
			}
		}
		if ft.Times > 0 {
			ft.Times--
			if ft.Times == 0 {
				f.faults = slices.Delete(f.faults, i, i+1)
			}
		}
		return ft
	}
	return nil
}

func (ft *Fault) write(w http.ResponseWriter) {
	for k, v := range ft.Header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	w.WriteHeader(ft.Status)
	io.WriteString(w, ft.Body)
}

// faultWriter swallows the normal answer of a request whose fault has Apply
// set and writes the fault instead.
type faultWriter struct {
	real   http.ResponseWriter
	fault  *Fault
	header http.Header
	wrote  bool
}

func (d *faultWriter) Header() http.Header { return d.header }

func (d *faultWriter) Write(b []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	return len(b), nil
}

func (d *faultWriter) WriteHeader(int) {
	if !d.wrote {
		d.wrote = true
		d.fault.write(d.real)
	}
}

func (f *Fake) route(w http.ResponseWriter, r *http.Request, rel string, body []byte) {
	parts := strings.Split(strings.Trim(rel, "/"), "/")
	if f.gitRoute(w, r, parts, body) {
		return
	}
	// repos/{owner}/{repo}/pulls/{number}
	if len(parts) == 5 && parts[0] == "repos" && parts[3] == "pulls" && parts[1] != "" && parts[2] != "" {
		f.pull(w, r, parts[1], parts[2], parts[4])
		return
	}
	// repos/{owner}/{repo}/collaborators/{username}/permission
	if len(parts) == 6 && parts[0] == "repos" && parts[3] == "collaborators" && parts[5] == "permission" && r.Method == http.MethodGet {
		f.permission(w, parts[1], parts[2], parts[4])
		return
	}
	// repos/{owner}/{repo}/issues/{number}/timeline
	if len(parts) == 6 && parts[0] == "repos" && parts[3] == "issues" && parts[5] == "timeline" && r.Method == http.MethodGet {
		f.listTimeline(w, r, parts[1], parts[2], parts[4])
		return
	}
	// repos/{owner}/{repo}/issues/{number}/comments
	// repos/{owner}/{repo}/issues/comments/{id}
	if len(parts) != 6 || parts[0] != "repos" || parts[3] != "issues" || parts[1] == "" || parts[2] == "" {
		writeJSON(w, http.StatusNotFound, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`)
		return
	}
	owner, repo := parts[1], parts[2]
	if parts[4] == "comments" {
		id, err := strconv.ParseInt(parts[5], 10, 64)
		if err != nil {
			writeJSON(w, http.StatusNotFound, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`)
			return
		}
		f.comment(w, r, owner, repo, id, body)
		return
	}
	number, err := strconv.Atoi(parts[4])
	if err != nil || number <= 0 || parts[5] != "comments" {
		writeJSON(w, http.StatusNotFound, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`)
		return
	}
	switch r.Method {
	case http.MethodGet:
		f.list(w, r, owner, repo, number)
	case http.MethodPost:
		if f.readOnly {
			writeJSON(w, http.StatusForbidden, BodyForbidden)
			return
		}
		text, ok := f.body(w, body)
		if !ok {
			return
		}
		c := f.add(owner, repo, number, f.login, f.userType, text)
		w.Header().Set("Location", f.commentURL(r, c))
		writeJSON(w, http.StatusCreated, f.render(r, c))
	default:
		writeJSON(w, http.StatusNotFound, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`)
	}
}

func (f *Fake) comment(w http.ResponseWriter, r *http.Request, owner, repo string, id int64, body []byte) {
	i := slices.IndexFunc(f.comments, func(c *Comment) bool { return c.ID == id && c.Owner == owner && c.Repo == repo })
	if r.Method != http.MethodGet && f.readOnly {
		writeJSON(w, http.StatusForbidden, BodyForbidden)
		return
	}
	if i < 0 {
		writeJSON(w, http.StatusNotFound, BodyNotFound)
		return
	}
	c := f.comments[i]
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, http.StatusOK, f.render(r, c))
	case http.MethodPatch:
		text, ok := f.body(w, body)
		if !ok {
			return
		}
		f.now = f.now.Add(time.Minute)
		c.Body, c.UpdatedAt = text, f.now
		writeJSON(w, http.StatusOK, f.render(r, c))
	case http.MethodDelete:
		f.comments = slices.Delete(f.comments, i, i+1)
		w.WriteHeader(http.StatusNoContent)
	default:
		writeJSON(w, http.StatusNotFound, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`)
	}
}

// body decodes {"body": "..."} and checks it like GitHub.
func (f *Fake) body(w http.ResponseWriter, data []byte) (string, bool) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, `{"message":"Problems parsing JSON","documentation_url":"https://docs.github.com/rest","status":"400"}`)
		return "", false
	}
	if in.Body == nil {
		writeJSON(w, http.StatusUnprocessableEntity, `{"message":"Invalid request.\n\n\"body\" wasn't supplied.","documentation_url":"https://docs.github.com/rest","status":"422"}`)
		return "", false
	}
	if n := utf8.RuneCountInString(*in.Body); n > f.maxBody {
		writeJSON(w, http.StatusUnprocessableEntity, strings.ReplaceAll(BodyTooLong, "65536", strconv.Itoa(f.maxBody)))
		return "", false
	}
	return *in.Body, true
}

func (f *Fake) list(w http.ResponseWriter, r *http.Request, owner, repo string, number int) {
	var all []*Comment
	for _, c := range f.comments {
		if c.Owner == owner && c.Repo == repo && c.Issue == number {
			all = append(all, c)
		}
	}
	f.paginate(w, r, len(all), func(i int) string { return f.render(r, all[i]) })
}

// listTimeline answers GET /repos/{owner}/{repo}/issues/{number}/timeline
// like GitHub: the events oldest first, paginated.
func (f *Fake) listTimeline(w http.ResponseWriter, r *http.Request, owner, repo, num string) {
	number, err := strconv.Atoi(num)
	if err != nil || number <= 0 {
		writeJSON(w, http.StatusNotFound, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest/issues/timeline#list-timeline-events-for-an-issue","status":"404"}`)
		return
	}
	var all []TimelineEvent
	for _, e := range f.timeline {
		if strings.EqualFold(e.Owner, owner) && strings.EqualFold(e.Repo, repo) && e.Issue == number {
			all = append(all, e)
		}
	}
	f.paginate(w, r, len(all), func(i int) string {
		e := all[i]
		out := map[string]any{
			"id": 9_000_000 + i, "node_id": fmt.Sprintf("LE_%d", i), "event": e.Event,
			"actor":      map[string]any{"login": e.Actor, "id": UserID(e.Actor), "type": "User"},
			"created_at": e.CreatedAt.UTC().Format(time.RFC3339),
		}
		if e.Label != "" {
			out["label"] = map[string]any{"name": e.Label, "color": "0e8a16"}
		}
		data, _ := json.Marshal(out)
		return string(data)
	})
}

// paginate writes items [0, n) (render(i) is item i's JSON) as GitHub
// pages a list: ?page= and ?per_page= (default 30, at most 100), and a
// Link header with rel="prev", "next", "last" and "first".
func (f *Fake) paginate(w http.ResponseWriter, r *http.Request, n int, render func(i int) string) {
	q := r.URL.Query()
	perPage, page := 30, 1
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		perPage = min(v, 100)
	}
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		page = v
	}
	last := max(1, (n+perPage-1)/perPage)
	var links []string
	link := func(p int, rel string) {
		u := *r.URL
		u.Scheme, u.Host = scheme(r), r.Host
		v := u.Query()
		v.Set("page", strconv.Itoa(p))
		v.Set("per_page", strconv.Itoa(perPage))
		u.RawQuery = v.Encode()
		links = append(links, fmt.Sprintf("<%s>; rel=%q", u.String(), rel))
	}
	if page > 1 {
		link(page-1, "prev")
	}
	if page < last {
		link(page+1, "next")
		link(last, "last")
	}
	if page > 1 {
		link(1, "first")
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	out := make([]json.RawMessage, 0, perPage)
	for i := (page - 1) * perPage; i < n && i < page*perPage; i++ {
		out = append(out, json.RawMessage(render(i)))
	}
	data, _ := json.Marshal(out)
	writeJSON(w, http.StatusOK, string(data))
}

// pull answers GET /repos/{owner}/{repo}/pulls/{number} like GitHub.
func (f *Fake) pull(w http.ResponseWriter, r *http.Request, owner, repo, num string) {
	const notFound = `{"message":"Not Found","documentation_url":"https://docs.github.com/rest/pulls/pulls#get-a-pull-request","status":"404"}`
	number, err := strconv.Atoi(num)
	if r.Method != http.MethodGet || err != nil || number <= 0 {
		writeJSON(w, http.StatusNotFound, notFound)
		return
	}
	i := slices.IndexFunc(f.pulls, func(p PullRequest) bool {
		return strings.EqualFold(p.Owner, owner) && strings.EqualFold(p.Repo, repo) && p.Number == number
	})
	if i < 0 {
		writeJSON(w, http.StatusNotFound, notFound)
		return
	}
	writeJSON(w, http.StatusOK, f.renderPull(r, f.pulls[i]))
}

// renderPull returns a pull request as GitHub's JSON (the fields benchgate
// could read, and enough others to look like the real answer).
func (f *Fake) renderPull(r *http.Request, p PullRequest) string {
	api := fmt.Sprintf("%s://%s%s", scheme(r), r.Host, f.prefix)
	base := p.Owner + "/" + p.Repo
	state, headRef, baseRef, author := p.State, p.HeadRef, p.BaseRef, p.User
	if state == "" {
		state = "open"
	}
	if headRef == "" {
		headRef = fmt.Sprintf("pr-%d", p.Number)
	}
	if baseRef == "" {
		baseRef = "main"
	}
	if author == "" {
		author = "mona"
	}
	user := func(login string) map[string]any {
		typ := "User"
		if strings.HasSuffix(login, "[bot]") {
			typ = "Bot"
		}
		return map[string]any{"login": login, "id": UserID(login), "type": typ, "site_admin": false}
	}
	repoJSON := func(full string) any {
		if full == "-" {
			return nil
		}
		o, n, _ := strings.Cut(full, "/")
		return map[string]any{
			"id": UserID(full), "name": n, "full_name": full, "private": false, "owner": user(o),
			"fork": !strings.EqualFold(full, base), "url": api + "/repos/" + full, "html_url": "https://github.com/" + full,
			"default_branch": "main",
		}
	}
	headRepo := p.HeadRepo
	if headRepo == "" {
		headRepo = base
	}
	headOwner, _, _ := strings.Cut(headRepo, "/")
	if headRepo == "-" {
		headOwner = author
	}
	v := map[string]any{
		"url":      fmt.Sprintf("%s/repos/%s/pulls/%d", api, base, p.Number),
		"id":       1_900_000_000 + p.Number,
		"node_id":  fmt.Sprintf("PR_kwDOFake%d", p.Number),
		"html_url": fmt.Sprintf("https://github.com/%s/pull/%d", base, p.Number),
		"number":   p.Number,
		"state":    state,
		"locked":   false,
		"title":    p.Title,
		"user":     user(author),
		"body":     nil,
		"draft":    false,
		"merged":   false,
		"head": map[string]any{
			"label": headOwner + ":" + headRef, "ref": headRef, "sha": p.HeadSHA,
			"user": user(headOwner), "repo": repoJSON(headRepo),
		},
		"base": map[string]any{
			"label": p.Owner + ":" + baseRef, "ref": baseRef, "sha": p.BaseSHA,
			"user": user(p.Owner), "repo": repoJSON(base),
		},
		"author_association": "CONTRIBUTOR",
		"merge_commit_sha":   nil,
		"mergeable":          nil,
		"commits":            1,
		"created_at":         f.now.Format(time.RFC3339),
		"updated_at":         f.now.Format(time.RFC3339),
	}
	if state == "closed" {
		v["closed_at"] = f.now.Format(time.RFC3339)
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// render returns a comment as GitHub's JSON.
func (f *Fake) render(r *http.Request, c *Comment) string {
	userID := c.UserID
	if userID == 0 {
		userID = UserID(c.Login)
	}
	v := map[string]any{
		"id":                 c.ID,
		"node_id":            fmt.Sprintf("IC_kwDOFake%d", c.ID),
		"url":                f.commentURL(r, c),
		"html_url":           fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", c.Owner, c.Repo, c.Issue, c.ID),
		"issue_url":          fmt.Sprintf("%s://%s%s/repos/%s/%s/issues/%d", scheme(r), r.Host, f.prefix, c.Owner, c.Repo, c.Issue),
		"body":               c.Body,
		"user":               map[string]any{"login": c.Login, "id": userID, "type": c.UserType, "site_admin": false},
		"created_at":         c.CreatedAt.Format(time.RFC3339),
		"updated_at":         c.UpdatedAt.Format(time.RFC3339),
		"author_association": "NONE",
	}
	data, _ := json.Marshal(v)
	return string(data)
}

func (f *Fake) commentURL(r *http.Request, c *Comment) string {
	return fmt.Sprintf("%s://%s%s/repos/%s/%s/issues/comments/%d", scheme(r), r.Host, f.prefix, c.Owner, c.Repo, c.ID)
}

func (f *Fake) control(w http.ResponseWriter, r *http.Request) {
	switch r.Method + " " + r.URL.Path {
	case "GET /_fake/comments":
		data, _ := json.Marshal(f.AllComments())
		writeJSON(w, http.StatusOK, string(data))
	case "POST /_fake/comments":
		var c Comment
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil || c.Owner == "" || c.Repo == "" || c.Issue <= 0 {
			writeJSON(w, http.StatusBadRequest, `{"message":"want {\"owner\", \"repo\", \"issue\", \"body\", \"login\", \"type\"}"}`)
			return
		}
		if c.Login == "" {
			c.Login, c.UserType = f.login, f.userType
		}
		data, _ := json.Marshal(f.AddCommentAs(c.Owner, c.Repo, c.Issue, c.Login, c.UserID, c.UserType, c.Body))
		writeJSON(w, http.StatusCreated, string(data))
	case "POST /_fake/pulls":
		var p PullRequest
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil || p.Owner == "" || p.Repo == "" || p.Number <= 0 {
			writeJSON(w, http.StatusBadRequest, `{"message":"want {\"owner\", \"repo\", \"number\", \"head_sha\", \"head_repo\", ...}"}`)
			return
		}
		f.AddPullRequest(p)
		w.WriteHeader(http.StatusNoContent)
	case "POST /_fake/collaborators":
		var c Collaborator
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil || c.Owner == "" || c.Repo == "" || c.Login == "" || c.Role == "" {
			writeJSON(w, http.StatusBadRequest, `{"message":"want {\"owner\", \"repo\", \"login\", \"role\"}"}`)
			return
		}
		f.AddCollaborator(c.Owner, c.Repo, c.Login, c.Role)
		w.WriteHeader(http.StatusNoContent)
	case "GET /_fake/requests":
		data, _ := json.Marshal(f.Requests())
		writeJSON(w, http.StatusOK, string(data))
	case "POST /_fake/faults":
		var ft Fault
		if err := json.NewDecoder(r.Body).Decode(&ft); err != nil || ft.Status == 0 {
			writeJSON(w, http.StatusBadRequest, `{"message":"want a fault: {\"method\", \"path\", \"times\", \"status\", \"header\", \"body\"}"}`)
			return
		}
		f.AddFault(ft)
		w.WriteHeader(http.StatusNoContent)
	case "POST /_fake/readonly":
		f.SetReadOnly(r.URL.Query().Get("on") != "false")
		w.WriteHeader(http.StatusNoContent)
	default:
		writeJSON(w, http.StatusNotFound, `{"message":"unknown control route"}`)
	}
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-GitHub-Media-Type", "github.v3; format=json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func jsonEscape(s string) string {
	data, _ := json.Marshal(s)
	return string(data[1 : len(data)-1])
}
