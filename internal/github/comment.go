package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	gh "github.com/google/go-github/v60/github"
)

// maxCommentLength is the longest comment body GitHub accepts. Upsert counts
// bytes, which is never less than the characters GitHub counts.
const maxCommentLength = 65536

// CommentRoom is the most bytes of body that Upsert posts for key: the
// limit less the marker's line. The caller fits its body in it.
func CommentRoom(key string) int { return maxCommentLength - len(Marker(key)) - 1 }

// ErrTooLong matches (errors.Is) a body that GitHub refused as too long
// (a server whose limit is lower than maxCommentLength): the caller may
// post a shorter one.
var ErrTooLong = errors.New("the comment is too long for this server")

// defaultAPIURL is the REST API root of github.com.
const defaultAPIURL = "https://api.github.com/"

// Options configure a Commenter.
type Options struct {
	// APIURL is the REST API root exactly as the runner sets GITHUB_API_URL:
	// https://api.github.com, or https://HOST/api/v3 on GitHub Enterprise
	// Server. Empty means defaultAPIURL.
	APIURL string
	// Token authenticates every request (the token input, usually
	// GITHUB_TOKEN). Required.
	Token string
	// HTTPClient sends the requests; nil means a client with a 30-second
	// timeout. Its Transport is wrapped to add the token, not modified.
	HTTPClient *http.Client
	// Author is the login that owns the sticky comment, for tokens that are
	// not GITHUB_TOKEN: a personal access token's user ("octocat") or an
	// app's bot ("my-app[bot]"), compared exactly (ignoring case). Empty
	// means github-actions[bot], the author of GITHUB_TOKEN's comments,
	// matched by login and account id (actionsBotID).
	Author string
	// Attempts is how many times one request is tried; 0 means 4.
	Attempts int
	// MaxWait bounds the total time one request waits between its attempts;
	// 0 means 2 minutes.
	MaxWait time.Duration
	// Sleep waits d or until ctx is done; nil means a timer. Tests make it
	// return at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock used to read X-RateLimit-Reset; nil means time.Now.
	Now func() time.Time
	// Logf, if set, is told about each retry (one line, no token).
	Logf func(format string, args ...any)
}

// Commenter keeps a sticky comment on pull requests.
type Commenter struct {
	base     *url.URL
	http     *http.Client
	token    string
	author   string
	attempts int
	maxWait  time.Duration
	sleep    func(context.Context, time.Duration) error
	now      func() time.Time
	logf     func(string, ...any)
}

// NewCommenter returns a Commenter for opts.
func NewCommenter(opts Options) (*Commenter, error) {
	base, err := apiURL(opts.APIURL)
	if err != nil {
		if opts.Token != "" && strings.Contains(err.Error(), opts.Token) {
			err = errors.New(strings.ReplaceAll(err.Error(), opts.Token, "***"))
		}
		return nil, err
	}
	if opts.Token == "" {
		return nil, errors.New("github token is empty: cannot comment")
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	if opts.HTTPClient != nil {
		copied := *opts.HTTPClient
		hc = &copied
	}
	hc.Transport = &authTransport{base: hc.Transport, scheme: base.Scheme, host: base.Host, token: opts.Token}
	c := &Commenter{
		base: base, http: hc, token: opts.Token, author: opts.Author,
		attempts: opts.Attempts, maxWait: opts.MaxWait, sleep: opts.Sleep, now: opts.Now, logf: opts.Logf,
	}
	if c.attempts <= 0 {
		c.attempts = 4
	}
	if c.maxWait <= 0 {
		c.maxWait = 2 * time.Minute
	}
	if c.sleep == nil {
		c.sleep = sleep
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.logf == nil {
		c.logf = func(string, ...any) {}
	}
	return c, nil
}

// apiURL checks GITHUB_API_URL and gives it the trailing slash go-github needs.
func apiURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = defaultAPIURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_API_URL %q: %w", raw, err)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("GITHUB_API_URL %q: want an http or https URL", raw)
	case u.Host == "":
		return nil, fmt.Errorf("GITHUB_API_URL %q: no host", raw)
	case u.User != nil:
		return nil, errors.New("GITHUB_API_URL must not contain credentials (pass the token as the token input)")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("GITHUB_API_URL %q: must not have a query or fragment", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u, nil
}

// Action says what Upsert did.
type Action string

// What Upsert did.
const (
	Created   Action = "created"   // no sticky comment existed (or it was deleted meanwhile)
	Updated   Action = "updated"   // the sticky comment was edited
	Unchanged Action = "unchanged" // the sticky comment already had this body
)

// Result describes the sticky comment after Upsert.
type Result struct {
	Action Action
	ID     int64
	URL    string // html_url, for links from the job summary
}

// Marker is the hidden first line that identifies the sticky comment for key.
// A comment is the sticky comment only if its body starts with it.
func Marker(key string) string { return "<!-- benchgate:" + key + " -->" }

// actionsBot and actionsBotID are the login and account id of the
// github-actions[bot] user, the author of comments made with GITHUB_TOKEN.
const (
	actionsBot   = "github-actions[bot]"
	actionsBotID = 41898282
)

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// Upsert makes body (behind the marker for key) the sticky comment of pull
// request number in owner/repo. A body over CommentRoom(key) bytes is an
// error before anything is sent; one that the server refuses as too long
// is an error matching ErrTooLong.
func (c *Commenter) Upsert(ctx context.Context, owner, repo string, number int, key, body string) (Result, error) {
	if err := checkTarget(owner, repo, number); err != nil {
		return Result{}, err
	}
	if err := checkKey(key); err != nil {
		return Result{}, err
	}
	if room := CommentRoom(key); len(body) > room {
		return Result{}, fmt.Errorf("comment of %d bytes: GitHub takes %d: %w", len(body), room, ErrTooLong)
	}
	where := fmt.Sprintf("%s/%s#%d", owner, repo, number)
	marker := Marker(key)
	full := marker + "\n" + body
	found, err := c.find(ctx, owner, repo, number, marker, where)
	if err != nil {
		return Result{}, err
	}
	for {
		var res Result
		if found != nil {
			if normalize(found.GetBody()) == normalize(full) {
				return Result{Action: Unchanged, ID: found.GetID(), URL: found.GetHTMLURL()}, nil
			}
			res, err = c.edit(ctx, owner, repo, found.GetID(), full, where)
			if isStatus(err, http.StatusNotFound) {
				found = nil // deleted since it was listed
				continue
			}
		} else {
			res, err = c.create(ctx, owner, repo, number, marker, full, where)
		}
		if isTooLong(err) {
			err = fmt.Errorf("%w: %w", ErrTooLong, err)
		}
		return res, err
	}
}

// checkTarget checks the names that go into a request's path.
func checkTarget(owner, repo string, number int) error {
	for _, n := range []struct{ what, v string }{{"owner", owner}, {"name", repo}} {
		if !namePattern.MatchString(n.v) || n.v == "." || n.v == ".." {
			return fmt.Errorf("repository %s %q: want letters, digits, '-', '_' or '.'", n.what, n.v)
		}
	}
	if number <= 0 {
		return fmt.Errorf("pull request number %d: want a positive number", number)
	}
	return nil
}

// checkKey keeps the marker a well-formed HTML comment on one line.
func checkKey(key string) error {
	if key == "" {
		return errors.New("comment key is empty")
	}
	if strings.ContainsAny(key, "<>") || strings.IndexFunc(key, unicode.IsControl) >= 0 || key != strings.TrimSpace(key) {
		return fmt.Errorf("comment key %q: must not contain '<', '>', control characters or leading or trailing spaces", key)
	}
	return nil
}

func normalize(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// find returns the newest comment that starts with the marker and is by the
// expected author. A comment that only contains the marker (a quote, a bot
// echoing the pull request's text) is not the sticky comment.
func (c *Commenter) find(ctx context.Context, owner, repo string, number int, marker, where string) (*gh.IssueComment, error) {
	const maxPages = 1000 // 100,000 comments
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	var found *gh.IssueComment
	for page := 1; page <= maxPages; {
		opts.Page = page
		var (
			comments []*gh.IssueComment
			resp     *gh.Response
		)
		err := c.do(ctx, fmt.Sprintf("list comments on %s (page %d)", where, page), func(int) (*gh.Response, error) {
			var err error
			comments, resp, err = c.client().Issues.ListComments(ctx, owner, repo, number, opts)
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		for _, cm := range comments {
			if strings.HasPrefix(cm.GetBody(), marker) && c.ours(cm.GetUser()) && (found == nil || cm.GetID() > found.GetID()) {
				found = cm
			}
		}
		if resp.NextPage <= page {
			break
		}
		page = resp.NextPage
	}
	return found, nil
}

// ours reports whether u may own the sticky comment: the configured author,
// or else github-actions[bot] by login and id. Other bots (which may echo
// text from the pull request, marker included) never qualify.
func (c *Commenter) ours(u *gh.User) bool {
	if u == nil {
		return false
	}
	if c.author != "" {
		return strings.EqualFold(u.GetLogin(), c.author)
	}
	return strings.EqualFold(u.GetLogin(), actionsBot) && u.GetID() == actionsBotID
}

// PullRequest is what GitHub says about a pull request
// (GET /repos/{owner}/{repo}/pulls/{number}).
type PullRequest struct {
	Number int
	State  string // "open" or "closed"
	// HeadSHA is the tip of the pull request's branch now, HeadRef its name
	// and HeadRepo the full name ("owner/name") of the repository it is in;
	// HeadRepo is empty when that repository was deleted.
	HeadSHA, HeadRef, HeadRepo string
	// BaseSHA, BaseRef and BaseRepo describe the branch it would merge into.
	BaseSHA, BaseRef, BaseRepo string
}

// PullRequest fetches pull request number of owner/repo. A pull request that
// does not exist is an *APIError with Status 404.
func (c *Commenter) PullRequest(ctx context.Context, owner, repo string, number int) (PullRequest, error) {
	if err := checkTarget(owner, repo, number); err != nil {
		return PullRequest{}, err
	}
	var pr *gh.PullRequest
	err := c.do(ctx, fmt.Sprintf("get pull request %s/%s#%d", owner, repo, number), func(int) (*gh.Response, error) {
		var (
			resp *gh.Response
			err  error
		)
		pr, resp, err = c.client().PullRequests.Get(ctx, owner, repo, number)
		return resp, err
	})
	if err != nil {
		return PullRequest{}, err
	}
	out := PullRequest{Number: pr.GetNumber(), State: pr.GetState()}
	if h := pr.GetHead(); h != nil {
		out.HeadSHA, out.HeadRef = h.GetSHA(), h.GetRef()
		if h.Repo != nil {
			out.HeadRepo = h.Repo.GetFullName()
		}
	}
	if b := pr.GetBase(); b != nil {
		out.BaseSHA, out.BaseRef = b.GetSHA(), b.GetRef()
		if b.Repo != nil {
			out.BaseRepo = b.Repo.GetFullName()
		}
	}
	return out, nil
}

func (c *Commenter) edit(ctx context.Context, owner, repo string, id int64, body, where string) (Result, error) {
	var out *gh.IssueComment
	err := c.do(ctx, fmt.Sprintf("edit comment %d on %s", id, where), func(int) (*gh.Response, error) {
		var (
			resp *gh.Response
			err  error
		)
		out, resp, err = c.client().Issues.EditComment(ctx, owner, repo, id, &gh.IssueComment{Body: gh.String(body)})
		return resp, err
	})
	if err != nil {
		return Result{}, err
	}
	return Result{Action: Updated, ID: out.GetID(), URL: out.GetHTMLURL()}, nil
}

func (c *Commenter) create(ctx context.Context, owner, repo string, number int, marker, body, where string) (Result, error) {
	var (
		out       *gh.IssueComment
		ambiguous bool // the last attempt may have created the comment
	)
	err := c.do(ctx, "create comment on "+where, func(attempt int) (*gh.Response, error) {
		if attempt > 1 && ambiguous {
			found, err := c.find(ctx, owner, repo, number, marker, where)
			if err != nil {
				return nil, permanent{err}
			}
			if found != nil && normalize(found.GetBody()) == normalize(body) {
				out = found // the earlier attempt was stored after all
				return nil, nil
			}
		}
		var (
			resp *gh.Response
			err  error
		)
		out, resp, err = c.client().Issues.CreateComment(ctx, owner, repo, number, &gh.IssueComment{Body: gh.String(body)})
		ambiguous = err != nil && (resp == nil || resp.StatusCode >= 500)
		return resp, err
	})
	if err != nil {
		return Result{}, err
	}
	return Result{Action: Created, ID: out.GetID(), URL: out.GetHTMLURL()}, nil
}

// client returns a fresh go-github client for one request. A fresh client
// keeps no rate-limit state of its own: go-github would otherwise refuse
// requests until a remembered reset time, which retry decides instead.
func (c *Commenter) client() *gh.Client {
	cl := gh.NewClient(c.http)
	u := *c.base
	cl.BaseURL = &u
	cl.UserAgent = "benchgate"
	return cl
}

// ErrForbidden matches (errors.Is) a 403 answer that is not a rate limit:
// the token may not do this, as with the read-only token of a pull request
// from a fork. Publishing should warn and go on.
var ErrForbidden = errors.New("forbidden: the token may not write here (a pull request from a fork gets a read-only token)")

// APIError is a failed GitHub API request. It holds no credentials.
type APIError struct {
	Op          string // what was tried, naming the object: "edit comment 42 on o/r#7"
	Status      int    // HTTP status, 0 if no answer arrived
	Message     string // GitHub's message (and details), or the transport error
	RateLimited bool   // GitHub refused because of a rate limit
	Attempts    int    // how many times the request was sent
	Reason      string // why retrying stopped, if it was tried more than once or not retried for a reason
	Err         error  // the transport or context error, if any
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	b.WriteString(": ")
	if e.Status != 0 {
		b.WriteString(strconv.Itoa(e.Status))
		b.WriteString(" ")
	}
	b.WriteString(e.Message)
	if e.Reason != "" {
		b.WriteString(" (")
		b.WriteString(e.Reason)
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the transport or context error, if any.
func (e *APIError) Unwrap() error { return e.Err }

// Is reports whether e matches ErrForbidden.
func (e *APIError) Is(target error) bool {
	return target == ErrForbidden && e.Status == http.StatusForbidden && !e.RateLimited
}

// isStatus reports whether err is an APIError with the given status.
func isStatus(err error, status int) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == status
}

func isTooLong(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(e.Message), "too long")
}

// permanent marks an error that must not be retried.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }

// do runs one request, retrying answers that may go away.
func (c *Commenter) do(ctx context.Context, op string, call func(attempt int) (*gh.Response, error)) error {
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		resp, err := call(attempt)
		if err == nil {
			return nil
		}
		var p permanent
		if errors.As(err, &p) {
			return p.err
		}
		e := c.apiError(op, resp, err)
		e.Attempts = attempt
		if ctx.Err() != nil {
			e.Err, e.Message = ctx.Err(), ctx.Err().Error()
			return e
		}
		wait, retry := c.backoff(attempt, resp, err)
		switch {
		case !retry:
			if attempt > 1 {
				e.Reason = fmt.Sprintf("after %d attempts", attempt)
			}
			return e
		case attempt >= c.attempts:
			e.Reason = fmt.Sprintf("gave up after %d attempts", attempt)
			return e
		case waited+wait > c.maxWait:
			e.Reason = fmt.Sprintf("gave up after %d attempts: GitHub asks to wait %s", attempt, wait.Round(time.Second))
			if attempt == 1 {
				e.Reason = fmt.Sprintf("not retried: GitHub asks to wait %s", wait.Round(time.Second))
			}
			return e
		}
		c.logf("github: %s; retrying in %s (attempt %d of %d)", e.Error(), wait, attempt+1, c.attempts)
		if err := c.sleep(ctx, wait); err != nil {
			e.Err, e.Reason = err, "interrupted while waiting to retry: "+err.Error()
			return e
		}
		waited += wait
	}
}

// backoff says whether to retry after an error and how long to wait first.
func (c *Commenter) backoff(attempt int, resp *gh.Response, err error) (time.Duration, bool) {
	exp := time.Second << (attempt - 1)
	var (
		rle *gh.RateLimitError
		are *gh.AbuseRateLimitError
		ere *gh.ErrorResponse
	)
	switch {
	case errors.As(err, &rle):
		return c.untilReset(rle.Rate.Reset.Time, exp), true
	case errors.As(err, &are):
		if are.RetryAfter != nil {
			return max(*are.RetryAfter, 0), true
		}
		return time.Minute, true // GitHub: "wait for at least one minute"
	case errors.As(err, &ere):
		if ere.Response == nil {
			return 0, false
		}
		status := ere.Response.StatusCode
		if status != http.StatusTooManyRequests && status < 500 {
			return 0, false
		}
		if d, ok := c.retryAfter(ere.Response.Header.Get("Retry-After")); ok {
			return d, true
		}
		if status == http.StatusTooManyRequests {
			if ere.Response.Header.Get("X-RateLimit-Remaining") == "0" {
				if reset, err := strconv.ParseInt(ere.Response.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
					return c.untilReset(time.Unix(reset, 0), exp), true
				}
			}
			return time.Minute, true
		}
		return exp, true
	case resp != nil:
		return 0, false // an answer that did not decode
	default:
		return exp, true // no answer: connection refused, reset, timeout
	}
}

func (c *Commenter) untilReset(reset time.Time, fallback time.Duration) time.Duration {
	if reset.IsZero() {
		return fallback
	}
	return max(reset.Sub(c.now())+time.Second, time.Second)
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func (c *Commenter) retryAfter(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
		return max(time.Duration(s)*time.Second, 0), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(c.now()), 0), true
	}
	return 0, false
}

// apiError turns a go-github error into an APIError without credentials.
func (c *Commenter) apiError(op string, resp *gh.Response, err error) *APIError {
	e := &APIError{Op: op}
	if resp != nil && resp.Response != nil {
		e.Status = resp.StatusCode
	}
	var (
		rle *gh.RateLimitError
		are *gh.AbuseRateLimitError
		ere *gh.ErrorResponse
	)
	switch {
	case errors.As(err, &rle):
		e.Message, e.RateLimited = rle.Message, true
		if !rle.Rate.Reset.IsZero() {
			e.Message += fmt.Sprintf(" (resets at %s)", rle.Rate.Reset.UTC().Format(time.RFC3339))
		}
	case errors.As(err, &are):
		e.Message, e.RateLimited = are.Message, true
	case errors.As(err, &ere):
		e.Message = ere.Message
		for _, d := range ere.Errors {
			if d.Message != "" {
				e.Message += ": " + d.Message
			} else if d.Code != "" {
				e.Message += ": " + d.Error()
			}
		}
		if e.Status == http.StatusTooManyRequests {
			e.RateLimited = true
		}
		if e.Message == "" && ere.Response != nil {
			e.Message = http.StatusText(ere.Response.StatusCode)
		}
	case resp != nil:
		e.Message = "unreadable answer: " + err.Error()
	default:
		e.Message, e.Err = err.Error(), err
	}
	e.Message = c.redact(e.Message)
	if e.Err != nil && strings.Contains(e.Err.Error(), c.token) {
		e.Err = errors.New(c.redact(e.Err.Error()))
	}
	return e
}

// redact replaces the token in s.
func (c *Commenter) redact(s string) string {
	if c.token == "" {
		return s
	}
	return strings.ReplaceAll(s, c.token, "***")
}

// authTransport adds the token to requests for the API's own scheme and host.
type authTransport struct {
	base   http.RoundTripper
	scheme string
	host   string
	token  string
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if req.URL.Scheme != t.scheme || !strings.EqualFold(req.URL.Host, t.host) {
		return base.RoundTrip(req)
	}
	authed := req.Clone(req.Context())
	authed.Header.Set("Authorization", "Bearer "+t.token)
	resp, err := base.RoundTrip(authed)
	if resp != nil {
		resp.Request = req // the response must not lead back to the token
	}
	return resp, err
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Exists reports whether pull request number already has the sticky comment
// for key (by benchgate's author), across all pages of comments.
func (c *Commenter) Exists(ctx context.Context, owner, repo string, number int, key string) (bool, error) {
	if err := checkKey(key); err != nil {
		return false, err
	}
	found, err := c.find(ctx, owner, repo, number, Marker(key), fmt.Sprintf("%s/%s#%d", owner, repo, number))
	return found != nil, err
}
