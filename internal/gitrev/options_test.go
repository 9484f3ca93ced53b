package gitrev

// Options and accessors only the tests use.

// WithRunner runs git through r instead of ExecRunner (a fake, or a
// recorder around ExecRunner).
func WithRunner(r Runner) Option { return func(o *options) { o.run = r } }

// WithLogf reports progress (fetches, worktrees created and removed) through
// logf, one line per call without a trailing newline. The default is silent.
func WithLogf(logf func(format string, args ...any)) Option {
	return func(o *options) { o.logf = logf }
}

// GitDir returns the repository's .git directory (the one shared by all its
// worktrees), which RestoreOwnership walks.
func (r *Repo) GitDir() string { return r.commonDir }
