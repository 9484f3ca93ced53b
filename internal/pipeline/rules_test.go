package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadPolicyNoLinks: head's tree may make the policy file, or a
// directory on its way, a link to a file outside; it is not read, so its
// contents never reach a report. A missing file is no policy.
func TestReadPolicyNoLinks(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, ".benchgate.yml"), []byte("password: hunter2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, ".benchgate.yml"), filepath.Join(root, ".benchgate.yml")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"sub/.benchgate.yml", ".benchgate.yml"} {
		p, _, err := ReadPolicy(root, rel, rel)
		if err == nil || p != nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: policy %v, error %v; want an error that quotes nothing", rel, p, err)
		}
	}
	if p, _, err := ReadPolicy(root, "missing/.benchgate.yml", "x"); p != nil || err != nil {
		t.Errorf("missing: %v, %v", p, err)
	}
	// A plain file below a root that is itself reached through a link
	// (macOS's /var) is read.
	real := t.TempDir()
	if err := os.WriteFile(filepath.Join(real, ".benchgate.yml"), []byte("threshold: 7%\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	via := filepath.Join(t.TempDir(), "via")
	if err := os.Symlink(real, via); err != nil {
		t.Fatal(err)
	}
	if p, _, err := ReadPolicy(via, ".benchgate.yml", ".benchgate.yml"); err != nil || p == nil || p.Threshold.Value != 0.07 {
		t.Errorf("through a linked root: %v, %v", p, err)
	}
}
