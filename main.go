//go:build unix

// Command benchgate answers, for a change to a Go project: did it make the
// benchmarks slower, or make them allocate more? It runs the benchmarks of
// the base and head commits interleaved, round by round, judges time/op with
// a significance test and a minimum delta, judges allocs/op and B/op exactly,
// writes a Markdown and JSON report, and exits 0 (pass), 1 (regression),
// 2 (usage or input error) or 3 (could not finish).
//
//	benchgate run --base REV [--head REV] [flags] [packages]
//	benchgate compare BASE.txt HEAD.txt [flags]
//	benchgate demo
//
// See README.md, and docs/ for the flags (docs/reference.md), the report
// formats (docs/reports.md) and the GitHub Action (docs/action.md).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/cli"
)

// grace is how long benchgate may take to stop after SIGINT or SIGTERM:
// it cancels what it is doing, stops the benchmarks, removes its
// worktrees and writes a partial report, which takes well under a second;
// past grace, or at a second signal, it exits at once (status 3), leaving
// what it wrote and what it could not clean up.
const grace = 5 * time.Second

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		cancel()
		fmt.Fprintf(os.Stderr, "benchgate: %s: stopping (a second signal exits at once)\n", name(s))
		why := ""
		select {
		case s2 := <-sigs:
			why = fmt.Sprintf("%s after %s", name(s2), name(s))
		case <-time.After(grace):
			why = fmt.Sprintf("still not stopped %v after %s", grace, name(s))
		}
		fmt.Fprintf(os.Stderr, "benchgate: %s: exiting now; what it wrote stays, and its temporary files and worktrees may be left behind\n", why)
		os.Exit(cli.ExitTool)
	}()
	code := cli.Run(ctx, os.Args[1:], cli.Env{Getenv: os.Getenv, Environ: os.Environ(), Stdout: os.Stdout, Stderr: os.Stderr})
	os.Exit(code)
}

// name is "SIGTERM" or "SIGINT".
func name(s os.Signal) string {
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}
