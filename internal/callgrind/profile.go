package callgrind

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// A Profile is one callgrind profile file (one part of one thread, with
// --separate-threads=yes and dumps), or several merged: the cost of every
// function, self and inclusive, for each event (here only Ir, instructions
// executed).
type Profile struct {
	Events  []string // event names, "Ir" first
	Totals  []int64  // per event: the totals: line, else summary:, else the sum of self costs
	Part    int      // dump number (0: the dump at program termination)
	Thread  int      // thread number (0: not separated, or merged)
	Trigger string   // what made callgrind dump: "--dump-before=testing.(*B).StopTimer", "Program termination"
	Funcs   map[string]*Func
}

// A Func is the cost of one function, by name. The same name in several
// objects or files (or inline file changes) is one Func.
type Func struct {
	Name   string
	Object string // the object file of its first record
	File   string // the source file of its first record
	// Self is what the function's own instructions cost; Inclusive adds the
	// costs of the calls it made. Recursive calls of the function to
	// itself are not added a second time; mutual recursion (and the cycles
	// that goroutine stack switches make in callgrind's call graph) still
	// counts twice, as in callgrind_annotate --inclusive=yes.
	Self, Inclusive []int64
	Calls           int64 // calls to it that the profile records
}

// Total is the profile's total for its first event (instructions).
func (p *Profile) Total() int64 {
	if len(p.Totals) == 0 {
		return 0
	}
	return p.Totals[0]
}

// Top returns the n costliest functions by the first event, self or
// inclusive cost (all of them for n <= 0), costliest first, ties by name.
func (p *Profile) Top(n int, inclusive bool) []*Func {
	fs := make([]*Func, 0, len(p.Funcs))
	for _, f := range p.Funcs {
		fs = append(fs, f)
	}
	key := func(f *Func) int64 {
		c := f.Self
		if inclusive {
			c = f.Inclusive
		}
		if len(c) == 0 {
			return 0
		}
		return c[0]
	}
	slices.SortFunc(fs, func(a, b *Func) int {
		if c := cmp.Compare(key(b), key(a)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	if n > 0 && len(fs) > n {
		fs = fs[:n]
	}
	return fs
}

// Merge adds q's costs to p's. The two must record the same events; Part,
// Thread and Trigger keep p's values (Thread becomes 0 when they differ).
func (p *Profile) Merge(q *Profile) error {
	if p.Events == nil && p.Funcs == nil {
		p.Events = slices.Clone(q.Events)
		p.Part, p.Thread, p.Trigger = q.Part, q.Thread, q.Trigger
		p.Funcs = map[string]*Func{}
	} else if !slices.Equal(p.Events, q.Events) {
		return fmt.Errorf("callgrind: cannot merge profiles of events %v and %v", p.Events, q.Events)
	}
	if p.Thread != q.Thread {
		p.Thread = 0
	}
	p.Totals = addCosts(p.Totals, q.Totals)
	for name, g := range q.Funcs {
		f := p.Funcs[name]
		if f == nil {
			f = &Func{Name: name, Object: g.Object, File: g.File}
			p.Funcs[name] = f
		}
		f.Self = addCosts(f.Self, g.Self)
		f.Inclusive = addCosts(f.Inclusive, g.Inclusive)
		f.Calls += g.Calls
	}
	return nil
}

func addCosts(a, b []int64) []int64 {
	if len(b) > len(a) {
		a = append(a, make([]int64, len(b)-len(a))...)
	}
	for i, v := range b {
		a[i] += v
	}
	return a
}

// Parse reads a profile in callgrind's format
// (https://valgrind.org/docs/manual/cl-format.html): name compression,
// relative and "*" positions, any number of position columns and events,
// calls with their inclusive costs. Jump records (--collect-jumps) are
// skipped.
func Parse(r io.Reader) (*Profile, error) {
	p := &Profile{Funcs: map[string]*Func{}}
	names := map[string]map[string]string{} // kind ("fn", "fl", "ob") -> id -> name
	resolve := func(kind, v string) (string, error) {
		v = strings.TrimSpace(v)
		if !strings.HasPrefix(v, "(") {
			return v, nil
		}
		end := strings.IndexByte(v, ')')
		if end < 0 {
			return "", fmt.Errorf("bad compressed name %q", v)
		}
		id, rest := v[1:end], strings.TrimSpace(v[end+1:])
		m := names[kind]
		if m == nil {
			m = map[string]string{}
			names[kind] = m
		}
		if rest != "" {
			m[id] = rest
			return rest, nil
		}
		name, ok := m[id]
		if !ok {
			return "", fmt.Errorf("undefined %s id (%s)", kind, id)
		}
		return name, nil
	}
	npos := 1
	var (
		fn        *Func // the current function
		object    string
		file      string
		cfn       string // the callee of the next calls=
		inCall    bool   // the next cost line is a call's inclusive cost
		callCount int64
		sawTotals bool
		summary   []int64
		selfSum   []int64
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if l == "" || l[0] == '#' {
			continue
		}
		fail := func(err error) (*Profile, error) {
			return nil, fmt.Errorf("callgrind profile line %d: %w", line, err)
		}
		c := l[0]
		if c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*' {
			fields := strings.Fields(l)
			if len(fields) < npos {
				return fail(fmt.Errorf("cost line %q has fewer than %d positions", l, npos))
			}
			costs := make([]int64, 0, len(fields)-npos)
			for _, s := range fields[npos:] {
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return fail(fmt.Errorf("bad cost %q", s))
				}
				costs = append(costs, v)
			}
			if fn == nil {
				return fail(fmt.Errorf("cost line before any fn="))
			}
			if inCall {
				if cfn != fn.Name {
					fn.Inclusive = addCosts(fn.Inclusive, costs)
				}
				callee := p.fn(cfn, "", "")
				callee.Calls += callCount
				inCall = false
				continue
			}
			fn.Self = addCosts(fn.Self, costs)
			fn.Inclusive = addCosts(fn.Inclusive, costs)
			selfSum = addCosts(selfSum, costs)
			continue
		}
		key, val, ok := strings.Cut(l, "=")
		if ok && !strings.ContainsAny(key, " :") {
			var err error
			switch key {
			case "ob":
				object, err = resolve("ob", val)
			case "cob":
				_, err = resolve("ob", val)
			case "fl", "fi", "fe":
				var name string
				name, err = resolve("fl", val)
				if key == "fl" {
					file = name
				}
			case "cfi", "cfl":
				_, err = resolve("fl", val)
			case "fn":
				var name string
				name, err = resolve("fn", val)
				fn = p.fn(name, object, file)
				if fn.Object == "" && fn.File == "" {
					// Made earlier as a callee.
					fn.Object, fn.File = object, file
				}
				cfn = ""
			case "cfn":
				cfn, err = resolve("fn", val)
			case "calls":
				f := strings.Fields(val)
				if len(f) == 0 {
					err = fmt.Errorf("empty calls=")
					break
				}
				callCount, err = strconv.ParseInt(f[0], 10, 64)
				if cfn == "" && fn != nil {
					cfn = fn.Name // a call without cfn= calls the current function
				}
				inCall = true
			case "jump", "jcnd":
				// Jump counts: no cost line follows.
			}
			if err != nil {
				return fail(err)
			}
			continue
		}
		key, val, ok = strings.Cut(l, ":")
		if !ok {
			return fail(fmt.Errorf("unrecognized line %q", l))
		}
		val = strings.TrimSpace(val)
		switch key {
		case "positions":
			npos = len(strings.Fields(val))
			if npos == 0 {
				return fail(fmt.Errorf("no positions"))
			}
		case "events":
			p.Events = strings.Fields(val)
		case "part":
			p.Part, _ = strconv.Atoi(val)
		case "thread":
			p.Thread, _ = strconv.Atoi(val)
		case "desc":
			if k, v, ok := strings.Cut(val, ":"); ok && k == "Trigger" {
				p.Trigger = strings.TrimSpace(v)
			}
		case "summary", "totals":
			var costs []int64
			for _, s := range strings.Fields(val) {
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return fail(fmt.Errorf("bad %s %q", key, s))
				}
				costs = append(costs, v)
			}
			if key == "totals" {
				p.Totals, sawTotals = costs, true
			} else {
				summary = costs
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("callgrind profile: %w", err)
	}
	if p.Events == nil {
		return nil, fmt.Errorf("callgrind profile: no events: line (not a callgrind profile?)")
	}
	switch {
	case sawTotals:
	case summary != nil:
		p.Totals = summary
	default:
		p.Totals = selfSum
	}
	if len(p.Totals) < len(p.Events) {
		p.Totals = addCosts(p.Totals, make([]int64, len(p.Events)))
	}
	return p, nil
}

// fn returns the Func of name, making it on first use.
func (p *Profile) fn(name, object, file string) *Func {
	f := p.Funcs[name]
	if f == nil {
		f = &Func{Name: name, Object: object, File: file}
		p.Funcs[name] = f
	}
	return f
}
