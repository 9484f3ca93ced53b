package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/sandbox"
	"github.com/google/go-cmp/cmp"

	"github.com/benchgate/benchgate/internal/testenv"
)

// openTempDir is a temporary directory every user can search (t.TempDir's
// parent is root's alone).
func openTempDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the sandbox user is only used when benchgate runs as root (the action's container)")
	}
	dir, err := os.MkdirTemp("", "close-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fakeRunner lays out, under root, what the runner mounts into a Docker
// action, writes a mount table naming them, and returns the action's
// variables. extra mount points are listed too.
func fakeRunner(t *testing.T, root string, extra ...string) map[string]string {
	t.Helper()
	files := map[string]string{
		"workspace/.git/config":                       "[http] extraheader = AUTHORIZATION: basic c2VjcmV0",
		"runner_temp/git-credentials-1b4e28ba.config": "[http] extraheader = AUTHORIZATION: basic c2VjcmV0",
		"home/.docker/config.json":                    `{"auths": {"x": "secret"}}`,
		"file_commands/step_summary_1":                "",
		"file_commands/set_output_1":                  "",
		"workflow/event.json":                         "{}",
	}
	for name, data := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// (In the runner, /github/home is runner_temp/_github_home mounted
	// again: runner_temp is closed whole, the home keeps the way to the
	// sandbox's part.)
	home := filepath.Join(root, "home")
	var table strings.Builder
	for i, p := range append([]string{"workspace", "runner_temp", "file_commands", "workflow", "home"}, extra...) {
		table.WriteString("1" + strings.Repeat("0", i) + " 1 8:1 /x " + strings.ReplaceAll(filepath.Join(root, p), " ", `\040`) + " rw,relatime - ext4 /dev/root rw\n")
	}
	table.WriteString("2 1 0:5 / /proc rw - proc proc rw\n")
	mountinfo := filepath.Join(root, "mountinfo")
	if err := os.WriteFile(mountinfo, []byte(table.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"HOME":                  home,
		"GITHUB_WORKSPACE":      filepath.Join(root, "workspace"),
		"RUNNER_TEMP":           filepath.Join(root, "runner_temp"),
		"GITHUB_STEP_SUMMARY":   filepath.Join(root, "file_commands", "step_summary_1"),
		"GITHUB_OUTPUT":         filepath.Join(root, "file_commands", "set_output_1"),
		"GITHUB_EVENT_PATH":     filepath.Join(root, "workflow", "event.json"),
		"GITHUB_EVENT_NAME":     "pull_request",
		envSandboxUser:          "65533:65533",
		"mountinfo (not a var)": mountinfo,
	}
}

// perms records the permission bits of everything under root.
func perms(t *testing.T, root string) map[string]uint32 {
	t.Helper()
	m := map[string]uint32{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		var st syscall.Stat_t
		if err == nil && syscall.Lstat(p, &st) == nil {
			m[p] = uint32(st.Mode) & 0o7777
		}
		return nil
	})
	return m
}

// actionSandbox runs a.sandbox for the action with vars, on a temporary
// directory with two worktrees.
func actionSandbox(t *testing.T, root string, vars map[string]string) (*prison, error, *bytes.Buffer) {
	t.Helper()
	tmp := filepath.Join(root, "tmp-benchgate")
	for _, d := range []string{"base", "head"} {
		if err := os.MkdirAll(filepath.Join(tmp, "trees", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	a := &app{env: Env{Getenv: func(k string) string { return vars[k] }, Stderr: &stderr, MountInfo: vars["mountinfo (not a var)"],
		Environ: []string{"PATH=" + os.Getenv("PATH")}}, cfg: &config.Config{Command: "action"}}
	gh := config.GitHubContext(a.env.Getenv)
	a.gh = &gh
	p, err := a.sandbox(tmp, []string{filepath.Join(tmp, "trees", "base"), filepath.Join(tmp, "trees", "head")})
	if p != nil {
		t.Cleanup(p.release)
	}
	return p, err, &stderr
}

// In the action, the change's code can read none of what the runner
// mounted (the checkout's token in the workspace or in RUNNER_TEMP, the
// file commands, the event, the runner user's home) but its own home and
// TMPDIR; release gives every mode back. A mount it owns cannot be closed:
// a note says so.
func TestSandboxClosesRunnerMounts(t *testing.T) {
	root := openTempDir(t)
	owned := filepath.Join(root, "the sandbox's own")
	os.Mkdir(owned, 0o755)
	os.Chown(owned, 65533, 65533)
	vars := fakeRunner(t, root, "the sandbox's own")
	before := perms(t, root)
	p, err, stderr := actionSandbox(t, root, vars)
	if err != nil {
		t.Fatalf("sandbox: %v\n%s", err, stderr)
	}
	want := []sandbox.Open{{Path: owned, Reason: "owned by the sandbox user 65533"}}
	if diff := cmp.Diff(want, p.open); diff != "" {
		t.Errorf("what stays open (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr.String(), "could not close "+owned) {
		t.Errorf("stderr lacks the warning:\n%s", stderr)
	}
	var targets []string
	for _, f := range []string{"workspace/.git/config", "runner_temp/git-credentials-1b4e28ba.config", "home/.docker/config.json",
		"file_commands/step_summary_1", "workflow/event.json"} {
		targets = append(targets, filepath.Join(root, f))
	}
	script := `for f in "$@"; do cat "$f" >/dev/null 2>&1 && echo "LEAK $f"; done
ls "` + vars["HOME"] + `" >/dev/null 2>&1 && echo "LEAK listing the runner's home"
touch "$HOME/mine" && touch "$TMPDIR/mine" && echo ok-home
cat "` + filepath.Join(root, "tmp-benchgate", "trees", "base") + `" 2>/dev/null; ls "` + filepath.Join(root, "tmp-benchgate", "trees", "base") + `" >/dev/null && echo ok-tree`
	cmd := exec.Command("/bin/sh", append([]string{"-c", script, "sh"}, targets...)...)
	cmd.Env, cmd.Dir = p.Env(), "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.Credential()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(string(out), "LEAK") || !strings.Contains(string(out), "ok-home") || !strings.Contains(string(out), "ok-tree") {
		t.Errorf("as the sandbox user:\n%s", out)
	}
	p.release()
	p.reopen, p.undo = nil, nil // released once
	after := perms(t, root)
	for path, mode := range before {
		if strings.HasPrefix(path, filepath.Join(root, "tmp-benchgate")) || strings.HasPrefix(path, filepath.Join(vars["HOME"], ".cache")) {
			continue // the sandbox's own
		}
		if after[path] != mode {
			t.Errorf("%s: mode %o after release, want %o", path, after[path], mode)
		}
	}
}

// On a privileged event (allowed), something the sandbox user could still
// read is a refusal, with a job summary that names it; the modes come back.
func TestSandboxRefusesOnPrivilegedEvent(t *testing.T) {
	root := openTempDir(t)
	owned := filepath.Join(root, "volume")
	os.Mkdir(owned, 0o755)
	os.Chown(owned, 65533, 65533)
	vars := fakeRunner(t, root, "volume")
	vars["GITHUB_EVENT_NAME"] = "pull_request_target"
	before := perms(t, root)
	p, err, _ := actionSandbox(t, root, vars)
	var r *refusal
	if !errors.As(err, &r) {
		t.Fatalf("sandbox: %v, want a refusal", err)
	}
	wantErr := "refusing to run the change's code on pull_request_target (a privileged event): the sandbox user could still read " + owned + " (owned by the sandbox user 65533)"
	if err.Error() != wantErr {
		t.Errorf("error %q, want %q", err, wantErr)
	}
	if s := r.summary(); !strings.Contains(s, "code on "+report.Escape("pull_request_target")+", a privileged event") || !strings.Contains(s, owned) {
		t.Errorf("summary:\n%s", s)
	}
	p.release()
	p.reopen, p.undo = nil, nil
	if after := perms(t, root); after[filepath.Join(root, "runner_temp")] != before[filepath.Join(root, "runner_temp")] {
		t.Errorf("runner_temp stays %o", after[filepath.Join(root, "runner_temp")])
	}
	// A mount table that cannot be read is a refusal too.
	vars = fakeRunner(t, root)
	vars["GITHUB_EVENT_NAME"] = "workflow_run"
	vars["mountinfo (not a var)"] = filepath.Join(root, "missing")
	os.RemoveAll(filepath.Join(root, "tmp-benchgate"))
	if _, err, _ := actionSandbox(t, root, vars); !errors.As(err, &r) || !strings.Contains(err.Error(), "mount table is unreadable") {
		t.Errorf("without a mount table: %v, want a refusal", err)
	}
}

// What the sandbox needs stays reachable when a mount above it is closed,
// and a needed path whose way is closed by something else is an error.
func TestSandboxKeepsItsWay(t *testing.T) {
	root := openTempDir(t)
	vars := fakeRunner(t, root, ".")
	// root itself is now a mount: above TMPDIR and the home.
	p, err, stderr := actionSandbox(t, root, vars)
	if err != nil {
		t.Fatalf("sandbox: %v\n%s", err, stderr)
	}
	u := *p.User()
	for _, n := range []string{p.Home(), filepath.Join(root, "tmp-benchgate")} {
		if err := sandbox.Reachable(n, u); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	var st syscall.Stat_t
	syscall.Lstat(root, &st)
	if st.Mode&0o7777 != 0o751 {
		t.Errorf("%s: mode %o, want 0751 (searchable, not listable)", root, st.Mode&0o7777)
	}
}

// The whole action on an allowed privileged event with a mount the sandbox
// cannot close: exit 3 before anything is built, and the job summary says
// why.
func TestActionRefusesUnclosedMount(t *testing.T) {
	root := openTempDir(t)
	repo, env := gitRepo(t)
	volume := filepath.Join(root, "volume")
	os.Mkdir(volume, 0o755)
	os.Chown(volume, 65533, 65533)
	vars := fakeRunner(t, root, "volume")
	sha := func(rev string) string {
		out, err := exec.Command("git", "-C", repo, "rev-parse", rev).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	ev := `{"number": 7, "pull_request": {"number": 7,
  "head": {"ref": "pr", "sha": "` + sha("HEAD") + `", "repo": {"full_name": "owner/repo", "fork": false}},
  "base": {"ref": "main", "sha": "` + sha("HEAD~1") + `", "repo": {"full_name": "owner/repo", "fork": false}}},
  "repository": {"full_name": "owner/repo"}}`
	if err := os.WriteFile(vars["GITHUB_EVENT_PATH"], []byte(ev), 0o644); err != nil {
		t.Fatal(err)
	}
	vars["GITHUB_WORKSPACE"] = repo
	vars["GITHUB_EVENT_NAME"] = "pull_request_target"
	vars[config.InputEnv("allow-privileged-events")] = "true"
	vars[config.InputEnv("comment")] = "never"
	var o, e bytes.Buffer
	code := Run(t.Context(), []string{"action"}, Env{Getenv: func(k string) string { return vars[k] }, Stdout: &o, Stderr: &e, Dir: repo, Environ: env, MountInfo: vars["mountinfo (not a var)"]})
	log := o.String() + e.String()
	if code != ExitTool {
		t.Errorf("exit %d, want %d\n%s", code, ExitTool, log)
	}
	if !strings.Contains(log, "refusing to run the change's code on pull_request_target") || strings.Contains(log, "building test binaries") {
		t.Errorf("log:\n%s", log)
	}
	summary, _ := os.ReadFile(vars["GITHUB_STEP_SUMMARY"])
	if !strings.Contains(string(summary), "benchgate refused to run the change's code") || !strings.Contains(string(summary), volume+" (owned by the sandbox user 65533)") {
		t.Errorf("job summary:\n%s", summary)
	}
}

// On a trusted event the same mount is a note in the job summary of a run
// that measures.
func TestActionNotesUnclosedMount(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds the standard library and real test binaries as the sandbox user")
	}
	root := openTempDir(t)
	repo, env := gitRepo(t)
	volume := filepath.Join(root, "volume")
	os.Mkdir(volume, 0o755)
	os.Chown(volume, 65533, 65533)
	vars := fakeRunner(t, root, "volume")
	vars["GITHUB_WORKSPACE"] = repo
	vars[config.InputEnv("base")] = "HEAD~1"
	vars[config.InputEnv("count")] = "2"
	vars[config.InputEnv("benchtime")] = "10x"
	vars[config.InputEnv("comment")] = "never"
	vars["GITHUB_EVENT_NAME"] = "workflow_dispatch"
	var o, e bytes.Buffer
	code := Run(t.Context(), []string{"action"}, Env{Getenv: func(k string) string { return vars[k] }, Stdout: &o, Stderr: &e, Dir: repo, Environ: env, MountInfo: vars["mountinfo (not a var)"]})
	if code != ExitPass {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitPass, o.String(), e.String())
	}
	summary, _ := os.ReadFile(vars["GITHUB_STEP_SUMMARY"])
	if !strings.Contains(string(summary), report.Escape("not closed to the benchmarks' code, which can read it: "+volume+" (owned by the sandbox user 65533)")) {
		t.Errorf("job summary lacks the note:\n%s", summary)
	}
}
