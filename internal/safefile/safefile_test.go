package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// victim is a file outside the directory written to, which a link points
// at; the test fails if it changes.
func victim(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(p, []byte("original"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func checkUntouched(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "original" {
		t.Errorf("%s changed through the link: %q, %v", p, b, err)
	}
}

func TestWriteFileReplacesLink(t *testing.T) {
	for name, target := range map[string]func(t *testing.T) string{
		"to a file":      victim,
		"dangling":       func(t *testing.T) string { return filepath.Join(t.TempDir(), "nothing") },
		"to a directory": func(t *testing.T) string { return t.TempDir() },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			tgt := target(t)
			link := filepath.Join(dir, "report.json")
			if err := os.Symlink(tgt, link); err != nil {
				t.Fatal(err)
			}
			if err := WriteFile(link, []byte("new"), 0o644); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(link)
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("%s is not a regular file after WriteFile: %v, %v", link, fi.Mode(), err)
			}
			if b, _ := os.ReadFile(link); string(b) != "new" {
				t.Errorf("content %q, want %q", b, "new")
			}
			switch name {
			case "to a file":
				checkUntouched(t, tgt)
			case "dangling":
				if _, err := os.Lstat(tgt); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the dangling link's target %s was created", tgt)
				}
			case "to a directory":
				if entries, _ := os.ReadDir(tgt); len(entries) > 0 {
					t.Errorf("wrote %s into the link's target", entries[0].Name())
				}
			}
		})
	}
}

func TestWriteFileReplacesFileAndHardLink(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	if err := os.WriteFile(p, []byte("a much longer old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content %q, want %q", b, "new")
	}
	// A hard link to a file elsewhere is replaced too, not written through.
	v := victim(t)
	h := filepath.Join(dir, "hard")
	if err := os.Link(v, h); err != nil {
		t.Skipf("hard link across temporary directories: %v", err)
	}
	if err := WriteFile(h, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkUntouched(t, v)
}

func TestWriteFileRefusesDirectory(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(sub, []byte("x"), 0o644)
	if !errors.Is(err, syscall.EISDIR) {
		t.Errorf("WriteFile on a directory: %v, want EISDIR", err)
	}
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		t.Errorf("directory removed: %v", err)
	}
}

func TestCreateStreams(t *testing.T) {
	dir := t.TempDir()
	v := victim(t)
	p := filepath.Join(dir, "base.txt")
	if err := os.Symlink(v, p); err != nil {
		t.Fatal(err)
	}
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "line 1\n")
	io.WriteString(f, "line 2\n")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "line 1\nline 2\n" {
		t.Errorf("content %q", b)
	}
	checkUntouched(t, v)
}

func TestMkdirAll(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The root itself may be reached through a link.
	rootLink := filepath.Join(t.TempDir(), "rootlink")
	if err := os.Symlink(root, rootLink); err != nil {
		t.Fatal(err)
	}

	if err := MkdirAll(root, filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(root, "a", "b")); err != nil || !fi.IsDir() {
		t.Fatalf("a/b not created: %v", err)
	}
	if err := MkdirAll(root, filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Errorf("existing directories: %v", err)
	}
	if err := MkdirAll(rootLink, filepath.Join(rootLink, "c"), 0o755); err != nil {
		t.Errorf("root behind a link: %v", err)
	}
	if err := MkdirAll(root, root, 0o755); err != nil {
		t.Errorf("root itself: %v", err)
	}

	for _, tc := range []struct {
		dir  string
		want error
	}{
		{filepath.Join(root, "link"), ErrSymlink},
		{filepath.Join(root, "link", "x"), ErrSymlink},
		{filepath.Join(root, "a", "..", "link", "x"), ErrSymlink},
		{filepath.Join(root, "file", "x"), syscall.ENOTDIR},
		{filepath.Join(root, "file"), syscall.ENOTDIR},
	} {
		err := MkdirAll(root, tc.dir, 0o755)
		if !errors.Is(err, tc.want) {
			t.Errorf("MkdirAll(%s): %v, want %v", tc.dir, err, tc.want)
		}
	}
	if err := MkdirAll(root, filepath.Join(root, "link"), 0o755); err == nil || err.Error() != filepath.Join(root, "link")+" is a symbolic link: refusing to write through it" {
		t.Errorf("message: %v", err)
	}
	if err := MkdirAll(root, filepath.Dir(root), 0o755); err == nil {
		t.Errorf("a directory outside the root was accepted")
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("created %s through the link", entries[0].Name())
	}
}

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for p, want := range map[string]error{
		dir:                           nil,
		filepath.Join(dir, "missing"): nil,
		link:                          ErrSymlink,
		file:                          syscall.ENOTDIR,
	} {
		if err := CheckDir(p); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("CheckDir(%s) = %v, want %v", p, err, want)
		}
	}
}

func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "a_test.go")
	if err := os.WriteFile(reg, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenRegular(reg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "package a\n" {
		t.Errorf("read %q", b)
	}

	fifo := filepath.Join(dir, "fifo_test.go")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	linkToFile := filepath.Join(dir, "link_test.go")
	os.Symlink(reg, linkToFile)
	linkToStdout := filepath.Join(dir, "stdout_test.go")
	os.Symlink("/proc/self/fd/1", linkToStdout)

	for _, tc := range []struct {
		path string
		want error
	}{
		{fifo, ErrNotRegular},
		{dir, ErrNotRegular},
		{linkToFile, syscall.ELOOP},
		{linkToStdout, syscall.ELOOP},
	} {
		done := make(chan error, 1)
		go func() {
			f, err := OpenRegular(tc.path)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, tc.want) {
				t.Errorf("OpenRegular(%s): %v, want %v", filepath.Base(tc.path), err, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("OpenRegular(%s) blocked", filepath.Base(tc.path))
		}
	}
}

func TestWritable(t *testing.T) {
	dir := t.TempDir()
	if err := Writable(dir); err != nil {
		t.Errorf("Writable(%s): %v", dir, err)
	}
	if err := Writable(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing directory: %v, want not exist", err)
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		t.Skip("running as root, which may write into a read-only (0555) directory: the refusal is not testable")
	}
	if err := Writable(ro); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Writable(0555 directory): %v, want permission denied", err)
	}
}
