// Package affected selects the packages a change can affect
// (--packages affected): the files that changed between base and head (Go,
// cgo and assembly files, embedded files, testdata), mapped to their packages
// and to every package that imports them, listed on both sides. A change to
// go.mod, go.sum, go.work or vendor/modules.txt of the build affects every
// package. The rules are in docs/affected.md.
package affected

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/benchgate/benchgate/internal/english"
)

// Tree is one side's checkout.
type Tree struct {
	// Root is the top-level directory of the work tree (the paths Changed
	// returns are relative to it); gitrev's Worktree.Path.
	Root string
	// Dir is where go list runs: the Go module's directory, or a directory
	// inside it; gitrev's Worktree.Dir.
	Dir string
}

// Options control Select.
type Options struct {
	// Patterns are the package patterns to choose from, as given to the
	// runner; default ./... .
	Patterns []string
	// Go runs the go command; nil means ExecGo(nil, nil).
	Go Runner
}

// Entry is a package or a changed file with the reason for what happened
// to it.
type Entry struct {
	Name   string // import path, or repository-relative file path
	Reason string
}

// Selection is the outcome of Select. All lists are sorted by Name.
type Selection struct {
	// All is set when a change affects every package (go.mod, go.sum, ...);
	// measuring the original patterns is then equivalent to Packages.
	All bool
	// Packages are the import paths of the affected packages, the patterns
	// to measure. Empty when nothing is affected.
	Packages []string
	// Affected says why each package in Packages is affected, e.g.
	// "depends on example.com/m/c (changed: c/c.go)".
	Affected []Entry
	// Skipped are the packages matched by the patterns that no change
	// affects, e.g. "no changed file in the package or its 3 dependencies
	// in this repository".
	Skipped []Entry
	// Ignored are the changed files that affect no package, e.g.
	// {"README.md", "outside the Go module"}.
	Ignored []Entry
	// Summary is one line for the report: "2 of 5 packages affected by 3
	// changed files; ignored: 1 outside the Go module".
	Summary string
}

// Select decides which packages matched by o.Patterns the changed files
// (repository-relative slash paths, as Changed returns them) affect, by
// listing the packages and their dependencies in both trees with go list.
// A base Tree with an empty Dir is not listed (head only; deleted files and
// removed packages are then missed). It fails when go list fails on a side.
func Select(ctx context.Context, base, head Tree, changed []string, o Options) (*Selection, error) {
	if head.Dir == "" || head.Root == "" {
		return nil, fmt.Errorf("affected packages: no head tree")
	}
	patterns := o.Patterns
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	goRun := o.Go
	if goRun == nil {
		goRun = ExecGo(nil, nil)
	}
	trees := []Tree{head}
	names := []string{"head"}
	if base.Dir != "" {
		trees = append(trees, base)
		names = append(names, "base")
	}
	sides := make([]*side, len(trees))
	errs := make([]error, len(trees))
	var wg sync.WaitGroup
	for i := range trees {
		wg.Go(func() { sides[i], errs[i] = list(ctx, names[i], trees[i], patterns, goRun) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("affected packages: %w", err)
		}
	}
	files := slices.Clone(changed)
	slices.Sort(files)
	files = slices.Compact(files)
	return decide(sides, files), nil
}

// touched maps a package id to the changed files that touch it, per side.
type touched []map[string][]string

func (t touched) add(i int, id, file string) {
	if f := t[i][id]; len(f) == 0 || f[len(f)-1] != file {
		t[i][id] = append(f, file)
	}
}

// decide classifies the changed files and then the root packages.
func decide(sides []*side, changed []string) *Selection {
	sel := &Selection{}
	hits := make(touched, len(sides))     // changed files of a package's build
	testHits := make(touched, len(sides)) // changed files of a package's own tests
	for i := range hits {
		hits[i] = map[string][]string{}
		testHits[i] = map[string][]string{}
	}
	triggers := map[string]bool{}
	mainMods := map[string]bool{}
	localMods := map[string]bool{}
	for _, s := range sides {
		for d := range s.localMods {
			localMods[d] = true
			triggers[join(d, "go.mod")] = true
			triggers[join(d, "go.sum")] = true
		}
		for d := range s.mainMods {
			mainMods[d] = true
			triggers[join(d, "vendor/modules.txt")] = true
			for _, a := range ancestors(d) {
				triggers[join(a, "go.work")] = true
				triggers[join(a, "go.work.sum")] = true
			}
		}
	}
	// packagesUnder touches every package at or below dir.
	packagesUnder := func(dir, file string) bool {
		hit := false
		for i, s := range sides {
			for id, p := range s.pkgs {
				if p.dir != "" && within(p.dir, dir) {
					hits.add(i, id, file)
					hit = true
				}
			}
		}
		return hit
	}
	var allFiles []string
	var outside, unused int
	testdata := map[string][]string{} // directory holding a testdata directory -> changed files in it
	for _, f := range changed {
		if td, ok := testdataDir(f); ok {
			// Testdata is read by the benchmarks running in its
			// directory or below; it does not travel with imports.
			found := false
			for _, s := range sides {
				for _, r := range s.roots {
					if d := s.pkgs[r].dir; d != "" && within(d, td) {
						found = true
					}
				}
			}
			if found {
				testdata[td] = append(testdata[td], f)
			} else {
				sel.Ignored = append(sel.Ignored, Entry{f, "testdata with no package at or below " + td})
				unused++
			}
			continue
		}
		if triggers[f] {
			allFiles = append(allFiles, f)
			continue
		}
		hit := false
		for i, s := range sides {
			for _, id := range s.files[f] {
				hits.add(i, id, f)
				hit = true
			}
			for _, id := range s.testFiles[f] {
				testHits.add(i, id, f)
				hit = true
			}
		}
		if hit {
			continue
		}
		if b := path.Base(f); (b == "go.mod" || b == "go.sum") && inAny(f, mainMods) {
			if packagesUnder(path.Dir(f), f) {
				continue
			}
		}
		// A submodule (gitlink) that changed is a path above files.
		if packagesUnder(f, f) {
			continue
		}
		if inAny(f, localMods) {
			sel.Ignored = append(sel.Ignored, Entry{f, "not used by any package (not a source, test, embedded or testdata file)"})
			unused++
		} else {
			sel.Ignored = append(sel.Ignored, Entry{f, "outside the Go module"})
			outside++
		}
	}
	if len(allFiles) > 0 {
		sel.All = true
	}

	// The root packages, on either side.
	rootSides := map[string][]int{}
	var roots []string
	for i, s := range sides {
		for _, r := range s.roots {
			if _, ok := rootSides[r]; !ok {
				roots = append(roots, r)
			}
			rootSides[r] = append(rootSides[r], i)
		}
	}
	slices.Sort(roots)
	headOnly := len(sides) == 1
	for _, r := range roots {
		own := map[string]bool{}          // changed files of the package itself
		depFiles := map[string][]string{} // changed dependency -> its changed files
		locals := map[string]bool{}       // local dependencies
		for _, i := range rootSides[r] {
			s := sides[i]
			for _, f := range testHits[i][r] {
				own[f] = true
			}
			for td, fs := range testdata {
				if d := s.pkgs[r].dir; d != "" && within(d, td) {
					for _, f := range fs {
						own[f] = true
					}
				}
			}
			for id := range closure(s, r) {
				p := s.pkgs[id]
				name := plain(id)
				self := name == r || name == r+"_test" || id == r+".test"
				if !self && p != nil && p.dir != "" {
					locals[name] = true
				}
				for _, f := range hits[i][id] {
					if self {
						own[f] = true
					} else {
						depFiles[name] = append(depFiles[name], f)
					}
				}
			}
		}
		var reason string
		switch {
		case sel.All:
			reason = list3(allFiles) + " changed"
		case len(own) > 0:
			reason = "changed: " + list3(sortedKeys(own))
		case len(depFiles) > 0:
			deps := make([]string, 0, len(depFiles))
			for d := range depFiles {
				deps = append(deps, d)
			}
			slices.Sort(deps)
			fs := depFiles[deps[0]]
			slices.Sort(fs)
			reason = fmt.Sprintf("depends on %s (changed: %s)", deps[0], list3(slices.Compact(fs)))
			if len(deps) > 1 {
				reason += fmt.Sprintf(" and %s", english.Plural(len(deps)-1, "more changed dependency", "more changed dependencies"))
			}
		}
		if reason == "" {
			what := fmt.Sprintf("its %s", english.Plural(len(locals), "dependency", "dependencies"))
			if len(locals) == 0 {
				what = "its dependencies (none)"
			}
			sel.Skipped = append(sel.Skipped, Entry{r, "no changed file in the package or " + what + " in this repository"})
			continue
		}
		if !headOnly && len(rootSides[r]) == 1 {
			// On one side only: the package, or its tests, came or went.
			other := sides[1-rootSides[r][0]]
			what := "new in head"
			if rootSides[r][0] == 1 {
				what = "removed in head"
			}
			if other.pkgs[r] != nil {
				what = "tests " + what
			}
			reason = what + "; " + reason
		}
		sel.Packages = append(sel.Packages, r)
		sel.Affected = append(sel.Affected, Entry{r, reason})
	}
	slices.SortFunc(sel.Ignored, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })

	total := len(roots)
	switch {
	case sel.All:
		sel.Summary = fmt.Sprintf("all %s affected: %s changed", english.Plural(total, "package", "packages"), list3(allFiles))
	case len(changed) == 0:
		sel.Summary = fmt.Sprintf("0 of %s affected: no file changed", english.Plural(total, "package", "packages"))
	default:
		sel.Summary = fmt.Sprintf("%d of %s affected by %s", len(sel.Packages), english.Plural(total, "package", "packages"), english.Plural(len(changed), "changed file", "changed files"))
		var ign []string
		if outside > 0 {
			ign = append(ign, fmt.Sprintf("%d outside the Go module", outside))
		}
		if unused > 0 {
			ign = append(ign, fmt.Sprintf("%d used by no package", unused))
		}
		if len(ign) > 0 {
			sel.Summary += "; ignored: " + strings.Join(ign, ", ")
		}
	}
	return sel
}

// closure returns the ids of root package r, its test variant and test
// main, and all their dependencies, as listed on side s.
func closure(s *side, r string) map[string]bool {
	set := map[string]bool{}
	for _, id := range []string{r, r + ".test"} {
		p := s.pkgs[id]
		if p == nil {
			continue
		}
		set[id] = true
		for _, d := range p.deps {
			set[d] = true
		}
	}
	return set
}

// testdataDir returns the directory holding the first testdata directory on
// file's path (go ignores everything below it).
func testdataDir(file string) (string, bool) {
	parts := strings.Split(file, "/")
	for i, p := range parts[:len(parts)-1] {
		if p == "testdata" {
			if i == 0 {
				return ".", true
			}
			return strings.Join(parts[:i], "/"), true
		}
	}
	return "", false
}

// inAny reports whether file is inside one of dirs.
func inAny(file string, dirs map[string]bool) bool {
	for d := range dirs {
		if within(file, d) {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// list3 names up to three items and counts the rest.
func list3(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:3], ", ") + fmt.Sprintf(" and %d more", len(items)-3)
}
