package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// TestCancelLeavesNothingBehind sends SIGTERM (what GitHub sends when a run
// is cancelled) to a real benchgate in the middle of its rounds: it must stop
// the benchmark processes, remove its worktrees and temporary files, write a
// report marked partial, and exit 3.
func TestCancelLeavesNothingBehind(t *testing.T) {
	if os.Getenv("BENCHGATE_E2E") != "1" {
		t.Skip("end-to-end: BENCHGATE_E2E=1")
	}
	work := t.TempDir()
	bin := filepath.Join(work, "benchgate")
	run(t, "..", "go", "build", "-o", bin, ".")

	repo := filepath.Join(work, "repo")
	pids := filepath.Join(work, "pids")
	tmp := filepath.Join(work, "tmp")
	for _, d := range []string{repo, pids, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"go.mod": "module example.com/c\n\ngo 1.26\n",
		"c_test.go": `package c

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var sink int

func BenchmarkSlow(b *testing.B) {
	os.WriteFile(filepath.Join(os.Getenv("PIDDIR"), strconv.Itoa(os.Getpid())), nil, 0o644)
	for b.Loop() {
		for i := 0; i < 100000; i++ {
			sink += i
		}
	}
}
`,
	}
	for name, body := range files {
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
	headCommit(t, repo, "c_test.go", git)
	worktreesBefore := git("worktree", "list")

	cmd := exec.Command(bin, "run", "--base", "HEAD~1", "--count", "200", "--benchtime", "50ms",
		"--json", filepath.Join(work, "r.json"), "--out", filepath.Join(work, "raw"),
		"--env", "PIDDIR") // the benchmarks see only the variables passed on
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "PIDDIR="+pids)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var log []string
	deadline := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		log = append(log, sc.Text())
		if strings.Contains(sc.Text(), "(round 3 of ") {
			// In the middle of round 3 a benchmark process is running.
			time.Sleep(30 * time.Millisecond)
			cmd.Process.Signal(syscall.SIGTERM)
			break
		}
	}
	for sc.Scan() {
		log = append(log, sc.Text())
	}
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Fatalf("exit status %d (%v), want 3\nstderr:\n%s", code, err, strings.Join(log, "\n"))
	}
	if !strings.Contains(strings.Join(log, "\n"), "partial report") {
		t.Errorf("stderr does not announce a partial report:\n%s", strings.Join(log, "\n"))
	}
	var rep struct {
		Partial bool   `json:"partial"`
		Verdict string `json:"verdict"`
	}
	b, err := os.ReadFile(filepath.Join(work, "r.json"))
	if err != nil {
		t.Fatalf("no JSON report after cancellation: %v", err)
	}
	if err := json.Unmarshal(b, &rep); err != nil || !rep.Partial {
		t.Errorf("report partial = %v (%v), want true", rep.Partial, err)
	}
	if !strings.Contains(stdout.String(), "partial") {
		t.Errorf("Markdown report does not say it is partial:\n%s", stdout.String())
	}
	// Worktrees and temporary files are gone; the checkout is as it was.
	if got := git("worktree", "list"); got != worktreesBefore {
		t.Errorf("worktrees after cancel:\n%s\nwant:\n%s", got, worktreesBefore)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left in TMPDIR: %v", left)
	}
	if st := git("status", "--porcelain"); st != "" {
		t.Errorf("checkout changed:\n%s", st)
	}
	// Every benchmark process has stopped.
	entries, _ := os.ReadDir(pids)
	if len(entries) == 0 {
		t.Fatal("no benchmark process recorded its pid")
	}
	time.Sleep(100 * time.Millisecond)
	for _, e := range entries {
		pid, _ := strconv.Atoi(e.Name())
		if syscall.Kill(pid, 0) == nil {
			if b, _ := os.ReadFile("/proc/" + e.Name() + "/stat"); !strings.Contains(string(b), ") Z ") {
				t.Errorf("benchmark process %d still running", pid)
			}
		}
	}
}

// startBlocked starts benchgate compare on a FIFO that nobody writes: it
// blocks in open(2), where no cancellation reaches it (a process
// substitution whose command hangs does the same). It returns the command
// and a function that waits for it, with its stderr.
func startBlocked(t *testing.T, bin string) (*exec.Cmd, func() (int, string, time.Duration)) {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "base.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "compare", fifo, fifo)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	time.Sleep(500 * time.Millisecond) // in open(2) by now
	var signalled time.Time
	wait := func() (int, string, time.Duration) {
		cmd.Wait()
		kill.Stop()
		return cmd.ProcessState.ExitCode(), stderr.String(), time.Since(signalled)
	}
	signalled = time.Now()
	return cmd, wait
}

// TestSignalEndsBenchgateWhateverItDoes: SIGTERM ends benchgate within
// seconds even when what it does cannot be cancelled: after the grace
// period (5 s) it exits at once, status 3, saying so; a second signal
// exits at once without waiting for it.
func TestSignalEndsBenchgateWhateverItDoes(t *testing.T) {
	if os.Getenv("BENCHGATE_E2E") != "1" {
		t.Skip("end-to-end: BENCHGATE_E2E=1")
	}
	bin := filepath.Join(t.TempDir(), "benchgate")
	run(t, "..", "go", "build", "-o", bin, ".")

	cmd, wait := startBlocked(t, bin)
	cmd.Process.Signal(syscall.SIGTERM)
	code, stderr, took := wait()
	if code != 3 || !strings.Contains(stderr, "benchgate: SIGTERM: stopping (a second signal exits at once)") ||
		!strings.Contains(stderr, "still not stopped 5s after SIGTERM: exiting now") {
		t.Errorf("after SIGTERM: exit %d after %v\n%s", code, took, stderr)
	}
	if took < 4*time.Second || took > 20*time.Second {
		t.Errorf("exited %v after SIGTERM, want after the 5 s grace period", took)
	}

	cmd, wait = startBlocked(t, bin)
	cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	code, stderr, took = wait()
	if code != 3 || !strings.Contains(stderr, "SIGINT after SIGTERM: exiting now") {
		t.Errorf("after a second signal: exit %d after %v\n%s", code, took, stderr)
	}
	if took > 3*time.Second {
		t.Errorf("exited %v after the first signal, want at once after the second", took)
	}
}

// TestSecondSignalKeepsWhatWasWritten: two signals in the middle of a
// run's rounds end it at once (status 3), and the raw results it had
// written to --out stay.
func TestSecondSignalKeepsWhatWasWritten(t *testing.T) {
	if os.Getenv("BENCHGATE_E2E") != "1" {
		t.Skip("end-to-end: BENCHGATE_E2E=1")
	}
	work := t.TempDir()
	bin := filepath.Join(work, "benchgate")
	run(t, "..", "go", "build", "-o", bin, ".")
	repo := filepath.Join(work, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/c\n\ngo 1.26\n",
		"c_test.go": `package c

import "testing"

var sink int

func BenchmarkSlow(b *testing.B) {
	for b.Loop() {
		for i := 0; i < 100000; i++ {
			sink += i
		}
	}
}
`,
	}
	for name, body := range files {
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
	headCommit(t, repo, "c_test.go", git)
	raw := filepath.Join(work, "raw")
	cmd := exec.Command(bin, "run", "--base", "HEAD~1", "--count", "200", "--benchtime", "50ms", "--out", raw)
	cmd.Dir = repo
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	sc := bufio.NewScanner(stderr)
	var log []string
	var signalled time.Time
	for sc.Scan() {
		log = append(log, sc.Text())
		if strings.Contains(sc.Text(), "(round 3 of ") {
			// Two different signals at once (two of the same could
			// merge into one pending signal), both before the graceful
			// stop, which takes tens of milliseconds, could end.
			signalled = time.Now()
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Process.Signal(syscall.SIGINT)
			break
		}
	}
	for sc.Scan() {
		log = append(log, sc.Text())
	}
	cmd.Wait()
	took := time.Since(signalled)
	if code := cmd.ProcessState.ExitCode(); code != 3 || !regexp.MustCompile(`SIG(INT|TERM) after SIG(INT|TERM): exiting now`).MatchString(strings.Join(log, "\n")) {
		t.Fatalf("exit %d after %v, want 3 at once\n%s", code, took, strings.Join(log, "\n"))
	}
	if took > 3*time.Second {
		t.Errorf("exited %v after the signals, want at once", took)
	}
	b, err := os.ReadFile(filepath.Join(raw, "base.txt"))
	if err != nil || strings.Count(string(b), "BenchmarkSlow") < 2 {
		t.Errorf("--out base.txt after the exit: %v\n%s", err, b)
	}
}

// headCommit commits head: name, a _test.go file, with one more test
// function, so that the test binaries differ in their code (not only in
// line tables) and the package is measured rather than skipped for the
// same code on both sides; no benchmark runs the new function.
func headCommit(t *testing.T, repo, name string, git func(args ...string) string) {
	t.Helper()
	path := filepath.Join(repo, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"testing"`)) {
		t.Fatalf("%s does not import testing", name)
	}
	if err := os.WriteFile(path, append(data, "\nfunc TestHead(t *testing.T) {}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-am", "head")
}
