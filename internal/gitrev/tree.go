package gitrev

import (
	"context"
	"path"
	"strings"
)

// HasDir reports whether the commit sha has the directory dir
// (slash-separated, relative to the top level; "." is the top level).
func (r *Repo) HasDir(ctx context.Context, sha, dir string) (bool, error) {
	dir = path.Clean(dir)
	if dir == "." {
		return true, nil
	}
	out, err := r.git(ctx, "ls-tree", "-d", "-z", "--full-tree", sha, "--", dir)
	if err != nil {
		return false, err
	}
	entry, _, _ := strings.Cut(out, "\x00")
	meta, name, ok := strings.Cut(entry, "\t")
	return ok && name == dir && strings.Contains(meta, " tree "), nil
}

// HasGoFiles reports whether the commit sha has a .go file in the
// directory dir (slash-separated, relative to the top level), or with
// below also in a directory under it: whether a package pattern dir or
// dir/... can match a package there.
func (r *Repo) HasGoFiles(ctx context.Context, sha, dir string, below bool) (bool, error) {
	dir = path.Clean(dir)
	args := []string{"ls-tree", "-z", "--name-only", "--full-tree"}
	if below {
		args = append(args, "-r")
	}
	spec := dir + "/"
	if dir == "." {
		spec = "."
	}
	out, err := r.git(ctx, append(args, sha, "--", spec)...)
	if err != nil {
		return false, err
	}
	for name := range strings.SplitSeq(out, "\x00") {
		if strings.HasSuffix(name, ".go") {
			return true, nil
		}
	}
	return false, nil
}

// Changes counts the uncommitted changes to tracked files in dir (a
// directory of the work tree) and below, and the untracked .go files
// there: what a measurement of commits leaves out.
func (r *Repo) Changes(ctx context.Context, dir string) (int, error) {
	out, err := r.gitIn(ctx, dir, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
	if err != nil {
		return 0, err
	}
	n := 0
	for entry := range strings.SplitSeq(out, "\x00") {
		if len(entry) < 4 {
			continue // the empty end, or a rename's second path
		}
		if strings.HasPrefix(entry, "??") && !strings.HasSuffix(entry, ".go") {
			continue
		}
		n++
	}
	return n, nil
}
