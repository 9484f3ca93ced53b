//go:build unix

package gitrev

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// RestoreOwnership gives files that git, running as root, created in the
// repository's .git directory back to the owner of the work tree.
//
// In a GitHub Actions container the process runs as root while the
// workspace belongs to the runner user (uid 1001). A fetch writes objects,
// FETCH_HEAD and .git/shallow, and a worktree writes .git/worktrees/...,
// all owned by root, which later steps and jobs running as the runner user
// cannot change. RestoreOwnership walks the .git directory and changes every entry owned
// by uid 0 to the uid and gid of Root (with Lchown: symbolic links are not
// followed). It does nothing unless the process runs as root and Root is
// owned by another user. Cleanup calls it.
func (r *Repo) RestoreOwnership() error {
	if os.Geteuid() != 0 {
		return nil
	}
	fi, err := os.Stat(r.root)
	if err != nil {
		return fmt.Errorf("restore ownership: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return nil
	}
	uid, gid := int(st.Uid), int(st.Gid)
	var errs []error
	walkErr := filepath.WalkDir(r.commonDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, err)
			return nil // skip what cannot be read, keep going
		}
		info, err := d.Info()
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			return nil
		}
		if s, ok := info.Sys().(*syscall.Stat_t); ok && s.Uid == 0 {
			if err := os.Lchown(path, uid, gid); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		if len(errs) >= 10 {
			return fs.SkipAll
		}
		return nil
	})
	if walkErr != nil {
		errs = append(errs, walkErr)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("restore ownership of %s to uid %d: %w", r.commonDir, uid, err)
	}
	return nil
}
