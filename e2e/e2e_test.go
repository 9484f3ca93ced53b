// Package e2e runs benchgate's end-to-end scripts (testdata/*.txtar): the
// real binary on real git repositories built by each script, measuring real
// Go modules with go test. They take a minute or two, so they run only when
// BENCHGATE_E2E=1 (as .ci/run does); `go test ./...` skips them.
//
// Scripts call `benchgate ARGS` and `benchgate-exit N ARGS`, which runs
// benchgate and fails unless its exit status is N. Update the golden parts
// with `BENCHGATE_E2E=1 go test ./e2e -update`.
package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/benchgate/benchgate/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the scripts' golden files")

func runCLI(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return cli.Run(ctx, args, cli.Env{Getenv: os.Getenv, Environ: os.Environ(), Stdout: os.Stdout, Stderr: os.Stderr})
}

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"benchgate": func() { os.Exit(runCLI(os.Args[1:])) },
		"benchgate-exit": func() {
			want, err := strconv.Atoi(os.Args[1])
			if err != nil {
				fmt.Fprintln(os.Stderr, "usage: benchgate-exit N ARGS...")
				os.Exit(100)
			}
			if got := runCLI(os.Args[2:]); got != want {
				fmt.Fprintf(os.Stderr, "benchgate exited with status %d, want %d\n", got, want)
				os.Exit(101)
			}
			os.Exit(0)
		},
	})
}

func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

func TestScripts(t *testing.T) {
	if os.Getenv("BENCHGATE_E2E") != "1" {
		t.Skip("end-to-end scripts run with BENCHGATE_E2E=1 (see .ci/run)")
	}
	gocache, gomodcache, gopath := goEnv(t, "GOCACHE"), goEnv(t, "GOMODCACHE"), goEnv(t, "GOPATH")
	testscript.Run(t, testscript.Params{
		Dir:           "testdata",
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			for k, v := range map[string]string{
				"HOME": home, "GOCACHE": gocache, "GOMODCACHE": gomodcache, "GOPATH": gopath,
				"GOPROXY": "off", "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local",
				"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
				"GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
				"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, ".gitconfig"),
			} {
				e.Setenv(k, v)
			}
			return os.MkdirAll(home, 0o755)
		},
	})
}
