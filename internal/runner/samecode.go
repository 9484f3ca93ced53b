package runner

import (
	"bytes"
	"debug/elf"
	"io"
	"os"
)

// sameBinaries returns the import paths of the packages built on both
// sides whose test binaries run the same code (sameCode): the change
// cannot have changed what their benchmarks run (the binaries hold every
// Go file, embedded file and dependency they were built from; -trimpath
// keeps the worktrees' own paths out).
func sameBinaries(built [2][]pkg) (map[string]bool, error) {
	base := map[string]pkg{}
	for _, p := range built[0] {
		base[p.ImportPath] = p
	}
	same := map[string]bool{}
	for _, h := range built[1] {
		b, ok := base[h.ImportPath]
		if !ok {
			continue
		}
		eq, err := sameCode(b.Binary, h.Binary)
		if err != nil {
			return nil, err
		}
		if eq {
			same[h.ImportPath] = true
		}
	}
	return same, nil
}

// lineTables are the ELF sections a Go binary loads that change when only
// line numbers do (a comment added above code, code moved down a file):
// the function table with its line tables, the module data that holds
// offsets into it, and the build IDs, which hash everything.
var lineTables = map[string]bool{
	".gopclntab":         true,
	".go.module":         true,
	".note.go.buildid":   true,
	".note.gnu.build-id": true,
}

// sameCode reports whether two test binaries run the same code: they hold
// the same bytes, or both are ELF files with the same sections at the same
// addresses and sizes, every section loaded at run time byte-identical but
// the line tables (lineTables). Then every instruction and every byte of
// data is the same at the same address; what differs is the file:line a
// stack trace prints. Sections not loaded (DWARF, the symbol table) are
// not compared. Other formats (Mach-O) count only when byte-identical.
func sameCode(a, b string) (same bool, err error) {
	if eq, err := sameFile(a, b); err != nil || eq {
		return eq, err
	}
	// The binaries are built from the change's code: a file debug/elf
	// cannot read, or panics on, is not the same code (it is measured).
	defer func() {
		if recover() != nil {
			same, err = false, nil
		}
	}()
	ea, err := elf.Open(a)
	if err != nil {
		return false, nil
	}
	defer ea.Close()
	eb, err := elf.Open(b)
	if err != nil {
		return false, nil
	}
	defer eb.Close()
	if ea.FileHeader != eb.FileHeader || len(ea.Sections) != len(eb.Sections) || len(ea.Progs) != len(eb.Progs) {
		return false, nil
	}
	for i, p := range ea.Progs {
		if p.ProgHeader != eb.Progs[i].ProgHeader {
			return false, nil
		}
	}
	for i, sa := range ea.Sections {
		sb := eb.Sections[i]
		if sa.Name != sb.Name {
			return false, nil
		}
		if (sa.Flags|sb.Flags)&elf.SHF_ALLOC == 0 {
			continue // not loaded: DWARF, the symbol table
		}
		if sa.Type != sb.Type || sa.Flags != sb.Flags || sa.Addr != sb.Addr || sa.Size != sb.Size || sa.Addralign != sb.Addralign {
			return false, nil
		}
		if sa.Type == elf.SHT_NOBITS || lineTables[sa.Name] {
			continue
		}
		if eq, err := sameReader(sa.Open(), sb.Open()); err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

// sameFile reports whether two files hold the same bytes.
func sameFile(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	sa, err := fa.Stat()
	if err != nil {
		return false, err
	}
	sb, err := fb.Stat()
	if err != nil {
		return false, err
	}
	if sa.Size() != sb.Size() {
		return false, nil
	}
	return sameReader(fa, fb)
}

// sameReader reports whether two readers hold the same bytes.
func sameReader(ra, rb io.Reader) (bool, error) {
	ba, bb := make([]byte, 1<<16), make([]byte, 1<<16)
	for {
		na, ea := io.ReadFull(ra, ba)
		nb, eb := io.ReadFull(rb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return eb == ea, nil
		}
		if ea != nil {
			return false, ea
		}
		if eb != nil {
			return false, eb
		}
	}
}
