package affected

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
)

// listFields are the go list fields Select reads: identity, dependencies,
// module, and every list of files that go list attributes to a package.
var listFields = []string{
	"ImportPath", "Dir", "ForTest", "Match", "Module", "Deps",
	"GoFiles", "CgoFiles", "IgnoredGoFiles", "IgnoredOtherFiles",
	"CFiles", "CXXFiles", "MFiles", "HFiles", "FFiles", "SFiles",
	"SwigFiles", "SwigCXXFiles", "SysoFiles",
	"TestGoFiles", "XTestGoFiles",
	"EmbedFiles", "TestEmbedFiles", "XTestEmbedFiles",
}

type listModule struct {
	Main bool
	Dir  string
}

// listPackage is one record of go list -json.
type listPackage struct {
	ImportPath string
	Dir        string
	ForTest    string
	Match      []string
	Module     *listModule
	Deps       []string

	GoFiles, CgoFiles, IgnoredGoFiles, IgnoredOtherFiles []string
	CFiles, CXXFiles, MFiles, HFiles, FFiles, SFiles     []string
	SwigFiles, SwigCXXFiles, SysoFiles                   []string
	TestGoFiles, XTestGoFiles                            []string
	EmbedFiles, TestEmbedFiles, XTestEmbedFiles          []string
}

// buildFiles are the files of the package as other packages import it
// (for a test variant, "p [p.test]", they include p's _test.go files).
func (p *listPackage) buildFiles() [][]string {
	return [][]string{
		p.GoFiles, p.CgoFiles, p.IgnoredGoFiles, p.IgnoredOtherFiles,
		p.CFiles, p.CXXFiles, p.MFiles, p.HFiles, p.FFiles, p.SFiles,
		p.SwigFiles, p.SwigCXXFiles, p.SysoFiles, p.EmbedFiles,
	}
}

// testFiles are the files only the package's own tests use.
func (p *listPackage) testFiles() [][]string {
	return [][]string{p.TestGoFiles, p.XTestGoFiles, p.TestEmbedFiles, p.XTestEmbedFiles}
}

func (p *listPackage) hasTests() bool {
	return len(p.TestGoFiles)+len(p.XTestGoFiles) > 0
}

// pkg is one package (or test variant, or test main) of one side.
type pkg struct {
	id   string // the import path as go list prints it: "p", "p [p.test]", "p_test [p.test]", "p.test"
	dir  string // directory relative to the tree's root, slash-separated; "" outside the tree
	deps []string
}

// side is what go list says about one tree. Files are relative to the
// tree's root, slash-separated.
type side struct {
	name      string
	pkgs      map[string]*pkg
	roots     []string            // import paths of the packages with tests the patterns matched
	files     map[string][]string // file -> ids of the packages whose build uses it
	testFiles map[string][]string // _test.go or test-embedded file -> the package whose tests use it
	localMods map[string]bool     // module directories in the tree (main and replaced)
	mainMods  map[string]bool     // main module directories in the tree
}

// list runs go list -deps -test over the patterns in t.Dir and indexes the
// result by repository-relative path.
func list(ctx context.Context, name string, t Tree, patterns []string, goRun Runner) (*side, error) {
	args := append([]string{"list", "-e", "-deps", "-test", "-json=" + strings.Join(listFields, ","), "--"}, patterns...)
	out, err := goRun(ctx, t.Dir, args...)
	if err != nil {
		return nil, fmt.Errorf("%s side: %w", name, err)
	}
	root, err := realPath(t.Root)
	if err != nil {
		return nil, fmt.Errorf("%s side: %w", name, err)
	}
	s := &side{name: name, pkgs: map[string]*pkg{}, files: map[string][]string{}, testFiles: map[string][]string{}, localMods: map[string]bool{}, mainMods: map[string]bool{}}
	rels := map[string]string{} // absolute directory -> relative ("" outside)
	rel := func(dir string) string {
		if dir == "" {
			return ""
		}
		if r, ok := rels[dir]; ok {
			return r
		}
		r := ""
		if real, err := realPath(dir); err == nil {
			if x, err := filepath.Rel(root, real); err == nil && x != ".." && !strings.HasPrefix(x, ".."+string(filepath.Separator)) {
				r = filepath.ToSlash(x)
			}
		}
		rels[dir] = r
		return r
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var lp listPackage
		if err := dec.Decode(&lp); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s side: reading go list output: %w", name, err)
		}
		p := &pkg{id: lp.ImportPath, dir: rel(lp.Dir), deps: lp.Deps}
		if p.dir != "" {
			index := func(m map[string][]string, lists [][]string) {
				for _, list := range lists {
					for _, f := range list {
						if filepath.IsAbs(f) {
							continue // generated (the test main), in the build cache
						}
						f = join(p.dir, filepath.ToSlash(f))
						m[f] = append(m[f], p.id)
					}
				}
			}
			index(s.files, lp.buildFiles())
			if lp.ForTest == "" {
				// A dependency's tests are not part of the dependents'
				// test binaries: only the package's own.
				index(s.testFiles, lp.testFiles())
			}
		}
		if m := lp.Module; m != nil {
			if d := rel(m.Dir); d != "" {
				s.localMods[d] = true
				if m.Main {
					s.mainMods[d] = true
				}
			}
		}
		s.pkgs[p.id] = p
		if len(lp.Match) > 0 && lp.ForTest == "" && lp.Dir != "" && lp.hasTests() {
			s.roots = append(s.roots, lp.ImportPath)
		}
	}
	return s, nil
}

// realPath is the absolute path of dir with symbolic links resolved, so that
// go list's directories and the tree's root compare.
func realPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}

// join joins slash paths, treating "." as the root.
func join(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

// within reports whether slash path p is dir or below it.
func within(p, dir string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// plain strips the test-variant suffix: "p [p.test]" -> "p".
func plain(id string) string {
	if i := strings.Index(id, " ["); i >= 0 {
		return id[:i]
	}
	return id
}

// ancestors returns dir and every directory above it, up to ".".
func ancestors(dir string) []string {
	var out []string
	for {
		out = append(out, dir)
		if dir == "." || dir == "" {
			return out
		}
		dir = path.Dir(dir)
	}
}
