package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/benchgate/benchgate/internal/safefile"
)

// pkg is one Go package of one side.
type pkg struct {
	ImportPath string
	Dir        string
	HasTests   bool
	Binary     string // path of the built test binary
}

// BuildError means a side's test binaries do not compile. Output is the
// compiler's output; callers show it and exit 3.
type BuildError struct {
	Side    string
	Package string
	Command string
	Output  string
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("%s side: package %s does not build (%s):\n%s", e.Side, e.Package, e.Command, strings.TrimRight(e.Output, "\n"))
}

// listPackages expands patterns in the side's module directory. Patterns that
// match nothing on this side are not an error: the package may exist only on
// the other side.
func listPackages(ctx context.Context, s Side, patterns []string, o *Options) ([]pkg, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,TestGoFiles,XTestGoFiles,Error,Match"}, patterns...)
	c := o.goCommand(s.Dir, args...)
	out, err := c.run(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s side: %w\n%s", s.Name, err, strings.TrimSpace(string(out.Stderr)))
	}
	dec := json.NewDecoder(bytes.NewReader(out.Stdout))
	var pkgs []pkg
	for {
		var p struct {
			ImportPath, Dir           string
			TestGoFiles, XTestGoFiles []string
			Error                     *struct{ Err string }
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s side: go list output: %w", s.Name, err)
		}
		if p.Error != nil {
			// A pattern naming a directory that does not exist on this
			// side, or matching nothing: the package is absent here.
			if p.Dir == "" || strings.Contains(p.Error.Err, "no Go files") || strings.Contains(p.Error.Err, "directory not found") {
				continue
			}
		}
		pkgs = append(pkgs, pkg{ImportPath: p.ImportPath, Dir: p.Dir, HasTests: len(p.TestGoFiles)+len(p.XTestGoFiles) > 0})
	}
	return pkgs, nil
}

// buildSide compiles one test binary per package with tests, sequentially (the
// go command parallelizes each build itself). Binaries go to binDir; the
// combined compiler output is appended to log when it is not nil. first,
// if not nil, is called once the first build has finished (or failed).
func buildSide(ctx context.Context, s Side, pkgs []pkg, binDir string, o *Options, log io.Writer, first func()) ([]pkg, error) {
	if first != nil {
		defer first() // also on errors and when there is nothing to build
	}
	if err := os.MkdirAll(binDir, 0o700); err != nil {
		return nil, err
	}
	if cr := o.Credential; cr != nil {
		// The compiler runs as the sandbox user: the directory is theirs
		// until seal takes it back.
		if err := os.Chown(binDir, int(cr.Uid), int(cr.Gid)); err != nil {
			return nil, err
		}
		defer func() { _ = seal(binDir) }()
	}
	var built []pkg
	for i, p := range pkgs {
		if !p.HasTests {
			continue
		}
		p.Binary = filepath.Join(binDir, strconv.Itoa(i)+".test")
		// -trimpath: the worktree's location does not enter the binary
		// (file names become module-relative), so that identical sources
		// give byte-identical binaries on both sides (sameBinaries).
		c := o.goCommand(s.Dir, "test", "-c", "-trimpath", "-o", p.Binary, p.ImportPath)
		out, err := c.run(ctx)
		if first != nil {
			first()
			first = nil
		}
		if log != nil {
			fmt.Fprintf(log, "$ %s\n%s%s", c.String(), out.Stdout, out.Stderr)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &BuildError{Side: s.Name, Package: p.ImportPath, Command: c.String(), Output: string(out.Stderr) + string(out.Stdout)}
		}
		if _, err := os.Stat(p.Binary); err != nil {
			continue // no test files after all (build constraints)
		}
		built = append(built, p)
	}
	return built, nil
}

// buildBoth lists and builds both sides concurrently, but head's first build
// starts only once base's first build is done: the two sides share most
// dependencies, and two cold builds side by side would compile them twice
// (measured: 22 s instead of 12 s for a small module with an empty cache).
func buildBoth(ctx context.Context, sides [2]Side, o *Options) ([2][]pkg, error) {
	var res [2][]pkg
	var errs [2]error
	var wg sync.WaitGroup
	baseFirst := make(chan struct{})
	var once sync.Once
	signal := func() { once.Do(func() { close(baseFirst) }) }
	for i, s := range sides {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 0 {
				defer signal() // on every path: head must never wait forever
			}
			var log io.Writer
			if o.LogDir != "" {
				f, err := safefile.Create(filepath.Join(o.LogDir, "build-"+s.Name+".log"), 0o644)
				if err != nil {
					errs[i] = err
					return
				}
				defer f.Close()
				log = f
			}
			pkgs, err := listPackages(ctx, s, o.Packages, o)
			if err != nil {
				errs[i] = err
				return
			}
			var first func()
			if i == 0 {
				first = signal
			} else {
				select {
				case <-baseFirst:
				case <-ctx.Done():
				}
			}
			res[i], errs[i] = buildSide(ctx, s, pkgs, filepath.Join(o.BinDir, s.Name), o, log, first)
		}()
	}
	wg.Wait()
	return res, errors.Join(errs[0], errs[1])
}
