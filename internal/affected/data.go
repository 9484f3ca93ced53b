package affected

import (
	"path"
	"path/filepath"
	"strings"
)

// DataChanged reports whether a changed file (a slash path relative to
// root, as Changed gives them) may be read by the benchmarks of the
// package in directory dir (absolute, inside root) without being part of
// its test binary, so that test binaries that run the same code on both sides do
// not mean the benchmarks run the same:
//
//   - any file in dir or below it (testdata, fixtures, files a benchmark
//     opens by name; benchmarks run in their package's directory), except
//     compiled sources outside testdata (Go, assembly, C and C++, .syso:
//     the binary holds what they compile to) and documents (*.md, *.rst,
//     *.adoc, README, LICENSE, CHANGELOG and the like, and dot files such
//     as .gitignore or .github/);
//   - any file under a testdata directory of a directory above dir, up to
//     root (a benchmark may read ../testdata), as --packages affected
//     counts them.
//
// A dir outside root counts as changed (true) when anything changed.
func DataChanged(changed []string, root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return len(changed) > 0
	}
	rel = filepath.ToSlash(rel)
	for _, f := range changed {
		if within(f, rel) {
			if !compiledOrDoc(strings.TrimPrefix(f, rel+"/")) {
				return true
			}
			continue
		}
		if td, ok := testdataDir(f); ok && within(rel, td) {
			return true
		}
	}
	return false
}

// compiledOrDoc reports whether a changed file under a package's
// directory (sub, relative to it) is a compiled source file outside
// testdata or a document.
func compiledOrDoc(sub string) bool {
	if strings.Contains("/"+sub, "/testdata/") {
		return false
	}
	for _, part := range strings.Split(sub, "/") {
		if strings.HasPrefix(part, ".") {
			return true // .gitignore, .github/, .golangci.yml
		}
	}
	base := path.Base(sub)
	switch strings.ToLower(path.Ext(base)) {
	case ".go", ".s", ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".m", ".syso":
		return true
	case ".md", ".markdown", ".rst", ".adoc":
		return true
	}
	name := strings.ToUpper(strings.TrimSuffix(base, path.Ext(base)))
	for _, doc := range []string{"README", "LICENSE", "LICENCE", "COPYING", "NOTICE", "AUTHORS", "CONTRIBUTORS", "CHANGELOG", "CHANGES", "HISTORY", "CODEOWNERS", "SECURITY", "PATENTS"} {
		if name == doc {
			return true
		}
	}
	return false
}
