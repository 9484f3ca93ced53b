package gitrev

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A Command is one git invocation: git is run with Args (not including "git"
// itself) in directory Dir with exactly the environment Env.
type Command struct {
	Dir  string
	Args []string
	Env  []string
}

// A Runner runs one git command and returns what it wrote to standard output
// and standard error. err is non-nil when git could not be started or exited
// with a non-zero status; stderr is returned in either case.
//
// A Runner must execute git directly (never through a shell) and must stop
// it when ctx is done.
type Runner func(ctx context.Context, c Command) (stdout, stderr []byte, err error)

// waitDelay bounds how long ExecRunner waits for git to exit after it has
// been asked to stop before killing it.
const waitDelay = 10 * time.Second

// ExecRunner is the Runner used by default: it executes "git" from PATH with
// os/exec. When ctx is done, git is sent SIGTERM rather than SIGKILL (on
// Unix) so that it can remove its lock files and half-created worktrees; it
// is killed if it has not exited within a few seconds.
func ExecRunner(ctx context.Context, c Command) (stdout, stderr []byte, err error) {
	cmd := exec.CommandContext(ctx, "git", c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Cancel = func() error { return terminate(cmd) }
	cmd.WaitDelay = waitDelay
	err = cmd.Run()
	return out.Bytes(), errb.Bytes(), err
}

// CommandError reports a git command that failed. Its message is one line:
// the command as it would be typed, then git's standard error (or, when
// git wrote nothing, the reason it failed), e.g.
//
//	git rev-parse --verify "nope^{commit}": fatal: Needed a single revision
//
// Credentials embedded in URLs are redacted from both.
type CommandError struct {
	Args   []string // arguments after "git"
	Stderr string   // git's standard error, trimmed and redacted
	Err    error    // the runner's error, or the context's when it was cancelled
}

func (e *CommandError) Error() string {
	var b strings.Builder
	b.WriteString("git")
	for _, a := range e.Args {
		b.WriteByte(' ')
		b.WriteString(quoteArg(a))
	}
	b.WriteString(": ")
	msg := OneLine(e.Stderr)
	switch {
	case msg == "":
		b.WriteString(e.Err.Error())
	case errors.Is(e.Err, context.Canceled), errors.Is(e.Err, context.DeadlineExceeded):
		b.WriteString(e.Err.Error())
		b.WriteString(" (")
		b.WriteString(msg)
		b.WriteString(")")
	default:
		b.WriteString(msg)
	}
	return redact(b.String())
}

func (e *CommandError) Unwrap() error { return e.Err }

// safeArg matches arguments that read unambiguously without quotes.
var safeArg = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// quoteArg renders one argument for an error message: as is when it is
// plain, otherwise as a Go string literal.
func quoteArg(a string) string {
	if safeArg.MatchString(a) {
		return a
	}
	return strconv.Quote(a)
}

// OneLine joins the non-empty lines of a tool's stderr with "; ",
// leaving out git's "hint:" advice, so that an error stays on one line.
func OneLine(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "hint:") {
			continue
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "; ")
}

// userinfo matches the user[:password]@ part of a URL.
var userinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^\s/@'"]+@`)

// redact hides credentials embedded in URLs ("https://x-access-token:TOKEN@host").
func redact(s string) string {
	return userinfo.ReplaceAllString(s, "${1}***@")
}

// Environment variables that would point git at a repository other than
// the one Open found (as listed by "git rev-parse --local-env-vars"). They
// are set, for example, when benchgate runs from a git hook; keeping them
// would make git ignore the directory it runs in, or write the user's index.
var repoLocationVars = map[string]bool{
	"GIT_DIR":                          true,
	"GIT_WORK_TREE":                    true,
	"GIT_IMPLICIT_WORK_TREE":           true,
	"GIT_INDEX_FILE":                   true,
	"GIT_OBJECT_DIRECTORY":             true,
	"GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
	"GIT_COMMON_DIR":                   true,
	"GIT_GRAFT_FILE":                   true,
	"GIT_SHALLOW_FILE":                 true,
	"GIT_PREFIX":                       true,
	"GIT_INTERNAL_SUPER_PREFIX":        true,
}

// IsRepoLocationVar reports whether the environment variable name points git
// at a repository other than the one it runs in (GIT_DIR, GIT_WORK_TREE,
// GIT_INDEX_FILE, …): variables to remove from any git child's environment.
func IsRepoLocationVar(name string) bool { return repoLocationVars[name] }

// gitEnv returns the environment every git command runs with: base, minus
// the repository-location variables, plus GIT_TERMINAL_PROMPT=0 and the
// command-scope setting safe.directory=* appended after any GIT_CONFIG_COUNT
// entries base already has.
func gitEnv(base []string) ([]string, error) {
	last := map[string]string{} // the value exec would use: the last one wins
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		last[k] = v
	}
	n := 0
	if s, ok := last["GIT_CONFIG_COUNT"]; ok && s != "" {
		var err error
		n, err = strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("environment variable GIT_CONFIG_COUNT=%q is not a count", s)
		}
	}
	key := "GIT_CONFIG_KEY_" + strconv.Itoa(n)
	value := "GIT_CONFIG_VALUE_" + strconv.Itoa(n)
	env := make([]string, 0, len(base)+4)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case repoLocationVars[k], k == "GIT_TERMINAL_PROMPT", k == "GIT_CONFIG_COUNT", k == key, k == value:
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_COUNT="+strconv.Itoa(n+1),
		key+"=safe.directory",
		value+"=*",
	), nil
}
