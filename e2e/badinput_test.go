package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/cli"
)

// TestBadInput is every documented kind of bad input in one table: each
// gets exit status 2 and exactly one line on stderr naming the flag, input,
// ref or file at fault, and leaves the checkout exactly as it was. The
// messages are listed in docs/failures.md. It takes a second
// or two (one case builds a test binary), so it runs without BENCHGATE_E2E.
func TestBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	work := t.TempDir()
	repo := filepath.Join(work, "repo")
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, "go.mod"), "module example.com/bad\n\ngo 1.26\n")
	write(filepath.Join(repo, "b_test.go"), "package bad\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkX(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink++\n\t}\n}\n")
	git := func(dir string, args ...string) string {
		return run(t, dir, "git", append([]string{"-c", "user.name=a", "-c", "user.email=a@b"}, args...)...)
	}
	git(repo, "init", "-q", "-b", "main")
	git(repo, "add", "-A")
	git(repo, "commit", "-q", "-m", "base")
	git(repo, "commit", "-q", "--allow-empty", "-m", "head")
	plain := filepath.Join(work, "plain") // a git repository, not a Go module
	write(filepath.Join(plain, "README"), "x\n")
	git(plain, "init", "-q")
	nogit := filepath.Join(work, "nogit") // a Go module, not a git repository
	write(filepath.Join(nogit, "go.mod"), "module example.com/nogit\n\ngo 1.26\n")
	write(filepath.Join(work, "ok.txt"), "pkg: p\nBenchmarkA-2 10 100 ns/op\n")
	write(filepath.Join(work, "empty.txt"), "")
	write(filepath.Join(work, "garbage.txt"), "goos: linux\nBenchmarkBroken 12 abc ns/op\n")
	write(filepath.Join(work, "event.json"), `{"pull_request": {"number": 7, "head": `)
	if err := os.Mkdir(filepath.Join(work, "adir.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(plain, filepath.Join(work, "linkdir")); err != nil {
		t.Fatal(err)
	}
	statusBefore := git(repo, "status", "--porcelain")
	worktreesBefore := git(repo, "worktree", "list")

	action := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": repo, "GITHUB_EVENT_NAME": "pull_request",
		"GITHUB_EVENT_PATH": filepath.Join(work, "event.json"), "GITHUB_SHA": "0123456789012345678901234567890123456789"}
	for _, tc := range []struct {
		name string
		dir  string
		args []string
		env  map[string]string
		want string
	}{
		{"negative count", repo, []string{"run", "--base", "HEAD~1", "--count", "-1"}, nil, `--count "-1": must be at least 1`},
		{"zero count", repo, []string{"run", "--base", "HEAD~1", "--count", "0"}, nil, `--count "0": must be at least 1`},
		{"threshold abc", repo, []string{"run", "--base", "HEAD~1", "--threshold", "abc"}, nil, `--threshold "abc": want a percentage such as 5%`},
		{"threshold 0.05 ambiguous", repo, []string{"run", "--base", "HEAD~1", "--threshold", "0.05"}, nil, `--threshold "0.05": ambiguous`},
		{"alpha outside (0,1)", repo, []string{"run", "--base", "HEAD~1", "--alpha", "1.5"}, nil, `--alpha "1.5": must be between 0 and 1, exclusive`},
		{"invalid regexp", repo, []string{"run", "--base", "HEAD~1", "--bench", "a("}, nil, `--bench "a(": invalid regular expression: missing closing )`},
		{"shard 3/2", repo, []string{"run", "--base", "HEAD~1", "--shard", "3/2", "--out", "x"}, nil, `--shard "3/2": shard index must be between 1 and 2`},
		{"unknown flag", repo, []string{"run", "--base", "HEAD~1", "--frob"}, nil, `unknown flag --frob`},
		{"ref that does not exist", repo, []string{"run", "--base", "nope"}, nil, `--base nope: ref "nope" not found`},
		{"base equal to head", repo, []string{"run", "--base", "HEAD"}, nil, `are the same commit`},
		{"not a Go module", plain, []string{"run", "--base", "HEAD"}, nil, `is not in a Go module`},
		{"not a git repository", nogit, []string{"run", "--base", "HEAD"}, nil, `is not in a git repository`},
		{"no benchmark matching --bench", repo, []string{"run", "--base", "HEAD~1", "--bench", "NoSuch", "--quiet"}, nil, `--bench "NoSuch" matched no benchmarks`},
		{"compare: missing file", work, []string{"compare", "ok.txt", "missing.txt"}, nil, `compare: cannot read missing.txt`},
		{"compare: unreadable file", work, []string{"compare", "ok.txt", "adir.txt"}, nil, `adir.txt`},
		{"compare: empty file", work, []string{"compare", "ok.txt", "empty.txt"}, nil, `empty.txt: no benchmark results`},
		{"compare: not benchmark output", work, []string{"compare", "ok.txt", "garbage.txt"}, nil, `garbage.txt:2: `},
		{"--json in a directory that does not exist", repo, []string{"run", "--base", "HEAD~1", "--json", "/nope/r.json"}, nil, `--json /nope/r.json: directory /nope does not exist`},
		{"--json relative, no such directory", repo, []string{"run", "--base", "HEAD~1", "--json", "reports/r.json"}, nil, `--json reports/r.json: directory ` + filepath.Join(repo, "reports") + ` does not exist`},
		{"--markdown is a directory", work, []string{"compare", "ok.txt", "ok.txt", "--markdown", "adir.txt"}, nil, `--markdown adir.txt: ` + filepath.Join(work, "adir.txt") + ` is a directory`},
		{"--markdown under a file", work, []string{"compare", "ok.txt", "ok.txt", "--markdown", "ok.txt/r.md"}, nil, `--markdown ok.txt/r.md: ` + filepath.Join(work, "ok.txt") + ` is not a directory`},
		{"--out is a file", repo, []string{"run", "--base", "HEAD~1", "--out", filepath.Join(work, "ok.txt")}, nil, `--out ` + filepath.Join(work, "ok.txt") + `: ` + filepath.Join(work, "ok.txt") + ` exists and is not a directory`},
		{"--out is a symbolic link", repo, []string{"run", "--base", "HEAD~1", "--out", filepath.Join(work, "linkdir")}, nil, `is a symbolic link: refusing to write through it`},
		{"--out in a directory that does not exist", repo, []string{"run", "--base", "HEAD~1", "--shard", "1/2", "--out", "/nope/shard"}, nil, `--out /nope/shard: directory /nope does not exist`},
		{"calibrate: --json in a directory that does not exist", repo, []string{"calibrate", "--json", "/nope/c.json"}, nil, `--json /nope/c.json: directory /nope does not exist`},
		{"merge: --json in a directory that does not exist", work, []string{"merge", "s1", "--json", "/nope/m.json"}, nil, `--json /nope/m.json: directory /nope does not exist`},
		{"action: unknown comment mode", repo, []string{"action"}, merge(action, map[string]string{"INPUT_COMMENT": "sometimes"}), `input comment: "sometimes": want always, on-change or never`},
		{"action: shard 3/2", repo, []string{"action"}, merge(action, map[string]string{"INPUT_ARGS": "--shard 3/2"}), `input args: --shard "3/2": shard index must be between 1 and 2`},
		{"action: old input shard 3/2", repo, []string{"action"}, merge(action, map[string]string{"INPUT_SHARD": "3/2"}), `input shard: "3/2": shard index must be between 1 and 2`},
		{"action: a typo in args", repo, []string{"action"}, merge(action, map[string]string{"INPUT_ARGS": "--treshold 3%"}), `input args: unknown flag --treshold: did you mean --threshold?`},
		{"action: a trust setting in args", repo, []string{"action"}, merge(action, map[string]string{"INPUT_ARGS": "--accept-trailers"}), `input args: --accept-trailers is a trust setting: set it with the input accept-trailers`},
		{"action: a flag that does not apply", repo, []string{"action"}, merge(action, map[string]string{"INPUT_ARGS": "--json r.json"}), `input args: --json does not apply in the action`},
		{"action: a shell expansion in args", repo, []string{"action"}, merge(action, map[string]string{"INPUT_ARGS": "--bench $(id)"}), `input args: $(… would be expanded by a shell; args expands nothing`},
		{"a flag of another command", work, []string{"compare", "ok.txt", "ok.txt", "--count", "5"}, nil, `--count does not apply to compare (a flag of run, calibrate, bisect; benchgate compare -h lists compare's flags)`},
		{"a typo in a flag", repo, []string{"run", "--base", "HEAD~1", "--treshold", "5%"}, nil, `unknown flag --treshold: did you mean --threshold?`},
		{"action: malformed event file", repo, []string{"action"}, action, `GITHUB_EVENT_PATH`},
		{"action: pull_request_target", repo, []string{"action"}, merge(action, map[string]string{"GITHUB_EVENT_NAME": "pull_request_target"}), `pull_request_target`},
		{"action: issue_comment without the opt-in", repo, []string{"action"}, merge(action, map[string]string{"GITHUB_EVENT_NAME": "issue_comment", "INPUT_ARGS": "--base main"}), `refusing to run on issue_comment without allow-privileged-events: true`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			getenv := func(k string) string {
				if v, ok := tc.env[k]; ok {
					return v
				}
				return os.Getenv(k)
			}
			code := cli.Run(context.Background(), tc.args, cli.Env{Getenv: getenv, Environ: os.Environ(), Stdout: &stdout, Stderr: &stderr, Dir: tc.dir})
			lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
			if tc.args[0] == "action" {
				// The action prints everything on stdout, between its
				// workflow commands (see docs/security.md).
				lines = nil
				for _, l := range strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n") {
					if !strings.HasPrefix(l, "::") {
						lines = append(lines, l)
					}
				}
				if stderr.Len() > 0 {
					t.Errorf("action wrote to stderr: %q", stderr.String())
				}
			}
			if code != cli.ExitUsage {
				t.Errorf("exit status %d, want %d\nstderr:\n%s", code, cli.ExitUsage, stderr.String())
			}
			if len(lines) != 1 || !strings.Contains(lines[0], tc.want) || !strings.HasPrefix(lines[0], "benchgate: ") {
				t.Errorf("stderr = %q, want one line \"benchgate: …%s…\"", stderr.String(), tc.want)
			}
		})
	}
	if got := git(repo, "status", "--porcelain"); got != statusBefore {
		t.Errorf("checkout changed by bad input:\n%s", got)
	}
	if got := git(repo, "worktree", "list"); got != worktreesBefore {
		t.Errorf("worktrees left behind:\n%s", got)
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
