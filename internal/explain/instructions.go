package explain

import (
	"debug/dwarf"
	"debug/elf"
	"debug/gosym"
	"fmt"
	"maps"
	"slices"

	"github.com/benchgate/benchgate/internal/callgrind"
	"github.com/benchgate/benchgate/internal/safefile"
	"github.com/google/pprof/profile"
)

// EntryLines looks up where the named functions start in a Go binary (an
// ELF test binary): the line of each one's func keyword, from its DWARF
// (DW_AT_decl_line, as go tool pprof gives a function's start line), else
// the line of its entry instruction from the pclntab (a binary built
// without DWARF). Names it does not find are left out (callgrind also names
// C and assembly functions). The binary is built from the change's code:
// it is read as data, from a regular file only, and a table that makes
// debug/elf or debug/dwarf panic (the linker copies .syso objects in) is
// an error, not the end of benchgate.
func EntryLines(binary string, names []string) (lines map[string]int64, err error) {
	defer func() {
		if p := recover(); p != nil {
			lines, err = nil, fmt.Errorf("%s: reading its line tables: %v", binary, p)
		}
	}()
	f, err := safefile.OpenRegular(binary)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ef, err := elf.NewFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", binary, err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	lines = map[string]int64{}
	if d, err := ef.DWARF(); err == nil {
		r := d.Reader()
		for {
			e, err := r.Next()
			if err != nil || e == nil {
				break
			}
			if e.Tag != dwarf.TagSubprogram {
				if e.Children && e.Tag != dwarf.TagCompileUnit {
					r.SkipChildren()
				}
				continue
			}
			name, _ := e.Val(dwarf.AttrName).(string)
			if line, ok := e.Val(dwarf.AttrDeclLine).(int64); ok && want[name] && line > 0 {
				lines[name] = line
			}
			if e.Children {
				r.SkipChildren()
			}
		}
	}
	if len(lines) == len(want) {
		return lines, nil
	}
	pcln, text := ef.Section(".gopclntab"), ef.Section(".text")
	if pcln == nil || text == nil {
		return lines, nil
	}
	data, err := pcln.Data()
	if err != nil {
		return lines, fmt.Errorf("%s: %w", binary, err)
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		return lines, fmt.Errorf("%s: %w", binary, err)
	}
	for name := range want {
		if _, ok := lines[name]; ok {
			continue
		}
		if fn := tab.LookupFunc(name); fn != nil {
			if _, line, _ := tab.PCToLine(fn.Entry); line > 0 {
				lines[name] = int64(line)
			}
		}
	}
	return lines, nil
}

// FromCallgrind makes one side's Counts from a callgrind profile of ops
// benchmark ops (the lane's loop profiles, a side's samples merged): each
// function's Self and Inclusive instructions, its file, and its first line
// looked up in binary, the test binary that ran (without it, or when it
// cannot be read, the functions are still named, at line 0).
func FromCallgrind(p *callgrind.Profile, ops int64, root, binary string) Counts {
	c := Counts{Ops: ops, Root: root, Funcs: map[string]Count{}}
	names := make([]string, 0, len(p.Funcs))
	for name := range p.Funcs {
		names = append(names, name)
	}
	var lines map[string]int64
	if binary != "" {
		lines, _ = EntryLines(binary, names)
	}
	for name, f := range p.Funcs {
		var self, incl int64
		if len(f.Self) > 0 {
			self = f.Self[0]
		}
		if len(f.Inclusive) > 0 {
			incl = f.Inclusive[0]
		}
		c.Funcs[name] = Count{File: f.File, Line: lines[name], Self: self, Inclusive: incl}
	}
	return c
}

// InstructionProfile is c as a pprof profile: one sample per function, its
// Self instructions over c.Ops ops, with the function's file (relative to
// c.Root when inside it) and start line. Written with WriteProfile, base's
// and head's reproduce DiffInstructions' flat figures, times the ops:
//
//	go tool pprof -top -nodefraction=0 -diff_base base.pprof head.pprof
//
// (cumulative figures need the call graph, which the counts do not keep).
func InstructionProfile(c Counts) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: UnitInstructions, Unit: "count"}},
		Mapping:    []*profile.Mapping{{ID: 1, HasFunctions: true, HasFilenames: true, HasLineNumbers: true}},
		Comments:   []string{fmt.Sprintf("benchgate: instructions of %d benchmark ops counted under callgrind", c.Ops)},
	}
	t := newTree(c.Root)
	for i, name := range slices.Sorted(maps.Keys(c.Funcs)) {
		n := c.Funcs[name]
		if n.Self == 0 {
			continue
		}
		file, _ := t.rel(n.File)
		id := uint64(i + 1)
		fn := &profile.Function{ID: id, Name: name, SystemName: name, Filename: file, StartLine: n.Line}
		loc := &profile.Location{ID: id, Mapping: p.Mapping[0], Line: []profile.Line{{Function: fn, Line: n.Line}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, loc)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{n.Self}})
	}
	return p
}
