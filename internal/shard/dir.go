package shard

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/safefile"
)

// The files of a shard's directory beside its manifest.
const (
	BaseFile        = "base.txt"
	HeadFile        = "head.txt"
	ConfirmBaseFile = "confirm-base.txt" // the confirmation re-run of a 1/1 shard
	ConfirmHeadFile = "confirm-head.txt"
	FailuresFile    = "failures.json"
	// ExplainFile holds the shard's explanations of its changed rows
	// (JSON, written and read by package cli), for merge to show.
	ExplainFile = "explain.json"
)

// The largest files of a shard's directory that ReadDir and Read read
// whole: the directory may be an artifact that the change wrote (the fork
// recipe). Beyond them the error is a *TooLargeError.
const (
	MaxRawSize  = 256 << 20 // base.txt, head.txt and the confirmation files, each
	MaxJSONSize = 16 << 20  // shard.json, failures.json and explain.json, each
)

// TooLargeError is the error of a file beyond its bound, wrapped in an
// *fs.PathError that names the file.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("larger than %d bytes (%d MiB)", e.Limit, e.Limit>>20)
}

// A Dir is what a shard left in its --out directory: its manifest, its raw
// files and the benchmarks that failed (JSON, decoded by the caller).
type Dir struct {
	Path     string
	Manifest Manifest
	Raw      [2][]byte // base.txt and head.txt; nil if an incomplete shard has none
	Confirm  [2][]byte // the confirmation re-run, if any
	Failures []byte    // failures.json, if any
	Explain  []byte    // explain.json, if any
}

// ReadDir reads a shard's directory. An error wraps fs.ErrNotExist when
// the directory has no manifest (it is not a shard's), and names the file
// when a complete shard lacks its raw files. Its files are read only if
// they are regular files: a shard's directory may come from an artifact or
// sit in a checkout of the change, and a link there must not make merge
// read (and quote, in a parse error) a file elsewhere. A file beyond
// MaxRawSize or MaxJSONSize is an error, also where a missing one is not.
func ReadDir(dir string) (Dir, error) {
	d := Dir{Path: dir}
	m, err := Read(dir)
	if err != nil {
		return d, err
	}
	d.Manifest = m
	for i, name := range []string{BaseFile, HeadFile} {
		b, err := ReadBounded(filepath.Join(dir, name), MaxRawSize)
		if err != nil {
			if m.Complete || tooLarge(err) {
				return d, fmt.Errorf("shard %s: %s: %w", m.Shard, name, errors.Unwrap(err))
			}
			continue
		}
		d.Raw[i] = b
	}
	for i, name := range []string{ConfirmBaseFile, ConfirmHeadFile} {
		b, err := ReadBounded(filepath.Join(dir, name), MaxRawSize)
		switch {
		case err == nil:
			d.Confirm[i] = b
		case tooLarge(err):
			return d, fmt.Errorf("shard %s: %s: %w", m.Shard, name, errors.Unwrap(err))
		}
	}
	for _, f := range []struct {
		name string
		to   *[]byte
	}{{FailuresFile, &d.Failures}, {ExplainFile, &d.Explain}} {
		b, err := ReadBounded(filepath.Join(dir, f.name), MaxJSONSize)
		switch {
		case err == nil:
			*f.to = b
		case !errors.Is(err, fs.ErrNotExist):
			return d, err
		}
	}
	return d, nil
}

// ReadBounded reads a file that is a regular file, not through a link, of
// at most limit bytes; a larger one is a *fs.PathError of a
// *TooLargeError.
func ReadBounded(path string, limit int64) ([]byte, error) {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	tooLarge := &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Limit: limit}}
	if fi.Size() > limit {
		return nil, tooLarge
	}
	// The bound holds also for a file that grows while it is read.
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooLarge
	}
	return b, nil
}

func tooLarge(err error) bool {
	var e *TooLargeError
	return errors.As(err, &e)
}
