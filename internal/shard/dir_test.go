package shard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadDir(t *testing.T) {
	if _, err := ReadDir(t.TempDir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a directory without a manifest: %v, want fs.ErrNotExist", err)
	}

	dir := t.TempDir()
	m := Manifest{Shard: Spec{Index: 1, Count: 2}, Complete: true}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, BaseFile), []byte("base"), 0o644)
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "shard 1/2: head.txt") {
		t.Errorf("a complete shard without head.txt: %v, want an error naming the shard and the file", err)
	}
	os.WriteFile(filepath.Join(dir, HeadFile), []byte("head"), 0o644)
	os.WriteFile(filepath.Join(dir, ConfirmHeadFile), []byte("again"), 0o644)
	os.WriteFile(filepath.Join(dir, FailuresFile), []byte("[]"), 0o644)
	d, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if string(d.Raw[0]) != "base" || string(d.Raw[1]) != "head" || d.Confirm[0] != nil || string(d.Confirm[1]) != "again" || string(d.Failures) != "[]" || d.Manifest.Shard != m.Shard {
		t.Errorf("ReadDir = %+v", d)
	}

	// An incomplete shard may have no raw files.
	inc := t.TempDir()
	if err := (Manifest{Shard: Spec{Index: 2, Count: 2}}).Write(inc); err != nil {
		t.Fatal(err)
	}
	if d, err := ReadDir(inc); err != nil || d.Raw[0] != nil {
		t.Errorf("incomplete shard: %+v, %v", d, err)
	}

	// Links are not read: a shard's directory may be an artifact or lie in
	// the change's checkout, and a link would make merge read (and quote)
	// a file elsewhere.
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("s3cret"), 0o600)
	linked := t.TempDir()
	if err := m.Write(linked); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(linked, BaseFile), []byte("base"), 0o644)
	os.Symlink(secret, filepath.Join(linked, HeadFile))
	if _, err := ReadDir(linked); err == nil || !strings.Contains(err.Error(), "head.txt") {
		t.Errorf("head.txt a link: %v, want an error naming it", err)
	}
	os.Remove(filepath.Join(linked, HeadFile))
	os.WriteFile(filepath.Join(linked, HeadFile), []byte("head"), 0o644)
	for _, name := range []string{ExplainFile, FailuresFile} {
		os.Symlink(secret, filepath.Join(linked, name))
		if d, err := ReadDir(linked); err == nil || strings.Contains(string(d.Explain)+string(d.Failures), "s3cret") {
			t.Errorf("%s a link: read %q %q, %v; want an error", name, d.Explain, d.Failures, err)
		}
		os.Remove(filepath.Join(linked, name))
	}
	lm := t.TempDir()
	os.Symlink(filepath.Join(linked, FileName), filepath.Join(lm, FileName))
	if _, err := ReadDir(lm); err == nil {
		t.Errorf("shard.json a link: read")
	}
}

// sized makes path a file of n bytes (sparse: no disk used).
func sized(t *testing.T, path string, n int64) {
	t.Helper()
	f, err := os.Create(path)
	if err == nil {
		err = errors.Join(f.Truncate(n), f.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Every file of a shard's directory is read within its bound; beyond it
// the error names the file, also where a missing file would be no error.
func TestReadDirBounded(t *testing.T) {
	shardDir := func(m Manifest) string {
		dir := t.TempDir()
		if err := m.Write(dir); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, BaseFile), []byte("base"), 0o644)
		os.WriteFile(filepath.Join(dir, HeadFile), []byte("head"), 0o644)
		return dir
	}
	complete := Manifest{Shard: Spec{Index: 1, Count: 2}, Complete: true}
	incomplete := Manifest{Shard: Spec{Index: 2, Count: 2}}
	rawMsg := fmt.Sprintf("larger than %d bytes (256 MiB)", MaxRawSize)
	jsonMsg := fmt.Sprintf("larger than %d bytes (16 MiB)", MaxJSONSize)
	for _, tc := range []struct {
		m    Manifest
		file string
		size int64
		want string // "": read; else the error, where DIR is the directory
	}{
		{complete, FailuresFile, MaxJSONSize, ""},
		{complete, FailuresFile, MaxJSONSize + 1, "read DIR/failures.json: " + jsonMsg},
		{complete, ExplainFile, MaxJSONSize + 1, "read DIR/explain.json: " + jsonMsg},
		{complete, FileName, MaxJSONSize + 1, "shard manifest: read DIR/shard.json: " + jsonMsg},
		{complete, HeadFile, MaxRawSize + 1, "shard 1/2: head.txt: " + rawMsg},
		{incomplete, BaseFile, MaxRawSize + 1, "shard 2/2: base.txt: " + rawMsg},
		{complete, ConfirmBaseFile, MaxRawSize + 1, "shard 1/2: confirm-base.txt: " + rawMsg},
	} {
		dir := shardDir(tc.m)
		sized(t, filepath.Join(dir, tc.file), tc.size)
		_, err := ReadDir(dir)
		want := strings.ReplaceAll(tc.want, "DIR", dir)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s of %d bytes: %v", tc.file, tc.size, err)
		case tc.want != "" && (err == nil || err.Error() != want):
			t.Errorf("%s of %d bytes: %v, want %q", tc.file, tc.size, err, want)
		}
	}
}
