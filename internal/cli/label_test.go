package cli

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/event"
	"github.com/benchgate/benchgate/internal/github/githubtest"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/testenv"
)

// TestLabelBelongsToMaintainers: the accept label accepts only when its
// sender is not the pull request's author, not a bot (unless trusted) and
// has write access by GitHub's collaborator permission API (round 3's L5:
// a triage contributor labelled their own pull request and accepted their
// own regression). Anything else accepts nothing, with a note naming the
// sender and why.
func TestLabelBelongsToMaintainers(t *testing.T) {
	srv := githubtest.NewServer(githubtest.Config{})
	defer srv.Close()
	for login, role := range map[string]string{"maintainer": "maintain", "admin1": "admin", "dev": "write", "helper": "triage", "mona": "write"} {
		srv.AddCollaborator("owner", "repo", login, role)
	}
	for _, c := range []struct {
		name, sender, senderType string
		trusted                  []string
		token                    string
		fault                    bool
		// want
		accepted bool
		code     policy.NoteCode
		text     string
		lookups  int
	}{
		{name: "a maintainer", sender: "maintainer", accepted: true, lookups: 1},
		{name: "an admin", sender: "admin1", accepted: true, lookups: 1},
		{name: "write access", sender: "dev", accepted: true, lookups: 1},
		{name: "triage is not write", sender: "helper", code: policy.LabelNoWrite, lookups: 1,
			text: "@helper, who added the label benchgate-accept, has triage (read) access to the repository, not write"},
		{name: "not a collaborator", sender: "stranger", code: policy.LabelNoWrite, lookups: 1, text: "has none access"},
		{name: "the author, even with write access", sender: "MONA", code: policy.LabelByAuthor,
			text: "added by @MONA, the pull request's author"},
		{name: "a bot", sender: "labeler[bot]", senderType: "Bot", code: policy.LabelByBot, text: "a bot the policy file does not trust"},
		{name: "a bot account by its type", sender: "ci-robot", senderType: "Bot", code: policy.LabelByBot},
		{name: "a trusted bot", sender: "release-bot[bot]", senderType: "Bot", trusted: []string{"other[bot]", "Release-Bot[bot]"}, accepted: true},
		{name: "no token", sender: "maintainer", token: "-", code: policy.LabelUnverified, text: "no token input"},
		{name: "GitHub fails", sender: "maintainer", fault: true, code: policy.LabelUnverified, lookups: 1, text: "could not be read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			token := "t0ken"
			if c.token == "-" {
				token = ""
			}
			env := map[string]string{"INPUT_TOKEN": token, "GITHUB_REPOSITORY": "owner/repo", "GITHUB_API_URL": srv.APIURL()}
			a := &app{env: Env{Getenv: func(k string) string { return env[k] }, Stderr: io.Discard, Stdout: io.Discard}}
			gh := config.GitHubContext(a.env.Getenv)
			a.gh = &gh
			target := event.Target{PRNumber: 7, HeadSHA: headSHA1, Author: "mona", Action: "labeled", Labels: []string{"benchgate-accept"},
				LabelAdded: "benchgate-accept", Sender: c.sender, SenderType: c.senderType}
			if c.fault {
				srv.AddFault(githubtest.Fault{Path: "/repos/owner/repo/collaborators/*/permission", Status: 401, Body: githubtest.BodyBadCredentials})
			}
			before := lookups(srv)
			acc := actionAcceptance("pull_request", target, "benchgate-accept", false, mergeSHA)
			if acc.Label == "" {
				t.Fatal("fixture: the labeled event does not accept before the check")
			}
			r := &actionRun{target: target, act: &config.Action{}}
			r.client, r.clientErr = a.newClient(r.act)
			a.checkLabeler(context.Background(), r, func() []string { return c.trusted }, &acc)
			if got := lookups(srv) - before; got != c.lookups {
				t.Errorf("%d permission lookups, want %d", got, c.lookups)
			}
			if c.accepted {
				if acc.Label == "" || acc.LabelBy != "@"+c.sender || len(acc.Notes) != 0 {
					t.Errorf("label %q by %q, notes %+v: want accepted by @%s", acc.Label, acc.LabelBy, acc.Notes, c.sender)
				}
				return
			}
			if acc.Label != "" || len(acc.Notes) != 1 || acc.Notes[0].Code != c.code || acc.Notes[0].Sender != c.sender {
				t.Fatalf("label %q, notes %+v: want none, one %s note naming %s", acc.Label, acc.Notes, c.code, c.sender)
			}
			if text := report.PolicyNoteText(acc.Notes[0]); !strings.HasPrefix(text, "not accepted: ") || !strings.Contains(text, c.text) {
				t.Errorf("note %q, want it to say %q", text, c.text)
			}
		})
	}
}

// lookups counts the permission requests the fake received.
func lookups(srv *githubtest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if strings.Contains(r.Path, "/collaborators/") {
			n++
		}
	}
	return n
}

// The trusted bots are the policy file's, read from the commit the run
// reads the policy from (base): head's copy cannot add one.
func TestTrustedBotsFromBase(t *testing.T) {
	env := testenv.Env(t)
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"go.mod": "module example.com/m\n", ".benchgate.yml": "trusted-bots:\n  - release-bot[bot]\n"})
	testenv.Git(t, env, dir, "init", "-q", "-b", "main")
	testenv.Git(t, env, dir, "add", "-A")
	testenv.Git(t, env, dir, "commit", "-q", "-m", "base")
	base := strings.TrimSpace(testenv.Git(t, env, dir, "rev-parse", "HEAD"))
	testenv.WriteFiles(t, dir, map[string]string{".benchgate.yml": "trusted-bots:\n  - release-bot[bot]\n  - labeler[bot]\n"})
	testenv.Git(t, env, dir, "commit", "-q", "-am", "head trusts its own bot")
	head := strings.TrimSpace(testenv.Git(t, env, dir, "rev-parse", "HEAD"))
	a := &app{env: Env{Dir: dir, Environ: env, Getenv: func(string) string { return "" }, Stderr: io.Discard}, cfg: &config.Config{Policy: ".benchgate.yml"}}
	repo, err := gitrev.Open(context.Background(), dir, a.gitOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.trustedBots(context.Background(), repo, base); strings.Join(got, " ") != "release-bot[bot]" {
		t.Errorf("base's trusted bots %q", got)
	}
	if got := a.trustedBots(context.Background(), repo, head); len(got) != 2 {
		t.Errorf("head's file: %q (read only from the commit asked for)", got)
	}
	a.cfg.Policy = "none"
	if got := a.trustedBots(context.Background(), repo, base); got != nil {
		t.Errorf("--policy none: %q", got)
	}
}
