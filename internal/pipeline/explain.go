package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/safefile"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/google/pprof/profile"
)

// The limits of the explanation pass.
const (
	// maxExplained is how many benchmarks one pass profiles, those
	// failing the gate first.
	maxExplained = 10
	// cpuRuns is how many CPU profiling runs each side gets, and
	// cpuTarget the work of each (by the pilot's time per op): at 100
	// samples a second, 2 × 0.5 s give about 100 samples per side,
	// enough to rank the functions whose share moved by a few percent
	// (xxhash's planted 11 % function leads its table: docs/dev/evidence-log.md),
	// for about 2 s per time regression.
	cpuRuns   = 2
	cpuTarget = 500 * time.Millisecond
)

// Explained is what the explain pass did after the verdict.
type Explained struct {
	// Instructions is how many instructions/op changes the lane's
	// per-function counts explain.
	Instructions int
	// Profiled is how many changed benchmarks were profiled, in Elapsed:
	// the allocations of Allocs of them in AllocsTime, the CPU of CPU of
	// them in CPUTime.
	Profiled, Allocs, CPU        int
	Elapsed, AllocsTime, CPUTime time.Duration
	// Kept is the directory the counts, profiles and test binaries were
	// kept in; "" if they were not kept.
	Kept string
	// Cancelled: the benchmarks not yet profiled are not explained.
	Cancelled bool
	// Skipped more changed benchmarks were not profiled (at most Max
	// per run).
	Skipped, Max int
	// Merged is how many explanations came from the shards' passes.
	Merged int
	// Problems are what kept the pass from explaining a benchmark, or
	// from keeping its files.
	Problems []ExplainProblem
}

// ExplainProblem is a step of the explain pass that failed: for Bench
// ("import/path.Name"; "" for the whole pass), with the error (untrusted:
// it may quote the change's names).
type ExplainProblem struct {
	Bench string
	Step  ExplainStep
	Err   string
}

// ExplainStep is the step of the explain pass a problem stopped.
type ExplainStep string

// The steps.
const (
	// ExplainModule: the sides' module roots were not found; nothing
	// was profiled.
	ExplainModule ExplainStep = "module"
	// ExplainNotProfiled: the benchmark's directory could not be made.
	ExplainNotProfiled ExplainStep = "not-profiled"
	// ExplainBinaries: the test binaries were not kept beside the
	// profiles.
	ExplainBinaries ExplainStep = "binaries"
)

// writeExplain writes a shard's explanations to out/explain.json, for
// merge (an empty list when there are none).
func writeExplain(out string, whys []explain.Why) error {
	if whys == nil {
		whys = []explain.Why{}
	}
	return WriteJSON(filepath.Join(out, shard.ExplainFile), whys)
}

// minInstructionChange is the smallest change of a function's own
// instructions per op that an instructions/op explanation lists.
const minInstructionChange = 0.5

// explainUnit is one benchmark to profile and the rows it explains.
type explainUnit struct {
	u      runner.Unit
	allocs []gate.Result // its allocs/op and B/op rows that changed
	time   *gate.Result  // its time regression
	fails  bool          // one of them fails the gate
}

// explain is the explain pass: it says where the changes come from, in a
// profiling pass after the verdict (and its confirmation), never while
// timing: every allocs/op or B/op row that changed gets the allocation
// sites whose allocations per op changed (exact: explain.AllocDelta at
// -test.memprofilerate=1), every time regression that held the functions
// whose time per op changed most (CPU profiles of both sides,
// alternating), and every instructions/op row that changed the functions
// of the lane's counts whose own instructions changed most, each side's
// from its module directory. The profiles go under the raw files'
// explain/<benchmark>/, with both test binaries when kept (the user's
// --out): the report then prints the go tool pprof command that
// reproduces the figures. A benchmark that cannot be profiled gets a
// reason instead; nothing here changes the verdict. The facts are nil
// when there was nothing to explain.
func (r *run) explain(ctx context.Context, v gate.Verdict, lane *Lane) ([]explain.Why, *Explained) {
	sess, out, kept, env := r.sess, r.out, r.p.Out != "", r.env
	dirs := [2]string{r.ws.Trees[0].Dir(), r.ws.Trees[1].Dir()}
	todo, skipped := explainUnits(sess.Units(), v)
	counted := instructionRows(v, lane)
	if len(todo) == 0 && len(counted) == 0 {
		return nil, nil
	}
	var whys []explain.Why
	start := time.Now()
	ex := &Explained{Max: maxExplained}
	var nAllocs, nCPU int
	for _, e := range todo {
		if len(e.allocs) > 0 {
			nAllocs++
		}
		if e.time != nil {
			nCPU++
		}
	}
	if len(todo) > 0 {
		env.step(StepExplain{len(todo), nAllocs, nCPU})
	}
	var roots [2]string
	for i, d := range dirs {
		r, err := explain.ModuleRoot(d)
		if err != nil {
			ex.Problems = append(ex.Problems, ExplainProblem{Step: ExplainModule, Err: OneLine(err)})
			return whys, ex
		}
		roots[i] = r
	}
	base := filepath.Join(out, "explain")
	used, dirOf := map[string]bool{}, map[string]string{}
	// benchDir makes a benchmark's directory under out, through no link:
	// out may be in the workspace, where the change's files are.
	benchDir := func(u runner.Unit) (string, error) {
		d, ok := dirOf[u.ID()]
		if !ok {
			d = filepath.Join(base, explainDirName(u, used))
			dirOf[u.ID()] = d
		}
		return d, safefile.MkdirAll(out, d, 0o755)
	}
	if len(counted) > 0 {
		for _, r := range counted {
			d, err := benchDir(runner.Unit{Package: r.Package, Name: "Benchmark" + r.Name, CPU: 1})
			w := explainInstructions(r, lane.Result.Profiles[r.Package+"."+r.Name], roots, filepath.Join(d, "instructions"), kept && err == nil)
			if err != nil && kept {
				w.Notes = append(w.Notes, "the counts were not kept: "+OneLine(err))
			}
			whys = append(whys, w)
		}
		ex.Instructions = len(counted)
		if kept {
			ex.Kept = base
		}
	}
	if len(todo) == 0 {
		return whys, ex
	}
	var allocsTime, cpuTime time.Duration
	profiled := 0
	for _, e := range todo {
		if ctx.Err() != nil {
			ex.Cancelled = true
			break
		}
		dir, err := benchDir(e.u)
		if err != nil {
			ex.Problems = append(ex.Problems, ExplainProblem{Bench: e.u.ID(), Step: ExplainNotProfiled, Err: OneLine(err)})
			if len(e.allocs) > 0 {
				nAllocs--
			}
			if e.time != nil {
				nCPU--
			}
			continue
		}
		profiled++
		pr := explainer{sess: sess, u: e.u, roots: roots, dir: dir, kept: kept}
		if kept {
			if _, err := sess.KeepBinaries(e.u, dir); err != nil {
				pr.kept = false
				ex.Problems = append(ex.Problems, ExplainProblem{Bench: e.u.ID(), Step: ExplainBinaries, Err: OneLine(err)})
			}
		}
		if len(e.allocs) > 0 {
			t := time.Now()
			whys = append(whys, pr.allocs(ctx, v, e.allocs)...)
			allocsTime += time.Since(t)
		}
		if e.time != nil {
			t := time.Now()
			whys = append(whys, pr.cpu(ctx, *e.time))
			cpuTime += time.Since(t)
		}
	}
	ex.Skipped = skipped
	if profiled > 0 {
		ex.Profiled, ex.Allocs, ex.CPU = profiled, nAllocs, nCPU
		ex.Elapsed, ex.AllocsTime, ex.CPUTime = time.Since(start), allocsTime, cpuTime
		if kept {
			ex.Kept = base
		}
	}
	return whys, ex
}

// instructionRows picks the instructions/op rows to explain: those that
// regressed or improved and whose benchmark the lane profiled on both
// sides, those failing the gate first, at most maxExplained (their
// explanations come from counts already taken, but each is a block in
// the report).
func instructionRows(v gate.Verdict, lane *Lane) []gate.Result {
	if lane == nil || lane.Result == nil {
		return nil
	}
	var rows []gate.Result
	for _, r := range v.Results {
		if r.Kind != gate.Instructions || r.Status != gate.Regression && r.Status != gate.Improvement {
			continue
		}
		if lp := lane.Result.Profiles[r.Package+"."+r.Name]; lp != nil {
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, func(x, y gate.Result) int { return boolRank(y.Fails()) - boolRank(x.Fails()) })
	return rows[:min(len(rows), maxExplained)]
}

// explainInstructions explains an instructions/op row from the lane's
// per-function counts of both sides (exact, as the counts are): the
// functions whose own instructions per op changed most. With kept, each
// side's counts go to dir/base.pprof and dir/head.pprof.
func explainInstructions(r gate.Result, lp *[2]runner.LaneProfile, roots [2]string, dir string, kept bool) explain.Why {
	w := explain.Why{Package: r.Package, Name: r.Name, Unit: r.Unit}
	var cs [2]explain.Counts
	for i := range 2 {
		cs[i] = explain.FromCallgrind(lp[i].Profile, lp[i].Ops, roots[i], lp[i].Binary)
	}
	f, err := explain.DiffInstructions(cs[0], cs[1])
	if err != nil {
		w.Err = OneLine(err)
		return w
	}
	// Less than half an instruction per op is the runtime's background
	// (page allocator, scavenger) landing in a run or not: exact, but not
	// the change.
	top := slices.DeleteFunc(f.Top(0, false), func(e explain.Func) bool { return math.Abs(e.Head-e.Base) < minInstructionChange })
	w.Changed = len(top)
	w.Explain.Functions = top[:min(len(top), 5)]
	w.Base, w.Head = f.Total[0], f.Total[1]
	w.Ops = f.Ops
	w.Runs = laneRepeats
	if kept {
		var files [2]string
		for i := range 2 {
			files[i] = filepath.Join(dir, sideName(i)+".pprof")
			if err := safefile.MkdirAll(filepath.Dir(dir), dir, 0o755); err != nil {
				return w
			}
			if err := explain.WriteProfile(files[i], explain.InstructionProfile(cs[i])); err != nil {
				return w
			}
		}
		w.Command = "go tool pprof -top -nodefraction=0 -diff_base " + explain.Quote(files[0]) + " " + explain.Quote(files[1])
	}
	return w
}

// explainUnits picks the benchmarks to profile: those with an allocs/op or
// B/op row that regressed or improved, or a time row that regressed (and
// did not vanish on confirmation), on both sides; those failing the gate
// first, at most maxExplained. skipped counts the others.
func explainUnits(units []runner.Unit, v gate.Verdict) (todo []explainUnit, skipped int) {
	byID := map[string]runner.Unit{}
	for _, u := range units {
		if u.Sides[0] && u.Sides[1] {
			byID[u.ID()] = u
		}
	}
	idx := map[string]int{}
	for _, r := range v.Results {
		alloc := (r.Kind == gate.Allocs || r.Kind == gate.Bytes) && (r.Status == gate.Regression || r.Status == gate.Improvement)
		slower := r.Kind == gate.Time && r.Status == gate.Regression && (r.Confirmed == nil || *r.Confirmed)
		if !alloc && !slower || r.Base == nil || r.Head == nil {
			continue
		}
		id := r.Package + "." + r.Name
		u, ok := byID[id]
		if !ok {
			continue
		}
		i, ok := idx[id]
		if !ok {
			i = len(todo)
			idx[id] = i
			todo = append(todo, explainUnit{u: u})
		}
		if alloc {
			todo[i].allocs = append(todo[i].allocs, r)
		} else {
			todo[i].time = &r
		}
		todo[i].fails = todo[i].fails || r.Fails()
	}
	slices.SortStableFunc(todo, func(x, y explainUnit) int { return boolRank(y.fails) - boolRank(x.fails) })
	if len(todo) > maxExplained {
		return todo[:maxExplained], len(todo) - maxExplained
	}
	return todo, 0
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// explainer profiles one benchmark into dir.
type explainer struct {
	sess  session
	u     runner.Unit
	roots [2]string // the sides' module roots
	dir   string
	kept  bool
}

// allocs explains the allocation rows of a benchmark with one allocation
// pass: both sides at n and 2n ops, their difference diffed by site.
func (ex explainer) allocs(ctx context.Context, v gate.Verdict, rows []gate.Result) []explain.Why {
	fail := func(err error) []explain.Why {
		var out []explain.Why
		for _, r := range rows {
			out = append(out, explain.Why{Package: r.Package, Name: r.Name, Unit: r.Unit, Err: OneLine(err)})
		}
		return out
	}
	// testing's own figures, as the rows have them: the medians.
	allocsRow, haveAllocs := rowCenters(v, rows[0], explain.UnitAllocs)
	bytesRow, haveBytes := rowCenters(v, rows[0], explain.UnitBytes)
	n := runner.AllocProfileN(ex.u, max(allocsRow[0], allocsRow[1]))
	dir := filepath.Join(ex.dir, "allocs")
	set, err := ex.sess.ProfileAllocs(ctx, ex.u, n, dir)
	if err != nil {
		return fail(err)
	}
	var in [2]explain.Input
	for i := range 2 {
		if len(set.Runs[i]) != 2 {
			return fail(fmt.Errorf("%d allocation profiles of %s, want 2", len(set.Runs[i]), sideName(i)))
		}
		lo, hi := set.Runs[i][0], set.Runs[i][1]
		var ps [2]*profile.Profile
		for k, run := range []runner.ProfileRun{lo, hi} {
			if ps[k], err = explain.ReadProfile(run.Path); err != nil {
				return fail(err)
			}
		}
		d, ops, err := explain.AllocDelta(ps[0], lo.N, ps[1], hi.N)
		if err != nil {
			return fail(err)
		}
		in[i] = explain.Input{Profile: d, Ops: ops, Root: ex.roots[i]}
		if hi.Result != nil {
			if !haveAllocs {
				allocsRow[i], _ = hi.Result.Value(explain.UnitAllocs)
			}
			if !haveBytes {
				bytesRow[i], _ = hi.Result.Value(explain.UnitBytes)
			}
		}
	}
	diff, err := explain.DiffAllocs(in[0], in[1])
	if err != nil {
		return fail(err)
	}
	notes := diff.Check(allocsRow, bytesRow)
	files, kept := ex.write(dir, in)
	var out []explain.Why
	for _, r := range rows {
		// The sites that moved the row's way first: for a regression,
		// the largest increase (a line that stopped allocating while a
		// new one started is a change too, but not the news).
		changed := diff.Sites(r.Unit, 0)
		sign := 1.0
		if r.Status == gate.Improvement {
			sign = -1
		}
		slices.SortStableFunc(changed, func(x, y explain.Site) int {
			return cmp.Compare(sign*(y.Head-y.Base), sign*(x.Head-x.Base))
		})
		w := explain.Why{Package: r.Package, Name: r.Name, Unit: r.Unit, Changed: len(changed), Ops: diff.Ops, Notes: notes}
		w.Explain.Sites = changed[:min(len(changed), 5)]
		index := "-sample_index=alloc_objects"
		w.Base, w.Head = diff.Objects[0], diff.Objects[1]
		if r.Unit == explain.UnitBytes {
			index = "-sample_index=alloc_space -unit=B"
			w.Base, w.Head = diff.Bytes[0], diff.Bytes[1]
		}
		if kept {
			w.Command = ex.command("-top -lines -nodefraction=0 "+index, files)
		}
		out = append(out, w)
	}
	return out
}

// cpu explains a time regression with cpuRuns CPU profiles per side,
// alternating, each side's merged.
func (ex explainer) cpu(ctx context.Context, r gate.Result) explain.Why {
	w := explain.Why{Package: r.Package, Name: r.Name, Unit: r.Unit}
	n := runner.CPUProfileN(ex.u, cpuTarget)
	dir := filepath.Join(ex.dir, "cpu")
	set, err := ex.sess.ProfileCPU(ctx, ex.u, n, cpuRuns, dir)
	if err != nil {
		w.Err = OneLine(err)
		return w
	}
	var in [2]explain.Input
	for i := range 2 {
		var ps []*profile.Profile
		for _, run := range set.Runs[i] {
			p, err := explain.ReadProfile(run.Path)
			if err != nil {
				w.Err = OneLine(err)
				return w
			}
			ps = append(ps, p)
		}
		m, err := explain.Merge(ps...)
		if err != nil {
			w.Err = OneLine(err)
			return w
		}
		in[i] = explain.Input{Profile: m, Ops: int64(len(ps) * n), Root: ex.roots[i]}
	}
	f, err := explain.DiffCPU(in[0], in[1])
	if err != nil {
		w.Err = OneLine(err)
		return w
	}
	top := f.Top(0, false)
	w.Changed = len(top)
	w.Explain.Functions = top[:min(len(top), 5)]
	w.Base, w.Head = f.Total[0], f.Total[1]
	w.Ops, w.Runs = f.Ops, cpuRuns
	if files, kept := ex.write(dir, in); kept {
		w.Command = ex.command("-top -nodefraction=0 -hide="+explain.Quote(explain.CPUHide), files)
	}
	return w
}

// write keeps each side's profile (file names relative to its module
// root, so that the two match) as dir/base.pprof and dir/head.pprof, when
// the files are kept.
func (ex explainer) write(dir string, in [2]explain.Input) ([2]string, bool) {
	var files [2]string
	if !ex.kept {
		return files, false
	}
	for i := range 2 {
		explain.Relativize(in[i].Profile, ex.roots[i])
		files[i] = filepath.Join(dir, sideName(i)+".pprof")
		if err := explain.WriteProfile(files[i], in[i].Profile); err != nil {
			return files, false
		}
	}
	return files, true
}

// command is the go tool pprof command that shows the difference of the
// kept profiles, head's with its binary (which pprof takes before the
// profile): every node, also those under pprof's default cut.
func (ex explainer) command(flags string, files [2]string) string {
	return "go tool pprof " + flags + " -diff_base " + explain.Quote(files[0]) + " " + explain.Quote(filepath.Join(ex.dir, "head.test")) + " " + explain.Quote(files[1])
}

// rowCenters returns the medians of base and head of the row of unit for
// r's benchmark.
func rowCenters(v gate.Verdict, r gate.Result, unit string) ([2]float64, bool) {
	for _, o := range v.Results {
		if o.Package == r.Package && o.Name == r.Name && o.Unit == unit && o.Base != nil && o.Head != nil {
			return [2]float64{o.Base.Center, o.Head.Center}, true
		}
	}
	return [2]float64{}, false
}

// explainDirName is the directory of a benchmark's profiles: its package's
// last element and its name, with anything but letters, digits and ._=-
// replaced (the name comes from the code measured), unique among used.
func explainDirName(u runner.Unit, used map[string]bool) string {
	name := path.Base(u.Package) + "." + strings.TrimPrefix(u.ID(), u.Package+".")
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._=-", r) {
			return r
		}
		return '_'
	}, name)
	if len(name) > 100 {
		name = name[:100]
	}
	if strings.HasPrefix(name, ".") || name == "" {
		name = "_" + name
	}
	unique := name
	for k := 2; used[unique]; k++ {
		unique = fmt.Sprintf("%s-%d", name, k)
	}
	used[unique] = true
	return unique
}

func sideName(i int) string {
	if i == 0 {
		return "base"
	}
	return "head"
}
