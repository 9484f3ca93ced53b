package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// goVersions asks the go command which toolchain it builds each side with:
// `go env GOVERSION` in the side's directory, with the environment the
// builds use. The go command selects the toolchain (GOTOOLCHAIN, and the
// go and toolchain lines of go.mod or go.work) before it runs any
// subcommand, so with GOTOOLCHAIN=auto this is the toolchain that the
// module asks for ("go1.27.0"), downloaded if need be, and not
// necessarily the go on PATH. Both sides are asked concurrently.
//
// An error means the go command could not even start in that directory
// (typically: the toolchain go.mod asks for cannot be downloaded); the
// builds would fail the same way.
func goVersions(ctx context.Context, sides [2]Side, o *Options) ([2]string, error) {
	var vers [2]string
	var errs [2]error
	var wg sync.WaitGroup
	for i, s := range sides {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := o.goCommand(s.Dir, "env", "GOVERSION")
			out, err := c.run(ctx)
			if err != nil {
				errs[i] = fmt.Errorf("%s side: %w\n%s", s.Name, err, strings.TrimSpace(string(out.Stderr)))
				return
			}
			vers[i] = CleanGoVersion(string(out.Stdout))
		}()
	}
	wg.Wait()
	return vers, errors.Join(errs[0], errs[1])
}

// maxGoVersion bounds a recorded Go version, in bytes. A development
// toolchain's is the longest: "devel go1.27-abcdef1234 Tue Jan 6 10:00:00
// 2026 +0000".
const maxGoVersion = 100

// CleanGoVersion reduces a Go version, such as the output of `go env
// GOVERSION` or one read from a shard manifest, to one safe line:
// the first line, trimmed, at most maxGoVersion bytes, every character
// outside letters, digits, space and . _ + - : , = / replaced by "_". The
// text ends up in reports and on stderr, where it must not start a Markdown
// construct or a workflow command ("##[", and "::" only at the start of a
// line, which a version never is in benchgate's output).
func CleanGoVersion(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte(" ._+-:,=/", c) >= 0:
		default:
			b[i] = '_'
		}
	}
	if len(b) > maxGoVersion {
		b = b[:maxGoVersion]
	}
	return string(b)
}

// toolchainProgress completes the progress line announcing the builds.
func toolchainProgress(v [2]string) string {
	if v[0] == v[1] {
		return " with " + v[0]
	}
	return fmt.Sprintf(" with different Go toolchains: base %s, head %s", v[0], v[1])
}
