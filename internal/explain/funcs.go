package explain

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
)

// Units of Funcs.
const (
	UnitSeconds      = "seconds"
	UnitInstructions = "instructions"
)

// Func is one function's cost per op on each side, in Funcs.Unit: flat
// (Base, Head: its own code) and cumulative (with the functions it calls),
// and its flat share of its side's total (0 to 1).
type Func struct {
	Function  string  `json:"function"`
	File      string  `json:"file"` // relative to the module root when inside it
	Line      int64   `json:"line"` // the function's first line; 0 if unknown
	Base      float64 `json:"base"`
	Head      float64 `json:"head"`
	CumBase   float64 `json:"cum_base"`
	CumHead   float64 `json:"cum_head"`
	ShareBase float64 `json:"share_base"`
	ShareHead float64 `json:"share_head"`
}

// Funcs is the difference of two sides' costs per op, by function
// (inlined functions count as their own, as in go tool pprof).
type Funcs struct {
	Unit  string     // UnitSeconds or UnitInstructions
	Ops   [2]int64   // ops each side's figures cover
	Total [2]float64 // each side's total per op
	funcs []Func
}

// CPUHide is the go tool pprof -hide expression under which DiffCPU's
// figures are pprof's: runtime.asyncPreempt (and asyncPreempt2) count as
// the function they interrupted. The runtime injects a call to them to
// preempt a goroutine that runs too long, which under CPU contention
// happens every few milliseconds; the profiling signal that was pending
// while the thread waited for a CPU then lands in them, and pprof would
// show a fifth of a busy loop's time there (measured) instead of in the
// loop.
const CPUHide = `^runtime\.asyncPreempt2?$`

var hidden = regexp.MustCompile(CPUHide)

// DiffCPU diffs two sides' CPU profiles (-test.cpuprofile; several runs
// of a side merged with Merge) by function, in seconds per op: flat is the
// time of the samples whose innermost frame is the function, cumulative
// that of the samples with the function anywhere on the stack (once per
// sample), as go tool pprof -top -hide=CPUHide counts them.
//
// The profile covers the whole process: the ops of the runs, but also
// the benchmark's setup, testing's probe run, the garbage collector's
// background work and testing itself. Ops is what the caller divides by
// (normally runs × N): the per-op figures are then slightly high for a
// benchmark with a costly setup, alike on both sides, and carry the
// sampling error of a 100 Hz profile. The ranking, not the last digit,
// is the point.
func DiffCPU(base, head Input) (*Funcs, error) {
	f := &Funcs{Unit: UnitSeconds}
	acc := map[string]*Func{}
	var order []string
	for i, in := range [2]Input{base, head} {
		if in.Profile == nil || in.Ops <= 0 {
			return nil, fmt.Errorf("%s: no profile, or no ops (%d)", sideName(i), in.Ops)
		}
		f.Ops[i] = in.Ops
		vi, err := sampleIndex(in.Profile, "cpu")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sideName(i), err)
		}
		scale := 1.0
		switch u := in.Profile.SampleType[vi].Unit; u {
		case "nanoseconds":
			scale = 1e-9
		case "microseconds":
			scale = 1e-6
		case "milliseconds":
			scale = 1e-3
		case "seconds":
		default:
			return nil, fmt.Errorf("%s: cpu samples in %q", sideName(i), u)
		}
		scale /= float64(in.Ops)
		t := newTree(in.Root)
		total := 0.0
		for _, s := range in.Profile.Sample {
			v := float64(s.Value[vi]) * scale
			if v == 0 {
				continue
			}
			total += v
			fs := slices.DeleteFunc(frames(s), func(f frame) bool { return hidden.MatchString(f.fn) })
			seen := map[string]bool{}
			for k, fr := range fs {
				if seen[fr.fn] {
					continue
				}
				seen[fr.fn] = true
				e := acc[fr.fn]
				if e == nil {
					e = &Func{Function: fr.fn}
					acc[fr.fn] = e
					order = append(order, fr.fn)
				}
				if e.File == "" || i == 1 {
					e.File, _ = t.rel(fr.file)
					e.Line = fr.start
				}
				if k == 0 {
					addSide(&e.Base, &e.Head, i, v)
				}
				addSide(&e.CumBase, &e.CumHead, i, v)
			}
		}
		f.Total[i] = total
	}
	f.funcs = make([]Func, 0, len(order))
	for _, name := range order {
		f.funcs = append(f.funcs, *acc[name])
	}
	f.shares()
	return f, nil
}

// Counts are one side's instruction counts by function, as callgrind
// reports them (package callgrind: a Profile's Funcs, Self and Inclusive
// of the first event, Ir), covering Ops benchmark ops (for the lane's
// difference of two runs, C(2N) − C(N) per function and N ops). Files are
// under Root, the side's module root.
type Counts struct {
	Ops   int64
	Root  string
	Funcs map[string]Count
}

// Count is one function's instructions: Self in its own code, Inclusive
// with the functions it calls. Line is its first line (EntryLines), 0 if
// unknown.
type Count struct {
	File            string
	Line            int64
	Self, Inclusive int64
}

// DiffInstructions diffs two sides' per-function instruction counts, in
// instructions per op, the way DiffCPU diffs time: flat is Self,
// cumulative Inclusive, shares are of the sum of Self. Unlike sampled
// time, the counts are exact: every change is real (if small).
func DiffInstructions(base, head Counts) (*Funcs, error) {
	f := &Funcs{Unit: UnitInstructions}
	acc := map[string]*Func{}
	for i, c := range [2]Counts{base, head} {
		if c.Ops <= 0 {
			return nil, fmt.Errorf("%s: no ops (%d)", sideName(i), c.Ops)
		}
		f.Ops[i] = c.Ops
		t := newTree(c.Root)
		ops := float64(c.Ops)
		for name, n := range c.Funcs {
			e := acc[name]
			if e == nil {
				e = &Func{Function: name}
				acc[name] = e
			}
			if e.File == "" || i == 1 {
				e.File, _ = t.rel(n.File)
				e.Line = n.Line
			}
			addSide(&e.Base, &e.Head, i, float64(n.Self)/ops)
			addSide(&e.CumBase, &e.CumHead, i, float64(n.Inclusive)/ops)
			f.Total[i] += float64(n.Self) / ops
		}
	}
	for _, name := range slices.Sorted(maps.Keys(acc)) {
		f.funcs = append(f.funcs, *acc[name])
	}
	f.shares()
	return f, nil
}

func addSide(base, head *float64, i int, v float64) {
	if i == 0 {
		*base += v
	} else {
		*head += v
	}
}

func (f *Funcs) shares() {
	for k := range f.funcs {
		e := &f.funcs[k]
		if f.Total[0] != 0 {
			e.ShareBase = e.Base / f.Total[0]
		}
		if f.Total[1] != 0 {
			e.ShareHead = e.Head / f.Total[1]
		}
	}
}

// Top returns the n functions (all for n <= 0) whose flat cost per op
// changed most (by cumulative cost with cum), largest change first,
// leaving out those that did not change. Ties go to the larger other
// measure, then by name. With cum, the callers of the changed code (the
// benchmark function, testing's) share its change: flat names the code
// that changed, cumulative the path to it.
func (f *Funcs) Top(n int, cum bool) []Func {
	delta := func(e Func) (float64, float64) {
		fl, cu := math.Abs(e.Head-e.Base), math.Abs(e.CumHead-e.CumBase)
		if cum {
			return cu, fl
		}
		return fl, cu
	}
	var out []Func
	for _, e := range f.funcs {
		if d, _ := delta(e); d != 0 {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(x, y Func) int {
		dx, ox := delta(x)
		dy, oy := delta(y)
		return cmp.Or(cmp.Compare(dy, dx), cmp.Compare(oy, ox), strings.Compare(x.Function, y.Function))
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}
