package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/github"
	"github.com/benchgate/benchgate/internal/github/githubtest"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/shard"
)

const (
	trustToken = "ghs_trustTestToken123"
	runHead    = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678" // workflow_run.head_sha: the fork PR's head
	runMerge   = "3d1f4a0c9b2e8f7a6d5c4b3a29180716f5e4d3c2" // the test merge commit the PR run measured
	runBase    = "0f9e8d7c6b5a49382716f5e4d3c2b1a098765432"
	otherSHA   = "9999999999999999999999999999999999999999"
)

// actionHarness runs `benchgate action` against a fake GitHub in a
// temporary workspace.
type actionHarness struct {
	srv            *githubtest.Server
	ws             string
	env            map[string]string
	stdout, stderr bytes.Buffer
}

func newActionHarness(t *testing.T, cfg githubtest.Config) *actionHarness {
	t.Helper()
	if cfg.Token == "" {
		cfg.Token = trustToken
	}
	h := &actionHarness{srv: githubtest.NewServer(cfg), ws: t.TempDir()}
	t.Cleanup(h.srv.Close)
	out := t.TempDir()
	h.env = map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": h.ws, "GITHUB_REPOSITORY": "octo-org/widgets",
		"GITHUB_API_URL": h.srv.APIURL(), "GITHUB_STEP_SUMMARY": filepath.Join(out, "summary.md"),
		"GITHUB_OUTPUT": filepath.Join(out, "output.txt"), "INPUT_TOKEN": trustToken,
	}
	return h
}

// event writes the event payload and names it.
func (h *actionHarness) event(t *testing.T, name, payload string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	h.env["GITHUB_EVENT_NAME"], h.env["GITHUB_EVENT_PATH"] = name, p
}

// shardDir writes a complete 1/1 shard with m's commits into the workspace,
// as the fork recipe's artifact.
func (h *actionHarness) shardDir(t *testing.T, dir string, m shard.Manifest) {
	t.Helper()
	p := filepath.Join(h.ws, dir)
	m.Shard, m.Complete, m.Rounds = shard.Spec{Index: 1, Count: 1}, true, 10
	if err := m.Write(p); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"Parse", "Lex"}
	for _, f := range []string{"base.txt", "head.txt"} {
		if err := os.WriteFile(filepath.Join(p, f), []byte(writeRounds(names, 10, nil, nil, rng)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (h *actionHarness) run(t *testing.T) int {
	t.Helper()
	h.stdout.Reset()
	h.stderr.Reset()
	return Run(context.Background(), []string{"action"}, Env{
		Getenv: func(k string) string { return h.env[k] }, Stdout: &h.stdout, Stderr: &h.stderr, Dir: h.ws,
	})
}

// output is everything printed (in action mode all of it goes to standard
// output, guarded by ::stop-commands::).
func (h *actionHarness) output() string { return h.stdout.String() + h.stderr.String() }

// summary returns the job summary as text: Markdown's character references
// and zero-width spaces (the report's escaping) removed.
func (h *actionHarness) summary(t *testing.T) string {
	b, err := os.ReadFile(h.env["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatalf("no job summary: %v\noutput:\n%s", err, h.output())
	}
	return plain(string(b))
}

func plain(md string) string {
	return strings.ReplaceAll(html.UnescapeString(md), "\u200b", "")
}

// reportHead returns the JSON report's base and head.
func (h *actionHarness) reportRevs(t *testing.T) (base, head struct{ Ref, SHA string }) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.ws, reportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Base, Head struct{ Ref, SHA string }
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r.Base, r.Head
}

// writes counts the requests that would change something on GitHub.
func (h *actionHarness) writes() int {
	n := 0
	for _, r := range h.srv.Requests() {
		if r.Method != "GET" {
			n++
		}
	}
	return n
}

// workflowRunEvent is a workflow_run payload shaped like GitHub's, for a
// fork's pull_request run.
func workflowRunEvent(headSHA, headRepo string) string {
	repo := `null`
	if headRepo != "" {
		repo = `{"id": 701234567, "name": "widgets", "full_name": "` + headRepo + `", "fork": true, "owner": {"login": "mona", "id": 583231, "type": "User"}}`
	}
	return `{"action": "completed", "workflow_run": {"id": 10823456789, "name": "benchmarks", "event": "pull_request",
		"status": "completed", "conclusion": "success", "head_branch": "faster-parser", "head_sha": "` + headSHA + `",
		"pull_requests": [], "repository": {"full_name": "octo-org/widgets"}, "head_repository": ` + repo + `},
		"repository": {"full_name": "octo-org/widgets", "name": "widgets", "owner": {"login": "octo-org"}},
		"sender": {"login": "mona", "id": 583231, "type": "User"}}`
}

// The fork recipe's workflow_run job: the pr-number input comes from the
// artifact, so the comment goes only to a pull request whose head GitHub
// confirms is the run's commit in the run's repository; and the report names
// the event's commit, not the artifact's.
func TestActionWorkflowRunChecksPRNumber(t *testing.T) {
	victimBody := github.Marker("benchgate") + "\nPR 7: ❌ 3 regressions"
	tests := []struct {
		name     string
		payload  string
		pr       *githubtest.PullRequest // PR 7 as GitHub has it
		fault    *githubtest.Fault
		manifest shard.Manifest
		comment  bool     // the sticky comment on #7 is written
		notes    []string // in the job summary (and the comment, if any)
		headSHA  string   // the JSON report's head
	}{
		{
			name:     "the pull request of the run",
			payload:  workflowRunEvent(runHead, "mona/widgets"),
			pr:       &githubtest.PullRequest{HeadSHA: runHead, HeadRepo: "mona/widgets"},
			manifest: shard.Manifest{BaseSHA: runBase, HeadSHA: runMerge, PRHeadSHA: runHead},
			comment:  true,
			headSHA:  runHead,
		},
		{
			name:     "an artifact naming another pull request (#7, someone else's) comments nowhere",
			payload:  workflowRunEvent(runHead, "mona/widgets"),
			pr:       &githubtest.PullRequest{HeadSHA: otherSHA, HeadRepo: "octo-org/widgets"},
			manifest: shard.Manifest{BaseSHA: runBase, HeadSHA: runMerge, PRHeadSHA: runHead},
			notes: []string{"no pull request comment: pr-number 7 is not the pull request of this run: its head is 999999999999 in octo-org/widgets, " +
				"the workflow_run event's is a1b2c3d4e5f6 in mona/widgets"},
			headSHA: runHead,
		},
		{
			name:     "the same fork's pull request with newer commits waits for its next run",
			payload:  workflowRunEvent(runHead, "mona/widgets"),
			pr:       &githubtest.PullRequest{HeadSHA: otherSHA, HeadRepo: "mona/widgets"},
			manifest: shard.Manifest{BaseSHA: runBase, HeadSHA: runMerge, PRHeadSHA: runHead},
			notes:    []string{"pr-number 7 is not the pull request of this run", "new commits since the run"},
			headSHA:  runHead,
		},
		{
			name:     "the same commit pushed to another repository is not the run's",
			payload:  workflowRunEvent(runHead, "mona/widgets"),
			pr:       &githubtest.PullRequest{HeadSHA: runHead, HeadRepo: "eve/widgets"},
			manifest: shard.Manifest{BaseSHA: runBase, HeadSHA: runMerge, PRHeadSHA: runHead},
			notes:    []string{"pr-number 7 is not the pull request of this run", "in eve/widgets"},
			headSHA:  runHead,
		},
		{
			name:     "a pull request whose head repository was deleted",
			payload:  workflowRunEvent(runHead, "mona/widgets"),
			pr:       &githubtest.PullRequest{HeadSHA: runHead, HeadRepo: "-"},
			manifest: shard.Manifest{BaseSHA: runBase, HeadSHA: runMerge, PRHeadSHA: runHead},
			notes:    []string{"pr-number 7 is not the pull request of this run", "in a deleted repository"},
			headSHA:  runHead,
		},
		{
			name:     "no such pull request",
			payload:  workflowRunEvent(runHead, "mona/widgets"),
			manifest: shard.Manifest{BaseSHA: runBase, HeadSHA: runMerge, PRHeadSHA: runHead},
			notes:    []string{"no pull request comment: pr-number 7 is not a pull request of octo-org/widgets"},
			headSHA:  runHead,
		},
		{
			name:     "the check failing comments nowhere",
			payload:  workflowRunEvent(runHead, "mona/widgets"),
			pr:       &githubtest.PullRequest{HeadSHA: runHead, HeadRepo: "mona/widgets"},
			fault:    &githubtest.Fault{Method: "GET", Path: "/repos/*/*/pulls/*", Status: 401, Body: githubtest.BodyBadCredentials},
			manifest: shard.Manifest{BaseSHA: runBase, HeadSHA: runMerge, PRHeadSHA: runHead},
			notes:    []string{"could not check pull request #7 (the pr-number input) against the workflow_run event", "401 Bad credentials"},
			headSHA:  runHead,
		},
		{
			name:     "an unreadable event comments nowhere and names no commit",
			payload:  `{"workflow_run": {"event": "pull_request", "pull_requests": []}}`,
			pr:       &githubtest.PullRequest{HeadSHA: runHead, HeadRepo: "mona/widgets"},
			manifest: shard.Manifest{BaseSHA: runBase, HeadSHA: runMerge, PRHeadSHA: runHead},
			notes:    []string{"the workflow_run event could not be read, so pull request #7 (the pr-number input) cannot be checked", "the commits are unknown"},
			headSHA:  "",
		},
		{
			name:     "an artifact claiming another commit: the report names the event's, with a note",
			payload:  workflowRunEvent(runHead, "mona/widgets"),
			pr:       &githubtest.PullRequest{HeadSHA: runHead, HeadRepo: "mona/widgets"},
			manifest: shard.Manifest{BaseSHA: runBase, HeadSHA: otherSHA},
			comment:  true,
			notes:    []string{"shard.json says its run measured commit 999999999999, but the workflow_run event's commit is a1b2c3d4e5f6"},
			headSHA:  runHead,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newActionHarness(t, githubtest.Config{})
			victim := h.srv.AddComment("octo-org", "widgets", 7, "github-actions[bot]", "Bot", victimBody)
			if tt.pr != nil {
				pr := *tt.pr
				pr.Owner, pr.Repo, pr.Number = "octo-org", "widgets", 7
				h.srv.AddPullRequest(pr)
			}
			if tt.fault != nil {
				h.srv.AddFault(*tt.fault)
			}
			h.event(t, "workflow_run", tt.payload)
			h.shardDir(t, "results", tt.manifest)
			h.env["INPUT_MODE"], h.env["INPUT_MERGE"], h.env["INPUT_PR-NUMBER"] = "merge", "results", "7"

			if code := h.run(t); code != ExitPass {
				t.Fatalf("exit %d, want the gate's 0\nstderr:\n%s", code, h.output())
			}
			comments := h.srv.Comments("octo-org", "widgets", 7)
			if len(comments) != 1 || comments[0].ID != victim.ID {
				t.Fatalf("comments on #7 = %+v, want the one sticky comment", comments)
			}
			edited := comments[0].Body != victimBody
			if edited != tt.comment {
				t.Errorf("sticky comment edited = %v, want %v:\n%.300s", edited, tt.comment, comments[0].Body)
			}
			if !tt.comment && h.writes() != 0 {
				t.Errorf("%d write requests, want none: %+v", h.writes(), h.srv.Requests())
			}
			summary := h.summary(t)
			for _, n := range tt.notes {
				if !strings.Contains(summary, n) {
					t.Errorf("job summary lacks %q:\n%s", n, summary)
				}
				if tt.comment && !strings.Contains(plain(comments[0].Body), n) {
					t.Errorf("comment lacks %q:\n%s", n, comments[0].Body)
				}
			}
			if !tt.comment && !strings.Contains(h.stdout.String(), "::warning") {
				t.Errorf("no warning annotation for the skipped comment:\n%s", h.stdout.String())
			}
			if tt.comment && strings.Contains(summary, "no pull request comment") {
				t.Errorf("summary has a skip note although the comment was written:\n%s", summary)
			}
			base, head := h.reportRevs(t)
			if head.SHA != tt.headSHA || base.SHA != "" || strings.Contains(summary, gitrev.Short(runMerge)) || strings.Contains(summary, gitrev.Short(runBase)) {
				t.Errorf("report names base %+v, head %+v (want head %q from the event, nothing from shard.json)", base, head, tt.headSHA)
			}
		})
	}
}

// The audit's reproduction: an artifact saying 7, run as workflow_run with a
// write token, must not turn PR #7's failing sticky report into a pass.
func TestActionWorkflowRunArtifactCannotHijack(t *testing.T) {
	h := newActionHarness(t, githubtest.Config{})
	victim := h.srv.AddComment("octo-org", "widgets", 7, "github-actions[bot]", "Bot", github.Marker("benchgate")+"\nPR 7: ❌ 3 regressions")
	h.srv.AddPullRequest(githubtest.PullRequest{Owner: "octo-org", Repo: "widgets", Number: 7, HeadSHA: otherSHA, HeadRepo: "octo-org/widgets"})
	h.srv.AddPullRequest(githubtest.PullRequest{Owner: "octo-org", Repo: "widgets", Number: 9, HeadSHA: runHead, HeadRepo: "mona/widgets"})
	h.event(t, "workflow_run", workflowRunEvent(runHead, "mona/widgets"))
	h.shardDir(t, "results", shard.Manifest{BaseSHA: runBase, HeadSHA: runMerge, PRHeadSHA: runHead})
	h.env["INPUT_MODE"], h.env["INPUT_MERGE"], h.env["INPUT_PR-NUMBER"] = "merge", "results", "7"
	h.run(t)
	for _, c := range h.srv.AllComments() {
		if c.ID != victim.ID || !strings.Contains(c.Body, "3 regressions") {
			t.Errorf("comment %d on #%d written by PR #9's artifact:\n%.200s", c.ID, c.Issue, c.Body)
		}
	}
	// The right number comments on the right pull request.
	h.env["INPUT_PR-NUMBER"] = "9"
	h.run(t)
	if cs := h.srv.Comments("octo-org", "widgets", 9); len(cs) != 1 || !strings.HasPrefix(cs[0].Body, github.Marker("benchgate")) {
		t.Errorf("comments on #9 = %+v, want the sticky report\nstderr:\n%s", cs, h.output())
	}
}

// Running code on events that strangers can start, with the repository's
// secrets, needs allow-privileged-events (or its old name); mode merge on
// workflow_run runs no code and needs nothing.
func TestActionPrivilegedEvents(t *testing.T) {
	tests := []struct {
		event, mode string
		inputs      map[string]string
		refused     bool
	}{
		{event: "issue_comment", mode: "gate", refused: true},
		{event: "issue_comment", mode: "calibrate", refused: true},
		{event: "workflow_run", mode: "gate", refused: true},
		{event: "workflow_run", mode: "calibrate", refused: true},
		{event: "pull_request_target", mode: "gate", refused: true},
		{event: "check_suite", mode: "gate", refused: true},
		{event: "workflow_run", mode: "gate", inputs: map[string]string{"INPUT_ALLOW-PRIVILEGED-EVENTS": "true"}},
		{event: "issue_comment", mode: "gate", inputs: map[string]string{"INPUT_ALLOW-PULL-REQUEST-TARGET": "true"}},
		{event: "workflow_dispatch", mode: "gate"},
		{event: "workflow_run", mode: "merge"},
	}
	for _, tt := range tests {
		t.Run(tt.event+"/"+tt.mode, func(t *testing.T) {
			h := newActionHarness(t, githubtest.Config{})
			h.event(t, tt.event, workflowRunEvent(runHead, "mona/widgets"))
			h.env["INPUT_MODE"] = tt.mode
			if tt.mode == "merge" {
				h.shardDir(t, "results", shard.Manifest{BaseSHA: runBase, HeadSHA: runHead})
				h.env["INPUT_MERGE"] = "results"
			}
			for k, v := range tt.inputs {
				h.env[k] = v
			}
			code := h.run(t)
			out := h.output()
			refused := strings.Contains(out, "refusing to run on")
			if refused != tt.refused {
				t.Fatalf("refused = %v, want %v (exit %d)\noutput:\n%s", refused, tt.refused, code, out)
			}
			if !tt.refused {
				return
			}
			if code != ExitUsage {
				t.Errorf("exit %d, want %d", code, ExitUsage)
			}
			var msgs []string
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "benchgate: ") {
					msgs = append(msgs, l)
				}
			}
			if len(msgs) != 1 || !regexp.MustCompile(`^benchgate: refusing to run on `+tt.event+`[ :]`).MatchString(msgs[0]) ||
				!strings.Contains(msgs[0], "allow-privileged-events: true") {
				t.Errorf("want one line naming %s and allow-privileged-events, got:\n%s", tt.event, out)
			}
			if !strings.Contains(out, "::error") {
				t.Errorf("no error annotation:\n%s", out)
			}
		})
	}
}

// A fork's pull_request run has a read-only token: benchgate says so and
// sends no request at all, instead of collecting a 403. A private repository
// may give forks a write token, so there it comments.
func TestActionForkSkipsComment(t *testing.T) {
	for _, tc := range []struct{ fork, private bool }{{true, false}, {false, false}, {true, true}} {
		fork := tc.fork && !tc.private // the cases that skip
		h := newActionHarness(t, githubtest.Config{})
		headRepo := "octo-org/widgets"
		if tc.fork {
			headRepo = "mona/widgets"
		}
		h.event(t, "pull_request", `{"action": "synchronize", "number": 7, "pull_request": {"number": 7,
			"head": {"ref": "faster-parser", "sha": "`+runHead+`", "repo": {"full_name": "`+headRepo+`"}},
			"base": {"ref": "main", "sha": "`+runBase+`", "repo": {"full_name": "octo-org/widgets", "private": `+strconv.FormatBool(tc.private)+`}}}}`)
		h.env["GITHUB_SHA"] = runMerge
		h.shardDir(t, "results", shard.Manifest{BaseSHA: runBase, HeadSHA: runMerge, PRHeadSHA: runHead})
		h.env["INPUT_MODE"], h.env["INPUT_MERGE"] = "merge", "results"
		if code := h.run(t); code != ExitPass {
			t.Fatalf("fork=%v: exit %d\n%s", fork, code, h.output())
		}
		reqs, summary := h.srv.Requests(), h.summary(t)
		skipped := strings.Contains(summary, "the pull request comes from a fork, whose token is read-only: the comment was skipped")
		if fork && (len(reqs) != 0 || !skipped || !strings.Contains(h.stdout.String(), "::warning")) {
			t.Errorf("fork: %d requests, skip note %v, want none and the note\n%s", len(reqs), skipped, summary)
		}
		if !fork && (len(h.srv.Comments("octo-org", "widgets", 7)) != 1 || skipped) {
			t.Errorf("same repository: comments %+v, skip note %v; want the comment", h.srv.Comments("octo-org", "widgets", 7), skipped)
		}
		if base, head := h.reportRevs(t); base.SHA != runBase || head.SHA != runMerge {
			t.Errorf("pull_request merge: report names %s → %s, want shard.json's commits (only workflow_run distrusts them)", base.SHA, head.SHA)
		}
	}
}

// With a personal access token the comments are the user's: comment-author
// names it, and the sticky comment is found and edited instead of a new one
// posted on every run. github-actions[bot]'s comment is then not ours.
func TestActionCommentAuthor(t *testing.T) {
	h := newActionHarness(t, githubtest.Config{Login: "ci-user", UserType: "User"})
	marker := github.Marker("benchgate")
	ours := h.srv.AddComment("octo-org", "widgets", 7, "ci-user", "User", marker+"\nold run")
	bots := h.srv.AddComment("octo-org", "widgets", 7, "github-actions[bot]", "Bot", marker+"\nanother workflow's")
	h.event(t, "pull_request", `{"number": 7, "pull_request": {"number": 7,
		"head": {"sha": "`+runHead+`", "repo": {"full_name": "octo-org/widgets"}},
		"base": {"sha": "`+runBase+`", "repo": {"full_name": "octo-org/widgets"}}}}`)
	h.env["GITHUB_SHA"] = runMerge
	h.shardDir(t, "results", shard.Manifest{BaseSHA: runBase, HeadSHA: runMerge})
	h.env["INPUT_MODE"], h.env["INPUT_MERGE"], h.env["INPUT_COMMENT-AUTHOR"] = "merge", "results", "ci-user"
	for run := 1; run <= 2; run++ {
		if code := h.run(t); code != ExitPass {
			t.Fatalf("exit %d\n%s", code, h.output())
		}
	}
	cs := h.srv.Comments("octo-org", "widgets", 7)
	if len(cs) != 2 || cs[0].ID != ours.ID || cs[0].Body == marker+"\nold run" || cs[1].ID != bots.ID || cs[1].Body != marker+"\nanother workflow's" {
		t.Errorf("comments = %+v, want ci-user's edited and the bot's untouched", cs)
	}

	// Without the input, github-actions[bot] owns it, checked by id too.
	delete(h.env, "INPUT_COMMENT-AUTHOR")
	h.run(t)
	if cs := h.srv.Comments("octo-org", "widgets", 7); len(cs) != 2 || cs[1].Body == marker+"\nanother workflow's" {
		t.Errorf("without comment-author: comments = %+v, want github-actions[bot]'s edited", cs)
	}
}

// A benchmark's name is the change's text: its annotations show the
// invisible characters in it, as the reports do, in the message as in the
// title.
func TestActionAnnotationsShowInvisible(t *testing.T) {
	h := newActionHarness(t, githubtest.Config{})
	h.event(t, "workflow_dispatch", `{}`)
	p := filepath.Join(h.ws, "results")
	m := shard.Manifest{BaseSHA: runBase, HeadSHA: runMerge, Shard: shard.Spec{Index: 1, Count: 1}, Complete: true, Rounds: 10}
	if err := m.Write(p); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"Pa\u200brse", "Lex"}
	for _, side := range []struct {
		file   string
		factor map[string]float64
	}{{"base.txt", nil}, {"head.txt", map[string]float64{"Pa\u200brse": 1.5}}} {
		if err := os.WriteFile(filepath.Join(p, side.file), []byte(writeRounds(names, 10, side.factor, nil, rng)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.env["INPUT_MODE"], h.env["INPUT_MERGE"] = "merge", "results"
	if code := h.run(t); code != ExitFail {
		t.Fatalf("exit %d, want %d (a regression)\n%s", code, ExitFail, h.output())
	}
	var regressed string
	for _, l := range strings.Split(h.stdout.String(), "\n") {
		if !strings.HasPrefix(l, "::error ") {
			continue
		}
		if strings.Contains(l, "\u200b") {
			t.Errorf("annotation with an invisible character: %q", l)
		}
		if strings.Contains(l, "regressed") {
			regressed = l
		}
	}
	_, msg, _ := strings.Cut(strings.TrimPrefix(regressed, "::error "), "::")
	if !strings.HasPrefix(msg, "example.com/p.Pa<U+200B>rse-2 sec/op: ") {
		t.Errorf("regression annotation %q: want its message to name example.com/p.Pa<U+200B>rse-2\n%s", regressed, h.stdout.String())
	}
}
