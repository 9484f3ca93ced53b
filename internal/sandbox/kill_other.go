//go:build !linux

package sandbox

// KillAll kills the sandbox user's processes; only Linux can list them here,
// and only the action's container (Linux) runs a sandbox user.
func (s *Sandbox) KillAll() int { return 0 }
