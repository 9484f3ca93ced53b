package sandbox

import (
	"context"
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
