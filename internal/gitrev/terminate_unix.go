//go:build unix

package gitrev

import (
	"os/exec"
	"syscall"
)

// terminate asks git to stop. git traps SIGTERM and removes its lock files
// (index.lock, shallow.lock) and any half-created worktree before exiting.
func terminate(cmd *exec.Cmd) error {
	return cmd.Process.Signal(syscall.SIGTERM)
}
