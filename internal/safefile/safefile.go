// Package safefile writes files and creates directories without following
// symbolic links, and opens files for reading only when they are regular
// files. A pull request's checkout may contain links (committed, or made by
// its code) where benchgate writes its report or reads its tests: a write
// through one would overwrite a file outside the workspace, and a read of a
// link to a pipe or a FIFO would block forever.
//
// The rule: the last component of every path written is never followed (an
// existing link, or any other non-directory entry, is removed and a new file
// created in its place with O_CREAT|O_EXCL|O_NOFOLLOW), and MkdirAll refuses
// a link in any component below a root that the caller trusts. Components of
// that root are followed: on the command line the user names the parent
// directories (which may legitimately be links, such as /tmp on macOS), and
// in the action the root is the workspace, so every directory benchgate
// creates in it is checked.
//
// The checks defend against links that exist when benchgate writes, not
// against a process that swaps a checked directory for a link between the
// check and the write: benchgate's untrusted processes run as a user that
// cannot write where benchgate writes.
package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrSymlink is wrapped by the errors about a symbolic link where a
// directory was expected.
var ErrSymlink = errors.New("is a symbolic link: refusing to write through it")

// WriteFile writes data to a new file at path, like os.WriteFile, but
// removes what is at path first (without following a link) and creates the
// file without following one. A directory at path is an error.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err1 := f.Close(); err == nil {
		err = err1
	}
	return err
}

// Create creates a new file at path for writing, like os.Create but with
// permissions perm (before the umask), replacing what is at path without
// following a link. A directory at path is an error.
func Create(path string, perm fs.FileMode) (*os.File, error) {
	if err := removeEntry(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
	if err != nil {
		// EEXIST: something was created at path after the removal;
		// ELOOP cannot happen with O_EXCL, but would mean the same.
		return nil, err
	}
	return f, nil
}

// removeEntry removes the non-directory entry at path, if any: a link
// itself, never its target.
func removeEntry(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.IsDir():
		return &fs.PathError{Op: "create", Path: path, Err: syscall.EISDIR}
	}
	// os.Remove would also remove an empty directory that replaced the
	// entry meanwhile; unlink never does.
	if err := syscall.Unlink(path); err != nil && !errors.Is(err, syscall.ENOENT) {
		return &fs.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

// MkdirAll creates dir and any missing parents below root, like
// os.MkdirAll, checking every component below root with Lstat: a symbolic
// link is refused (the error wraps ErrSymlink), so is any other
// non-directory. root itself must exist and may be (or lie below) a link;
// dir must be root or lie inside it.
func MkdirAll(root, dir string, perm fs.FileMode) error {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s is not inside %s", dir, root)
	}
	fi, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return &fs.PathError{Op: "mkdir", Path: root, Err: syscall.ENOTDIR}
	}
	if rel == "." {
		return nil
	}
	p := root
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, c)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.Mkdir(p, perm); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			fi, err = os.Lstat(p)
		}
		if err != nil {
			return err
		}
		if err := isDir(p, fi); err != nil {
			return err
		}
	}
	return nil
}

// CheckDir returns an error wrapping ErrSymlink if path is a symbolic link,
// and one wrapping syscall.ENOTDIR if it is anything else but a directory.
// A missing path is not an error.
func CheckDir(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return isDir(path, fi)
}

func isDir(path string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s %w", path, ErrSymlink)
	case !fi.IsDir():
		return &fs.PathError{Op: "mkdir", Path: path, Err: syscall.ENOTDIR}
	}
	return nil
}

// ErrNotRegular is wrapped by OpenRegular's error for anything but a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens path for reading if it is a regular file, without
// following a link and without blocking on a FIFO or device: it opens with
// O_NOFOLLOW|O_NONBLOCK and checks the open file's type.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, nil
}

// Writable reports, as an error, whether the calling process may create
// files in the directory dir (access(2) with W_OK|X_OK: the real user's
// permission, which root always has on a writable file system).
func Writable(dir string) error {
	const wOK, xOK = 2, 1 // POSIX values, the same on Linux and Darwin
	if err := syscall.Access(dir, wOK|xOK); err != nil {
		return &fs.PathError{Op: "access", Path: dir, Err: err}
	}
	return nil
}
