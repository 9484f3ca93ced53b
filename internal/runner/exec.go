package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// command describes one child process.
type command struct {
	Dir  string
	Env  []string // nil: inherit
	Name string
	Args []string
	// Timeout bounds the process (0: none). The process group is killed when
	// it expires or ctx is done.
	Timeout time.Duration
	// CPUs, if set, pins the process to these CPUs.
	CPUs []int
}

// output is what a child process left behind.
type output struct {
	Stdout, Stderr []byte
	Elapsed        time.Duration
	TimedOut       bool
}

// exec runs c and waits for it. The child runs in its own process group so
// that cancellation stops it and everything it started.
func (c command) run(ctx context.Context) (output, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// Negative pid: the whole process group.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := startPinned(cmd, c.CPUs)
	if err == nil {
		err = cmd.Wait()
	}
	out := output{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Elapsed: time.Since(start)}
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
