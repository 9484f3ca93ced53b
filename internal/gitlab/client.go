package gitlab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Options configure a Client.
type Options struct {
	// APIURL is the REST API root as CI_API_V4_URL gives it:
	// https://gitlab.com/api/v4, or https://HOST/api/v4 on a self-managed
	// instance. Required.
	APIURL string
	// Token authenticates every request (PRIVATE-TOKEN: a project access
	// token with the api scope). Required.
	Token string
	// HTTPClient sends the requests; nil means a client with a 30-second
	// timeout. Its Transport is wrapped to add the token, not modified.
	HTTPClient *http.Client
	// Attempts is how many times one request is tried; 0 means 4.
	Attempts int
	// MaxWait bounds the total time one request waits between attempts;
	// 0 means 2 minutes.
	MaxWait time.Duration
	// Sleep waits d or until ctx is done; nil means a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now reads RateLimit-Reset; nil means time.Now.
	Now func() time.Time
	// Logf, if set, is told about each retry (one line, no token).
	Logf func(format string, args ...any)
}

// Client talks to GitLab's REST API (v4) with plain net/http.
type Client struct {
	base     *url.URL
	http     *http.Client
	token    string
	attempts int
	maxWait  time.Duration
	sleep    func(context.Context, time.Duration) error
	now      func() time.Time
	logf     func(string, ...any)
}

// NewClient returns a Client for o.
func NewClient(o Options) (*Client, error) {
	base, err := apiURL(o.APIURL)
	if err != nil {
		if o.Token != "" {
			err = errors.New(strings.ReplaceAll(err.Error(), o.Token, "***"))
		}
		return nil, err
	}
	if o.Token == "" {
		return nil, errors.New("gitlab token is empty")
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	if o.HTTPClient != nil {
		copied := *o.HTTPClient
		hc = &copied
	}
	hc.Transport = &authTransport{base: hc.Transport, scheme: base.Scheme, host: base.Host, token: o.Token}
	// The API answers where it is asked; a redirect elsewhere is not
	// followed (the token stays with the API's host anyway).
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &Client{base: base, http: hc, token: o.Token, attempts: o.Attempts, maxWait: o.MaxWait, sleep: o.Sleep, now: o.Now, logf: o.Logf}
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

// apiURL checks CI_API_V4_URL and gives it a trailing slash.
func apiURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("CI_API_V4_URL is not set: the GitLab API's address is unknown")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("CI_API_V4_URL %q: %w", raw, err)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("CI_API_V4_URL %q: want an http or https URL", raw)
	case u.Host == "":
		return nil, fmt.Errorf("CI_API_V4_URL %q: no host", raw)
	case u.User != nil:
		return nil, errors.New("CI_API_V4_URL must not contain credentials")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("CI_API_V4_URL %q: must not have a query or fragment", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		u.RawPath = ""
	}
	return u, nil
}

// ErrUnauthorized matches (errors.Is) a 401: no token, a wrong or expired
// one (CI_JOB_TOKEN is refused for notes).
var ErrUnauthorized = errors.New("unauthorized: the token is missing, wrong or expired")

// ErrForbidden matches a 403: the token may not do this (no api scope, a
// role below Reporter, or a merge request in a project it cannot see).
var ErrForbidden = errors.New("forbidden: the token may not write here")

// ErrNotFound matches a 404: the project, merge request or note does not
// exist, or the token cannot see it.
var ErrNotFound = errors.New("not found")

// APIError is a failed request. It holds no credentials.
type APIError struct {
	Op          string // what was tried: "edit note 12 on merge request !7 of project 42"
	Status      int    // HTTP status, 0 if no answer arrived
	Message     string // GitLab's message, or the transport error
	RateLimited bool   // a 429
	Attempts    int    // how many times the request was sent
	Reason      string // why retrying stopped
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
		b.WriteString(" (" + e.Reason + ")")
	}
	return b.String()
}

// Unwrap returns the transport or context error, if any.
func (e *APIError) Unwrap() error { return e.Err }

// Is matches ErrUnauthorized, ErrForbidden and ErrNotFound by status.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized
	case ErrForbidden:
		return e.Status == http.StatusForbidden
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	}
	return false
}

// maxAnswer bounds what is read of one answer: a page of 100 notes of a
// million characters each would be 100 MB, which no sticky note needs.
const maxAnswer = 32 << 20

// response is one answer: status, headers and body.
type response struct {
	status int
	header http.Header
	body   []byte
}

// call sends one request (method, path below the API root with its
// query, JSON body or nil) with retries, and decodes a 2xx answer into
// out (if not nil). ambiguous, if set, is asked before each retry of a
// request that may have been carried out (a 5xx or a lost answer to a
// POST); it returns true when it found the request done.
func (c *Client) call(ctx context.Context, op, method, path string, in, out any, ambiguous func() (bool, error)) (*response, error) {
	var payload []byte
	if in != nil {
		var err error
		if payload, err = json.Marshal(in); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	u, err := c.base.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var waited time.Duration
	maybeDone := false
	for attempt := 1; ; attempt++ {
		if attempt > 1 && maybeDone && ambiguous != nil {
			done, err := ambiguous()
			if err != nil {
				return nil, err
			}
			if done {
				return nil, nil
			}
		}
		resp, err := c.send(ctx, method, u.String(), payload)
		if err == nil && resp.status/100 == 2 {
			if out != nil {
				if err := json.Unmarshal(resp.body, out); err != nil {
					return resp, &APIError{Op: op, Status: resp.status, Message: "unreadable answer: " + c.redact(err.Error()), Attempts: attempt}
				}
			}
			return resp, nil
		}
		e := &APIError{Op: op, Attempts: attempt}
		if err != nil {
			e.Message, e.Err = c.redact(err.Error()), errors.New(c.redact(err.Error()))
		} else {
			e.Status, e.Message = resp.status, c.redact(message(resp))
			e.RateLimited = resp.status == http.StatusTooManyRequests
		}
		if ctx.Err() != nil {
			e.Err, e.Message = ctx.Err(), ctx.Err().Error()
			return resp, e
		}
		maybeDone = method == http.MethodPost && (err != nil || resp.status >= 500)
		wait, retry := c.backoff(attempt, resp, err)
		switch {
		case !retry:
			if attempt > 1 {
				e.Reason = fmt.Sprintf("after %d attempts", attempt)
			}
			return resp, e
		case attempt >= c.attempts:
			e.Reason = fmt.Sprintf("gave up after %d attempts", attempt)
			return resp, e
		case waited+wait > c.maxWait:
			e.Reason = fmt.Sprintf("gave up after %d attempts: GitLab asks to wait %s", attempt, wait.Round(time.Second))
			if attempt == 1 {
				e.Reason = fmt.Sprintf("not retried: GitLab asks to wait %s", wait.Round(time.Second))
			}
			return resp, e
		}
		c.logf("gitlab: %s; retrying in %s (attempt %d of %d)", e.Error(), wait, attempt+1, c.attempts)
		if err := c.sleep(ctx, wait); err != nil {
			e.Err, e.Reason = err, "interrupted while waiting to retry: "+err.Error()
			return resp, e
		}
		waited += wait
	}
}

// send makes one request and reads its answer (at most maxAnswer bytes).
func (c *Client) send(ctx context.Context, method, u string, payload []byte) (*response, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "benchgate")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxAnswer {
		return nil, fmt.Errorf("answer larger than %d bytes", maxAnswer)
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// message is GitLab's error message: "message" (a string, or an object
// of field errors), else "error_description" or "error", else the text.
func message(r *response) string {
	var v struct {
		Message          json.RawMessage `json:"message"`
		Error            string          `json:"error"`
		ErrorDescription string          `json:"error_description"`
	}
	if json.Unmarshal(r.body, &v) == nil {
		var s string
		if json.Unmarshal(v.Message, &s) == nil && s != "" {
			return s
		}
		var fields map[string][]string
		if json.Unmarshal(v.Message, &fields) == nil && len(fields) > 0 {
			var parts []string
			for k, msgs := range fields {
				for _, m := range msgs {
					parts = append(parts, k+" "+m)
				}
			}
			slices.Sort(parts)
			return strings.Join(parts, "; ")
		}
		if v.ErrorDescription != "" {
			return v.ErrorDescription
		}
		if v.Error != "" {
			return v.Error
		}
	}
	text := strings.TrimSpace(string(r.body))
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	if text == "" {
		text = http.StatusText(r.status)
	}
	return text
}

// backoff says whether to retry after an answer (or none) and how long to
// wait first: 429 as GitLab asks (Retry-After, else RateLimit-Reset, else
// a minute), 5xx and lost answers 1 s, 2 s, 4 s, ...; nothing else.
func (c *Client) backoff(attempt int, r *response, err error) (time.Duration, bool) {
	exp := time.Second << (attempt - 1)
	if err != nil || r == nil {
		return exp, true
	}
	switch {
	case r.status == http.StatusTooManyRequests:
		if d, ok := c.retryAfter(r.header.Get("Retry-After")); ok {
			return d, true
		}
		if s, err := strconv.ParseInt(strings.TrimSpace(r.header.Get("RateLimit-Reset")), 10, 64); err == nil {
			return max(time.Unix(s, 0).Sub(c.now())+time.Second, time.Second), true
		}
		if t, err := http.ParseTime(r.header.Get("RateLimit-ResetTime")); err == nil {
			return max(t.Sub(c.now())+time.Second, time.Second), true
		}
		return time.Minute, true
	case r.status >= 500:
		if d, ok := c.retryAfter(r.header.Get("Retry-After")); ok {
			return d, true
		}
		return exp, true
	}
	return 0, false
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func (c *Client) retryAfter(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		return max(time.Duration(s)*time.Second, 0), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(c.now()), 0), true
	}
	return 0, false
}

// redact replaces the token in s.
func (c *Client) redact(s string) string {
	if c.token == "" {
		return s
	}
	return strings.ReplaceAll(s, c.token, "***")
}

// authTransport adds the token to requests for the API's scheme and host.
type authTransport struct {
	base         http.RoundTripper
	scheme, host string
	token        string
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
	authed.Header.Set("PRIVATE-TOKEN", t.token)
	resp, err := base.RoundTrip(authed)
	if resp != nil {
		resp.Request = req // the answer must not lead back to the token
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
