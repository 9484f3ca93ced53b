package cli

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/benchgate/benchgate/internal/affected"
	"github.com/benchgate/benchgate/internal/gitrev"
)

// buildNotes says what between base and head changes how the code is
// compiled rather than what it does: a profile-guided optimization profile
// (default.pgo, which go test -c's -pgo=auto applies to both sides alike,
// each with its own file). The comparison then measures the new profile
// too. A failure to list the changed files is no note, not an error.
func (a *app) buildNotes(ctx context.Context, repo *gitrev.Repo, baseSHA, headSHA string) []string {
	if baseSHA == headSHA {
		return nil
	}
	changed, err := affected.Changed(ctx, repo.Root(), baseSHA, headSHA, affected.ExecGit(a.gitEnv()))
	if err != nil {
		return nil
	}
	return pgoNotes(changed)
}

// pgoNotes is the note for the changed files that are PGO profiles.
func pgoNotes(changed []string) []string {
	var pgo []string
	for _, f := range changed {
		if path.Base(f) == "default.pgo" {
			pgo = append(pgo, f)
		}
	}
	if len(pgo) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the change edits the profile-guided optimization profile %s: the compiler optimizes the two sides differently, so the comparison measures the new profile as well as the code (both sides build with -pgo=auto, each with its own profile)", strings.Join(pgo, ", "))}
}
