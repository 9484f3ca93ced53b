//go:build !unix

package gitrev

// RestoreOwnership does nothing on systems without Unix file ownership.
// (On Unix it gives files that git, running as root, created in .git back
// to the owner of the work tree.)
func (r *Repo) RestoreOwnership() error { return nil }
