package main

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// DESIGN.md's layers are the import graph's order: a package imports only
// packages of lower layers. This test reads the layers from DESIGN.md and
// every import of every non-test Go file under internal/ and fails on an
// edge that goes up or sideways, and on a package the document does not
// place (or places but does not exist).
func TestDesignLayers(t *testing.T) {
	const module = "github.com/benchgate/benchgate/"
	layers := designLayers(t)
	dirs := map[string]bool{}
	err := filepath.WalkDir("internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := strings.TrimPrefix(filepath.ToSlash(filepath.Dir(path)), "internal/")
		dirs[pkg] = true
		from, ok := layers[pkg]
		if !ok {
			t.Errorf("DESIGN.md places no layer for internal/%s", pkg)
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			dep, ok := strings.CutPrefix(p, module+"internal/")
			if !ok {
				continue
			}
			if to, placed := layers[dep]; placed && to >= from {
				t.Errorf("%s imports internal/%s: layer %d imports layer %d (DESIGN.md: only lower layers)", path, dep, from, to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range layers {
		if !dirs[pkg] {
			t.Errorf("DESIGN.md places internal/%s, which has no Go files", pkg)
		}
	}
}

// The run's facts flow up into the words: pipeline returns a Record of
// values and report, above it, words them, so that no stage writes a
// sentence or a report's type. DESIGN.md keeps that order.
func TestDesignReportAbovePipeline(t *testing.T) {
	layers := designLayers(t)
	for _, below := range []string{"pipeline", "runner", "gate", "explain", "affected", "shard", "policy", "sandbox"} {
		if layers["report"] <= layers[below] {
			t.Errorf("DESIGN.md places report (layer %d) at or below %s (layer %d): report words what %s returns", layers["report"], below, layers[below], below)
		}
	}
}

var layerLine = regexp.MustCompile(`^\s+layer (\d+): (.+)$`)

// designLayers reads DESIGN.md's "layer N: pkg pkg ..." lines.
func designLayers(t *testing.T) map[string]int {
	f, err := os.Open("DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	layers := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := layerLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		for _, pkg := range strings.Fields(m[2]) {
			if _, dup := layers[pkg]; dup {
				t.Errorf("DESIGN.md places %s twice", pkg)
			}
			layers[pkg] = n
		}
	}
	if len(layers) == 0 {
		t.Fatal("DESIGN.md has no layer lines")
	}
	if !slices.Contains(slices.Collect(maps.Keys(layers)), "cli") {
		t.Error("DESIGN.md places no cli")
	}
	return layers
}
