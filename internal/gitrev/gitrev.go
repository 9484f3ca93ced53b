package gitrev

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// ErrNotRepository is wrapped by the error Open returns when the directory
// is not inside a git work tree.
var ErrNotRepository = errors.New("not a git repository")

// A Repo is the git repository holding the directory given to Open. Its
// methods may be called from several goroutines; commands that change the
// repository (fetch, worktree add and remove) run one at a time.
type Repo struct {
	root      string // top-level directory of the work tree (git's real path)
	subdir    string // the directory given to Open, relative to root; "." at the top
	commonDir string // the .git directory shared by all worktrees, absolute

	run    Runner
	env    []string
	remote string
	logf   func(format string, args ...any)

	opMu sync.Mutex // serializes commands that write to .git

	mu        sync.Mutex
	worktrees []*Worktree // created and not yet removed, oldest first
	closed    bool        // Cleanup has run
}

// An Option configures Open.
type Option func(*options)

type options struct {
	run    Runner
	env    []string
	envSet bool
	logf   func(format string, args ...any)
}

// WithEnv sets the environment git starts from (normally os.Environ()). Like
// exec.Cmd, gitrev uses the process environment when no WithEnv is given.
// Either way the environment is kept as it is except for the additions and
// removals described in the package documentation.
func WithEnv(env []string) Option {
	return func(o *options) { o.env, o.envSet = env, true }
}

// Open finds the git work tree that contains dir ("" means the current
// directory) and the path of dir relative to its top level. A dir that is
// not in a work tree gives an error wrapping ErrNotRepository.
func Open(ctx context.Context, dir string, opts ...Option) (*Repo, error) {
	o := options{run: ExecRunner, logf: func(string, ...any) {}}
	for _, opt := range opts {
		opt(&o)
	}
	if !o.envSet {
		o.env = os.Environ()
	}
	env, err := gitEnv(o.env)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("repository directory: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("repository directory %s: not a directory", abs)
	}
	r := &Repo{run: o.run, env: env, remote: "origin", logf: o.logf}

	// One call; each option prints one line, in order. --show-prefix prints
	// dir relative to the top level, with a trailing slash, or an empty line.
	out, err := r.gitIn(ctx, abs, "rev-parse", "--path-format=absolute",
		"--show-toplevel", "--git-common-dir", "--show-prefix")
	if err != nil {
		var ee *exec.Error // git itself could not be run
		if ctx.Err() != nil || errors.As(err, &ee) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w (%w)", abs, ErrNotRepository, err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 || lines[0] == "" || lines[1] == "" {
		return nil, fmt.Errorf("%s: unexpected output from git rev-parse: %q", abs, out)
	}
	r.root = filepath.Clean(lines[0])
	r.commonDir = filepath.Clean(lines[1])
	r.subdir = "."
	if p := strings.TrimSuffix(lines[2], "/"); p != "" {
		r.subdir = filepath.FromSlash(p)
	}
	return r, nil
}

// Root returns the top-level directory of the work tree.
func (r *Repo) Root() string { return r.root }

// Subdir returns the directory given to Open relative to Root ("." when it
// is Root). Every Worktree has the same subdirectory: Worktree.Dir.
func (r *Repo) Subdir() string { return r.subdir }

// git runs a git command at the top level and returns its standard output.
func (r *Repo) git(ctx context.Context, args ...string) (string, error) {
	return r.gitIn(ctx, r.root, args...)
}

func (r *Repo) gitIn(ctx context.Context, dir string, args ...string) (string, error) {
	stdout, stderr, err := r.run(ctx, Command{Dir: dir, Args: args, Env: r.env})
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return string(stdout), &CommandError{
			Args:   args,
			Stderr: redact(strings.TrimSpace(string(stderr))),
			Err:    err,
		}
	}
	return string(stdout), nil
}

// verify returns the SHA of the commit rev names, if there is one here.
func (r *Repo) verify(ctx context.Context, rev string) (string, error) {
	out, err := r.git(ctx, "rev-parse", "--verify", rev+"^{commit}")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// IsShallow reports whether the repository is a shallow clone
// (actions/checkout's default fetch-depth of 1 makes one).
func (r *Repo) IsShallow(ctx context.Context) (bool, error) {
	out, err := r.git(ctx, "rev-parse", "--is-shallow-repository")
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(out) == "true", nil
}

// RefNotFoundError reports a revision that is neither a commit in the
// repository nor could be fetched. Its message is one line naming the ref:
//
//	ref "nope" not found (not a commit in this repository, and fetching from origin failed: git fetch ...: fatal: couldn't find remote ref refs/heads/nope)
type RefNotFoundError struct {
	Ref       string
	Remote    string
	FetchErr  error  // why fetching failed; nil when no fetch was tried
	Note      string // why no fetch could help, or a hint; may be empty
	VerifyErr error  // the failed "git rev-parse --verify"
}

func (e *RefNotFoundError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ref %q not found (not a commit in this repository", e.Ref)
	if e.FetchErr != nil {
		fmt.Fprintf(&b, ", and fetching from %s failed: %v", redact(e.Remote), e.FetchErr)
	}
	if e.Note != "" {
		b.WriteString("; ")
		b.WriteString(e.Note)
	}
	b.WriteString(")")
	return b.String()
}

func (e *RefNotFoundError) Unwrap() []error {
	var errs []error
	if e.VerifyErr != nil {
		errs = append(errs, e.VerifyErr)
	}
	if e.FetchErr != nil {
		errs = append(errs, e.FetchErr)
	}
	return errs
}

// checkRev rejects revisions git would read as options or that cannot be
// passed as one argument.
func checkRev(rev string) error {
	switch {
	case rev == "":
		return errors.New("empty ref")
	case strings.HasPrefix(rev, "-"):
		return fmt.Errorf("invalid ref %q: must not start with \"-\"", rev)
	case strings.ContainsAny(rev, "\x00\n\r"):
		return fmt.Errorf("invalid ref %q: contains a control character", rev)
	}
	return nil
}

// Resolve returns the full SHA of the commit rev names: a SHA (full or
// abbreviated), a branch, tag or remote-tracking branch, or any expression
// git rev-parse understands ("HEAD~2", "v1.2^{commit}").
//
// A branch name that is not a local branch is also looked up as
// <remote>/<name>. When rev is still not found, Resolve fetches it from the
// remote (without tags, and with --depth=1 only when the repository is
// already shallow) if that can help: a full SHA is fetched by SHA in any
// repository; a branch or tag name ("main", "origin/main", "refs/tags/v1",
// "refs/pull/7/merge") is fetched as refs/heads/<name>, then refs/tags/<name>,
// only in a shallow clone, where missing refs are expected. Fetching changes
// no refs: only objects, .git/shallow and, for a name, FETCH_HEAD.
//
// A rev that still cannot be found gives a *RefNotFoundError.
func (r *Repo) Resolve(ctx context.Context, rev string) (string, error) {
	if err := checkRev(rev); err != nil {
		return "", err
	}
	sha, verr := r.verify(ctx, rev)
	if verr == nil {
		return sha, nil
	}
	if ctx.Err() != nil {
		return "", verr
	}
	if isRefName(rev) && !isFullSHA(rev) && !strings.HasPrefix(rev, "refs/") && !strings.HasPrefix(rev, r.remote+"/") {
		tracking := "refs/remotes/" + r.remote + "/" + rev
		if sha, err := r.verify(ctx, tracking); err == nil {
			r.logf("%s is not a local branch; using %s/%s (%s)", rev, redact(r.remote), rev, Short(sha))
			return sha, nil
		}
	}
	shallow, err := r.IsShallow(ctx)
	if err != nil {
		return "", err
	}
	nf := &RefNotFoundError{Ref: rev, Remote: r.remote, VerifyErr: verr}
	switch {
	case isFullSHA(rev):
		why := "missing"
		if shallow {
			why = "missing from this shallow clone"
		}
		r.logf("commit %s is %s; fetching it from %s", Short(rev), why, redact(r.remote))
		if err := r.fetchSHA(ctx, strings.ToLower(rev), shallow); err != nil {
			if ctx.Err() != nil {
				return "", err
			}
			nf.FetchErr = err
			return "", nf
		}
		sha, err := r.verify(ctx, rev)
		if err != nil {
			nf.VerifyErr = err
			nf.Note = "fetched from " + redact(r.remote) + ", but it is not a commit"
			return "", nf
		}
		return sha, nil
	case shallow && isRefName(rev):
		var firstErr error
		for _, ref := range r.remoteRefs(rev) {
			r.logf("%s is missing from this shallow clone; fetching %s from %s", rev, ref, redact(r.remote))
			sha, err := r.fetchRef(ctx, ref)
			if err == nil {
				return sha, nil
			}
			if ctx.Err() != nil {
				return "", err
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		nf.FetchErr = firstErr
		if isHex(rev) {
			nf.Note = "an abbreviated SHA cannot be fetched: give the full SHA"
		}
		return "", nf
	case shallow:
		nf.Note = "this is a shallow clone, so history may be missing: fetch more of it (fetch-depth: 0) or give a full SHA"
	case isHex(rev):
		nf.Note = "an abbreviated SHA cannot be fetched: give the full SHA"
	}
	return "", nf
}

// remoteRefs lists the refs on the remote that rev may name.
func (r *Repo) remoteRefs(rev string) []string {
	switch {
	case strings.HasPrefix(rev, "refs/"):
		return []string{rev}
	case strings.HasPrefix(rev, r.remote+"/"):
		return []string{"refs/heads/" + strings.TrimPrefix(rev, r.remote+"/")}
	}
	return []string{"refs/heads/" + rev, "refs/tags/" + rev}
}

// fetchSHA fetches one commit by SHA. A complete repository is not made
// shallow: --depth is used only when it already is.
func (r *Repo) fetchSHA(ctx context.Context, sha string, shallow bool) error {
	args := []string{"fetch", "--no-tags", "--no-recurse-submodules", "--no-auto-gc", "--no-write-fetch-head"}
	if shallow {
		args = append(args, "--depth=1")
	}
	args = append(args, r.remote, sha)
	r.opMu.Lock()
	defer r.opMu.Unlock()
	_, err := r.git(ctx, args...)
	return err
}

// fetchRef fetches one ref into FETCH_HEAD (and nowhere else: the empty
// --refmap stops git from updating remote-tracking branches) and returns
// the commit it names.
func (r *Repo) fetchRef(ctx context.Context, ref string) (string, error) {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	if _, err := r.git(ctx, "fetch", "--no-tags", "--no-recurse-submodules", "--no-auto-gc",
		"--refmap=", "--depth=1", r.remote, ref); err != nil {
		return "", err
	}
	return r.verify(ctx, "FETCH_HEAD")
}

// ParentOf returns the n-th parent (1 for the first) of the commit rev
// names, like rev^n, fetching it when it is missing. It works in a depth-1
// clone, where rev^n is unknown to git: the parents are read from the commit
// object itself (git cat-file), and the parent is fetched by SHA.
//
// For a pull request's merge commit, ParentOf(merge, 1) is the base it was
// merged with and ParentOf(merge, 2) the pull request's head.
func (r *Repo) ParentOf(ctx context.Context, rev string, n int) (string, error) {
	if n < 1 {
		return "", fmt.Errorf("parent %d of %q: parents are numbered from 1", n, rev)
	}
	sha, err := r.Resolve(ctx, rev)
	if err != nil {
		return "", err
	}
	out, err := r.git(ctx, "cat-file", "commit", sha)
	if err != nil {
		return "", err
	}
	parents := parseParents(out)
	if n > len(parents) {
		return "", fmt.Errorf("commit %s (%s) has %d parent(s), so it has no parent %d", Short(sha), rev, len(parents), n)
	}
	p := parents[n-1]
	if _, err := r.verify(ctx, p); err == nil {
		return p, nil
	} else if ctx.Err() != nil {
		return "", err
	}
	shallow, err := r.IsShallow(ctx)
	if err != nil {
		return "", err
	}
	r.logf("parent %d of %s is %s, which is missing; fetching it from %s", n, Short(sha), Short(p), redact(r.remote))
	if err := r.fetchSHA(ctx, p, shallow); err != nil {
		return "", fmt.Errorf("parent %d of %s is %s, which is not in this repository, and fetching it from %s failed: %w",
			n, Short(sha), p, redact(r.remote), err)
	}
	return r.verify(ctx, p)
}

// parseParents returns the SHAs on the "parent" lines of a raw commit
// object's header, in order.
func parseParents(commit string) []string {
	var parents []string
	for _, line := range strings.Split(commit, "\n") {
		if line == "" {
			break // end of the header
		}
		if p, ok := strings.CutPrefix(line, "parent "); ok {
			parents = append(parents, strings.TrimSpace(p))
		}
	}
	return parents
}

func isHex(s string) bool {
	if len(s) < 4 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// isFullSHA reports whether s is a full SHA-1 or SHA-256 object name.
func isFullSHA(s string) bool {
	return (len(s) == 40 || len(s) == 64) && isHex(s)
}

// isRefName reports whether rev could be the name of a ref rather than an
// expression ("HEAD~2", "main@{1}", "v1^{tree}").
func isRefName(rev string) bool {
	if rev == "" || rev == "HEAD" || rev == "FETCH_HEAD" || strings.HasPrefix(rev, "/") ||
		strings.HasSuffix(rev, "/") || strings.HasSuffix(rev, ".lock") ||
		strings.Contains(rev, "..") || strings.Contains(rev, "@{") || strings.Contains(rev, "//") {
		return false
	}
	for _, c := range rev {
		if c <= ' ' || c == 0x7f || strings.ContainsRune(`~^:?*[\`, c) {
			return false
		}
	}
	return true
}

// Short is a commit hash cut to 12 characters, as messages show it.
func Short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// ShortRef is a revision as descriptions show it: a full commit name (40 or
// 64 hex digits) cut as [Short] cuts it, anything else (a branch, a tag,
// "HEAD~1") as given.
func ShortRef(rev string) string {
	if isFullSHA(rev) {
		return Short(rev)
	}
	return rev
}

// Commit returns the author ("Name <email>") and the message of the commit
// rev names, resolving it (and fetching it by SHA when it is missing, as
// in a depth-1 clone of a pull request's merge commit, whose second
// parent is the pull request's head) as Resolve does.
func (r *Repo) Commit(ctx context.Context, rev string) (author, message string, err error) {
	sha, err := r.Resolve(ctx, rev)
	if err != nil {
		return "", "", err
	}
	out, err := r.git(ctx, "log", "-1", "--no-show-signature", "--format=%an <%ae>%x00%B", sha, "--")
	if err != nil {
		return "", "", err
	}
	author, message, _ = strings.Cut(out, "\x00")
	return author, message, nil
}

// MergeBase returns the best common ancestor of the commits a and b (full
// SHAs, as Resolve returns them). In a shallow clone the history that
// joins them may be missing: it is fetched, deeper each time, and at last
// whole (--unshallow), until git finds the merge base. Two commits with no
// common history give an error.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	if !isFullSHA(a) || !isFullSHA(b) {
		return "", fmt.Errorf("merge base of %q and %q: want full commit names", a, b)
	}
	for _, depth := range []string{"", "--depth=64", "--depth=1024", "--unshallow"} {
		if depth != "" {
			shallow, err := r.IsShallow(ctx)
			if err != nil || !shallow {
				break
			}
			r.logf("the merge base of %s and %s is not in this shallow clone; fetching more history (%s) from %s", Short(a), Short(b), depth, redact(r.remote))
			if err := r.deepen(ctx, depth, a, b); err != nil {
				return "", fmt.Errorf("merge base of %s and %s: %w", Short(a), Short(b), err)
			}
		}
		out, err := r.git(ctx, "merge-base", a, b)
		if err == nil {
			return strings.TrimSpace(out), nil
		}
		if ctx.Err() != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("merge base of %s and %s: the commits have no common history", Short(a), Short(b))
}

// deepen fetches the history of the commits shas to the given depth
// option, changing no refs.
func (r *Repo) deepen(ctx context.Context, depth string, shas ...string) error {
	args := append([]string{"fetch", "--no-tags", "--no-recurse-submodules", "--no-auto-gc", "--no-write-fetch-head", depth, r.remote}, shas...)
	r.opMu.Lock()
	defer r.opMu.Unlock()
	_, err := r.git(ctx, args...)
	return err
}

// ErrNotRegular is wrapped by the error ReadFile returns for a path that
// is a symbolic link, a directory or a submodule in the commit.
var ErrNotRegular = errors.New("not a regular file")

// ReadFile returns the contents of the file at path (slash-separated,
// relative to the top level) in the commit rev names, without checking it
// out. A missing path gives an error matching fs.ErrNotExist, and so does a
// path through a directory that is a symbolic link in the commit (git
// follows no link); a symbolic link, a directory or a submodule is not
// read (ErrNotRegular), nor a file larger than max bytes.
func (r *Repo) ReadFile(ctx context.Context, rev, path string, max int64) ([]byte, error) {
	sha, err := r.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	out, err := r.git(ctx, "ls-tree", "-z", "--full-tree", sha, "--", path)
	if err != nil {
		return nil, err
	}
	entry, _, _ := strings.Cut(out, "\x00")
	meta, name, ok := strings.Cut(entry, "\t")
	if !ok || name != path {
		return nil, fmt.Errorf("%s in commit %s: %w", path, Short(sha), fs.ErrNotExist)
	}
	f := strings.Fields(meta) // mode, type, object
	if len(f) != 3 {
		return nil, fmt.Errorf("%s in commit %s: unexpected git ls-tree output %q", path, Short(sha), meta)
	}
	switch {
	case f[0] == "120000":
		return nil, fmt.Errorf("%s in commit %s: a symbolic link: %w", path, Short(sha), ErrNotRegular)
	case f[1] != "blob":
		return nil, fmt.Errorf("%s in commit %s: a %s: %w", path, Short(sha), f[1], ErrNotRegular)
	}
	size, err := r.git(ctx, "cat-file", "-s", f[2])
	if err != nil {
		return nil, err
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(size), 10, 64); err != nil || n > max {
		return nil, fmt.Errorf("%s in commit %s: larger than %d bytes", path, Short(sha), max)
	}
	data, err := r.git(ctx, "cat-file", "blob", f[2])
	if err != nil {
		return nil, err
	}
	return []byte(data), nil
}

// A Logged is a commit and its subject line.
type Logged struct{ SHA, Subject string }

// FirstParents returns the first-parent path from good to bad (full SHAs,
// as Resolve returns them): good, then each commit whose first parent is
// the one before it, ending with bad. It fails when good is not on bad's
// first-parent history.
func (r *Repo) FirstParents(ctx context.Context, good, bad string) ([]Logged, error) {
	if !isFullSHA(good) || !isFullSHA(bad) {
		return nil, fmt.Errorf("first parents of %q back to %q: want full commit names", bad, good)
	}
	out, err := r.git(ctx, "log", "--first-parent", "--reverse", "--no-show-signature", "--format=%H %P%x00%s", good+".."+bad, "--")
	if err != nil {
		return nil, err
	}
	_, subject, err := r.Commit(ctx, good)
	if err != nil {
		return nil, err
	}
	path := []Logged{{good, firstLine(subject)}}
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\n")
		ids, subj, _ := strings.Cut(line, "\x00")
		f := strings.Fields(ids)
		if len(f) < 2 || f[1] != path[len(path)-1].SHA {
			return nil, fmt.Errorf("%s is not on the first-parent history of %s", Short(good), Short(bad))
		}
		path = append(path, Logged{f[0], subj})
	}
	if path[len(path)-1].SHA != bad {
		return nil, fmt.Errorf("%s is not an ancestor of %s", Short(good), Short(bad))
	}
	return path, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
