package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/sandbox"
)

// command describes one child process.
type command struct {
	Dir  string
	Env  []string            // nil: inherit
	Cred *syscall.Credential // nil: benchgate's user
	Name string
	Args []string
	// Timeout bounds the process (0: none). The process group is killed when
	// it expires or ctx is done.
	Timeout time.Duration
	// CPUs, if set, pins the process to these CPUs.
	CPUs []int
}

// goCommand is the go command with args in dir, with the environment and
// user of the change's code.
func (o *Options) goCommand(dir string, args ...string) command {
	return command{Dir: dir, Env: o.Env, Cred: o.Credential, Name: "go", Args: args}
}

// seal gives dir and its files to benchgate's user and takes the write
// permission away from everyone else ([sandbox.SealTree], which takes each
// directory before it lists it: a head daemon still alive while profile
// staging directories are sealed cannot race it): the test binaries the
// sandbox user built stay as built.
func seal(dir string) error {
	return sandbox.SealTree(dir, "", func(string, fs.FileMode) fs.FileMode {
		return 0o755 // the sandbox user runs the binaries inside
	})
}

// output is what a child process left behind.
type output struct {
	Stdout, Stderr []byte
	Elapsed        time.Duration
	TimedOut       bool
}

// exec runs c and waits for it. The child runs in its own process group so
// that cancellation stops it and everything it started. Output beyond
// maxOutput stops it.
func (c command) run(ctx context.Context) (output, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := sandbox.Command(ctx, c.Cred, c.Name, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	var stdout, stderr sandbox.Capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := startPinned(cmd, c.CPUs)
	if err == nil {
		err = cmd.Wait()
	}
	out := output{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Elapsed: time.Since(start)}
	for _, o := range []struct {
		name string
		b    *sandbox.Capped
	}{{"standard output", &stdout}, {"standard error", &stderr}} {
		if o.b.Over() {
			// Not the exit status of the signal that stopped it.
			return out, fmt.Errorf("%s: its %s was larger than %d bytes (%d MiB): stopped", c.String(), o.name, sandbox.MaxOutput, sandbox.MaxOutput>>20)
		}
	}
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			out.TimedOut = true
		}
		return out, fmt.Errorf("%s: %w", c.String(), err)
	}
	return out, nil
}

// String renders the command line for error messages.
func (c command) String() string {
	parts := append([]string{c.Name}, c.Args...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\n'\"$\\|&;<>()*?[]") {
			parts[i] = "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}

// firstLines returns at most n non-empty lines of b, for failure messages.
func firstLines(b []byte, n int) string {
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lines = append(lines, strings.TrimRight(l, "\r"))
		if len(lines) == n {
			break
		}
	}
	return strings.Join(lines, "\n")
}

// exitCode reports the child's exit status, or -1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
