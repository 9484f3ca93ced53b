package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/shard"

	"github.com/benchgate/benchgate/internal/testenv"
)

const rawBench = "pkg: p\nBenchmarkA-2 1000 100 ns/op\n"

// compareDir is a working directory with two raw files, b.txt and h.txt.
func compareDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range []string{"b.txt", "h.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(rawBench), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// outsideFile is a file outside the working directory that a link in it
// points at.
func outsideFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(p, []byte("original"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportDoesNotFollowSymlink is the audit's reproduction (L2): a
// checkout holding benchgate-report.json (or the --markdown file) as a link
// to a file elsewhere; the report replaces the link, the file is untouched.
func TestReportDoesNotFollowSymlink(t *testing.T) {
	ws := compareDir(t)
	victimJSON, victimMD := outsideFile(t), outsideFile(t)
	if err := os.Symlink(victimJSON, filepath.Join(ws, reportJSON)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victimMD, filepath.Join(ws, "report.md")); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	code := Run(context.Background(), []string{"compare", "b.txt", "h.txt", "--json", reportJSON, "--markdown", "report.md"}, Env{Stdout: &o, Stderr: &e, Dir: ws})
	if code != ExitPass {
		t.Fatalf("exit %d\n%s", code, e.String())
	}
	for _, v := range []string{victimJSON, victimMD} {
		if b, _ := os.ReadFile(v); string(b) != "original" {
			t.Errorf("file outside the workspace overwritten through the link (%.40q...)", b)
		}
	}
	for _, n := range []string{reportJSON, "report.md"} {
		fi, err := os.Lstat(filepath.Join(ws, n))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
			t.Errorf("%s is not the report: %v, %v", n, fi, err)
		}
	}
}

// TestCheckOutputs: a bad output path stops benchgate before it measures
// (exit 2, nothing on stdout, one line naming the flag).
func TestCheckOutputs(t *testing.T) {
	dir := compareDir(t)
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	adir := mk("adir")
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if err := os.Symlink(mk("real"), filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // the whole line
	}{
		{"json: no such directory", []string{"--json", "/nope/r.json"}, "benchgate: --json /nope/r.json: directory /nope does not exist"},
		{"json: relative, no such directory", []string{"--json", "nope/r.json"}, "benchgate: --json nope/r.json: directory " + filepath.Join(dir, "nope") + " does not exist"},
		{"json: a directory", []string{"--json", "adir"}, "benchgate: --json adir: " + adir + " is a directory"},
		{"markdown: parent is a file", []string{"--markdown", "file/r.md"}, "benchgate: --markdown file/r.md: " + file + " is not a directory"},
		{"markdown: no such directory", []string{"--markdown", "/nope/r.md"}, "benchgate: --markdown /nope/r.md: directory /nope does not exist"},
		{"out: a file", []string{"--out", "file"}, "benchgate: --out file: " + file + " exists and is not a directory"},
		{"out: a link", []string{"--out", "linkdir"}, "benchgate: --out linkdir: " + filepath.Join(dir, "linkdir") + " is a symbolic link: refusing to write through it"},
		{"out: no parent", []string{"--out", "/nope/out"}, "benchgate: --out /nope/out: directory /nope does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o, e bytes.Buffer
			cmd := []string{"compare", "b.txt", "h.txt"}
			if tc.args[0] == "--out" {
				cmd = []string{"calibrate", "--quiet"} // compare keeps no raw files
			}
			code := Run(context.Background(), append(cmd, tc.args...), Env{Stdout: &o, Stderr: &e, Dir: dir})
			if code != ExitUsage {
				t.Errorf("exit %d, want %d", code, ExitUsage)
			}
			if got := e.String(); got != tc.want+"\n" {
				t.Errorf("stderr = %q\nwant     %q", got, tc.want+"\n")
			}
			if o.Len() > 0 {
				t.Errorf("a report was printed before the check:\n%s", o.String())
			}
		})
	}
	// Good outputs pass: a new file, an existing file, a link (replaced).
	var o, e bytes.Buffer
	code := Run(context.Background(), []string{"compare", "b.txt", "h.txt", "--json", "new.json", "--markdown", "file"}, Env{Stdout: &o, Stderr: &e, Dir: dir})
	if code != ExitPass {
		t.Errorf("good outputs: exit %d\n%s", code, e.String())
	}
}

// TestCheckOutputsComesFirst: every measuring command checks its outputs
// before it looks at the repository or the shards (here there is neither).
func TestCheckOutputsComesFirst(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"run", "--base", "HEAD~1", "--json", "/nope/r.json"},
		{"run", "--base", "HEAD~1", "--shard", "1/2", "--out", "/nope/out"},
		{"calibrate", "--markdown", "/nope/r.md"},
		{"merge", "s1", "s2", "--json", "/nope/r.json"},
	} {
		var o, e bytes.Buffer
		code := Run(context.Background(), args, Env{Stdout: &o, Stderr: &e, Dir: dir})
		if code != ExitUsage || !regexp.MustCompile(`^benchgate: --\w+ /nope/\S+: directory /nope does not exist\n$`).MatchString(e.String()) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and the output path's error", args[0], code, e.String())
		}
	}
}

func TestCheckOutputsReadOnly(t *testing.T) {
	dir := compareDir(t)
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		t.Skip("running as root, which may write into a read-only (0555) directory: the check (access(2)) rightly passes")
	}
	for _, args := range [][]string{{"--json", "ro/r.json"}, {"--out", "ro"}, {"--out", "ro/out"}} {
		var o, e bytes.Buffer
		code := Run(context.Background(), append([]string{"compare", "b.txt", "h.txt"}, args...), Env{Stdout: &o, Stderr: &e, Dir: dir})
		if code != ExitUsage || !strings.Contains(e.String(), "directory "+ro+" is not writable") {
			t.Errorf("%v: exit %d, stderr %q", args, code, e.String())
		}
	}
}

// failingApp is an app whose --json directory disappeared after the
// check, with raw files in raw.
func failingApp(t *testing.T, out string) (*app, dest, *bytes.Buffer, *bytes.Buffer, string) {
	t.Helper()
	gone := filepath.Join(t.TempDir(), "gone")
	raw := out
	if raw == "" {
		raw = filepath.Join(t.TempDir(), "raw")
		if err := os.Mkdir(raw, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"base.txt", "head.txt"} {
		if err := os.WriteFile(filepath.Join(raw, n), []byte(rawBench), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var o, e bytes.Buffer
	a := &app{env: Env{Stdout: &o, Stderr: &e, Dir: t.TempDir()}, cfg: &config.Config{}}
	return a, dest{json: filepath.Join(gone, "r.json"), raw: raw, rawKept: out != ""}, &o, &e, gone
}

// TestReportLostKeepsRaw: when the report cannot be written at the end,
// it is on stdout, the temporary raw files are moved to a kept directory,
// and the one error line says where (exit 3).
func TestReportLostKeepsRaw(t *testing.T) {
	a, d, o, e, gone := failingApp(t, "")
	code := a.conclude(gate.Verdict{Pass: true}, pipeline.Record{}, d).code
	if code != ExitTool {
		t.Errorf("exit %d, want %d", code, ExitTool)
	}
	if !strings.Contains(o.String(), "benchgate") {
		t.Errorf("the report is not on stdout:\n%s", o.String())
	}
	m := regexp.MustCompile(`^benchgate: --json ` + regexp.QuoteMeta(filepath.Join(gone, "r.json")) + `: no such file or directory; the report is above and the raw results are kept in (\S+)\n$`).FindStringSubmatch(e.String())
	if m == nil {
		t.Fatalf("stderr = %q", e.String())
	}
	kept := m[1]
	defer os.RemoveAll(kept)
	if !strings.HasPrefix(filepath.Base(kept), "benchgate-kept-") {
		t.Errorf("kept in %s, want a benchgate-kept-* directory", kept)
	}
	for _, n := range []string{"base.txt", "head.txt"} {
		if b, err := os.ReadFile(filepath.Join(kept, n)); string(b) != rawBench {
			t.Errorf("kept %s: %q, %v", n, b, err)
		}
	}
}

// TestReportLostNamesOut: with --out, the raw results stay there and the
// error says so; nothing else is made.
func TestReportLostNamesOut(t *testing.T) {
	out := t.TempDir()
	a, d, _, e, _ := failingApp(t, out)
	d.markdown = filepath.Join(a.env.Dir, "nope", "r.md")
	code := a.conclude(gate.Verdict{Pass: true}, pipeline.Record{}, d).code
	want := "; the report is above and the raw results are kept in " + out + "\n"
	if code != ExitTool || !strings.HasSuffix(e.String(), want) || !strings.Contains(e.String(), "benchgate: --markdown ") || !strings.Contains(e.String(), "; --json ") || strings.Count(e.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 3 and one line naming both files, ending %q", code, e.String(), want)
	}
}

// TestFindBenchmarkReadsRegularFilesOnly: links (to the terminal, to a
// file elsewhere) and FIFOs named *_test.go are skipped, without blocking.
func TestFindBenchmarkReadsRegularFilesOnly(t *testing.T) {
	ws := t.TempDir()
	mod := filepath.Join(ws, "mod")
	pkg := filepath.Join(mod, "p")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(pkg, "real_test.go"), []byte("package p\n\nfunc BenchmarkX(b *testing.B) {}\n"), 0o644)
	// A file elsewhere with the function on line 1, which a followed
	// link would prefer (deeper directory, same name).
	outside := filepath.Join(t.TempDir(), "x_test.go")
	os.WriteFile(outside, []byte("func BenchmarkX(b *testing.B) {}\n"), 0o644)
	deep := filepath.Join(pkg, "q")
	os.Mkdir(deep, 0o755)
	if err := os.Symlink(outside, filepath.Join(deep, "a_test.go")); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/proc/self/fd/1", filepath.Join(pkg, "stdout_test.go"))
	os.Symlink("/proc/self/fd/0", filepath.Join(pkg, "stdin_test.go"))
	if err := syscall.Mkfifo(filepath.Join(pkg, "fifo_test.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	type res struct {
		file string
		line int
	}
	done := make(chan res, 1)
	go func() {
		f, l := findBenchmark(ws, mod, "example.com/mod/p/q", "X-8")
		done <- res{f, l}
	}()
	select {
	case r := <-done:
		if r.file != "mod/p/real_test.go" || r.line != 3 {
			t.Errorf("findBenchmark = %s:%d, want mod/p/real_test.go:3", r.file, r.line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("findBenchmark blocked on a FIFO or a link")
	}
}

// gitRepo is a Go module with one benchmark in a git repository of two
// commits; env is the environment for benchgate's child processes.
func gitRepo(t *testing.T) (repo string, env []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a benchmark")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo = t.TempDir()
	env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com")
	for name, data := range map[string]string{
		"go.mod":    "module example.com/o\n\ngo 1.26\n",
		"o_test.go": "package o\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkO(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink++\n\t}\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Head adds a test function: the test binaries differ in their code
	// (a comment or a moved line would change only their line tables, the
	// same code, not measured), so the benchmark is measured.
	moved := "package o\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkO(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink++\n\t}\n}\n\nfunc TestHead(t *testing.T) {}\n"
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}, {"write"}, {"commit", "-q", "-am", "head"}} {
		if args[0] == "write" {
			if err := os.WriteFile(filepath.Join(repo, "o_test.go"), []byte(moved), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo, env
}

// hookWriter calls hook once, before writing the first line containing
// trigger.
type hookWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	trigger string
	hook    func()
}

func (w *hookWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.hook != nil && bytes.Contains(p, []byte(w.trigger)) {
		w.hook()
		w.hook = nil
	}
	return w.buf.Write(p)
}

// TestRunKeepsRawWhenReportIsLost measures for real; the --json directory
// is removed once measuring starts. The report must be on stdout and the
// raw results in the kept directory the error names.
func TestRunKeepsRawWhenReportIsLost(t *testing.T) {
	testenv.Heavy(t)
	repo, env := gitRepo(t)
	outDir := filepath.Join(t.TempDir(), "reports")
	os.Mkdir(outDir, 0o755)
	stderr := &hookWriter{trigger: "benchgate: base ", hook: func() { os.RemoveAll(outDir) }}
	var stdout bytes.Buffer
	code := Run(context.Background(), []string{"run", "--base", "HEAD~1", "--count", "2", "--benchtime", "10x", "--json", filepath.Join(outDir, "r.json")},
		Env{Stdout: &stdout, Stderr: stderr, Dir: repo, Environ: env})
	if code != ExitTool {
		t.Errorf("exit %d, want %d\n%s", code, ExitTool, stderr.buf.String())
	}
	if !strings.Contains(stdout.String(), "O") || !strings.Contains(stdout.String(), "benchgate") {
		t.Errorf("the report is not on stdout:\n%s", stdout.String())
	}
	m := regexp.MustCompile(`(?m)^benchgate: --json \S+: no such file or directory; the report is above and the raw results are kept in (\S+)$`).FindStringSubmatch(stderr.buf.String())
	if m == nil {
		t.Fatalf("stderr lacks the kept directory:\n%s", stderr.buf.String())
	}
	defer os.RemoveAll(m[1])
	for _, n := range []string{"base.txt", "head.txt"} {
		b, err := os.ReadFile(filepath.Join(m[1], n))
		if err != nil || strings.Count(string(b), "BenchmarkO") != 2 {
			t.Errorf("kept %s: %v\n%s", n, err, b)
		}
	}
}

// TestActionShardDirLink: a checkout holding the shard directory as a link
// to a directory elsewhere is refused before anything is measured, and
// nothing is written there.
func TestActionShardDirLink(t *testing.T) {
	repo, env := gitRepo(t)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(repo, "benchgate-shard-1-of-2")); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"GITHUB_WORKSPACE": repo, "INPUT_BASE": "HEAD~1", "INPUT_SHARD": "1/2", "INPUT_COMMENT": "never"}
	getenv := func(k string) string { return vars[k] }
	var o, e bytes.Buffer
	code := Run(context.Background(), []string{"action"}, Env{Getenv: getenv, Stdout: &o, Stderr: &e, Dir: repo, Environ: env})
	// In the action, stderr may go to stdout (inside a stop-commands guard).
	if code != ExitUsage || !strings.Contains(e.String()+o.String(), "benchgate: shard directory: "+filepath.Join(repo, "benchgate-shard-1-of-2")+" is a symbolic link: refusing to write through it") {
		t.Errorf("exit %d, stderr:\n%s\nstdout:\n%s", code, e.String(), o.String())
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Errorf("wrote %s through the link", entries[0].Name())
	}
}

// TestRunOutDoesNotFollowLinks: an --out directory holding links where
// benchgate writes its raw files, build logs, failures and manifest; every
// one is replaced, no file elsewhere is written.
func TestRunOutDoesNotFollowLinks(t *testing.T) {
	testenv.Heavy(t)
	repo, env := gitRepo(t)
	out := filepath.Join(t.TempDir(), "out")
	os.Mkdir(out, 0o755)
	names := []string{"base.txt", "head.txt", "build-base.log", "build-head.log", shard.FailuresFile, "shard.json"}
	victims := map[string]string{}
	for _, n := range names {
		victims[n] = outsideFile(t)
		if err := os.Symlink(victims[n], filepath.Join(out, n)); err != nil {
			t.Fatal(err)
		}
	}
	var o, e bytes.Buffer
	code := Run(context.Background(), []string{"run", "--base", "HEAD~1", "--count", "2", "--benchtime", "10x", "--shard", "1/1", "--out", out, "--quiet"},
		Env{Stdout: &o, Stderr: &e, Dir: repo, Environ: env})
	if code != ExitPass {
		t.Fatalf("exit %d\n%s", code, e.String())
	}
	for _, n := range names {
		if b, _ := os.ReadFile(victims[n]); string(b) != "original" {
			t.Errorf("%s: the file behind the link was written", n)
		}
		if fi, err := os.Lstat(filepath.Join(out, n)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s is not a regular file: %v", n, err)
		}
	}
}

// TestChownLikeSkipsHardLinks: the report path may be a hard link to a
// file elsewhere (the run stopped before writing it); chownLike must not
// give that file away. Only root can chown.
func TestChownLikeSkipsHardLinks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chownLike changes owners only when running as root")
	}
	ws := t.TempDir()
	if err := os.Chown(ws, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	owner := func(p string) uint32 {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Uid
	}
	ours := filepath.Join(ws, reportJSON)
	os.WriteFile(ours, nil, 0o644)
	chownLike(ours, ws)
	if owner(ours) != 4242 {
		t.Errorf("the report was not given to the workspace's owner")
	}
	outside := filepath.Join(t.TempDir(), "shadow")
	os.WriteFile(outside, nil, 0o600)
	hard := filepath.Join(ws, "hard.json")
	if err := os.Link(outside, hard); err != nil {
		t.Skipf("hard link: %v", err)
	}
	chownLike(hard, ws)
	if owner(outside) != 0 {
		t.Errorf("a file outside the workspace was given away through a hard link")
	}
}
