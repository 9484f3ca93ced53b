package gitlab

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNoteLength is the longest note body GitLab accepts, in characters;
// Upsert counts bytes, which are never fewer.
const MaxNoteLength = 1_000_000

// cutNote ends a body that Upsert had to cut.
const cutNote = "\n\n*(cut: GitLab takes at most 1,000,000 characters per note; the whole report is in the job's artifacts)*\n"

// Marker is the hidden first line that identifies the sticky note for key.
func Marker(key string) string { return "<!-- benchgate:" + key + " -->" }

// A Note is a merge request note as GitLab lists it.
type Note struct {
	ID     int64  `json:"id"`
	Body   string `json:"body"`
	System bool   `json:"system"` // GitLab's own ("added 1 commit"), never ours
	Author struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	} `json:"author"`
}

// A User is the token's account (GET /user): a project access token's is
// a bot user of the project.
type User struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
	Bot      bool   `json:"bot"`
}

// Action says what Upsert did.
type Action string

// What Upsert did.
const (
	Created   Action = "created"
	Updated   Action = "updated"
	Unchanged Action = "unchanged"
)

// Result describes the sticky note after Upsert.
type Result struct {
	Action    Action
	ID        int64
	Shortened bool // a shorter body than the one given was posted
}

var projectID = regexp.MustCompile(`^[1-9][0-9]{0,18}$`)

// checkTarget checks what goes into a request's path: a numeric project
// ID (CI_MERGE_REQUEST_PROJECT_ID) and a positive merge request IID.
func checkTarget(project string, iid int) error {
	if !projectID.MatchString(project) {
		return fmt.Errorf("project %q: want a numeric project ID", project)
	}
	if iid <= 0 {
		return fmt.Errorf("merge request IID %d: want a positive number", iid)
	}
	return nil
}

// checkKey keeps the marker a well-formed HTML comment on one line.
func checkKey(key string) error {
	if key == "" {
		return errors.New("note key is empty")
	}
	if strings.ContainsAny(key, "<>") || strings.Contains(key, "--") || strings.IndexFunc(key, unicode.IsControl) >= 0 || key != strings.TrimSpace(key) {
		return fmt.Errorf("note key %q: must not contain '<', '>', \"--\", control characters or leading or trailing spaces", key)
	}
	return nil
}

func notesPath(project string, iid int) string {
	return "projects/" + url.PathEscape(project) + "/merge_requests/" + strconv.Itoa(iid) + "/notes"
}

func where(project string, iid int) string {
	return fmt.Sprintf("merge request !%d of project %s", iid, project)
}

// CurrentUser returns the token's account.
func (c *Client) CurrentUser(ctx context.Context) (User, error) {
	var u User
	_, err := c.call(ctx, "read the token's user", http.MethodGet, "user", nil, &u, nil)
	return u, err
}

// Notes lists every note of merge request iid in project, oldest first,
// 100 a page, following x-next-page (or the Link header's rel="next").
func (c *Client) Notes(ctx context.Context, project string, iid int) ([]Note, error) {
	if err := checkTarget(project, iid); err != nil {
		return nil, err
	}
	const maxPages = 1000 // 100,000 notes
	var all []Note
	for page, n := 1, 0; n < maxPages; n++ {
		var batch []Note
		path := fmt.Sprintf("%s?sort=asc&order_by=created_at&per_page=100&page=%d", notesPath(project, iid), page)
		resp, err := c.call(ctx, fmt.Sprintf("list notes of %s (page %d)", where(project, iid), page), http.MethodGet, path, nil, &batch, nil)
		if err != nil {
			return nil, err
		}
		all = append(all, batch...)
		next := nextPage(resp.header)
		if next <= page {
			break
		}
		page = next
	}
	return all, nil
}

var linkNext = regexp.MustCompile(`<([^>]*)>\s*;\s*rel="?next"?`)

// nextPage reads the next page's number: x-next-page (empty on the last
// page), else the page parameter of the Link header's rel="next" URL
// (which is never followed itself: the token goes only to the API's own
// URLs); 0 for none.
func nextPage(h http.Header) int {
	if v, ok := h[http.CanonicalHeaderKey("X-Next-Page")]; ok {
		n, _ := strconv.Atoi(strings.TrimSpace(strings.Join(v, "")))
		return n
	}
	for _, link := range h.Values("Link") {
		for _, part := range strings.Split(link, ",") {
			if m := linkNext.FindStringSubmatch(part); m != nil {
				if u, err := url.Parse(m[1]); err == nil {
					n, _ := strconv.Atoi(u.Query().Get("page"))
					return n
				}
			}
		}
	}
	return 0
}

// find returns the newest note of the token's user that starts with the
// marker; a system note, another account's note, or a marker quoted
// later in a body is not the sticky note.
func (c *Client) find(ctx context.Context, project string, iid int, marker string, me int64) (*Note, error) {
	notes, err := c.Notes(ctx, project, iid)
	if err != nil {
		return nil, err
	}
	var found *Note
	for i := range notes {
		n := &notes[i]
		if !n.System && n.Author.ID == me && strings.HasPrefix(n.Body, marker) && (found == nil || n.ID > found.ID) {
			found = n
		}
	}
	return found, nil
}

// Exists reports whether merge request iid has the sticky note for key.
func (c *Client) Exists(ctx context.Context, project string, iid int, key string) (bool, error) {
	if err := checkTarget(project, iid); err != nil {
		return false, err
	}
	if err := checkKey(key); err != nil {
		return false, err
	}
	me, err := c.CurrentUser(ctx)
	if err != nil {
		return false, err
	}
	found, err := c.find(ctx, project, iid, Marker(key), me.ID)
	return found != nil, err
}

// Upsert makes body (behind the marker for key) the sticky note of merge
// request iid in project: the token user's newest note that starts with
// the marker is edited if its body differs, left alone if not; a note is
// created only when there is none (or it was deleted meanwhile). shorten,
// if not nil, returns a version of the body of at most max bytes, used
// when the body is too long. The body is made inert first ([Inert]).
func (c *Client) Upsert(ctx context.Context, project string, iid int, key, body string, shorten func(max int) string) (Result, error) {
	if err := checkTarget(project, iid); err != nil {
		return Result{}, err
	}
	if err := checkKey(key); err != nil {
		return Result{}, err
	}
	me, err := c.CurrentUser(ctx)
	if err != nil {
		return Result{}, err
	}
	p := &post{marker: Marker(key), body: body, shorten: shorten}
	p.fit(MaxNoteLength)
	found, err := c.find(ctx, project, iid, p.marker, me.ID)
	if err != nil {
		return Result{}, err
	}
	for {
		var res Result
		if found != nil {
			if strings.ReplaceAll(found.Body, "\r\n", "\n") == p.full() {
				return Result{Action: Unchanged, ID: found.ID, Shortened: p.shortened}, nil
			}
			res, err = c.edit(ctx, project, iid, found.ID, p.full())
			if errors.Is(err, ErrNotFound) {
				found = nil // deleted since it was listed
				continue
			}
		} else {
			res, err = c.create(ctx, project, iid, p, me.ID)
		}
		if isTooLong(err) && !p.retried {
			p.shrink()
			continue
		}
		if err != nil {
			return Result{}, err
		}
		res.Shortened = p.shortened
		return res, nil
	}
}

func (c *Client) edit(ctx context.Context, project string, iid int, id int64, body string) (Result, error) {
	var out Note
	_, err := c.call(ctx, fmt.Sprintf("edit note %d on %s", id, where(project, iid)), http.MethodPut,
		notesPath(project, iid)+"/"+strconv.FormatInt(id, 10), map[string]string{"body": body}, &out, nil)
	if err != nil {
		return Result{}, err
	}
	return Result{Action: Updated, ID: out.ID}, nil
}

// create posts the note. A create that failed without a clear answer (a
// 5xx, a lost connection) may have been stored: the notes are listed again
// before it is sent a second time.
func (c *Client) create(ctx context.Context, project string, iid int, p *post, me int64) (Result, error) {
	var out Note
	_, err := c.call(ctx, "create a note on "+where(project, iid), http.MethodPost, notesPath(project, iid),
		map[string]string{"body": p.full()}, &out, func() (bool, error) {
			found, err := c.find(ctx, project, iid, p.marker, me)
			if err != nil {
				return false, err
			}
			if found != nil && strings.ReplaceAll(found.Body, "\r\n", "\n") == p.full() {
				out = *found
				return true, nil
			}
			return false, nil
		})
	if err != nil {
		return Result{}, err
	}
	return Result{Action: Created, ID: out.ID}, nil
}

func isTooLong(err error) bool {
	var e *APIError
	return errors.As(err, &e) && (e.Status == http.StatusBadRequest || e.Status == http.StatusUnprocessableEntity || e.Status == http.StatusRequestEntityTooLarge) &&
		(strings.Contains(strings.ToLower(e.Message), "too long") || e.Status == http.StatusRequestEntityTooLarge)
}

// post is the body being posted and how it was shortened.
type post struct {
	marker    string
	body      string
	shorten   func(max int) string
	shortened bool
	retried   bool
}

func (p *post) full() string { return p.marker + "\n" + p.body }

// fit makes the body inert and shortens it if the note is over limit bytes.
func (p *post) fit(limit int) {
	budget := limit - len(p.marker) - 1
	p.body = Inert(p.body)
	if len(p.body) <= budget {
		return
	}
	if p.shorten != nil {
		// Inert may add a byte per line.
		p.body = Inert(p.shorten(budget - budget/20))
	}
	if len(p.body) > budget {
		p.body = truncate(p.body, budget)
	}
	p.shortened = true
}

// shrink halves the body after GitLab refused it as too long (a
// self-managed instance may have a lower limit).
func (p *post) shrink() {
	p.retried = true
	p.fit(len(p.marker) + 1 + len(p.body)/2)
}

// truncate cuts s at a line boundary to at most n bytes, with a note.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	keep := max(n-len(cutNote), 0)
	cut := s[:keep]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut + cutNote
}

// Inert makes a note body safe from GitLab's quick actions: GitLab runs
// every line that starts with "/" and a command's name ("/merge",
// "/approve", "/label ~x", "/close") as that command, as the token's user,
// when the note is created or edited, also for notes made through the
// API. Carriage returns are dropped (GitLab drops them before it looks),
// and a line that starts with "/" gets a leading space: Markdown shows it
// the same, and no command can start it.
func Inert(body string) string {
	body = strings.ReplaceAll(body, "\r", "")
	if !strings.HasPrefix(body, "/") && !strings.Contains(body, "\n/") {
		return body
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "/") {
			lines[i] = " " + l
		}
	}
	return strings.Join(lines, "\n")
}
