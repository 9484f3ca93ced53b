package gitrev

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Info returns the committer time and the subject of the commit sha (a
// full SHA that the repository has), for the ledger of paired changes.
func (r *Repo) Info(ctx context.Context, sha string) (time.Time, string, error) {
	out, err := r.git(ctx, "log", "-1", "--no-show-signature", "--format=%cI%x00%s", sha, "--")
	if err != nil {
		return time.Time{}, "", err
	}
	when, subject, _ := strings.Cut(strings.TrimRight(out, "\n"), "\x00")
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(when))
	if err != nil {
		return time.Time{}, "", fmt.Errorf("commit %s: time %q: %w", Short(sha), when, err)
	}
	return t, subject, nil
}
