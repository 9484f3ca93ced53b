package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
)

// SealTree gives root and everything under it, except the directory skip
// ("" for none) and what it holds, to benchgate's user, and takes the write
// permission away from everyone else: a file keeps its mode without group
// and other write, a directory gets dirMode(path, that mode). Symbolic
// links are given, never followed. The runner seals the test binaries
// the sandbox user built with it, and Seal the home.
//
// The order matters, and the runner's TestSealTakesBeforeListing keeps it:
// WalkDir calls the function on a directory (Lchown to benchgate's user,
// chmod) before it lists it. A process of the sandbox user still alive
// thus loses the right to rename entries in a directory before root reads
// them, and cannot swap a listed directory for a symbolic link to the
// workspace (RENAME_EXCHANGE) to make root chown and chmod what the link
// points to. Listing first, or collecting the paths and changing them
// afterwards, would open that race.
func SealTree(root, skip string, dirMode func(path string, mode fs.FileMode) fs.FileMode) error {
	uid, gid := os.Geteuid(), os.Getegid()
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skip != "" && p == skip {
			return filepath.SkipDir
		}
		if err := os.Lchown(p, uid, gid); err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		mode := fi.Mode().Perm() &^ 0o022
		if d.IsDir() {
			mode = dirMode(p, mode)
		}
		return os.Chmod(p, mode)
	})
}
