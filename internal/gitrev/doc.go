// Package gitrev resolves revisions to commits, fetches the commits a
// shallow clone lacks, and checks commits out into throwaway worktrees,
// without touching the user's checkout.
//
// benchgate compares two commits of a Go project. gitrev finds the git
// repository holding the project, turns the base and head revisions into
// commit SHAs, and checks each commit out as a detached git worktree in a
// private temporary directory outside the checkout. The user's working
// files, index, HEAD, branches, tags, remote-tracking branches and
// registered worktrees stay exactly as they were, also when something fails.
//
// # Use
//
//	repo, err := gitrev.Open(ctx, workdir, gitrev.WithEnv(os.Environ()))
//	if err != nil {
//		return err // wraps gitrev.ErrNotRepository outside a work tree
//	}
//	defer func() { err = errors.Join(err, repo.Cleanup(ctx)) }()
//
//	head, err := repo.Resolve(ctx, "HEAD")    // a pull request's merge commit
//	base, err := repo.ParentOf(ctx, head, 1)  // the base it was merged with
//	wt, err := repo.AddWorktree(ctx, base, os.TempDir())
//	// build and run in wt.Dir() ...
//	err = wt.Remove(ctx)
//
// Open accepts any directory inside the work tree. Repo.Subdir is its path
// relative to the top level, and Worktree.Dir is the same subdirectory in a
// worktree, so a Go module below the top level (the action's
// working-directory input) works on both sides.
//
// # Running git
//
// Every git command is executed directly with an argument list (never
// through a shell) by a Runner: ExecRunner unless WithRunner says
// otherwise. The commands run in the top-level directory with the
// environment given by WithEnv (the process environment by default), kept
// as it is except that:
//
//   - safe.directory=* is added in the command scope through
//     GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n, after any
//     entries the environment already has. git therefore works in a checkout
//     owned by another user, as in a GitHub Actions container where the
//     process is root and the workspace belongs to uid 1001, without
//     "detected dubious ownership" and without writing any config file
//     (git honours safe.directory only in protected configuration, which
//     includes the command scope but never the repository's .git/config).
//   - GIT_TERMINAL_PROMPT=0, so git never waits for a password.
//   - Variables that point git at another repository (GIT_DIR,
//     GIT_WORK_TREE, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY, GIT_COMMON_DIR
//     and the rest of "git rev-parse --local-env-vars" that locate
//     repository files) are removed: they are set inside git hooks, and
//     would make git ignore the directory it runs in or write the user's
//     index.
//
// A failed command is a *CommandError whose message is the command line
// and git's standard error on one line, such as
//
//	git rev-parse --verify "nope^{commit}": fatal: Needed a single revision
//
// Credentials in URLs are redacted from messages, and the environment
// (where tokens live) is never part of one.
//
// # Shallow clones
//
// actions/checkout clones with depth 1 by default: a pull request's merge
// commit is present, its parents are not, and HEAD^1 is an unknown
// revision. Resolve fetches a missing full SHA by SHA, and in a shallow clone
// a missing branch or tag by name; ParentOf reads the parents from the commit
// object (git cat-file) and fetches the one asked for by SHA. Fetches use
// --no-tags, --no-recurse-submodules and --no-auto-gc; --depth=1 only in a
// repository that is already shallow, since it would make a complete
// repository shallow. They change no refs: a fetch by SHA writes only
// objects and .git/shallow, a fetch by name also FETCH_HEAD. A revision
// that cannot be found is a *RefNotFoundError, whose message is one line:
//
//	ref "nope" not found (not a commit in this repository, and fetching from origin failed: ...)
//
// # Worktrees and cleanup
//
// AddWorktree runs "git worktree add --detach" into a new mode-0700
// directory made by os.MkdirTemp under a parent directory outside the work
// tree. Worktree.Remove and Repo.Cleanup remove worktrees ("git worktree
// remove --force --force", "git worktree prune" only if that was not
// enough, os.RemoveAll). They use a fresh short-lived context, so they work
// after the context given to them has been cancelled, as it is when
// SIGINT or SIGTERM cancel the run; call Cleanup from a defer next to Open.
// Remove may be called more than once. When a command is cancelled,
// ExecRunner sends git SIGTERM, on which git removes its lock files and any
// half-made worktree, and kills it only if it does not exit.
//
// # Ownership
//
// When the process runs as root in a checkout owned by another user, files
// git writes under .git (objects, FETCH_HEAD, shallow, worktrees/) would be
// left owned by root. RestoreOwnership, which Cleanup calls last, gives
// every root-owned entry under .git to the owner of the top-level
// directory.
package gitrev
