package explain

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTreeTrimpath: a -trimpath binary names the module's files by module
// path (callgrind with "./" before it); they are the module's, relative to
// its root, and nothing else is.
func TestTreeTrimpath(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("// a comment\nmodule example.com/m // trailing\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := newTree(root)
	for _, c := range []struct {
		file, rel string
		in        bool
	}{
		{"example.com/m/sub/x.go", "sub/x.go", true},
		{"./example.com/m/x.go", "x.go", true},
		{filepath.Join(root, "y.go"), "y.go", true},
		{"example.com/mx/y.go", "example.com/mx/y.go", false},
		{"example.com/m/", "example.com/m/", false},
		{"runtime/proc.go", "runtime/proc.go", false},
		{"example.com/dep@v1.0.0/z.go", "example.com/dep@v1.0.0/z.go", false},
	} {
		rel, in := tr.rel(c.file)
		if rel != c.rel || in != c.in {
			t.Errorf("rel(%q) = %q, %v; want %q, %v", c.file, rel, in, c.rel, c.in)
		}
	}
	if m := modulePath(filepath.Join(t.TempDir(), "go.mod")); m != "" {
		t.Errorf("modulePath of a missing file = %q", m)
	}
}
