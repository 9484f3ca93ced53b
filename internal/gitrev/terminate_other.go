//go:build !unix

package gitrev

import "os/exec"

// terminate stops git; without Unix signals it can only be killed.
func terminate(cmd *exec.Cmd) error {
	return cmd.Process.Kill()
}
