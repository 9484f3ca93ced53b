package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitlab"
	"github.com/benchgate/benchgate/internal/gitlab/gitlabtest"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/stats"
)

const glToken = "glpat-unit-s3cret"

// Every way the note cannot be written is one line on stderr naming why,
// with no token in it; the note is created, then edited.
func TestGitLabNote(t *testing.T) {
	srv := gitlabtest.NewServer(gitlabtest.Config{Token: glToken})
	defer srv.Close()
	srv.AddMergeRequest("42", 7)
	regressed := gate.Verdict{Results: []gate.Result{{
		Comparison: stats.Comparison{Key: stats.Key{Package: "example.com/lib", Name: "Slow-2", Unit: "sec/op"}},
		Kind:       gate.Time, Status: gate.Regression, Gated: true,
	}}}
	unchanged := gate.Verdict{Pass: true, Results: []gate.Result{{
		Comparison: stats.Comparison{Key: stats.Key{Package: "example.com/lib", Name: "Fast-2", Unit: "sec/op"}},
		Kind:       gate.Time, Status: gate.Unchanged, Gated: true,
	}}}
	ci := gitlab.Pipeline{APIURL: srv.APIURL(), MRProjectURL: "https://gitlab.example/g/p"}
	mr := gitlab.Target{IID: 7, Project: "42"}
	for _, tc := range []struct {
		name   string
		token  string
		flags  []string
		target gitlab.Target
		v      gate.Verdict
		setup  func()
		want   string
	}{
		{name: "no token", target: mr, v: regressed, want: "no merge request note: BENCHGATE_GITLAB_TOKEN is not set (a masked CI/CD variable holding a project access token with the api scope; CI_JOB_TOKEN cannot write notes"},
		{name: "fork", target: gitlab.Target{IID: 7, Project: "42", Fork: true, InFork: true}, v: regressed, want: "no merge request note: !7 comes from a fork and its pipeline runs in the fork's project, which cannot see the target project's BENCHGATE_GITLAB_TOKEN"},
		{name: "never", token: glToken, flags: []string{"--note", "never"}, target: mr, v: regressed, want: "no merge request note (--note never)"},
		{name: "wrong token", token: "glpat-wrong-s3cret", target: mr, v: regressed, want: "no merge request note: GitLab refused BENCHGATE_GITLAB_TOKEN (401"},
		{name: "read-only", token: glToken, target: mr, v: regressed, setup: func() { srv.SetReadOnly(true) }, want: "BENCHGATE_GITLAB_TOKEN may not write notes on !7 (403: it needs the api scope"},
		{name: "unknown merge request", token: glToken, target: gitlab.Target{IID: 8, Project: "42"}, v: regressed, setup: func() { srv.SetReadOnly(false) }, want: "GitLab answered 404 for !8 of project 42"},
		{name: "on-change, nothing changed", token: glToken, flags: []string{"--note", "on-change"}, target: mr, v: unchanged, want: "nothing changed; no merge request note (--note on-change)"},
		{name: "created", token: glToken, target: mr, v: regressed, want: "merge request note created: https://gitlab.example/g/p/-/merge_requests/7#note_"},
		{name: "on-change, a note exists", token: glToken, flags: []string{"--note", "on-change"}, target: mr, v: unchanged, want: "merge request note updated: https://gitlab.example/g/p/-/merge_requests/7#note_"},
		{name: "not a merge request", token: glToken, target: gitlab.Target{}, v: regressed, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			cfg, err := config.Parse(append([]string{"gitlab"}, tc.flags...))
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			env := map[string]string{config.GitLabTokenVar: tc.token}
			a := &app{env: Env{Getenv: func(k string) string { return env[k] }, Stderr: &stderr}, cfg: cfg}
			v := tc.v
			before := len(srv.Requests())
			a.gitlabNote(context.Background(), outcome{verdict: &v, meta: report.Meta{}}, ci, tc.target)
			got := stderr.String()
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) || strings.Count(got, "\n") > 1 {
				t.Errorf("stderr %q, want one line with %q", got, tc.want)
			}
			if strings.Contains(got, "s3cret") {
				t.Errorf("the token is in %q", got)
			}
			if tc.token == "" && len(srv.Requests()) != before {
				t.Errorf("requests sent without a token")
			}
		})
	}
	if n := srv.Notes("42", 7); len(n) != 1 || !strings.Contains(n[0].Body, "Fast") {
		t.Errorf("notes %+v, want the one sticky note, edited", n)
	}
}
