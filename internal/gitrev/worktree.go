package gitrev

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// cleanupTimeout bounds the git commands that remove a worktree. They run
// on a context of their own so that cleanup works after cancellation.
const cleanupTimeout = 15 * time.Second

// cleanupContext returns a context that keeps ctx's values but not its
// cancellation, with a short deadline of its own.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// A Worktree is a detached checkout of one commit in a private temporary
// directory, registered with the repository as a linked worktree.
type Worktree struct {
	repo *Repo
	sha  string
	tmp  string // the private directory made for it; removed with it
	path string // tmp/<short sha>: the worktree's top level

	mu      sync.Mutex
	removed bool
}

// Path returns the top-level directory of the worktree.
func (w *Worktree) Path() string { return w.path }

// Dir returns the worktree's counterpart of the directory given to Open:
// Path joined with Repo.Subdir. It does not exist when the commit has no
// such directory.
func (w *Worktree) Dir() string { return filepath.Join(w.path, w.repo.subdir) }

// AddWorktree checks out the commit sha as a detached worktree
// ("git worktree add --detach") in a new private directory (mode 0700) made
// under parentDir, which must lie outside the repository's work tree; ""
// means os.TempDir(). The user's checkout, index, HEAD and branches are not
// touched. If anything fails, whatever was created is removed again.
//
// Every worktree is removed by its Remove method or by Repo.Cleanup; after
// Cleanup, AddWorktree fails.
func (r *Repo) AddWorktree(ctx context.Context, sha, parentDir string) (*Worktree, error) {
	if err := checkRev(sha); err != nil {
		return nil, err
	}
	if parentDir == "" {
		parentDir = os.TempDir()
	}
	parent, err := filepath.Abs(parentDir)
	if err == nil {
		parent, err = filepath.EvalSymlinks(parent)
	}
	if err != nil {
		return nil, fmt.Errorf("worktree directory %s: %w", parentDir, err)
	}
	if within(parent, r.root) {
		return nil, fmt.Errorf("worktree directory %s is inside the checkout %s: choose a directory outside it", parentDir, r.root)
	}

	// Hold opMu from the check of closed until the worktree is recorded, so
	// that Cleanup either sees it or makes us fail before we start.
	r.opMu.Lock()
	defer r.opMu.Unlock()
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return nil, errors.New("cannot add a worktree: the repository has been cleaned up")
	}
	tmp, err := os.MkdirTemp(parent, "benchgate-")
	if err != nil {
		return nil, fmt.Errorf("worktree directory: %w", err)
	}
	w := &Worktree{repo: r, sha: sha, tmp: tmp, path: filepath.Join(tmp, Short(sha))}
	if _, err := r.git(ctx, "worktree", "add", "--detach", "--quiet", w.path, sha); err != nil {
		cctx, cancel := cleanupContext(ctx)
		defer cancel()
		if cerr := r.removeWorktree(cctx, w); cerr != nil {
			return nil, errors.Join(err, cerr)
		}
		return nil, err
	}
	r.mu.Lock()
	r.worktrees = append(r.worktrees, w)
	r.mu.Unlock()
	r.logf("checked out %s in %s", Short(sha), w.path)
	return w, nil
}

// within reports whether path is dir or inside it (both clean and absolute).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Remove deletes the worktree and its private directory and unregisters it
// from the repository ("git worktree remove --force --force", "git worktree
// prune" if that was not enough, then os.RemoveAll). It runs even when ctx
// is already cancelled: git runs under a fresh context with a short
// deadline that keeps only ctx's values. Calling Remove again after it
// succeeded does nothing; after a failure it tries again.
func (w *Worktree) Remove(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.removed {
		return nil
	}
	ctx, cancel := cleanupContext(ctx)
	defer cancel()
	r := w.repo
	r.opMu.Lock()
	err := r.removeWorktree(ctx, w)
	r.opMu.Unlock()
	if err != nil {
		return err
	}
	w.removed = true
	r.mu.Lock()
	for i, x := range r.worktrees {
		if x == w {
			r.worktrees = append(r.worktrees[:i], r.worktrees[i+1:]...)
			break
		}
	}
	r.mu.Unlock()
	r.logf("removed worktree %s", w.path)
	return nil
}

// removeWorktree undoes AddWorktree, also after a half-finished one.
// The caller holds r.opMu.
//
// "git worktree remove" with --force twice removes the worktree even if it
// is locked, as one is while "git worktree add" runs, so an add that was
// killed half-way is covered. When it fails anyway (the directory is there
// but not a worktree yet), the worktree is unlocked, its directory deleted
// and "git worktree prune" drops the registration. prune also drops other
// worktrees whose directories are gone, so it runs only when needed.
func (r *Repo) removeWorktree(ctx context.Context, w *Worktree) error {
	_, rmErr := r.git(ctx, "worktree", "remove", "--force", "--force", w.path)
	var errs []error
	if rmErr != nil {
		_, _ = r.git(ctx, "worktree", "unlock", w.path) // fails when not locked or not registered
	}
	if err := os.RemoveAll(w.tmp); err != nil {
		errs = append(errs, fmt.Errorf("remove worktree directory: %w", err))
	}
	if rmErr != nil {
		if _, err := r.git(ctx, "worktree", "prune"); err != nil {
			errs = append(errs, err)
		}
		registered, err := r.isRegistered(ctx, w.path)
		if err != nil {
			errs = append(errs, err)
		}
		if registered {
			errs = append(errs, rmErr)
		}
	}
	return errors.Join(errs...)
}

// isRegistered reports whether path is one of the repository's worktrees.
func (r *Repo) isRegistered(ctx context.Context, path string) (bool, error) {
	out, err := r.git(ctx, "worktree", "list", "--porcelain")
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(out, "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok && filepath.Clean(p) == path {
			return true, nil
		}
	}
	return false, nil
}

// Cleanup removes every worktree AddWorktree created that has not been
// removed yet, then restores the ownership of the .git directory
// (RestoreOwnership). Like Remove it runs even when ctx is already
// cancelled, so it belongs in a defer next to Open:
//
//	repo, err := gitrev.Open(ctx, dir)
//	if err != nil {
//		return err
//	}
//	defer func() { err = errors.Join(err, repo.Cleanup(ctx)) }()
//
// After Cleanup, AddWorktree fails; Cleanup may be called more than once.
func (r *Repo) Cleanup(ctx context.Context) error {
	r.opMu.Lock() // wait for a worktree being added
	r.mu.Lock()
	r.closed = true
	wts := append([]*Worktree(nil), r.worktrees...)
	r.mu.Unlock()
	r.opMu.Unlock()
	var errs []error
	for i := len(wts) - 1; i >= 0; i-- {
		if err := wts[i].Remove(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := r.RestoreOwnership(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
