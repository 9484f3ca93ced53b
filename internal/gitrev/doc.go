// Package gitrev resolves revisions to commits, fetches the commits a
// shallow clone lacks (and the history a merge base needs), reads a file of
// a commit without checking it out, and checks commits out into throwaway
// detached worktrees outside the user's checkout, which it never touches.
//
//	repo, err := gitrev.Open(ctx, workdir, gitrev.WithEnv(env))
//	defer repo.Cleanup(ctx)
//	base, err := repo.ParentOf(ctx, head, 1)
//	wt, err := repo.AddWorktree(ctx, base, os.TempDir())
//
// git runs without a shell, with safe.directory=* in the command scope (a
// checkout owned by another user works, no config file is written) and
// without the variables that would point it at another repository. How it
// fetches in shallow clones and cleans up after cancellation is in
// docs/git.md.
package gitrev
