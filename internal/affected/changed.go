package affected

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/internal/gitrev"
)

// Changed returns the files that differ between the commits baseSHA and
// headSHA of the repository whose top-level directory is repoRoot: every
// path added, modified, deleted or changed in type, as a repository-relative
// slash path, sorted, each once. A rename is reported as its two paths (the
// old one deleted, the new one added). A submodule whose commit changed is
// reported as its path.
//
// It runs, through git (ExecGit when nil),
//
//	git diff --name-only -z --no-renames BASE HEAD --
//
// in repoRoot, which compares the two commits' trees: both commits must be
// present, as they are once gitrev has resolved them (it fetches missing
// ones in a shallow clone); no history between them is needed.
func Changed(ctx context.Context, repoRoot, baseSHA, headSHA string, git Runner) ([]string, error) {
	for _, rev := range []string{baseSHA, headSHA} {
		if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n") {
			return nil, fmt.Errorf("changed files: invalid commit %q", rev)
		}
	}
	if git == nil {
		git = ExecGit(nil)
	}
	out, err := git(ctx, repoRoot, "diff", "--name-only", "-z", "--no-renames", baseSHA, headSHA, "--")
	if err != nil {
		return nil, fmt.Errorf("changed files between %s and %s: %w", gitrev.Short(baseSHA), gitrev.Short(headSHA), err)
	}
	var files []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, string(f))
		}
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}
