package affected

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/sandbox"
)

// A Runner runs one program (git for Changed, go for Select) with args in
// directory dir and returns its standard output. A failure is an error whose
// message names the command and carries the program's standard error.
type Runner func(ctx context.Context, dir string, args ...string) ([]byte, error)

// ExecGit returns the Runner Changed uses by default: git from PATH, run
// directly (no shell) with env (nil: the process environment). Like gitrev,
// it removes the variables that point git at another repository (GIT_DIR
// and the rest of "git rev-parse --local-env-vars" that locate repository
// files; they are set inside git hooks) and passes safe.directory=* in the
// command scope, so that git works in a checkout owned by another user, as
// in the action's container; no configuration file is written.
func ExecGit(env []string) Runner {
	if env == nil {
		env = os.Environ()
	}
	var clean []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !gitrev.IsRepoLocationVar(k) {
			clean = append(clean, kv)
		}
	}
	return func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		full := append([]string{"-c", "safe.directory=*"}, args...)
		return run(ctx, dir, clean, "git", full, args)
	}
}

// ExecGo returns the Runner Select uses by default: the go command from
// PATH with env (nil: the process environment), run as the user cred (nil:
// benchgate's). Give it the environment and user the benchmarks are built
// with: GOFLAGS (build tags, -mod=vendor), GOOS and GOARCH decide which files
// belong to a package, and go list reads the change's go.mod.
func ExecGo(env []string, cred *syscall.Credential) Runner {
	return func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		return runAs(ctx, dir, env, cred, "go", args, args)
	}
}

// run executes name with args; shown are the arguments its error message
// names (without options added for every call).
func run(ctx context.Context, dir string, env []string, name string, args, shown []string) ([]byte, error) {
	return runAs(ctx, dir, env, nil, name, args, shown)
}

func runAs(ctx context.Context, dir string, env []string, cred *syscall.Credential, name string, args, shown []string) ([]byte, error) {
	// A process group of its own, killed whole on cancellation, as every
	// process that reads the change: go list may start helpers of its own.
	cmd := sandbox.Command(ctx, cred, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	msg := gitrev.OneLine(stderr.String())
	if msg == "" || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		msg = err.Error()
	}
	return stdout.Bytes(), &CommandError{Command: name + " " + strings.Join(shown, " "), Stderr: msg, Err: err}
}

// CommandError is a git or go command that failed.
type CommandError struct {
	Command string // as typed, e.g. "git diff --name-only -z --no-renames A B --"
	Stderr  string // its standard error on one line, or why it could not run
	Err     error
}

func (e *CommandError) Error() string { return fmt.Sprintf("%s: %s", e.Command, e.Stderr) }

func (e *CommandError) Unwrap() error { return e.Err }
