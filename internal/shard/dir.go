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
// read (and quote, in a parse error) a file elsewhere.
func ReadDir(dir string) (Dir, error) {
	d := Dir{Path: dir}
	m, err := Read(dir)
	if err != nil {
		return d, err
	}
	d.Manifest = m
	for i, name := range []string{BaseFile, HeadFile} {
		b, err := readRegular(filepath.Join(dir, name))
		if err != nil {
			if m.Complete {
				return d, fmt.Errorf("shard %s: %s: %w", m.Shard, name, errors.Unwrap(err))
			}
			continue
		}
		d.Raw[i] = b
	}
	for i, name := range []string{ConfirmBaseFile, ConfirmHeadFile} {
		if b, err := readRegular(filepath.Join(dir, name)); err == nil {
			d.Confirm[i] = b
		}
	}
	for _, f := range []struct {
		name string
		to   *[]byte
	}{{FailuresFile, &d.Failures}, {ExplainFile, &d.Explain}} {
		b, err := readRegular(filepath.Join(dir, f.name))
		switch {
		case err == nil:
			*f.to = b
		case !errors.Is(err, fs.ErrNotExist):
			return d, err
		}
	}
	return d, nil
}

// readRegular reads a file that is a regular file, not through a link.
func readRegular(path string) ([]byte, error) {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
