package runner

import (
	"debug/elf"
	"os"
	"path/filepath"
	"testing"
)

// TestSameCode flips one byte of this test binary in a copy, section by
// section: a byte of the line tables or of DWARF leaves the same code, a
// byte of the machine code or of the read-only data does not, and a file
// that is not ELF counts only when byte-identical.
func TestSameCode(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Skipf("%s is not ELF (%v): only byte-identical binaries count there", exe, err)
	}
	sections := map[string]uint64{}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOBITS && s.Size > 16 {
			sections[s.Name] = s.Offset + s.Size/2
		}
	}
	f.Close()
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig")
	if err := os.WriteFile(orig, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		".gopclntab": true, ".debug_line": true, ".symtab": true,
		".text": false, ".rodata": false, ".noptrdata": false,
	} {
		off, ok := sections[name]
		if !ok {
			if name == ".gopclntab" || name == ".text" || name == ".rodata" {
				t.Errorf("the test binary has no %s section", name)
			}
			continue
		}
		changed := append([]byte(nil), data...)
		changed[off] ^= 0xff
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, changed, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := sameCode(orig, p); err != nil || got != want {
			t.Errorf("a byte of %s changed: same code %v (%v), want %v", name, got, err, want)
		}
	}
	if got, err := sameCode(orig, orig); err != nil || !got {
		t.Errorf("the same file: same code %v (%v), want true", got, err)
	}
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("not an ELF file\n"), 0o644)
	os.WriteFile(b, []byte("not an ELF file!\n"), 0o644)
	if got, err := sameCode(a, b); err != nil || got {
		t.Errorf("two different files that are not ELF: same code %v (%v), want false", got, err)
	}
}
