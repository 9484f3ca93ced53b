package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFuzzTargetsInCI: .ci/run fuzzes every fuzz target of the module
// (package:FuzzName), and each has a committed seed corpus beside the
// seeds in its code (testdata/fuzz/FuzzName), so that a new reader of
// untrusted input is not left out.
func TestFuzzTargetsInCI(t *testing.T) {
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(internal/[a-z/]+):(Fuzz[A-Za-z]+)`).FindAllStringSubmatch(string(ci), -1) {
		listed[m[1]+":"+m[2]] = true
	}
	decl := regexp.MustCompile(`(?m)^func (Fuzz[A-Za-z]+)\(f \*testing\.F\)`)
	found := map[string]bool{}
	err = filepath.WalkDir("internal", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			target := filepath.Dir(p) + ":" + m[1]
			found[target] = true
			if !listed[target] {
				t.Errorf(".ci/run does not fuzz %s", target)
			}
			if es, err := os.ReadDir(filepath.Join(filepath.Dir(p), "testdata", "fuzz", m[1])); err != nil || len(es) == 0 {
				t.Errorf("%s has no seed corpus in testdata/fuzz/%s", target, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for target := range listed {
		if !found[target] {
			t.Errorf(".ci/run fuzzes %s, which does not exist", target)
		}
	}
}
