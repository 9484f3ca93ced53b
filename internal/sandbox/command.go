package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// Command is name with args run in a process group of its own, as cred
// when set: cancelling ctx kills the whole group, not only its leader (a
// benchmark's own children go too), and Wait stops waiting for the output
// pipes 5 s later (a process that left the group and keeps them open must
// not hold benchgate up).
func Command(ctx context.Context, cred *syscall.Credential, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
	cmd.Cancel = func() error {
		// Negative pid: the whole process group.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// MaxOutput bounds what is kept of a process's standard output, and of its
// standard error: a benchmark of the change could print without end, and
// benchgate keeps the output in memory. A benchmark's result lines are a
// few KiB.
const MaxOutput = 64 << 20

// Capped is a buffer that takes at most MaxOutput bytes, for a process's
// Stdout or Stderr. A write beyond fails, which makes os/exec close the
// pipe: the process's next write gets EPIPE (a Go program dies of
// SIGPIPE). The buffer is a field, not embedded: io.Copy would use its
// ReadFrom, which has no bound.
type Capped struct {
	buf  bytes.Buffer
	over bool
}

func (c *Capped) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > MaxOutput {
		c.over = true
		return 0, fmt.Errorf("output larger than %d bytes", MaxOutput)
	}
	return c.buf.Write(p)
}

// Bytes is what was kept.
func (c *Capped) Bytes() []byte { return c.buf.Bytes() }

// Over reports that the process wrote more than MaxOutput bytes: what was
// kept is its beginning, and the process was stopped by a broken pipe.
func (c *Capped) Over() bool { return c.over }
