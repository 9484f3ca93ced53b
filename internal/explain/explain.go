// Package explain says where a benchmark's change between base and head
// comes from: which allocation sites allocate more or less per op, and
// which functions take more or less time (or instructions) per op. It
// parses and diffs the pprof profiles that package runner takes of one
// benchmark on both sides at the same iteration count
// (Session.ProfileAllocs, Session.ProfileCPU), with
// github.com/google/pprof/profile, and diffs per-function instruction
// counts handed to it (from callgrind) the same way.
//
// File names are made relative to each side's module root, which differs
// between the two worktrees, so that the same site matches on both sides;
// the runner builds with -trimpath, whose binaries name the module's files
// by module path ("example.com/m/sub/x.go"), and those are made relative
// to the module root the same way.
// Values are per benchmark op: allocations exactly (see AllocDelta and
// DiffAllocs), CPU time as sampled (see DiffCPU). Written with
// WriteProfile (after Relativize), a side's AllocDelta and its merged CPU
// profiles reproduce every figure, times the ops:
//
//	go tool pprof -sample_index=alloc_space -diff_base base.pprof head.pprof head.test
//	go tool pprof -hide='^runtime\.asyncPreempt2?$' -diff_base base.pprof head.pprof head.test
package explain

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/benchgate/benchgate/internal/safefile"
	"github.com/google/pprof/profile"
)

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=+-]+$`)

// Quote quotes s for a POSIX shell when it needs it: the files of the
// go tool pprof commands that reproduce an explanation's figures.
func Quote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// maxProfile bounds a profile's bytes, both the file read and, for a
// gzipped profile, what it unzips to: a file of 1 MiB can unzip to 1 GiB,
// and github.com/google/pprof/profile.ParseData unzips without a bound.
// A benchmark's profile is a few MiB at most.
const maxProfile = 64 << 20

// Input is one side's profile: Profile's values cover Ops benchmark ops,
// and its file names are under Root, the side's module root directory.
type Input struct {
	Profile *profile.Profile
	Ops     int64
	Root    string
}

// Frame is one source position.
type Frame struct {
	Function string `json:"function"`
	File     string `json:"file"` // relative to the module root when inside it
	Line     int64  `json:"line"`
}

// Explanation is what a report row gains: allocation sites for allocs/op
// and B/op rows, functions for time (and instruction) rows.
type Explanation struct {
	Sites     []Site `json:"sites,omitempty"`
	Functions []Func `json:"functions,omitempty"`
}

// ReadProfile reads a profile file (gzipped or not), refusing anything but
// a regular file: the files come from processes running the change's code.
// A file, or a gzipped file's content, larger than maxProfile is an error.
func ReadProfile(path string) (*profile.Profile, error) {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readAtMost(f, maxProfile)
	if err != nil {
		return nil, fmt.Errorf("%s: profile %w", path, err)
	}
	if data, err = gunzip(data); err != nil {
		return nil, fmt.Errorf("%s: profile %w", path, err)
	}
	p, err := profile.ParseData(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// readAtMost reads r to its end, or fails if it holds more than limit
// bytes.
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes (%d MiB)", limit, limit>>20)
	}
	return data, nil
}

// gunzip returns what gzipped data unzips to, at most maxProfile bytes,
// or data itself when it is not gzipped. Gzip inside gzip is refused:
// profile.ParseData would unzip the inner layer without a bound.
func gunzip(data []byte) ([]byte, error) {
	if !isGzip(data) {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	plain, err := readAtMost(zr, maxProfile)
	if err != nil {
		return nil, fmt.Errorf("unzipped %w", err)
	}
	if isGzip(plain) {
		return nil, fmt.Errorf("gzipped twice")
	}
	return plain, nil
}

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// WriteProfile writes p to path (gzipped, as go tool pprof reads it),
// replacing whatever is there without following a link.
func WriteProfile(path string, p *profile.Profile) error {
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		return err
	}
	return safefile.WriteFile(path, b.Bytes(), 0o644)
}

// Merge merges profiles of the same kind (several CPU profiles of one
// side) into one, as go tool pprof does when given several files.
func Merge(ps ...*profile.Profile) (*profile.Profile, error) {
	cp := make([]*profile.Profile, len(ps))
	for i, p := range ps {
		cp[i] = p.Copy()
	}
	return profile.Merge(cp)
}

// frame is one frame of a sample's stack, innermost first.
type frame struct {
	fn    string
	file  string // as recorded: absolute, under the side's worktree
	line  int64
	start int64 // the function's first line; 0 if unknown
}

// frames flattens a sample's stack, inlined frames expanded, innermost
// first.
func frames(s *profile.Sample) []frame {
	var fs []frame
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			f := frame{line: l.Line}
			if l.Function != nil {
				f.fn, f.file, f.start = l.Function.Name, l.Function.Filename, l.Function.StartLine
			}
			fs = append(fs, f)
		}
	}
	return fs
}

// sampleIndex finds the sample type named typ.
func sampleIndex(p *profile.Profile, typ string) (int, error) {
	for i, st := range p.SampleType {
		if st.Type == typ {
			return i, nil
		}
	}
	var have []string
	for _, st := range p.SampleType {
		have = append(have, st.Type)
	}
	return 0, fmt.Errorf("profile has no %s samples (has %s)", typ, strings.Join(have, ", "))
}

// tree is one side's source tree: it makes file names relative to the
// module root and reads source lines to match sites whose line moved.
type tree struct {
	roots []string // the root as given and with links resolved, each ending in a separator
	// module is the module path of the root's go.mod and a slash: the
	// prefix of the module's file names in a -trimpath binary.
	module string
	lines  map[string][]string
}

// maxSource bounds a source file read to match lines.
const maxSource = 8 << 20

func newTree(root string) *tree {
	t := &tree{lines: map[string][]string{}}
	if root == "" {
		return t
	}
	root = filepath.Clean(root)
	t.roots = append(t.roots, root+string(filepath.Separator))
	if r, err := filepath.EvalSymlinks(root); err == nil && r != root {
		t.roots = append(t.roots, r+string(filepath.Separator))
	}
	if m := modulePath(filepath.Join(root, "go.mod")); m != "" {
		t.module = m + "/"
	}
	return t
}

// maxGoMod bounds the go.mod read for its module path.
const maxGoMod = 1 << 20

// modulePath is the module path a go.mod file declares ("" when it cannot
// be read or declares none).
func modulePath(gomod string) string {
	f, err := safefile.OpenRegular(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGoMod))
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		if i := strings.Index(l, "//"); i >= 0 {
			l = l[:i]
		}
		f := strings.Fields(l)
		if len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], "\"`")
		}
	}
	return ""
}

// rel returns file relative to the module root, and whether it is inside
// it. Files outside (the standard library, the module cache) stay as they
// are.
func (t *tree) rel(file string) (string, bool) {
	for _, r := range t.roots {
		if rest, ok := strings.CutPrefix(file, r); ok {
			return filepath.ToSlash(rest), true
		}
	}
	if t.module != "" {
		// callgrind names a -trimpath binary's files from the
		// compilation directory ".": "./example.com/m/x.go".
		if rest, ok := strings.CutPrefix(strings.TrimPrefix(file, "./"), t.module); ok && rest != "" {
			return rest, true
		}
	}
	return file, false
}

// source returns the lines of a file under the root (rel), or nil.
func (t *tree) source(rel string) []string {
	if ls, ok := t.lines[rel]; ok {
		return ls
	}
	t.lines[rel] = nil
	if len(t.roots) == 0 || strings.HasPrefix(rel, "/") || strings.Contains("/"+rel+"/", "/../") {
		return nil
	}
	f, err := safefile.OpenRegular(filepath.Join(t.roots[0], filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSource+1))
	if err != nil || len(data) > maxSource {
		return nil
	}
	ls := strings.Split(string(data), "\n")
	for i, l := range ls {
		ls[i] = strings.Join(strings.Fields(l), " ")
	}
	t.lines[rel] = ls
	return ls
}

// pos is a frame resolved on one side: its display position and the key
// that matches it with the same code on the other side.
type pos struct {
	Frame
	inModule bool
	key      string
}

// resolve makes a frame's file relative and keys it. A frame in the
// module is keyed by function, file, the text of its source line and
// which occurrence of that text in the function it is, so that a site
// keeps its identity when lines above it are added or removed; a frame
// outside the module, or whose source cannot be read, by function, file
// and line.
func (t *tree) resolve(f frame) pos {
	rel, in := t.rel(f.file)
	p := pos{Frame: Frame{Function: f.fn, File: rel, Line: f.line}, inModule: in}
	p.key = fmt.Sprintf("%s\x00%s\x00#%d", f.fn, rel, f.line)
	if !in {
		return p
	}
	ls := t.source(rel)
	if f.line < 1 || int(f.line) > len(ls) || ls[f.line-1] == "" {
		return p
	}
	text := ls[f.line-1]
	from := f.start
	if from < 1 || from > f.line {
		from = 1
	}
	occ := 0
	for i := from; i < f.line; i++ {
		if ls[i-1] == text {
			occ++
		}
	}
	p.key = fmt.Sprintf("%s\x00%s\x00%s\x00%d", f.fn, rel, text, occ)
	return p
}

// ModuleRoot returns the module root of dir, the root that Input.Root and
// Counts.Root want: dir itself when it holds a go.mod, else its nearest
// parent that does (runner.Side.Dir may be a directory inside a module).
func ModuleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if fi, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !fi.IsDir() {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%s: no go.mod in it or above it", dir)
		}
		d = parent
	}
}

// Relativize rewrites p's file names under root (a side's module root) to
// names relative to it, as in Site and Func, so that go tool pprof -lines
// (or -diff_base) matches a file of base with the same file of head. It
// changes p.
func Relativize(p *profile.Profile, root string) {
	t := newTree(root)
	for _, f := range p.Function {
		if rel, ok := t.rel(f.Filename); ok {
			f.Filename = rel
		}
	}
}
