//go:build !linux

package sandbox

// becomeSubreaper does nothing outside Linux, where the sandbox's user is
// never used (the action's container is Linux).
func becomeSubreaper() error { return nil }
