package githubtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func do(t *testing.T, method, url, auth, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(data)
}

func TestPagination(t *testing.T) {
	s := NewServer(Config{})
	defer s.Close()
	for i := range 250 {
		s.AddComment("o", "r", 7, "mona", "User", fmt.Sprint(i))
	}
	base := s.APIURL() + "/repos/o/r/issues/7/comments"
	tests := []struct {
		query    string
		wantLink string
		first    string
		n        int
	}{
		{"?per_page=100", `<` + base + `?page=2&per_page=100>; rel="next", <` + base + `?page=3&per_page=100>; rel="last"`, "0", 100},
		{"?page=2&per_page=100", `<` + base + `?page=1&per_page=100>; rel="prev", <` + base + `?page=3&per_page=100>; rel="next", <` + base + `?page=3&per_page=100>; rel="last", <` + base + `?page=1&per_page=100>; rel="first"`, "100", 100},
		{"?page=3&per_page=100", `<` + base + `?page=2&per_page=100>; rel="prev", <` + base + `?page=1&per_page=100>; rel="first"`, "200", 50},
		{"", `<` + base + `?page=2&per_page=30>; rel="next", <` + base + `?page=9&per_page=30>; rel="last"`, "0", 30},
	}
	for _, tt := range tests {
		resp, body := do(t, "GET", base+tt.query, "", "")
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s", tt.query, resp.Status)
		}
		if diff := cmp.Diff(tt.wantLink, resp.Header.Get("Link")); diff != "" {
			t.Errorf("GET %s: Link mismatch (-want +got):\n%s", tt.query, diff)
		}
		var comments []struct {
			ID   int64
			Body string
			User struct{ Login, Type string }
		}
		if err := json.Unmarshal([]byte(body), &comments); err != nil {
			t.Fatal(err)
		}
		if len(comments) != tt.n || comments[0].Body != tt.first || comments[0].User.Login != "mona" || comments[0].User.Type != "User" {
			t.Errorf("GET %s: %d comments starting %+v", tt.query, len(comments), comments[0])
		}
	}
}

func TestWritesAndErrors(t *testing.T) {
	s := NewServer(Config{Token: "tok", MaxBody: 10})
	defer s.Close()
	api := s.APIURL()
	comments := api + "/repos/o/r/issues/7/comments"

	tests := []struct {
		method, url, auth, body string
		wantStatus              int
		wantBody                string // substring
	}{
		{"GET", comments, "", "", 401, "Bad credentials"},
		{"GET", comments, "Bearer wrong", "", 401, "Bad credentials"},
		{"GET", s.URL + "/repos/o/r/issues/7/comments", "Bearer tok", "", 404, "outside the API prefix"},
		{"POST", comments, "Bearer tok", `{"body":"hello"}`, 201, `"body":"hello"`},
		{"POST", comments, "token tok", `{"body":"01234567890"}`, 422, "body is too long (maximum is 10 characters)"},
		{"POST", comments, "Bearer tok", `{}`, 422, `\"body\" wasn't supplied`},
		{"PATCH", api + "/repos/o/r/issues/comments/1000000002", "Bearer tok", `{"body":"edited"}`, 200, `"body":"edited"`},
		{"PATCH", api + "/repos/o/r/issues/comments/99", "Bearer tok", `{"body":"x"}`, 404, "Not Found"},
		{"DELETE", api + "/repos/o/r/issues/comments/1000000002", "Bearer tok", "", 204, ""},
		{"GET", api + "/repos/o/r/issues/comments/1000000002", "Bearer tok", "", 404, "Not Found"},
	}
	for _, tt := range tests {
		resp, body := do(t, tt.method, tt.url, tt.auth, tt.body)
		if resp.StatusCode != tt.wantStatus || !strings.Contains(body, tt.wantBody) {
			t.Errorf("%s %s: %d %s, want %d and %q", tt.method, tt.url, resp.StatusCode, body, tt.wantStatus, tt.wantBody)
		}
	}
	if n := len(s.Requests()); n != len(tests) {
		t.Errorf("%d requests recorded, want %d", n, len(tests))
	}
}

// The control routes let a script drive the fake as a process.
func TestControlRoutes(t *testing.T) {
	s := NewServer(Config{})
	defer s.Close()
	comments := s.APIURL() + "/repos/o/r/issues/7/comments"

	resp, _ := do(t, "POST", s.URL+"/_fake/comments", "", `{"owner":"o","repo":"r","issue":7,"body":"seeded","login":"mona","type":"User"}`)
	if resp.StatusCode != 201 {
		t.Fatalf("seed: %s", resp.Status)
	}
	resp, _ = do(t, "POST", s.URL+"/_fake/faults", "", `{"method":"POST","status":502,"body":"bad gateway"}`)
	if resp.StatusCode != 204 {
		t.Fatalf("fault: %s", resp.Status)
	}
	if resp, _ := do(t, "POST", comments, "", `{"body":"x"}`); resp.StatusCode != 502 {
		t.Errorf("POST with a fault: %s, want 502", resp.Status)
	}
	if resp, _ := do(t, "POST", comments, "", `{"body":"x"}`); resp.StatusCode != 201 {
		t.Errorf("POST after the fault: %s, want 201", resp.Status)
	}
	do(t, "POST", s.URL+"/_fake/readonly?on=true", "", "")
	if resp, body := do(t, "POST", comments, "", `{"body":"y"}`); resp.StatusCode != 403 || !strings.Contains(body, "Resource not accessible by integration") {
		t.Errorf("POST when read-only: %s %s", resp.Status, body)
	}

	_, body := do(t, "GET", s.URL+"/_fake/comments", "", "")
	var got []Comment
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, c := range got {
		summary = append(summary, c.Login+": "+c.Body)
	}
	if diff := cmp.Diff([]string{"mona: seeded", "github-actions[bot]: x"}, summary); diff != "" {
		t.Errorf("comments mismatch (-want +got):\n%s", diff)
	}

	_, body = do(t, "GET", s.URL+"/_fake/requests", "", "")
	var reqs []Request
	if err := json.Unmarshal([]byte(body), &reqs); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 3 || reqs[0].Method != "POST" || reqs[0].Body != `{"body":"x"}` {
		t.Errorf("requests = %+v", reqs)
	}
}

// GET /repos/{o}/{r}/pulls/{n} answers in GitHub's shape, 404 for others.
func TestPullRequests(t *testing.T) {
	s := NewServer(Config{Token: "tok"})
	defer s.Close()
	head := strings.Repeat("a", 40)
	s.AddPullRequest(PullRequest{Owner: "o", Repo: "r", Number: 7, HeadSHA: head, HeadRef: "faster", HeadRepo: "mona/r", BaseSHA: strings.Repeat("b", 40)})
	resp, _ := do(t, "POST", s.URL+"/_fake/pulls", "", `{"owner":"o","repo":"r","number":8,"head_sha":"`+head+`","head_repo":"-","state":"closed"}`)
	if resp.StatusCode != 204 {
		t.Fatalf("POST /_fake/pulls: %s", resp.Status)
	}
	type repoJSON struct {
		FullName string `json:"full_name"`
		Fork     bool   `json:"fork"`
	}
	type pull struct {
		Number int    `json:"number"`
		State  string `json:"state"`
		Head   struct {
			SHA, Ref, Label string
			Repo            *repoJSON `json:"repo"`
		} `json:"head"`
		Base struct {
			SHA, Ref string
			Repo     *repoJSON `json:"repo"`
		} `json:"base"`
	}
	get := func(n string) (int, pull, string) {
		resp, body := do(t, "GET", s.APIURL()+"/repos/o/r/pulls/"+n, "Bearer tok", "")
		var p pull
		if resp.StatusCode == 200 {
			if err := json.Unmarshal([]byte(body), &p); err != nil {
				t.Fatal(err)
			}
		}
		return resp.StatusCode, p, body
	}
	status, p, body := get("7")
	if status != 200 || p.Number != 7 || p.State != "open" || p.Head.SHA != head || p.Head.Ref != "faster" || p.Head.Label != "mona:faster" ||
		p.Head.Repo == nil || p.Head.Repo.FullName != "mona/r" || !p.Head.Repo.Fork ||
		p.Base.Ref != "main" || p.Base.SHA != strings.Repeat("b", 40) || p.Base.Repo == nil || p.Base.Repo.FullName != "o/r" || p.Base.Repo.Fork {
		t.Errorf("GET pulls/7: %d %s", status, body)
	}
	if status, p, body := get("8"); status != 200 || p.State != "closed" || p.Head.Repo != nil || !strings.Contains(body, `"repo":null`) {
		t.Errorf("GET pulls/8 (deleted head repository): %d %s", status, body)
	}
	for _, n := range []string{"9", "0", "x"} {
		if status, _, body := get(n); status != 404 || !strings.Contains(body, "Not Found") {
			t.Errorf("GET pulls/%s: %d %s, want 404", n, status, body)
		}
	}
	if resp, _ := do(t, "GET", s.APIURL()+"/repos/o/r/pulls/7", "", ""); resp.StatusCode != 401 {
		t.Errorf("GET without the token: %s, want 401", resp.Status)
	}
}

// Comment authors carry GitHub's ids: 41898282 for github-actions[bot].
func TestUserIDs(t *testing.T) {
	s := NewServer(Config{})
	defer s.Close()
	s.AddComment("o", "r", 1, "github-actions[bot]", "Bot", "a")
	s.AddComment("o", "r", 1, "mona", "User", "b")
	s.AddCommentAs("o", "r", 1, "github-actions[bot]", 666, "Bot", "c")
	do(t, "POST", s.URL+"/_fake/comments", "", `{"owner":"o","repo":"r","issue":1,"body":"d","login":"github-actions[bot]","type":"Bot","user_id":777}`)
	_, body := do(t, "GET", s.APIURL()+"/repos/o/r/issues/1/comments", "", "")
	var got []struct {
		User struct {
			Login string
			ID    int64
		}
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, c := range got {
		ids = append(ids, c.User.ID)
	}
	if diff := cmp.Diff([]int64{41898282, UserID("mona"), 666, 777}, ids); diff != "" {
		t.Errorf("user ids (-want +got):\n%s", diff)
	}
	if UserID("mona") == UserID("hubot") || UserID("mona") == 41898282 {
		t.Errorf("UserID gives mona %d and hubot %d", UserID("mona"), UserID("hubot"))
	}
}
