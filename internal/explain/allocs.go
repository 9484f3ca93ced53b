package explain

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// Units of allocation rows, as testing reports them.
const (
	UnitAllocs = "allocs/op"
	UnitBytes  = "B/op"
)

// Site is one allocation site and what it allocates per op on each side,
// in the row's unit (allocs/op or B/op).
//
// The site is the innermost frame of the allocating stack that is not an
// allocation function of the runtime (runtime.*, internal/runtime/*,
// internal/bytealg.MakeNoZero, reflect.unsafe_New*): for make, new,
// append, a composite literal or a conversion that escapes, the line of the
// code that allocates; for an allocation inside the standard library or a
// dependency (strconv.Itoa, bytes.Buffer growing), that library's line,
// with Caller the innermost frame in the module's own code (the line to
// change). This is the line go tool pprof -lines shows as flat, except for
// MakeNoZero and unsafe_New, which pprof lists themselves. File and line
// are head's when the site allocates on head, else base's.
type Site struct {
	Function string  `json:"function"`
	File     string  `json:"file"` // relative to the module root when inside it
	Line     int64   `json:"line"`
	Base     float64 `json:"base"`
	Head     float64 `json:"head"`
	Caller   *Frame  `json:"caller,omitempty"`
}

// Allocs is the difference of two sides' allocations per op, by site.
//
// Sites are those of the benchmark's own stacks: code called by the
// benchmark function (below testing.(*B).runN) or by a b.RunParallel
// worker. Objects and Bytes are their exact sums: Objects[1] − Objects[0]
// is the sum of every site's change. The rest of the profile, allocated
// on other stacks, is counted apart (OutsideObjects, OutsideBytes):
// testing's and the runtime's own work, whose allocations
// vary a little from process to process (the tiny allocator, see Check,
// hands out blocks differently) and do not belong to the benchmark, and
// goroutines the benchmark starts (a heap profile does not record where
// a goroutine was created), whose allocations do.
type Allocs struct {
	Ops [2]int64 // ops each side's profile covers
	// Objects and Bytes are each side's allocations per op at the
	// benchmark's sites. Objects counts heap blocks: see Check for the
	// tiny allocations that share one.
	Objects, Bytes [2]float64
	// OutsideObjects and OutsideBytes are each side's allocations per op
	// on other stacks.
	OutsideObjects, OutsideBytes [2]float64
	rows                         []*allocRow
}

type allocRow struct {
	site    Frame
	caller  *Frame
	outside bool
	seen    [2]bool // a sample on base, on head
	objects [2]int64
	bytes   [2]int64
}

// AllocDelta returns the allocations of hiN − loN benchmark ops alone: hi
// − lo, where lo and hi are heap profiles (-test.memprofile with
// -test.memprofilerate=1) of the same test binary running the same
// benchmark at -test.benchtime=<loN>x and <hiN>x, and the number of ops,
// hiN − loN.
//
// Why two profiles: the one testing writes at exit holds every allocation
// of the process since the rate was set, not only the loop's. Besides
// the N ops it holds testing's own allocations, a probe run of one op
// (for b.N loops testing runs the function with N = 1 before N = n: 1 + n
// ops; b.Loop loops run n ops in one call) and the benchmark's setup
// before b.ResetTimer (once per call: twice, or once). None of these
// depends on n; the loop's allocations grow with it. In the difference
// everything that does not depend on n cancels, whatever the loop style,
// and what remains is exactly hiN − loN ops of the loop. With rate 1 the
// runtime records every heap block allocated (not a sample), so the
// per-op figures are exact for allocations that happen the same way in
// every op. Amortized ones (a slice or map growing now and then, a
// sync.Pool refilled after a GC) are averaged over the ops and may differ
// a little from a longer run.
//
// loN must be at least 2 (with 1, testing skips the second call and the
// setup does not cancel) and hiN larger. The result carries a comment
// saying what it holds (go tool pprof -comments).
func AllocDelta(lo *profile.Profile, loN int, hi *profile.Profile, hiN int) (*profile.Profile, int64, error) {
	if loN < 2 || hiN <= loN {
		return nil, 0, fmt.Errorf("allocation profiles at %dx and %dx: want 2 <= lo < hi", loN, hiN)
	}
	for _, p := range []*profile.Profile{lo, hi} {
		if _, err := sampleIndex(p, "alloc_objects"); err != nil {
			return nil, 0, err
		}
	}
	neg := lo.Copy()
	neg.Scale(-1)
	d, err := profile.Merge([]*profile.Profile{hi.Copy(), neg})
	if err != nil {
		return nil, 0, err
	}
	ops := int64(hiN - loN)
	d.Comments = append(d.Comments, fmt.Sprintf("benchgate: the allocations of %d benchmark ops: the -test.benchtime=%dx profile minus the %dx one (divide by %d for per-op figures)", ops, hiN, loN, ops))
	return d, ops, nil
}

// DiffAllocs diffs two sides' allocation profiles (each normally an
// AllocDelta, with its ops) by site.
func DiffAllocs(base, head Input) (*Allocs, error) {
	a := &Allocs{}
	rows := map[string]*allocRow{}
	var order []string
	for i, in := range [2]Input{base, head} {
		if in.Profile == nil || in.Ops <= 0 {
			return nil, fmt.Errorf("%s: no profile, or no ops (%d)", sideName(i), in.Ops)
		}
		a.Ops[i] = in.Ops
		oi, err := sampleIndex(in.Profile, "alloc_objects")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sideName(i), err)
		}
		bi, err := sampleIndex(in.Profile, "alloc_space")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sideName(i), err)
		}
		t := newTree(in.Root)
		var objects, bytes, outObjects, outBytes int64
		for _, s := range in.Profile.Sample {
			o, b := s.Value[oi], s.Value[bi]
			if o == 0 && b == 0 {
				continue
			}
			fs := frames(s)
			if len(fs) == 0 {
				fs = []frame{{fn: "(unknown)"}}
			}
			k := 0
			for k < len(fs)-1 && isAllocFunc(fs[k].fn) {
				k++
			}
			site := t.resolve(fs[k])
			outside := !benchmarkCallee(fs, k)
			key := site.key
			if outside {
				key = "outside\x01" + key
			}
			var caller *pos
			if !site.inModule {
				for _, f := range fs[k+1:] {
					if p := t.resolve(f); p.inModule {
						caller = &p
						key += "\x01" + p.key
						break
					}
				}
			}
			r := rows[key]
			if r == nil {
				r = &allocRow{outside: outside}
				rows[key] = r
				order = append(order, key)
			}
			if !r.seen[i] && !r.seen[1] {
				// Head's position wins.
				r.seen[i] = true
				r.site = site.Frame
				r.caller = nil
				if caller != nil {
					fr := caller.Frame
					r.caller = &fr
				}
			}
			r.objects[i] += o
			r.bytes[i] += b
			if outside {
				outObjects += o
				outBytes += b
			} else {
				objects += o
				bytes += b
			}
		}
		ops := float64(in.Ops)
		a.Objects[i], a.Bytes[i] = float64(objects)/ops, float64(bytes)/ops
		a.OutsideObjects[i], a.OutsideBytes[i] = float64(outObjects)/ops, float64(outBytes)/ops
	}
	for _, k := range order {
		if r := rows[k]; r.objects != [2]int64{} || r.bytes != [2]int64{} {
			a.rows = append(a.rows, r)
		}
	}
	return a, nil
}

// Sites returns the benchmark's sites whose allocations per op changed,
// in unit (UnitAllocs or UnitBytes), largest change first, at most n of
// them (all for n <= 0).
func (a *Allocs) Sites(unit string, n int) []Site {
	return changed(a.sites(unit, false), n)
}

func changed(sites []Site, n int) []Site {
	var out []Site
	for _, s := range sites {
		if s.Base != s.Head {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(x, y Site) int {
		return cmp.Compare(math.Abs(y.Head-y.Base), math.Abs(x.Head-x.Base))
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

func (a *Allocs) sites(unit string, outside bool) []Site {
	var out []Site
	for _, r := range a.rows {
		v := r.bytes
		if unit == UnitAllocs {
			v = r.objects
		}
		if v == [2]int64{} || r.outside != outside {
			continue
		}
		s := Site{Function: r.site.Function, File: r.site.File, Line: r.site.Line,
			Base: float64(v[0]) / float64(a.Ops[0]), Head: float64(v[1]) / float64(a.Ops[1])}
		if r.caller != nil {
			c := *r.caller
			s.Caller = &c
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(x, y Site) int {
		if c := cmp.Compare(max(y.Base, y.Head), max(x.Base, x.Head)); c != 0 {
			return c
		}
		return cmp.Or(strings.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line), strings.Compare(x.Function, y.Function))
	})
	return out
}

// Check compares the sites' sums per op (Objects, Bytes) with the
// benchmark's own figures for base and head (testing's allocs/op and
// B/op: whole numbers, rounded down; a mean of several runs will do) and
// returns, one sentence each, where the sites do not add up to them
// (rounded down the same way) and what may explain it, and where half an
// allocation per op, or half a byte and 1 % of B/op, or more was
// allocated outside the benchmark's stacks; nil when the sites add up to
// the row on both sides.
//
// testing counts what the whole process allocates while the timer runs;
// the sites, what grows with N on the benchmark's stacks. The two agree
// but for: allocations in goroutines the benchmark starts (see Allocs);
// tiny allocations (pointer-free, under 16 B) that share a 16-byte block
// with an earlier one, which testing counts as allocations but the
// runtime does not profile (their bytes are in the block's: B/op still
// agrees); allocations that grow with N while the timer is stopped
// (b.StopTimer in the loop), which only the profile has; and allocations
// that do not happen the same way in every run (amortized growth, pools),
// which the profiled runs and the timed ones average differently.
func (a *Allocs) Check(allocsPerOp, bytesPerOp [2]float64) []string {
	var notes []string
	// Rounded down like testing's figures; the slack is for the
	// floating-point division only: the sites' sums are exact.
	off := func(prof, row float64) bool { return math.Floor(prof+1e-6) != math.Floor(row+1e-6) }
	// Outside bytes count from half a byte per op, and from 1 % of the
	// row's B/op: the runtime's own background allocations over a short
	// profiled run (a few KiB under load) are not the benchmark's. Less
	// outside the stacks in the longer run than in the shorter (a negative
	// figure) is that background too: what the benchmark's goroutines
	// allocate grows with N.
	significant := func(objects, bytes, rowBytes float64) bool {
		return objects >= 0.5 || bytes >= math.Max(0.5, 0.01*rowBytes)
	}
	for i := range 2 {
		side := sideName(i)
		objects, bytes := a.Objects[i], a.Bytes[i]
		outObjects, outBytes := a.OutsideObjects[i], a.OutsideBytes[i]
		o, b := off(objects, allocsPerOp[i]), off(bytes, bytesPerOp[i])
		outside := fmt.Sprintf("%s allocs/op and %s B/op were allocated outside the benchmark's stacks (in goroutines it started, or background work) and are not in its sites", num(outObjects), num(outBytes))
		switch {
		case !o && !b:
			if significant(outObjects, outBytes, bytesPerOp[i]) {
				notes = append(notes, side+": "+outside)
			}
			continue
		case o && objects < allocsPerOp[i] && !b:
			notes = append(notes, fmt.Sprintf("%s: the sites count %s allocs/op where testing counts %s, with the same bytes: tiny allocations (pointer-free, under 16 B) that share a 16-byte block with an earlier one are counted by testing but not profiled; the sites' bytes are complete", side, num(objects), num(allocsPerOp[i])))
			continue
		}
		msg := fmt.Sprintf("%s: the sites add up to %s allocs/op and %s B/op where testing reports %s and %s", side, num(objects), num(bytes), num(allocsPerOp[i]), num(bytesPerOp[i]))
		switch {
		case significant(outObjects, outBytes, bytesPerOp[i]):
			msg += "; " + outside
		case objects > allocsPerOp[i] || bytes > bytesPerOp[i]:
			msg += ": allocations that grow with N while the timer is stopped (b.StopTimer in the loop) are in the profile and not in testing's count"
		default:
			msg += ": allocations that do not happen the same way in every run (amortized growth, pools) differ between the profiled runs and the timed ones"
		}
		notes = append(notes, msg)
	}
	return notes
}

// isAllocFunc reports whether fn is one of the functions that allocate on
// behalf of their caller.
func isAllocFunc(fn string) bool {
	switch {
	case strings.HasPrefix(fn, "runtime."), strings.HasPrefix(fn, "internal/runtime/"),
		fn == "internal/bytealg.MakeNoZero", strings.HasPrefix(fn, "reflect.unsafe_New"):
		return true
	}
	return false
}

// benchmarkCallee reports whether the allocating frame fs[k] is code
// that the benchmark function (called by testing.(*B).runN) or a
// b.RunParallel worker runs, rather than testing's own.
func benchmarkCallee(fs []frame, k int) bool {
	for _, f := range fs[k+1:] {
		if f.fn == "testing.(*B).runN" || strings.HasPrefix(f.fn, "testing.(*B).RunParallel.func") {
			return true
		}
	}
	return false
}

func sideName(i int) string {
	if i == 0 {
		return "base"
	}
	return "head"
}

// num formats a per-op figure: whole numbers as such, others with up to
// three decimals.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}
