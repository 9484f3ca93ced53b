package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/event"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/testenv"
)

// TestStackedPolicy: a pull request based on feature-1, whose author
// loosened the policy there, is judged by the policy of the merge base of
// feature-1 and main, fetched into a depth-1 clone of feature-1; a pull
// request based on main reads base's as before.
func TestStackedPolicy(t *testing.T) {
	env := testenv.Env(t)
	origin := filepath.Join(testenv.TempDir(t), "origin")
	testenv.Git(t, env, "", "init", "-q", "-b", "main", origin)
	commit := func(files map[string]string, msg string) string {
		testenv.WriteFiles(t, origin, files)
		testenv.Git(t, env, origin, "add", "-A")
		testenv.Git(t, env, origin, "commit", "-q", "-m", msg)
		return testenv.Git(t, env, origin, "rev-parse", "HEAD")
	}
	fork := commit(map[string]string{"go.mod": "module m\n", ".benchgate.yml": "threshold: 5%\n"}, "main: strict policy")
	testenv.Git(t, env, origin, "checkout", "-q", "-b", "feature-1")
	commit(map[string]string{"a.txt": "1\n"}, "feature-1: work")
	feature := commit(map[string]string{".benchgate.yml": "threshold: 500%\n"}, "feature-1: a loose policy")
	testenv.Git(t, env, origin, "checkout", "-q", "main")
	commit(map[string]string{"b.txt": "2\n"}, "main moves on")

	clone := filepath.Join(testenv.TempDir(t), "clone")
	testenv.Git(t, env, "", "clone", "-q", "--depth=1", "--branch", "feature-1", "file://"+origin, clone)
	ctx := context.Background()
	repo, err := gitrev.Open(ctx, clone, gitrev.WithEnv(env))
	if err != nil {
		t.Fatal(err)
	}

	stacked := event.Target{PRNumber: 2, BaseRef: "feature-1", DefaultBranch: "main"}
	at, err := stackedPolicy(ctx, repo, stacked, feature)
	if err != nil {
		t.Fatal(err)
	}
	if at.SHA != fork {
		t.Fatalf("policy read from %s, want the merge base %s", at.SHA, fork)
	}
	if want := "the merge base of feature-1 and main (a stacked pull request: feature-1 is not the default branch)"; at.Label != want {
		t.Errorf("label %q, want %q", at.Label, want)
	}
	p, _, err := pipeline.ReadCommitPolicy(ctx, repo, at.SHA, ".benchgate.yml", ".benchgate.yml")
	if err != nil || p == nil || p.Threshold.Value != 0.05 {
		t.Errorf("policy of the merge base: %+v, %v; want threshold 5%%", p, err)
	}

	for _, tg := range []event.Target{
		{PRNumber: 2, BaseRef: "main", DefaultBranch: "main"},
		{PRNumber: 2, BaseRef: "feature-1"},           // no default branch in the event
		{BaseRef: "feature-1", DefaultBranch: "main"}, // no pull request
	} {
		if at, err := stackedPolicy(ctx, repo, tg, feature); err != nil || at.SHA != "" {
			t.Errorf("%+v: %+v, %v; want base's policy", tg, at, err)
		}
	}

	// A default branch that cannot be fetched stops the run: the gate
	// never falls back to the base branch's policy.
	_, err = stackedPolicy(ctx, repo, event.Target{PRNumber: 2, BaseRef: "feature-1", DefaultBranch: "trunk"}, feature)
	if err == nil || !strings.Contains(err.Error(), "stacked pull request (base feature-1 is not the default branch trunk)") {
		t.Errorf("missing default branch: %v", err)
	}
}

// TestReadCommitPolicyNoLinks: a policy file that is a link in the commit
// is refused and its target never quoted; a missing file is no policy.
func TestReadCommitPolicyNoLinks(t *testing.T) {
	env := testenv.Env(t)
	dir := testenv.TempDir(t)
	testenv.Git(t, env, dir, "init", "-q", "-b", "main")
	testenv.WriteFiles(t, dir, map[string]string{"secret.yml": "password: hunter2\n"})
	if err := os.Symlink("secret.yml", filepath.Join(dir, ".benchgate.yml")); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, env, dir, "add", "-A")
	testenv.Git(t, env, dir, "commit", "-q", "-m", "a link")
	ctx := context.Background()
	repo, err := gitrev.Open(ctx, dir, gitrev.WithEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	head := testenv.Git(t, env, dir, "rev-parse", "HEAD")
	p, _, err := pipeline.ReadCommitPolicy(ctx, repo, head, ".benchgate.yml", ".benchgate.yml")
	if p != nil || err == nil || !strings.Contains(err.Error(), "not a regular file") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("link: %v, %v", p, err)
	}
	if p, _, err := pipeline.ReadCommitPolicy(ctx, repo, head, "ci/.benchgate.yml", "ci/.benchgate.yml"); p != nil || err != nil {
		t.Errorf("missing: %v, %v", p, err)
	}
}
