package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/internal/event"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/sandbox"
)

// Environment variables of the action's sandbox user (see
// docs/security.md): which user the change's code runs as, and where its
// home and Go caches live.
const (
	envSandboxUser = "BENCHGATE_SANDBOX_USER" // a user name or UID:GID; default benchgate-sandbox
	envSandboxHome = "BENCHGATE_SANDBOX_HOME" // default $HOME/.cache/benchgate-sandbox
)

// environ is benchgate's own environment, the source of every child's.
func (a *app) environ() []string {
	if a.env.Environ != nil {
		return a.env.Environ
	}
	return os.Environ()
}

// gitEnv is git's environment: benchgate's without the credentials.
func (a *app) gitEnv() []string { return sandbox.GitEnv(a.environ(), nil) }

// gitOptions are the options of every repository benchgate opens.
func (a *app) gitOptions() []gitrev.Option {
	return []gitrev.Option{gitrev.WithEnv(a.gitEnv())}
}

// prison is the sandbox of one measurement and how to undo what preparing it
// changed.
type prison struct {
	*sandbox.Sandbox
	undo []func()
	// reopen gives back what was closed to the sandbox user (the
	// workspace, the runner's mounts), once nothing of that user runs.
	reopen func()
	// open lists what could not be closed: the change's code can read it.
	open   []sandbox.Open
	stderr io.Writer
}

// release ends what the change's code left running and restores what
// sandboxing changed, in reverse order. With a sandbox user, every process
// of that user is killed first: a daemon that left its process group would
// otherwise read the workspace, with the token of the checkout's
// .git/config (or RUNNER_TEMP's credentials file), once reopened. If some
// cannot be killed, everything closed stays closed to every user but its
// owner.
func (p *prison) release() {
	if p.User() != nil {
		if _, err := p.KillAll(); err != nil {
			fmt.Fprintf(p.stderr, "benchgate: warning: %v: the workspace and the runner's mounts stay closed to other users\n", err)
			p.reopen = nil
		}
	}
	if p.reopen != nil {
		p.reopen()
	}
	for i := len(p.undo) - 1; i >= 0; i-- {
		p.undo[i]()
	}
}

// refusal is the error of a sandbox that could not close everything on a
// privileged event: the change's code must not run.
type refusal struct {
	event string
	open  []sandbox.Open
}

func (r *refusal) Error() string {
	var paths []string
	for _, o := range r.open {
		paths = append(paths, o.String())
	}
	return fmt.Sprintf("refusing to run the change's code on %s (a privileged event): the sandbox user could still read %s", r.event, strings.Join(paths, ", "))
}

// summary is the job summary of the refusal.
func (r *refusal) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## benchgate: not run\n\nbenchgate refused to run the change's code on %s, a privileged event: "+
		"its sandbox user could still read what the runner or the job put in the container:\n\n", report.Escape(r.event))
	for _, o := range r.open {
		fmt.Fprintf(&b, "- %s\n", report.Escape(o.String()))
	}
	b.WriteString("\nRun the benchmarks on `pull_request`, or remove these mounts from the job.\n")
	return b.String()
}

// sandbox prepares the processes of the change's code for a measurement
// whose files live in tmp. Outside the action, or when benchgate is not root,
// it only filters their environment. In the action, as root, they run as the
// sandbox user: tmp and the worktrees in it become readable to them (not
// writable), their home and caches are theirs, and everything else the
// runner or the job put in the container (closeTargets: the workspace, with
// the checkout's .git/config, RUNNER_TEMP, with checkout's credentials
// file, the file commands, every other mount) is closed to them until the
// measurement ends. What cannot be closed becomes a note; on a privileged
// event it is a *refusal.
func (a *app) sandbox(tmp string, trees []string) (*prison, error) {
	p := &prison{stderr: a.env.Stderr}
	o := sandbox.Options{Environ: a.environ(), Pass: a.cfg.Env}
	if a.cfg.Command != "action" && a.host == nil {
		sb, err := sandbox.New(o)
		p.Sandbox = sb
		return p, err
	}
	if os.Geteuid() != 0 {
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: running as uid %d, not root: the benchmarks run as benchgate's own user, with a filtered environment only\n", os.Geteuid())
		sb, err := sandbox.New(o)
		p.Sandbox = sb
		return p, err
	}
	name := a.env.Getenv(envSandboxUser)
	if name == "" {
		name = sandbox.DefaultUser
	}
	u, err := sandbox.LookupUser(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", envSandboxUser, err)
	}
	home := a.env.Getenv(envSandboxHome)
	if home == "" && a.host != nil {
		home = a.host.home
	}
	giveBack := []string{home}
	if home == "" {
		h := a.env.Getenv("HOME")
		if h == "" {
			h = tmp
		}
		home = filepath.Join(h, ".cache", "benchgate-sandbox")
		// .cache may be made here too.
		giveBack = []string{filepath.Dir(home), home}
	}
	if err := sandbox.Reachable(filepath.Dir(tmp), u); err != nil {
		return nil, fmt.Errorf("temporary directory: %v: set TMPDIR to a directory every user can search", err)
	}
	o.User, o.Home = &u, home
	sb, err := sandbox.New(o)
	if err != nil {
		return nil, err
	}
	p.Sandbox = sb
	if ws := a.githubContext().Workspace; ws != "" {
		// Give the home back to the workspace's owner at the end, so that
		// the runner user can cache and clean it.
		p.undo = append(p.undo, func() {
			chownLike(giveBack[0], ws)
			chownTree(sb.Home(), ws)
		})
	}
	// The way to the worktrees and binaries: searchable, not listable;
	// the worktrees readable, not writable.
	for _, d := range []string{tmp} {
		if err := os.Chmod(d, 0o711); err != nil {
			return p, err
		}
	}
	for _, t := range trees {
		if err := os.Chmod(filepath.Dir(t), 0o711); err != nil {
			return p, err
		}
		if err := sandbox.Readable(t); err != nil {
			return p, err
		}
	}
	if err := os.Mkdir(filepath.Join(tmp, "bin"), 0o711); err != nil {
		return p, err
	}
	return p, a.closeAll(p, u, tmp)
}

// closeAll closes everything the runner or the job put in the container to
// u but the paths the sandbox needs: its home, tmp and the Go toolchain.
func (a *app) closeAll(p *prison, u sandbox.User, tmp string) error {
	targets, open := a.closeTargets()
	needed := []string{p.Home(), tmp}
	if goroot := a.goroot(); goroot != "" {
		needed = append(needed, goroot)
	}
	closed := sandbox.Close(targets, needed, u)
	p.reopen = func() {
		if err := closed.Reopen(); err != nil {
			fmt.Fprintf(a.env.Stderr, "benchgate: warning: %v\n", err)
		}
	}
	p.open = append(open, closed.Open...)
	for _, n := range needed[:2] {
		if err := sandbox.Reachable(n, u); err != nil {
			return fmt.Errorf("closing the runner's mounts: %v", err)
		}
	}
	for _, o := range p.open {
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: could not close %s to the benchmarks' code\n", o)
	}
	if a.host != nil {
		if len(p.open) > 0 && a.host.privileged != "" {
			return &refusal{event: a.host.privileged, open: p.open}
		}
	} else if ev := a.githubContext().EventName; len(p.open) > 0 && !slices.Contains(event.Trusted, ev) {
		return &refusal{event: ev, open: p.open}
	}
	return nil
}

// closeTargets lists what the sandbox user must not read: every mount that
// is not the system's (sandbox.System) and the paths the runner's
// variables name. A mount table that cannot be read is itself open: what
// it would have listed is unknown.
func (a *app) closeTargets() ([]sandbox.Target, []sandbox.Open) {
	table := a.env.MountInfo
	if table == "" {
		table = "/proc/self/mountinfo"
	}
	var open []sandbox.Open
	b, err := os.ReadFile(table)
	var mounts []sandbox.Mount
	if err == nil {
		mounts, err = sandbox.ParseMountinfo(b)
	}
	if err != nil {
		open = append(open, sandbox.Open{Path: table, Reason: "the mount table is unreadable, so the mounts are unknown: " + err.Error()})
	}
	var extra []string
	if a.host != nil {
		extra = append(extra, a.host.close...)
	}
	for _, k := range []string{"GITHUB_WORKSPACE", "RUNNER_TEMP"} {
		extra = append(extra, a.env.Getenv(k))
	}
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY", "GITHUB_EVENT_PATH"} {
		if f := a.env.Getenv(k); f != "" {
			extra = append(extra, filepath.Dir(f))
		}
	}
	return sandbox.Targets(mounts, extra), open
}

// goroot is the Go toolchain on PATH (its GOROOT, found without running
// it), which the sandbox user runs; "" if there is none.
func (a *app) goroot() string {
	path := a.env.Getenv("PATH")
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p, err := filepath.EvalSymlinks(filepath.Join(dir, "go"))
		if err != nil {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return filepath.Dir(filepath.Dir(p))
		}
	}
	return ""
}
