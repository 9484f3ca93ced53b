package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testenv"
)

// runnerEnv is what a GitHub-hosted runner gives a container action, with
// the secrets the change's code must never see.
var runnerEnv = []string{
	"PATH=/usr/local/go/bin:/usr/bin:/bin",
	"HOME=/github/home",
	"GOFLAGS=-buildvcs=false",
	"GOTOOLCHAIN=auto",
	"CGO_ENABLED=0",
	"LANG=C.UTF-8",
	"LC_ALL=C.UTF-8",
	"TMPDIR=/tmp",
	"INPUT_TOKEN=ghs_input",
	"GITHUB_TOKEN=ghs_github",
	"ACTIONS_RUNTIME_TOKEN=rt_secret",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN=oidc_secret",
	"ACTIONS_ID_TOKEN_REQUEST_URL=https://token.actions.example/x",
	"ACTIONS_CACHE_URL=https://cache.example/",
	"ACTIONS_RESULTS_URL=https://results.example/",
	"GITHUB_OUTPUT=/github/file_commands/set_output_1",
	"GITHUB_ENV=/github/file_commands/set_env_1",
	"GITHUB_PATH=/github/file_commands/add_path_1",
	"GITHUB_STATE=/github/file_commands/save_state_1",
	"GITHUB_STEP_SUMMARY=/github/file_commands/step_summary_1",
	"RUNNER_TEMP=/github/runner_temp",
	"MY_SETTING=on",
	"GIT_CONFIG_GLOBAL=/github/home/.gitconfig",
	"SSH_AUTH_SOCK=/tmp/agent",
}

func names(env []string) []string {
	var n []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		n = append(n, k)
	}
	return n
}

func TestEnvAllowList(t *testing.T) {
	got := names(Env(runnerEnv, nil))
	want := []string{"PATH", "HOME", "GOFLAGS", "GOTOOLCHAIN", "CGO_ENABLED", "LANG", "LC_ALL", "TMPDIR"}
	if !slices.Equal(got, want) {
		t.Errorf("Env kept %v, want %v", got, want)
	}
	for _, kv := range Env(runnerEnv, nil) {
		for _, secret := range []string{"ghs_", "rt_", "oidc_", "file_commands", "example"} {
			if strings.Contains(kv, secret) {
				t.Errorf("Env passes %s", kv)
			}
		}
	}
}

func TestEnvPass(t *testing.T) {
	got := Env(runnerEnv, []string{"MY_SETTING", "ABSENT", "EXTRA=1", "LANG=fr_FR.UTF-8"})
	tail := got[len(got)-3:]
	want := []string{"MY_SETTING=on", "EXTRA=1", "LANG=fr_FR.UTF-8"}
	if !slices.Equal(tail, want) {
		t.Errorf("passed %v, want %v at the end (later entries win)", tail, want)
	}
}

func TestGitEnv(t *testing.T) {
	got := names(GitEnv(runnerEnv, nil))
	for _, n := range []string{"GIT_CONFIG_GLOBAL", "SSH_AUTH_SOCK", "PATH", "HOME"} {
		if !slices.Contains(got, n) {
			t.Errorf("GitEnv dropped %s, which git needs", n)
		}
	}
	for _, n := range []string{"INPUT_TOKEN", "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "GITHUB_OUTPUT", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"} {
		if slices.Contains(got, n) {
			t.Errorf("GitEnv keeps %s", n)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"A", "_x1", "MY_VAR=", "MY_VAR=a b=c"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "=x", "1A", "A-B", "A B", "É"} {
		if err := CheckName(bad); err == nil {
			t.Errorf("CheckName(%q) = nil, want an error", bad)
		}
	}
}

func TestLookupUser(t *testing.T) {
	if u, err := LookupUser("1234:5678"); err != nil || u != (User{1234, 5678}) {
		t.Errorf("LookupUser(1234:5678) = %v, %v", u, err)
	}
	for _, bad := range []string{"0:0", "x:1", "root", "no-such-user-here"} {
		if _, err := LookupUser(bad); err == nil {
			t.Errorf("LookupUser(%q): want an error", bad)
		}
	}
	if _, err := LookupUser(DefaultUser); err != nil {
		t.Errorf("LookupUser(%s): %v (want the fallback when the account is missing)", DefaultUser, err)
	}
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the sandbox user is only used when benchgate runs as root (the action's container)")
	}
}

// sandboxed starts a shell command as the sandbox user with its environment.
func sandboxed(t *testing.T, sb *Sandbox, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = sb.Env()
	cmd.Dir = sb.Home()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: sb.Credential()}
	return cmd
}

// openDir is a temporary directory every user can reach (t.TempDir's parent
// is private to root).
func openDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func newUserSandbox(t *testing.T) *Sandbox {
	t.Helper()
	needRoot(t)
	home := filepath.Join(openDir(t), "home")
	// A cache restored by another user, with a file inside.
	if err := os.MkdirAll(filepath.Join(home, "go", "pkg", "mod"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "go", "pkg", "mod", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	u := User{FallbackID + 7, FallbackID + 7}
	sb, err := New(Options{Environ: runnerEnv, User: &u, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

func TestUserSandboxHome(t *testing.T) {
	sb := newUserSandbox(t)
	env := map[string]string{}
	for _, kv := range sb.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for _, k := range []string{"HOME", "GOPATH", "GOMODCACHE", "GOCACHE", "TMPDIR"} {
		if !strings.HasPrefix(env[k], sb.Home()) {
			t.Errorf("%s=%q, want under the sandbox home %s", k, env[k], sb.Home())
		}
		fi, err := os.Stat(env[k])
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != sb.User().UID {
			t.Errorf("%s is owned by uid %d, want the sandbox user %d", env[k], st.Uid, sb.User().UID)
		}
	}
	fi, _ := os.Stat(filepath.Join(env["GOMODCACHE"], "f"))
	if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != sb.User().UID {
		t.Errorf("a restored cache file stays uid %d", st.Uid)
	}
}

// The sandbox user cannot read benchgate's environment or write its files.
func TestUserSandboxSeparation(t *testing.T) {
	sb := newUserSandbox(t)
	secret := filepath.Join(openDir(t), "secret")
	if err := os.WriteFile(secret, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(openDir(t), "step_summary")
	if err := os.WriteFile(summary, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(os.Getpid())
	script := `
cat /proc/` + pid + `/environ >/dev/null 2>&1 && echo LEAK-environ
cat ` + secret + ` >/dev/null 2>&1 && echo LEAK-file
echo forged >>` + summary + ` 2>/dev/null && echo LEAK-summary
touch $HOME/mine && echo ok-home
touch $TMPDIR/mine && echo ok-tmp
id -u
`
	out, err := sandboxed(t, sb, script).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := string(out)
	if strings.Contains(got, "LEAK") {
		t.Errorf("the sandbox user got through:\n%s", got)
	}
	for _, want := range []string{"ok-home", "ok-tmp", strconv.Itoa(sb.User().UID)} {
		if !strings.Contains(got, want) {
			t.Errorf("output %q lacks %q", got, want)
		}
	}
}

func TestReadable(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "a")
	os.Mkdir(sub, 0o700)
	os.WriteFile(filepath.Join(sub, "f"), nil, 0o600)
	os.WriteFile(filepath.Join(sub, "x"), nil, 0o700)
	os.Symlink("/etc/passwd", filepath.Join(sub, "link"))
	if err := Readable(dir); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{sub: 0o755, filepath.Join(sub, "f"): 0o644, filepath.Join(sub, "x"): 0o755} {
		fi, _ := os.Lstat(p)
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	if fi, _ := os.Stat("/etc/passwd"); fi.Mode().Perm() != 0o644 {
		t.Errorf("Readable followed a symlink: /etc/passwd is %v", fi.Mode().Perm())
	}
}

func TestUnreachableHome(t *testing.T) {
	needRoot(t)
	private := t.TempDir() // 0700, root's
	u := User{FallbackID + 7, FallbackID + 7}
	_, err := New(Options{Environ: runnerEnv, User: &u, Home: filepath.Join(private, "home")})
	if err == nil || !strings.Contains(err.Error(), "not searchable") {
		t.Errorf("New with a home the user cannot reach: %v, want an error saying so", err)
	}
}

// What the change's code leaves running is killed, a daemon that left its
// process group and its parent included; other users' processes are not.
func TestKillAll(t *testing.T) {
	needRoot(t)
	// A user of its own: no other test's processes are this user's.
	u := User{FallbackID + 8, FallbackID + 8}
	sb, err := New(Options{Environ: runnerEnv, User: &u, Home: filepath.Join(openDir(t), "home")})
	if err != nil {
		t.Fatal(err)
	}
	// A process of the sandbox user in a session of its own, our child.
	child := sandboxed(t, sb, "exec sleep 300")
	child.SysProcAttr.Setsid = true
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- child.Wait() }()
	t.Cleanup(func() { child.Process.Kill() })
	// A daemon: forked by a shell that has exited.
	sh := sandboxed(t, sb, "sleep 300 </dev/null >/dev/null 2>&1 & echo $!")
	sh.SysProcAttr.Setsid = true
	out, err := sh.Output()
	if err != nil {
		t.Fatal(err)
	}
	daemon, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || !testenv.Running(daemon) {
		t.Fatalf("daemon pid %q: %v, running %v", out, err, testenv.Running(daemon))
	}
	t.Cleanup(func() { syscall.Kill(daemon, syscall.SIGKILL) })
	// benchgate's own.
	ours := exec.Command("sleep", "300")
	if err := ours.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ours.Process.Kill(); ours.Wait() })

	n, err := sb.KillAll()
	if err != nil || n < 2 {
		t.Errorf("KillAll() = %d, %v; want at least the 2 processes", n, err)
	}
	select {
	case err := <-waited:
		ws, ok := child.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("the sandbox user's process ended with %v, want SIGKILL", err)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("the sandbox user's process %d is still running", child.Process.Pid)
	}
	for i := 0; testenv.Running(daemon); i++ {
		if i == 50 {
			t.Fatalf("the daemon %d is still running", daemon)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !testenv.Running(ours.Process.Pid) {
		t.Errorf("KillAll killed a process of root")
	}
	if n, err := sb.KillAll(); n != 0 || err != nil {
		t.Errorf("KillAll() again = %d, %v; want 0, nil", n, err)
	}
}

// Without a user the processes are benchgate's user's: none is killed.
func TestKillAllWithoutUser(t *testing.T) {
	sb, err := New(Options{Environ: runnerEnv})
	if err != nil {
		t.Fatal(err)
	}
	ours := exec.Command("sleep", "300")
	if err := ours.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ours.Process.Kill(); ours.Wait() })
	if n, err := sb.KillAll(); n != 0 || err != nil {
		t.Errorf("KillAll() = %d, %v; want 0, nil", n, err)
	}
	time.Sleep(50 * time.Millisecond)
	if !testenv.Running(ours.Process.Pid) {
		t.Errorf("KillAll without a user killed benchgate's own process")
	}
}

// selectKill picks the live processes of the user that descend from
// benchgate: its children, their children, daemons reparented to it; not
// the user's processes elsewhere (another job's), not other users', not
// zombies, not benchgate itself.
func TestSelectKill(t *testing.T) {
	const self, uid, other = 100, 65532, 1001
	procs := map[int]proc{
		1:   {ppid: 0, uids: []int{0, 0, 0, 0}},
		100: {ppid: 1, uids: []int{0, 0, 0, 0}},                       // benchgate
		101: {ppid: 100, uids: []int{uid, uid, uid, uid}},             // a benchmark
		102: {ppid: 101, uids: []int{uid, uid, uid, uid}},             // its child
		103: {ppid: 100, uids: []int{uid, uid, uid, uid}},             // a daemon, reparented to benchgate
		104: {ppid: 100, uids: []int{0, uid, 0, 0}},                   // the user's by its effective uid
		105: {ppid: 100, uids: []int{uid, uid, uid, uid}, dead: true}, // a zombie
		106: {ppid: 100, uids: []int{other, other, other, other}},     // another user's
		200: {ppid: 1, uids: []int{uid, uid, uid, uid}},               // the same user, another job
		201: {ppid: 200, uids: []int{uid, uid, uid, uid}},
		300: {ppid: 301, uids: []int{uid, uid, uid, uid}}, // a loop in a racy read
		301: {ppid: 300, uids: []int{uid, uid, uid, uid}},
	}
	got := selectKill(procs, uid, self)
	if want := []int{101, 102, 103, 104}; !slices.Equal(got, want) {
		t.Errorf("selectKill = %v, want %v", got, want)
	}
	// In the action's container benchgate is PID 1: every process of the
	// user is its.
	if got, want := selectKill(procs, uid, 1), []int{101, 102, 103, 104, 200, 201}; !slices.Equal(got, want) {
		t.Errorf("as PID 1: selectKill = %v, want %v", got, want)
	}
}

// Once sealed, the home holds nothing the change's code can write but
// TMPDIR: not the Go caches, not a go env file (GOENV is off anyway), not
// the home itself. New gives it back.
func TestSealHome(t *testing.T) {
	sb := newUserSandbox(t)
	env := map[string]string{}
	for _, kv := range sb.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	if env["GOENV"] != "off" {
		t.Errorf("GOENV=%q, want off: a go env file in the home would be the change's to write", env["GOENV"])
	}
	entry := filepath.Join(env["GOCACHE"], "00", "entry-d")
	os.MkdirAll(filepath.Dir(entry), 0o755)
	os.WriteFile(entry, []byte("compiled"), 0o644)
	if err := Chown(sb.Home(), sb.User().UID, sb.User().GID); err != nil {
		t.Fatal(err)
	}
	if err := sb.Seal(); err != nil {
		t.Fatal(err)
	}
	script := `
echo poison >` + entry + ` 2>/dev/null && echo LEAK-entry
chmod 0666 ` + entry + ` 2>/dev/null && echo LEAK-chmod
touch $GOCACHE/00/new 2>/dev/null && echo LEAK-cache
touch $GOMODCACHE/f2 2>/dev/null && echo LEAK-modcache
rm -f $GOMODCACHE/f 2>/dev/null; test -e $GOMODCACHE/f || echo LEAK-modcache-rm
mkdir -p $HOME/.config/go 2>/dev/null && echo LEAK-config
touch $HOME/.gitconfig 2>/dev/null && echo LEAK-home
touch $TMPDIR/mine && echo ok-tmp
`
	cmd := sandboxed(t, sb, script)
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(string(out), "LEAK") || !strings.Contains(string(out), "ok-tmp") {
		t.Errorf("as the sandbox user after Seal:\n%s", out)
	}
	if b, _ := os.ReadFile(entry); string(b) != "compiled" {
		t.Errorf("cache entry is %q", b)
	}
	// The next run's New takes the home over again, with an empty TMPDIR.
	u := *sb.User()
	again, err := New(Options{Environ: runnerEnv, User: &u, Home: sb.Home()})
	if err != nil {
		t.Fatal(err)
	}
	cmd = sandboxed(t, again, `touch $GOCACHE/00/new && test ! -e $TMPDIR/mine && echo ok`)
	cmd.Dir = "/"
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "ok") {
		t.Errorf("after New again: %v: %s", err, out)
	}
}
