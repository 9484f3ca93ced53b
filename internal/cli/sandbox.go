package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/sandbox"
)

// Environment variables of the action's sandbox user (see the README's
// security section): which user the change's code runs as, and where its
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
	// reopen gives the workspace its mode back, once nothing of the
	// sandbox user runs.
	reopen func()
	stderr io.Writer
}

// release ends what the change's code left running and restores what
// sandboxing changed, in reverse order. With a sandbox user, every process
// of that user is killed first: a daemon that left its process group would
// otherwise read the workspace, with the token of the checkout's
// .git/config, once reopened. If some cannot be killed, the workspace stays
// closed to every user but its owner.
func (p *prison) release() {
	if p.User() != nil {
		if _, err := p.KillAll(); err != nil {
			fmt.Fprintf(p.stderr, "benchgate: warning: %v: the workspace stays closed to other users\n", err)
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

// sandbox prepares the processes of the change's code for a measurement
// whose files live in tmp. Outside the action, or when benchgate is not root,
// it only filters their environment. In the action, as root, they run as the
// sandbox user: tmp and the worktrees in it become readable to them (not
// writable), their home and caches are theirs, and the workspace (with the
// checkout's .git/config, which may hold a persisted token) is closed to
// them until the measurement ends.
func (a *app) sandbox(tmp string, trees []string) (*prison, error) {
	p := &prison{stderr: a.env.Stderr}
	o := sandbox.Options{Environ: a.environ(), Pass: a.cfg.Env}
	if a.cfg.Command != "action" {
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
	if ws := a.env.Getenv("GITHUB_WORKSPACE"); ws != "" {
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
	if ws := a.env.Getenv("GITHUB_WORKSPACE"); ws != "" {
		if fi, err := os.Lstat(ws); err == nil && fi.IsDir() {
			mode := fi.Mode().Perm()
			if err := os.Chmod(ws, mode&0o700); err == nil {
				p.reopen = func() { _ = os.Chmod(ws, mode) }
			}
		}
	}
	return p, nil
}
