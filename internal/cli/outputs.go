package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/benchgate/benchgate/internal/safefile"
)

// checkOutputs checks, before anything is measured, that the files and the
// directory named by --json, --markdown, --export and --out can be written: the
// parent directory exists and this process may create files in it, a report
// path is not a directory, and --out, if it exists, is a directory (not a
// symbolic link) that this process may write. The error names the flag, as
// given: "--json /nope/r.json: directory /nope does not exist".
func (a *app) checkOutputs() error {
	type output struct {
		flag, path string
		dir        bool
	}
	outs := []output{
		{"--json", a.cfg.JSON, false},
		{"--markdown", a.cfg.Markdown, false},
		{"--out", a.cfg.Out, true},
	}
	for _, t := range a.cfg.Exports {
		outs = append(outs, output{"--export", t.Path, false})
	}
	if a.cfg.Command == "gitlab" {
		outs = append(outs, output{"--junit", a.cfg.GitLab.JUnit, false}, output{"--codequality", a.cfg.GitLab.CodeQuality, false})
	}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if err := checkOutput(a.path(o.path), o.dir); err != nil {
			return fmt.Errorf("%s %s: %v", o.flag, o.path, err)
		}
	}
	return a.checkLedger()
}

// checkOutput checks one output path (absolute); dir says whether it names
// a directory to write into.
func checkOutput(p string, dir bool) error {
	fi, err := os.Lstat(p)
	switch {
	case err == nil && dir && fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s %w", p, safefile.ErrSymlink)
	case err == nil && dir && !fi.IsDir():
		return fmt.Errorf("%s exists and is not a directory", p)
	case err == nil && dir:
		return writable(p)
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s is a directory", p)
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return unwrapPath(err)
	}
	parent := filepath.Dir(p)
	fi, err = os.Stat(parent)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("directory %s does not exist", parent)
	case err != nil:
		return fmt.Errorf("directory %s: %v", parent, unwrapPath(err))
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", parent)
	}
	return writable(parent)
}

// writable says whether files can be created in dir: access(2), so root
// passes on any file system mounted read-write.
func writable(dir string) error {
	err := safefile.Writable(dir)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return fmt.Errorf("directory %s is not writable (%v)", dir, unwrapPath(err))
	}
	return fmt.Errorf("directory %s: %v", dir, unwrapPath(err))
}

// unwrapPath drops the operation and path of a *fs.PathError, which the
// message names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writeOutput writes a report to the file of a flag (path as given),
// without following a symbolic link at that path (safefile.WriteFile). The
// error names the flag and the path.
func (a *app) writeOutput(flag, path string, data []byte) error {
	if err := safefile.WriteFile(a.path(path), data, 0o644); err != nil {
		return fmt.Errorf("%s %s: %v", flag, path, unwrapPath(err))
	}
	return nil
}

// reportLost turns the errors of writing the reports, after the report was
// printed, into one error that says where the printed report and the raw
// results are: "--json r.json: permission denied; the report is above and
// the raw results are kept in /tmp/benchgate-kept-123".
func (a *app) reportLost(errs []error, d dest) error {
	var msgs []string
	for _, err := range errs {
		msgs = append(msgs, err.Error())
	}
	msg := strings.Join(msgs, "; ") + "; the report is above"
	if d.raw != "" {
		kept, err := keepRaw(d)
		if err != nil {
			msg += fmt.Sprintf(", and the raw results could not be kept: %v", err)
		} else {
			msg += " and the raw results are kept in " + kept
		}
	}
	return errors.New(msg)
}

// keepRaw makes sure the raw results of this run (d.raw) outlive it: an
// --out directory is kept anyway; the temporary one, removed when the run
// ends, is moved (or copied) to a new directory benchgate-kept-* in the
// temporary directory, whose name it returns.
func keepRaw(d dest) (string, error) {
	if d.rawKept {
		return d.raw, nil
	}
	kept, err := os.MkdirTemp("", "benchgate-kept-")
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(d.raw)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		src, dst := filepath.Join(d.raw, e.Name()), filepath.Join(kept, e.Name())
		if os.Rename(src, dst) == nil {
			continue
		}
		if err := copyFile(src, dst); err != nil {
			return "", err
		}
	}
	return kept, nil
}

func copyFile(src, dst string) error {
	in, err := safefile.OpenRegular(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := safefile.Create(dst, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}
