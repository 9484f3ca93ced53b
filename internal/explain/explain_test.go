package explain_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/testenv"
	"github.com/google/go-cmp/cmp"
	"github.com/google/pprof/profile"
)

const mod = "example.com/explained"

// TestExplainRealProfiles profiles testdata/base and testdata/head, two
// versions of one module, through runner like benchgate does: head
// allocates one more make([]byte, 64) per op in BenchmarkEncode's loop
// (a line inserted above an allocation both sides make) and its Checksum
// goes over its data three times instead of once. The explanation must
// name the new allocation's file and line with exactly +1 alloc/op and
// +64 B/op, match the unchanged sites across the moved line, name
// Checksum first among the time changes, and agree with go tool pprof on
// the files it keeps.
func TestExplainRealProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two test modules and profiles their benchmarks (about 15 s)")
	}
	env := testenv.Env(t)
	var roots [2]string
	for i, s := range []string{"base", "head"} {
		d, err := filepath.Abs(filepath.Join("testdata", s))
		if err != nil {
			t.Fatal(err)
		}
		roots[i] = d
	}
	ctx := context.Background()
	var progress bytes.Buffer
	s, err := prepare(ctx, runner.Side{Name: "base", Dir: roots[0]}, runner.Side{Name: "head", Dir: roots[1]}, runner.Options{
		Bench:     "Encode|Checksum",
		Count:     1,
		Benchtime: "20ms",
		Runs:      1,
		CPU:       []int{1},
		BinDir:    t.TempDir(),
		Env:       env,
		Progress:  &progress,
	})
	if err != nil {
		t.Fatalf("Prepare: %v\n%s", err, progress.String())
	}
	units := map[string]runner.Unit{}
	for _, u := range s.Units() {
		units[u.Name] = u
	}
	out := t.TempDir()

	t.Run("allocs", func(t *testing.T) {
		u := units["BenchmarkEncode"]
		dir := filepath.Join(out, "encode")
		n := runner.AllocProfileN(u, 4)
		set, err := s.ProfileAllocs(ctx, u, n, dir)
		if err != nil {
			t.Fatal(err)
		}
		bins, err := s.KeepBinaries(u, dir)
		if err != nil {
			t.Fatal(err)
		}
		var in [2]explain.Input
		var rowAllocs, rowBytes [2]float64
		for i := range 2 {
			lo, hi := set.Runs[i][0], set.Runs[i][1]
			if lo.N != n || hi.N != 2*n {
				t.Fatalf("side %d: runs at %dx and %dx, want %dx and %dx", i, lo.N, hi.N, n, 2*n)
			}
			d, ops, err := explain.AllocDelta(read(t, lo.Path), lo.N, read(t, hi.Path), hi.N)
			if err != nil {
				t.Fatal(err)
			}
			if ops != int64(n) {
				t.Fatalf("AllocDelta: %d ops, want %d", ops, n)
			}
			in[i] = explain.Input{Profile: d, Ops: ops, Root: roots[i]}
			rowAllocs[i], _ = hi.Result.Value("allocs/op")
			rowBytes[i], _ = hi.Result.Value("B/op")
		}
		a, err := explain.DiffAllocs(in[0], in[1])
		if err != nil {
			t.Fatal(err)
		}

		newLine := lineOf(t, filepath.Join(roots[1], "work_test.go"), "make([]byte, 64)")
		site := explain.Site{Function: mod + ".BenchmarkEncode", File: "work_test.go", Line: newLine, Base: 0, Head: 1}
		if diff := cmp.Diff([]explain.Site{site}, a.Sites(explain.UnitAllocs, 5)); diff != "" {
			t.Errorf("allocs/op sites (-want +got):\n%s", diff)
		}
		site.Head = 64
		if diff := cmp.Diff([]explain.Site{site}, a.Sites(explain.UnitBytes, 5)); diff != "" {
			t.Errorf("B/op sites (-want +got):\n%s", diff)
		}
		// The unchanged sites match although head's lines moved one line
		// down; the setup's 4096 bytes are not the loop's. strings.Repeat
		// allocates in the standard library (through
		// internal/bytealg.MakeNoZero, which pprof shows as flat): the
		// site is strings' code, the caller the benchmark's line.
		headTest := filepath.Join(roots[1], "work_test.go")
		want := []explain.Site{
			{Function: mod + ".BenchmarkEncode", File: "work_test.go", Line: newLine, Base: 0, Head: 64},
			{Function: mod + ".Encode", File: "work.go", Line: lineOf(t, filepath.Join(roots[1], "work.go"), "make([]byte, 0, 24)"), Base: 24, Head: 24},
			{Function: mod + ".BenchmarkEncode", File: "work_test.go", Line: lineOf(t, headTest, "&record{"), Base: 16, Head: 16},
		}
		var got []explain.Site
		for _, site := range a.AllSites(explain.UnitBytes) {
			t.Logf("site %+v caller %+v", site, site.Caller)
			if site.Caller == nil {
				got = append(got, site)
				continue
			}
			caller := explain.Frame{Function: mod + ".BenchmarkEncode", File: "work_test.go", Line: lineOf(t, headTest, "strings.Repeat(")}
			// -trimpath: the standard library's files are named by
			// their package's path ("strings/builder.go").
			if !strings.HasPrefix(site.Function, "strings.") || !strings.HasPrefix(site.File, "strings/") || *site.Caller != caller || site.Base != 32 || site.Head != 32 {
				t.Errorf("strings.Repeat's site: %+v called from %+v, want a function of package strings allocating 32 B/op on both sides called from %+v", site, *site.Caller, caller)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("all B/op sites in the module (-want +got):\n%s", diff)
		}
		if a.Objects != [2]float64{3, 4} || a.Bytes != [2]float64{72, 136} {
			t.Errorf("totals: %v allocs/op, %v B/op; want [3 4], [72 136]", a.Objects, a.Bytes)
		}
		js, err := json.Marshal(explain.Explanation{Sites: a.Sites(explain.UnitBytes, 5)})
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`{"sites":[{"function":"%s.BenchmarkEncode","file":"work_test.go","line":%d,"base":0,"head":64}]}`, mod, newLine); string(js) != want {
			t.Errorf("JSON:\n%s\nwant\n%s", js, want)
		}
		// The sum of the sites is testing's own figures for the runs.
		if notes := a.Check(rowAllocs, rowBytes); notes != nil {
			t.Errorf("Check(%v, %v) = %q, want agreement", rowAllocs, rowBytes, notes)
		}
		if notes := a.Check([2]float64{3, 5}, rowBytes); len(notes) != 1 || !strings.Contains(notes[0], "head:") || !strings.Contains(notes[0], "tiny allocations") {
			t.Errorf("Check with one more alloc/op on head than profiled: %q", notes)
		}

		// go tool pprof agrees. Each side alone, subtracting its own
		// shorter run from the raw files (pprof takes one -base only):
		for _, w := range []struct {
			side int
			text string
		}{{0, "&record{"}, {1, "&record{"}, {1, "make([]byte, 64)"}} {
			// The raw profiles name the module's files by module path
			// (-trimpath).
			file := filepath.Join(roots[w.side], "work_test.go")
			pos := mod + "/work_test.go:" + strconv.FormatInt(lineOf(t, file, w.text), 10)
			runs := set.Runs[w.side]
			top := pprofTop(t, "-sample_index=alloc_objects", "-lines", "-base", runs[0].Path, runs[1].Path)
			if got := top[pos]; got.flat != float64(n) {
				t.Errorf("pprof: %s allocates %v objects in %d ops, want %d", pos, got.flat, n, n)
			}
		}
		// Head against base: the kept per-side deltas, with file names
		// relative to the module root, as the report's command has them
		// (go tool pprof -diff_base base.pprof head.pprof head.test).
		for i, name := range []string{"base.pprof", "head.pprof"} {
			explain.Relativize(in[i].Profile, roots[i])
			if err := explain.WriteProfile(filepath.Join(dir, name), in[i].Profile); err != nil {
				t.Fatal(err)
			}
		}
		pos := "work_test.go:" + strconv.FormatInt(newLine, 10)
		for _, idx := range []struct {
			args      []string
			want, sum float64
		}{
			{[]string{"-sample_index=alloc_objects"}, 1, a.Objects[1] + a.OutsideObjects[1] - a.Objects[0] - a.OutsideObjects[0]},
			{[]string{"-sample_index=alloc_space", "-unit=B"}, 64, a.Bytes[1] + a.OutsideBytes[1] - a.Bytes[0] - a.OutsideBytes[0]},
		} {
			args := append(idx.args, "-lines", "-diff_base", filepath.Join(dir, "base.pprof"), filepath.Join(dir, "head.pprof"), bins[1])
			top := pprofTop(t, args...)
			if got := top[pos]; got.flat != idx.want*float64(n) {
				t.Errorf("pprof %s: %s changed by %v in %d ops, want %v", idx.args[0], pos, got.flat, n, idx.want*float64(n))
			}
			// The whole change, every site's, inside the benchmark or
			// not.
			if got, want := sumFlat(top), idx.sum*float64(n); math.Abs(got-want) > 1e-6 {
				t.Errorf("pprof %s: the sites' changes add up to %v, want %v", idx.args[0], got, want)
			}
		}
	})

	t.Run("cpu", func(t *testing.T) {
		u := units["BenchmarkChecksum"]
		dir := filepath.Join(out, "checksum")
		const runs = 3
		n := runner.CPUProfileN(u, time.Second)
		set, err := s.ProfileCPU(ctx, u, n, runs, dir)
		if err != nil {
			t.Fatal(err)
		}
		var in [2]explain.Input
		var files [2][]string
		for i := range 2 {
			var ps []*profile.Profile
			for _, r := range set.Runs[i] {
				ps = append(ps, read(t, r.Path))
				files[i] = append(files[i], r.Path)
			}
			m, err := explain.Merge(ps...)
			if err != nil {
				t.Fatal(err)
			}
			in[i] = explain.Input{Profile: m, Ops: runs * int64(n), Root: roots[i]}
		}
		f, err := explain.DiffCPU(in[0], in[1])
		if err != nil {
			t.Fatal(err)
		}
		top := f.Top(5, false)
		for _, fn := range top {
			t.Logf("%s %s:%d flat %.3gs → %.3gs (%.0f%% → %.0f%%), cum %.3gs → %.3gs", fn.Function, fn.File, fn.Line, fn.Base, fn.Head, 100*fn.ShareBase, 100*fn.ShareHead, fn.CumBase, fn.CumHead)
		}
		if len(top) == 0 || top[0].Function != mod+".Checksum" {
			t.Fatalf("Top: %+v, want %s.Checksum first", top, mod)
		}
		c := top[0]
		if c.File != "work.go" || c.Line != lineOf(t, filepath.Join(roots[1], "work.go"), "func Checksum(") {
			t.Errorf("Checksum at %s:%d", c.File, c.Line)
		}
		// Three passes instead of one: about 3×, with sampling noise.
		if c.Head < 1.5*c.Base || c.ShareHead <= c.ShareBase || c.CumHead < c.Head {
			t.Errorf("Checksum: %+v, want about 3× the time per op on head, a larger share", c)
		}
		// Per-op figures times the ops are what pprof shows, each side
		// and the difference, from the raw files.
		ops := float64(runs * n)
		for i, want := range []float64{c.Base, c.Head} {
			got := pprofTop(t, append([]string{"-unit=ns", "-hide=" + explain.CPUHide}, files[i]...)...)[mod+".Checksum"]
			if math.Abs(got.flat-want*ops*1e9) > 0.5 {
				t.Errorf("pprof side %d: Checksum flat %vns, want %.0f", i, got.flat, want*ops*1e9)
			}
		}
		// The difference, from the merged files kept for the report's
		// command (pprof takes one -diff_base only): go tool pprof
		// -hide=<CPUHide> -diff_base base.pprof head.pprof head.test.
		for i, name := range []string{"base.pprof", "head.pprof"} {
			if err := explain.WriteProfile(filepath.Join(dir, name), in[i].Profile); err != nil {
				t.Fatal(err)
			}
		}
		diff := pprofTop(t, "-unit=ns", "-hide="+explain.CPUHide, "-diff_base", filepath.Join(dir, "base.pprof"), filepath.Join(dir, "head.pprof"))
		for _, fn := range f.Top(0, false) {
			got := diff[fn.Function]
			if math.Abs(got.flat-(fn.Head-fn.Base)*ops*1e9) > 0.5 || math.Abs(got.cum-(fn.CumHead-fn.CumBase)*ops*1e9) > 0.5 {
				t.Errorf("pprof -diff_base: %s flat %vns cum %vns, want %.0f and %.0f", fn.Function, got.flat, got.cum, (fn.Head-fn.Base)*ops*1e9, (fn.CumHead-fn.CumBase)*ops*1e9)
			}
		}
	})

	// The instruction lane's counts, under real callgrind: Checksum runs
	// three times its instructions per op on head, exactly (the other
	// functions' counts do not change by an instruction per op), at its
	// func line; the pprof profiles written for the report's command give
	// the same figures times the ops.
	t.Run("instructions", func(t *testing.T) {
		if _, err := exec.LookPath("valgrind"); err != nil {
			t.Skip("needs valgrind (apt-get install valgrind)")
		}
		u := units["BenchmarkChecksum"]
		res, err := s.MeasureInstructions(ctx, []runner.Unit{u}, runner.InstructionOptions{Repeats: 2}, io.Discard, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		lp := res.Profiles[mod+".Checksum"]
		if lp == nil {
			t.Fatalf("no lane profiles of %s.Checksum: %v, failures %+v", mod, res.Profiles, res.Failures)
		}
		var cs [2]explain.Counts
		for i := range 2 {
			if lp[i].Ops <= 0 || lp[i].Binary == "" {
				t.Fatalf("side %d: %d ops, binary %q", i, lp[i].Ops, lp[i].Binary)
			}
			cs[i] = explain.FromCallgrind(lp[i].Profile, lp[i].Ops, roots[i], lp[i].Binary)
		}
		f, err := explain.DiffInstructions(cs[0], cs[1])
		if err != nil {
			t.Fatal(err)
		}
		top := f.Top(0, false)
		if len(top) == 0 || top[0].Function != mod+".Checksum" {
			t.Fatalf("Top: %+v, want %s.Checksum first", top, mod)
		}
		c := top[0]
		if c.File != "work.go" || c.Line != lineOf(t, filepath.Join(roots[1], "work.go"), "func Checksum(") {
			t.Errorf("Checksum at %s:%d", c.File, c.Line)
		}
		// Three passes over 256 bytes instead of one: 512 more loop
		// steps per op, a few instructions each; Mix does one pass on
		// both sides and does not change.
		if d := c.Head - c.Base; d < 2*512 || math.Abs(c.Head/c.Base-3) > 0.1 {
			t.Errorf("Checksum: %.1f → %.1f instructions/op, want about 3× (+2 passes of 256 bytes)", c.Base, c.Head)
		}
		for _, fn := range top[1:] {
			if math.Abs(fn.Head-fn.Base) >= 1 {
				t.Errorf("%s changed by %.2f instructions/op, want less than one (only Checksum changed)", fn.Function, fn.Head-fn.Base)
			}
		}
		dir := filepath.Join(out, "instructions")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var files [2]string
		for i, name := range []string{"base.pprof", "head.pprof"} {
			files[i] = filepath.Join(dir, name)
			if err := explain.WriteProfile(files[i], explain.InstructionProfile(cs[i])); err != nil {
				t.Fatal(err)
			}
		}
		if f.Ops[0] != f.Ops[1] {
			t.Fatalf("ops %v: the sides ran different N", f.Ops)
		}
		ops := float64(f.Ops[1])
		diff := pprofTop(t, "-diff_base", files[0], files[1])
		for _, fn := range top {
			if got, want := diff[fn.Function].flat, (fn.Head-fn.Base)*ops; math.Abs(got-want) > 0.5 {
				t.Errorf("pprof -diff_base: %s flat %v, want %.0f", fn.Function, got, want)
			}
		}
	})
}

func TestAllocDeltaNeedsTwoCounts(t *testing.T) {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}}}
	for _, ns := range [][2]int{{1, 2}, {4, 4}, {8, 4}} {
		if _, _, err := explain.AllocDelta(p, ns[0], p, ns[1]); err == nil {
			t.Errorf("AllocDelta at %dx and %dx: no error", ns[0], ns[1])
		}
	}
}

// TestDiffInstructions diffs per-function counts the shape callgrind
// gives them: files under each side's own worktree come out relative, the
// changed function first, shares of the side's total.
func TestDiffInstructions(t *testing.T) {
	base := explain.Counts{Ops: 10, Root: "/tmp/wt-base", Funcs: map[string]explain.Count{
		mod + ".Checksum":   {File: "/tmp/wt-base/work.go", Self: 1000, Inclusive: 1000},
		mod + ".Mix":        {File: "/tmp/wt-base/work.go", Self: 1000, Inclusive: 1000},
		mod + ".BenchmarkX": {File: "/tmp/wt-base/work_test.go", Self: 20, Inclusive: 2020},
	}}
	head := explain.Counts{Ops: 10, Root: "/tmp/wt-head/", Funcs: map[string]explain.Count{
		mod + ".Checksum":   {File: "/tmp/wt-head/work.go", Self: 3000, Inclusive: 3000},
		mod + ".Mix":        {File: "/tmp/wt-head/work.go", Self: 1000, Inclusive: 1000},
		mod + ".BenchmarkX": {File: "/tmp/wt-head/work_test.go", Self: 20, Inclusive: 4020},
		"strconv.Itoa":      {File: "/usr/local/go/src/strconv/itoa.go", Self: 5, Inclusive: 5},
	}}
	f, err := explain.DiffInstructions(base, head)
	if err != nil {
		t.Fatal(err)
	}
	want := []explain.Func{
		{Function: mod + ".Checksum", File: "work.go", Base: 100, Head: 300, CumBase: 100, CumHead: 300, ShareBase: 1000.0 / 2020, ShareHead: 3000.0 / 4025},
		{Function: "strconv.Itoa", File: "/usr/local/go/src/strconv/itoa.go", Head: 0.5, CumHead: 0.5, ShareHead: 5.0 / 4025},
	}
	if diff := cmp.Diff(want, f.Top(0, false)); diff != "" {
		t.Errorf("Top by flat (-want +got):\n%s", diff)
	}
	if got := f.Top(1, true); len(got) != 1 || got[0].Function != mod+".Checksum" {
		// Checksum and BenchmarkX both changed by 200 inclusive; the
		// tie goes to the larger flat change.
		t.Errorf("Top by cum: %+v", got)
	}
	if f.Total != [2]float64{202, 402.5} || f.Unit != explain.UnitInstructions {
		t.Errorf("totals %v %s", f.Total, f.Unit)
	}
}

func read(t *testing.T, path string) *profile.Profile {
	t.Helper()
	p, err := explain.ReadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lineOf returns the line number of the only line of file containing s.
func lineOf(t *testing.T, file, s string) int64 {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	found := int64(0)
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s) {
			if found != 0 {
				t.Fatalf("%s: %q on lines %d and %d", file, s, found, i+1)
			}
			found = int64(i + 1)
		}
	}
	if found == 0 {
		t.Fatalf("%s: no %q", file, s)
	}
	return found
}

type topRow struct{ flat, cum float64 }

// pprofTop runs go tool pprof -top with every node shown and returns its
// rows by name (with -lines: "function file:line" → the key "file:line"
// and, when the function is wanted, the function name alone).
func pprofTop(t *testing.T, args ...string) map[string]topRow {
	t.Helper()
	full := append([]string{"tool", "pprof", "-top", "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0"}, args...)
	cmd := exec.Command("go", full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(full, " "), err, stderr.String())
	}
	rows := map[string]topRow{}
	sc := bufio.NewScanner(&stdout)
	header := true
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if header {
			header = len(fs) == 0 || fs[0] != "flat"
			continue
		}
		if len(fs) < 6 {
			continue
		}
		r := topRow{flat: value(t, fs[0]), cum: value(t, fs[3])}
		key := fs[5]
		if len(fs) >= 7 && strings.Contains(fs[6], ":") {
			key = fs[6]
		}
		// Two functions on one line (inlining) add up.
		r.flat += rows[key].flat
		r.cum += rows[key].cum
		rows[key] = r
	}
	return rows
}

// sumFlat adds up the flat column: the profile's total.
func sumFlat(rows map[string]topRow) float64 {
	s := 0.0
	for _, r := range rows {
		s += r.flat
	}
	return s
}

// value parses a pprof figure in the units the tests ask for: a count, or
// bytes ("64000B") or nanoseconds ("120000000ns").
func value(t *testing.T, s string) float64 {
	t.Helper()
	num := strings.TrimSuffix(strings.TrimSuffix(s, "ns"), "B")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		t.Fatalf("pprof figure %q: %v", s, err)
	}
	return v
}

// TestCheckOutside notes allocations outside the benchmark's stacks only
// when they matter: half an allocation per op, or half a byte and 1 % of
// the row's B/op (the runtime's own background bytes over a short
// profiled run do not, nor less of them in the longer run than in the
// shorter: a negative figure).
func TestCheckOutside(t *testing.T) {
	row := func(outObjects, outBytes float64) []string {
		a := &explain.Allocs{Objects: [2]float64{3, 4}, Bytes: [2]float64{72, 136}, OutsideObjects: [2]float64{0, outObjects}, OutsideBytes: [2]float64{0, outBytes}}
		return a.Check([2]float64{3, 4}, [2]float64{72, 136})
	}
	for _, tt := range []struct {
		objects, bytes float64
		note           bool
	}{
		{0, 0, false},
		{0.01, 0.6, false},   // background bytes: under 1 % of 136 B/op
		{0.01, 1.5, true},    // 1 % or more
		{0.6, 0.6, true},     // half an allocation per op
		{-0.01, -0.8, false}, // less in the longer run: background, not the benchmark's
		{-0.6, -2, false},
	} {
		notes := row(tt.objects, tt.bytes)
		if got := len(notes) > 0 && strings.Contains(notes[0], "outside the benchmark"); got != tt.note {
			t.Errorf("outside %v allocs/op, %v B/op: notes %q, want a note %v", tt.objects, tt.bytes, notes, tt.note)
		}
	}
}

// EntryLines reads test binaries only: not a link, not a file that is not
// ELF (an error, never a panic).
func TestEntryLinesRefuses(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.test")
	if err := os.WriteFile(junk, []byte("\x7fELF not really"), 0o755); err != nil {
		t.Fatal(err)
	}
	if lines, err := explain.EntryLines(junk, []string{"main.main"}); err == nil {
		t.Errorf("a file that is not ELF: %v, no error", lines)
	}
	link := filepath.Join(dir, "link.test")
	if err := os.Symlink(junk, link); err != nil {
		t.Fatal(err)
	}
	if _, err := explain.EntryLines(link, nil); err == nil {
		t.Errorf("a link: no error")
	}
}

// prepare is a runner session built, discovered and warmed up on every
// unit, ready to measure and profile.
func prepare(ctx context.Context, base, head runner.Side, o runner.Options) (*runner.Session, error) {
	s, err := runner.Build(ctx, base, head, o)
	if err != nil {
		return nil, err
	}
	units, err := s.Discover(ctx)
	if err != nil {
		return nil, err
	}
	return s, s.Prepare(ctx, units)
}
