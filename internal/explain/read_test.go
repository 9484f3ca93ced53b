package explain

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// smallProfile is a valid profile of one sample.
func smallProfile() *profile.Profile {
	fn := &profile.Function{ID: 1, Name: "main.f", Filename: "/m/f.go"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn, Line: 3}}}
	return &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}},
		Sample:     []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{7}}},
		Location:   []*profile.Location{loc},
		Function:   []*profile.Function{fn},
	}
}

func gzipped(t *testing.T, data []byte, zeros int64) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	chunk := make([]byte, 1<<20)
	for n := zeros; n > 0; n -= int64(len(chunk)) {
		zw.Write(chunk[:min(n, int64(len(chunk)))])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A profile reads gzipped (as the go command writes it) and plain.
func TestReadProfileFormats(t *testing.T) {
	var plain bytes.Buffer
	if err := smallProfile().WriteUncompressed(&plain); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"plain.pprof":   plain.Bytes(),
		"gzipped.pprof": gzipped(t, plain.Bytes(), 0),
	} {
		p, err := ReadProfile(writeFile(t, name, data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(p.Sample) != 1 || p.Sample[0].Value[0] != 7 {
			t.Errorf("%s: samples %v", name, p.Sample)
		}
	}
}

// A gzip bomb (64 KiB that unzip to more than 64 MiB) is refused, with
// the file's name, after unzipping no more than the bound.
func TestReadProfileRefusesBombs(t *testing.T) {
	var plain bytes.Buffer
	if err := smallProfile().WriteUncompressed(&plain); err != nil {
		t.Fatal(err)
	}
	bomb := gzipped(t, plain.Bytes(), maxProfile)
	if len(bomb) > 1<<20 {
		t.Fatalf("the bomb is %d bytes: not a bomb", len(bomb))
	}
	twice := gzipped(t, gzipped(t, plain.Bytes(), 0), 0)
	big := writeFile(t, "big.pprof", nil)
	if err := os.Truncate(big, maxProfile+1); err != nil { // sparse: no disk
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
	}{
		{writeFile(t, "bomb.pprof", bomb), fmt.Sprintf("bomb.pprof: profile unzipped larger than %d bytes (64 MiB)", maxProfile)},
		{writeFile(t, "twice.pprof", twice), "twice.pprof: profile gzipped twice"},
		{big, fmt.Sprintf("big.pprof: profile larger than %d bytes (64 MiB)", maxProfile)},
	} {
		_, err := ReadProfile(tc.path)
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), tc.path) {
			t.Errorf("ReadProfile(%s) = %v, want %s: ...%s", filepath.Base(tc.path), err, tc.path, tc.want)
		}
	}
	// At the bound the bytes unzip and reach the parser, which finds
	// that zeros are no profile.
	_, err := ReadProfile(writeFile(t, "edge.pprof", gzipped(t, plain.Bytes(), maxProfile-int64(plain.Len()))))
	if err == nil || strings.Contains(err.Error(), "larger than") || !strings.Contains(err.Error(), "parsing profile") {
		t.Errorf("a gzipped profile of exactly %d bytes: %v, want the parser's error", maxProfile, err)
	}
}
