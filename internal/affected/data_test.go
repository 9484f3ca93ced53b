package affected

import "testing"

func TestDataChanged(t *testing.T) {
	const root = "/tmp/wt"
	for _, tc := range []struct {
		name    string
		changed []string
		dir     string
		want    bool
	}{
		{"nothing changed", nil, "/tmp/wt", false},
		{"a Go file: the binary says", []string{"xxhash.go", "sub/a.go"}, "/tmp/wt", false},
		{"assembly and cgo sources", []string{"a_amd64.s", "c/x.c", "c/x.h", "blob.syso"}, "/tmp/wt", false},
		{"the README of a root package", []string{"README.md"}, "/tmp/wt", false},
		{"documents and dot files", []string{"LICENSE", "CHANGELOG.md", "docs/guide.rst", ".github/workflows/ci.yml", ".gitignore", "NOTICE.txt"}, "/tmp/wt", false},
		{"testdata of the package", []string{"testdata/input.json"}, "/tmp/wt", true},
		{"a Go file in testdata is data", []string{"testdata/src/x.go"}, "/tmp/wt", true},
		{"a data file the benchmark may open", []string{"fixtures/big.csv"}, "/tmp/wt", true},
		{"a README in testdata is data", []string{"testdata/README.md"}, "/tmp/wt", true},
		{"data below the package", []string{"a/b/table.bin"}, "/tmp/wt/a", true},
		{"testdata of a directory above", []string{"testdata/shared.txt"}, "/tmp/wt/a/b", true},
		{"testdata of a sibling", []string{"c/testdata/x"}, "/tmp/wt/a", false},
		{"data of another package", []string{"c/data.json"}, "/tmp/wt/a", false},
		{"a prefix that is not the directory", []string{"ab/data.json"}, "/tmp/wt/a", false},
		{"outside the root", []string{"x.go"}, "/elsewhere", true},
	} {
		if got := DataChanged(tc.changed, root, tc.dir); got != tc.want {
			t.Errorf("%s: DataChanged(%q, %q) = %v, want %v", tc.name, tc.changed, tc.dir, got, tc.want)
		}
	}
}
