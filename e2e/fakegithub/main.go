// Command fakegithub serves benchgate's fake GitHub REST API
// (internal/github/githubtest) as a process, for scripts that run benchgate
// the way the Actions runner does, such as scripts/docker-e2e.sh.
//
//	fakegithub [-addr 127.0.0.1:0] [-token T] [-login L] [-type Bot|User] [-readonly] [-url-file F]
//
// It listens on -addr (port 0 picks a free port), prints the API URL to use as
// GITHUB_API_URL (http://ADDR/api/v3) as its first line of standard output,
// writes the same line to -url-file if given, and serves until SIGINT or
// SIGTERM. Comments, pull requests (POST /_fake/pulls, for a workflow_run
// job's pr-number check), requests, faults and read-only mode are inspected and
// controlled through the /_fake/ routes documented in githubtest.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/github/githubtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakegithub", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address; port 0 picks a free port")
	token := fs.String("token", "", "token required as \"Authorization: Bearer TOKEN\" (empty: any)")
	login := fs.String("login", "", "author of comments created through the API (default github-actions[bot])")
	userType := fs.String("type", "", "account type of -login: Bot or User (default Bot for github-actions[bot], else User)")
	readOnly := fs.Bool("readonly", false, "answer every write with 403, as for a fork's token")
	urlFile := fs.String("url-file", "", "also write the API URL to this file, once listening")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fakegithub: unexpected argument %q\n", fs.Arg(0))
		return 2
	}

	fake := githubtest.New(githubtest.Config{Token: *token, Login: *login, UserType: *userType, ReadOnly: *readOnly})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "fakegithub: %v\n", err)
		return 1
	}
	url := "http://" + ln.Addr().String() + fake.Prefix()
	fmt.Fprintln(stdout, url)
	if *urlFile != "" {
		// Write then rename, so a script polling for the file never reads half a line.
		tmp := *urlFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(url+"\n"), 0o644); err == nil {
			err = os.Rename(tmp, *urlFile)
		}
		if err != nil {
			ln.Close()
			fmt.Fprintf(stderr, "fakegithub: -url-file: %v\n", err)
			return 1
		}
	}

	srv := &http.Server{Handler: fake, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "fakegithub: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		fmt.Fprintf(stderr, "fakegithub: shutdown: %v\n", err)
		return 1
	}
	return 0
}
