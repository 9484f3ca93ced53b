// Package gitlabtest is an in-memory fake of the part of GitLab's REST API
// (v4) benchgate uses: the token's user and the notes of a merge request.
//
// It answers like GitLab does: JSON bodies, status codes and messages
// (401 "401 Unauthorized" without a valid PRIVATE-TOKEN or Bearer token,
// 403 "403 Forbidden" for a read-only token or someone else's note, 404
// "404 Not found" for a merge request or note that does not exist, 400
// "Note is too long" over the limit), offset pagination (page, per_page:
// default 20, at most 100; x-page, x-per-page, x-next-page (empty on the
// last page), x-prev-page, x-total, x-total-pages, and a Link header with
// rel="prev", "next", "first" and "last"), under the path prefix
// "/api/v4", so that a client that drops the prefix fails. Routes below it:
//
//	GET  /user                                              the token's user (a project bot)
//	GET  /projects/{id}/merge_requests/{iid}/notes          ?page=&per_page=&sort=asc|desc&order_by=created_at
//	POST /projects/{id}/merge_requests/{iid}/notes          {"body": "..."} (JSON or a form) -> 201
//	GET  /projects/{id}/merge_requests/{iid}/notes/{note}
//	PUT  /projects/{id}/merge_requests/{iid}/notes/{note}   {"body": "..."} -> 200; only the author's
//
// A merge request exists once added (AddMergeRequest). Every request is
// recorded (Requests); Faults answer matching requests with a canned
// answer, once or more. QuickActions lists the lines of stored bodies that
// GitLab would have run as quick actions.
package gitlabtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Config configures a Fake.
type Config struct {
	// Token, if set, is required as "PRIVATE-TOKEN: TOKEN" or
	// "Authorization: Bearer TOKEN"; other requests get 401.
	Token string
	// UserID and Username are the token's user; 0 and "" mean 9001 and
	// "project_42_bot_5e1f".
	UserID   int64
	Username string
	// MaxBody is the longest note accepted, in characters; 0 means
	// 1,000,000, GitLab's limit.
	MaxBody int
}

// Note is a stored note.
type Note struct {
	ID        int64     `json:"id"`
	Project   string    `json:"project"`
	IID       int       `json:"iid"`
	Body      string    `json:"body"`
	AuthorID  int64     `json:"author_id"`
	Author    string    `json:"author"`
	System    bool      `json:"system"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Request is an API request the fake received.
type Request struct {
	Method string `json:"method"`
	Path   string `json:"path"` // full path, prefix included
	Query  string `json:"query"`
	Body   string `json:"body"`
	// Token is the credential the request carried (PRIVATE-TOKEN or the
	// Authorization header's value).
	Token string `json:"token"`
}

// Fault makes the fake answer matching requests with a canned response.
type Fault struct {
	Method string // "" matches any
	// Path is a path.Match pattern for the path below the prefix, e.g.
	// "/projects/*/merge_requests/*/notes"; "" matches any.
	Path string
	// Times is how many requests it answers; 0 means once, negative always.
	Times int
	// Apply carries out the request before answering with the fault, as
	// when GitLab stores a note but the answer is lost.
	Apply  bool
	Status int
	Header map[string]string
	Body   string
}

// Canned GitLab answers, for faults.
const (
	BodyUnauthorized = `{"message":"401 Unauthorized"}`
	BodyForbidden    = `{"message":"403 Forbidden"}`
	BodyScope        = `{"error":"insufficient_scope","error_description":"The request requires higher privileges than provided by the access token.","scope":"api"}`
	BodyNotFound     = `{"message":"404 Not found"}`
	BodyTooMany      = "Retry later\n"
	BodyServerError  = `{"message":"500 Internal Server Error"}`
)

// Prefix is the path of the API root.
const Prefix = "/api/v4"

// Fake is an in-memory GitLab API. It is an http.Handler, safe for
// concurrent use.
type Fake struct {
	token    string
	userID   int64
	username string
	maxBody  int

	mu       sync.Mutex
	readOnly bool
	nextID   int64
	now      time.Time
	mrs      map[string]bool // "project!iid"
	notes    []*Note
	requests []Request
	faults   []*Fault
}

// New returns a Fake with no merge requests.
func New(cfg Config) *Fake {
	f := &Fake{token: cfg.Token, userID: cfg.UserID, username: cfg.Username, maxBody: cfg.MaxBody,
		nextID: 500_000_000, now: time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC), mrs: map[string]bool{}}
	if f.userID == 0 {
		f.userID = 9001
	}
	if f.username == "" {
		f.username = "project_42_bot_5e1f"
	}
	if f.maxBody == 0 {
		f.maxBody = 1_000_000
	}
	return f
}

// Server is a Fake served on loopback.
type Server struct {
	*httptest.Server
	*Fake
}

// NewServer starts a Fake on loopback. Close it when done.
func NewServer(cfg Config) *Server {
	f := New(cfg)
	return &Server{Server: httptest.NewServer(f), Fake: f}
}

// APIURL is the value for CI_API_V4_URL.
func (s *Server) APIURL() string { return s.URL + Prefix }

// UserID is the token's user's id.
func (f *Fake) UserID() int64 { return f.userID }

// AddMergeRequest makes merge request iid of project exist.
func (f *Fake) AddMergeRequest(project string, iid int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mrs[mrKey(project, iid)] = true
}

// AddNote stores a note by another account (authorID, author) and returns it.
func (f *Fake) AddNote(project string, iid int, authorID int64, author, body string, system bool) Note {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mrs[mrKey(project, iid)] = true
	return *f.add(project, iid, authorID, author, body, system)
}

// DeleteNote removes a note, as if someone deleted it.
func (f *Fake) DeleteNote(id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notes = slices.DeleteFunc(f.notes, func(n *Note) bool { return n.ID == id })
}

// Notes returns the notes of one merge request, oldest first.
func (f *Fake) Notes(project string, iid int) []Note {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Note
	for _, n := range f.notes {
		if n.Project == project && n.IID == iid {
			out = append(out, *n)
		}
	}
	return out
}

// Requests returns the requests received so far, in order.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// AddFault adds a canned answer.
func (f *Fake) AddFault(ft Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ft.Times == 0 {
		ft.Times = 1
	}
	f.faults = append(f.faults, &ft)
}

// SetReadOnly makes every write answer 403, as for a token without the
// api scope or a role that may not comment.
func (f *Fake) SetReadOnly(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.readOnly = on
}

// quickAction is GitLab's test for a quick action: a line that starts with
// "/" and a command's name (any word here, as GitLab's list grows).
var quickAction = regexp.MustCompile(`(?m)^/[A-Za-z][A-Za-z0-9_]*(?:[ ]|$)`)

// QuickActions returns every line of the stored notes (and of every body
// sent, refused or not) that GitLab would have run as a quick action.
func (f *Fake) QuickActions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		if r.Method != http.MethodPost && r.Method != http.MethodPut {
			continue
		}
		body := bodyParam(r.Body)
		out = append(out, quickAction.FindAllString(strings.ReplaceAll(body, "\r", ""), -1)...)
	}
	return out
}

func mrKey(project string, iid int) string { return project + "!" + strconv.Itoa(iid) }

func (f *Fake) add(project string, iid int, authorID int64, author, body string, system bool) *Note {
	f.nextID++
	f.now = f.now.Add(time.Minute)
	n := &Note{ID: f.nextID, Project: project, IID: iid, Body: body, AuthorID: authorID, Author: author, System: system, CreatedAt: f.now, UpdatedAt: f.now}
	f.notes = append(f.notes, n)
	return n
}

// ServeHTTP answers one request.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, `{"message":"400 Bad request"}`)
		return
	}
	token := r.Header.Get("PRIVATE-TOKEN")
	if token == "" {
		token = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body), Token: token})
	rel, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok || !strings.HasPrefix(rel, "/") {
		writeJSON(w, http.StatusNotFound, `{"error":"404 Not Found"}`)
		return
	}
	if ft := f.fault(r.Method, rel); ft != nil {
		if ft.Apply {
			f.route(&discard{header: http.Header{}}, r, rel, body)
		}
		for k, v := range ft.Header {
			w.Header().Set(k, v)
		}
		if strings.HasPrefix(ft.Body, "{") {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(ft.Status)
		io.WriteString(w, ft.Body)
		return
	}
	if f.token != "" && token != f.token {
		writeJSON(w, http.StatusUnauthorized, BodyUnauthorized)
		return
	}
	f.route(w, r, rel, body)
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

var notesRoute = regexp.MustCompile(`^/projects/([^/]+)/merge_requests/([0-9]+)/notes(?:/([0-9]+))?$`)

func (f *Fake) route(w http.ResponseWriter, r *http.Request, rel string, body []byte) {
	if rel == "/user" && r.Method == http.MethodGet {
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"id":%d,"username":%q,"name":"benchgate","state":"active","bot":true}`, f.userID, f.username))
		return
	}
	m := notesRoute.FindStringSubmatch(rel)
	if m == nil {
		writeJSON(w, http.StatusNotFound, `{"error":"404 Not Found"}`)
		return
	}
	project, _ := url.PathUnescape(m[1])
	iid, _ := strconv.Atoi(m[2])
	if !f.mrs[mrKey(project, iid)] {
		writeJSON(w, http.StatusNotFound, BodyNotFound)
		return
	}
	if m[3] == "" {
		switch r.Method {
		case http.MethodGet:
			f.list(w, r, project, iid)
		case http.MethodPost:
			f.create(w, r, project, iid, body)
		default:
			writeJSON(w, http.StatusMethodNotAllowed, `{"error":"405 Not Allowed"}`)
		}
		return
	}
	id, _ := strconv.ParseInt(m[3], 10, 64)
	var n *Note
	for _, x := range f.notes {
		if x.ID == id && x.Project == project && x.IID == iid {
			n = x
		}
	}
	if n == nil {
		writeJSON(w, http.StatusNotFound, BodyNotFound)
		return
	}
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, http.StatusOK, f.noteJSON(n))
	case http.MethodPut:
		if f.readOnly || n.AuthorID != f.userID {
			writeJSON(w, http.StatusForbidden, BodyForbidden)
			return
		}
		text, ok := f.body(w, r, body)
		if !ok {
			return
		}
		f.now = f.now.Add(time.Minute)
		n.Body, n.UpdatedAt = text, f.now
		writeJSON(w, http.StatusOK, f.noteJSON(n))
	default:
		writeJSON(w, http.StatusMethodNotAllowed, `{"error":"405 Not Allowed"}`)
	}
}

// body reads the body parameter (JSON or a form) and checks it as GitLab
// does; it answers the error itself.
func (f *Fake) body(w http.ResponseWriter, r *http.Request, raw []byte) (string, bool) {
	text := bodyParam(string(raw))
	if strings.TrimSpace(text) == "" {
		writeJSON(w, http.StatusBadRequest, `{"error":"body is missing"}`)
		return "", false
	}
	if utf8.RuneCountInString(text) > f.maxBody {
		writeJSON(w, http.StatusBadRequest, fmt.Sprintf(`{"message":{"note":["is too long (maximum is %d characters)"]}}`, f.maxBody))
		return "", false
	}
	return text, true
}

// bodyParam is the body parameter of a request: a JSON object's "body", or
// a form's.
func bodyParam(raw string) string {
	var v struct {
		Body string `json:"body"`
	}
	if json.Unmarshal([]byte(raw), &v) == nil {
		return v.Body
	}
	q, _ := url.ParseQuery(raw)
	return q.Get("body")
}

func (f *Fake) create(w http.ResponseWriter, r *http.Request, project string, iid int, raw []byte) {
	if f.readOnly {
		writeJSON(w, http.StatusForbidden, BodyForbidden)
		return
	}
	text, ok := f.body(w, r, raw)
	if !ok {
		return
	}
	n := f.add(project, iid, f.userID, f.username, text, false)
	writeJSON(w, http.StatusCreated, f.noteJSON(n))
}

func (f *Fake) list(w http.ResponseWriter, r *http.Request, project string, iid int) {
	q := r.URL.Query()
	page, perPage := 1, 20
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		page = v
	}
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		perPage = min(v, 100)
	}
	var all []*Note
	for _, n := range f.notes {
		if n.Project == project && n.IID == iid {
			all = append(all, n)
		}
	}
	if q.Get("sort") != "asc" { // GitLab's default is desc
		slices.Reverse(all)
	}
	total := len(all)
	pages := max((total+perPage-1)/perPage, 1)
	from, to := min((page-1)*perPage, total), min(page*perPage, total)
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(page))
	h.Set("X-Per-Page", strconv.Itoa(perPage))
	h.Set("X-Total", strconv.Itoa(total))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Next-Page", "")
	h.Set("X-Prev-Page", "")
	link := func(p int, rel string) string {
		u := *r.URL
		u.Scheme, u.Host = "http", r.Host
		v := u.Query()
		v.Set("page", strconv.Itoa(p))
		v.Set("per_page", strconv.Itoa(perPage))
		u.RawQuery = v.Encode()
		return fmt.Sprintf(`<%s>; rel="%s"`, u.String(), rel)
	}
	var links []string
	if page > 1 {
		h.Set("X-Prev-Page", strconv.Itoa(page-1))
		links = append(links, link(page-1, "prev"))
	}
	if page < pages {
		h.Set("X-Next-Page", strconv.Itoa(page+1))
		links = append(links, link(page+1, "next"))
	}
	links = append(links, link(1, "first"), link(pages, "last"))
	h.Set("Link", strings.Join(links, ", "))
	parts := make([]string, 0, to-from)
	for _, n := range all[from:to] {
		parts = append(parts, f.noteJSON(n))
	}
	writeJSON(w, http.StatusOK, "["+strings.Join(parts, ",")+"]")
}

func (f *Fake) noteJSON(n *Note) string {
	v := map[string]any{
		"id": n.ID, "type": nil, "body": n.Body, "attachment": nil, "system": n.System,
		"author":     map[string]any{"id": n.AuthorID, "username": n.Author, "name": n.Author, "state": "active"},
		"created_at": n.CreatedAt.Format(time.RFC3339Nano), "updated_at": n.UpdatedAt.Format(time.RFC3339Nano),
		"noteable_id": 1000 + n.IID, "noteable_type": "MergeRequest", "noteable_iid": n.IID,
		"resolvable": false, "confidential": false, "internal": false,
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// discard is the writer of a request a fault carries out unseen.
type discard struct{ header http.Header }

func (d *discard) Header() http.Header         { return d.header }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}
