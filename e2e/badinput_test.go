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
	// sub: a module whose head adds a directory docs/ that base lacks.
	sub := filepath.Join(work, "sub")
	write(filepath.Join(sub, "go.mod"), "module example.com/sub\n\ngo 1.26\n")
	write(filepath.Join(sub, "b_test.go"), "package sub\n\nimport \"testing\"\n\nfunc BenchmarkX(b *testing.B) {\n\tfor b.Loop() {\n\t}\n}\n")
	git(sub, "init", "-q", "-b", "main")
	git(sub, "add", "-A")
	git(sub, "commit", "-q", "-m", "base")
	write(filepath.Join(sub, "docs", "README"), "docs\n")
	git(sub, "add", "-A")
	git(sub, "commit", "-q", "-m", "head: docs")
	plain := filepath.Join(work, "plain") // a git repository, not a Go module
	write(filepath.Join(plain, "README"), "x\n")
	git(plain, "init", "-q")
	nogit := filepath.Join(work, "nogit") // a Go module, not a git repository
	write(filepath.Join(nogit, "go.mod"), "module example.com/nogit\n\ngo 1.26\n")
	write(filepath.Join(work, "ok.txt"), "pkg: p\nBenchmarkA-2 10 100 ns/op\n")
	write(filepath.Join(work, "other.txt"), "pkg: p\nBenchmarkB-2 10 100 ns/op\nBenchmarkC-2 10 100 ns/op\n")
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
		{"not a git repository", nogit, []string{"run", "--base", "HEAD"}, nil, nogit + ` is not in a git repository: benchgate measures two commits; run it in a clone, or judge benchmark output you have with benchgate compare BASE.txt HEAD.txt`},
		{"a subdirectory that base lacks", filepath.Join(sub, "docs"), []string{"run", "--base", "HEAD~1"}, nil,
			`the base commit `},
		{"a subdirectory that base lacks: the module root", filepath.Join(sub, "docs"), []string{"run", "--base", "HEAD~1"}, nil,
			` (HEAD~1) has no directory docs, where benchgate runs: run benchgate in the module root ` + sub + ` (or pass -C ` + sub + `)`},
		{"--packages matching nothing", repo, []string{"run", "--base", "HEAD~1", "--packages", "./nope/..."}, nil,
			`--packages ./nope/...: matches no package: no directory nope on either side (patterns are relative to ` + repo + `)`},
		{"a package pattern matching nothing", sub, []string{"run", "--base", "HEAD~1", "./docs"}, nil,
			`package pattern ./docs: matches no package: no Go file in docs on either side`},
		{"compare: no benchmark in common", work, []string{"compare", "ok.txt", "other.txt"}, nil,
			`compare: ok.txt and other.txt have no benchmark in common (ok.txt: p.A-2; other.txt: p.B-2 and 1 more): nothing to compare`},
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
		{"a flag of another command", work, []string{"compare", "ok.txt", "ok.txt", "--count", "5"}, nil, `--count does not apply to compare (a flag of run, calibrate, bisect, gitlab; benchgate compare -h lists compare's flags)`},
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
	if got := git(sub, "worktree", "list"); strings.Count(got, "\n") != 1 {
		t.Errorf("worktrees left behind in sub:\n%s", got)
	}
	if got := git(repo, "status", "--porcelain"); got != statusBefore {
		t.Errorf("checkout changed by bad input:\n%s", got)
	}
	if got := git(repo, "worktree", "list"); got != worktreesBefore {
		t.Errorf("worktrees left behind:\n%s", got)
	}
}

// TestUncommittedWarning: run measures commits; with head at the
// checkout's HEAD and uncommitted changes, it says so in one line before
// it measures (here it then stops: --bench matches nothing).
func TestUncommittedWarning(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	bench := "package w\n\nimport \"testing\"\n\nfunc BenchmarkX(b *testing.B) {\n\tfor b.Loop() {\n\t}\n}\n"
	for name, body := range map[string]string{"go.mod": "module example.com/w\n\ngo 1.26\n", "w_test.go": bench} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		return run(t, repo, "git", append([]string{"-c", "user.name=a", "-c", "user.email=a@b"}, args...)...)
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	git("commit", "-q", "--allow-empty", "-m", "head")
	runIt := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := cli.Run(context.Background(), args, cli.Env{Getenv: os.Getenv, Environ: os.Environ(), Stdout: &stdout, Stderr: &stderr, Dir: repo})
		return code, stderr.String()
	}
	args := []string{"run", "--base", "HEAD~1", "--bench", "NoSuch", "--quiet"}
	if code, stderr := runIt(args...); code != cli.ExitUsage || strings.Contains(stderr, "uncommitted") {
		t.Errorf("clean checkout: exit %d, stderr %q; want 2 and no warning", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(repo, "w_test.go"), []byte(bench+"\n// an edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := runIt(args...)
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	want := "benchgate: warning: 1 uncommitted change in " + repo + " is not measured: benchgate measures commits, and head is HEAD ("
	if code != cli.ExitUsage || len(lines) != 2 || !strings.HasPrefix(lines[0], want) || !strings.HasSuffix(lines[0], "); commit it (git commit -a) to measure it") {
		t.Errorf("an edited file: exit %d, stderr:\n%s\nwant first the line %q…", code, stderr, want)
	}
	// A head that is not the checkout's HEAD: nothing to warn about.
	if code, stderr := runIt("run", "--base", "HEAD~1", "--head", "HEAD~1", "--allow-same", "--bench", "NoSuch", "--quiet"); code != cli.ExitUsage || strings.Contains(stderr, "uncommitted") {
		t.Errorf("--head HEAD~1: exit %d, stderr %q; want no warning", code, stderr)
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
