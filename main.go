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
	"os"
	"os/signal"
	"syscall"

	"github.com/benchgate/benchgate/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Env{Getenv: os.Getenv, Environ: os.Environ(), Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}
