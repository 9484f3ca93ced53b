package callgrind

import (
	"strings"
	"testing"
)

// A profile in callgrind's format with name compression, relative
// positions, an inline file change, a call with its inclusive cost and a
// recursive call.
const sample = `# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 42
cmd:  ./x.test -test.bench=^BenchmarkX$
part: 2
thread: 3

desc: I1 cache: 
desc: Timerange: Basic block 0 - 3557033
desc: Trigger: --dump-before=testing.(*B).StopTimer

positions: line
events: Ir

summary: 1160

ob=(1) /tmp/x.test
fl=(1) /src/x_test.go
fn=(1) example.com/x.BenchmarkX
10 5
+1 3
cfi=(2) /src/work.go
cfn=(2) example.com/x.Work
calls=200 4
* 1200
fi=(3) /src/inl.go
-1 2

fl=(2)
fn=(2)
4 1000
+2 100
cfn=(2)
calls=10 4
* 900
jump=3 +1

fn=(3) runtime.mallocgc
0x10 50
totals: 1160
`

func TestParse(t *testing.T) {
	p, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if p.Part != 2 || p.Thread != 3 || p.Trigger != "--dump-before=testing.(*B).StopTimer" || p.Total() != 1160 || len(p.Events) != 1 || p.Events[0] != "Ir" {
		t.Errorf("header: part %d thread %d trigger %q total %d events %v", p.Part, p.Thread, p.Trigger, p.Total(), p.Events)
	}
	for _, tc := range []struct {
		name            string
		self, inclusive int64
		calls           int64
		file            string
	}{
		// 5+3+2 own; plus the call of Work, 1200.
		{"example.com/x.BenchmarkX", 10, 1210, 0, "/src/x_test.go"},
		// 1000+100 own; its recursive call is not added again.
		{"example.com/x.Work", 1100, 1100, 210, "/src/work.go"},
		{"runtime.mallocgc", 50, 50, 0, "/src/work.go"},
	} {
		f := p.Funcs[tc.name]
		if f == nil {
			t.Errorf("%s: missing", tc.name)
			continue
		}
		if f.Self[0] != tc.self || f.Inclusive[0] != tc.inclusive || f.Calls != tc.calls || f.File != tc.file || f.Object != "/tmp/x.test" {
			t.Errorf("%s: self %v inclusive %v calls %d file %q object %q; want %d %d %d %q", tc.name, f.Self, f.Inclusive, f.Calls, f.File, f.Object, tc.self, tc.inclusive, tc.calls, tc.file)
		}
	}
	// The self costs add up to the total.
	var sum int64
	for _, f := range p.Funcs {
		sum += f.Self[0]
	}
	if sum != p.Total() {
		t.Errorf("sum of self costs %d, total %d", sum, p.Total())
	}
	top := p.Top(2, true)
	if len(top) != 2 || top[0].Name != "example.com/x.BenchmarkX" || top[1].Name != "example.com/x.Work" {
		t.Errorf("Top(2, inclusive) = %v", names(top))
	}
	if top := p.Top(0, false); len(top) != 3 || top[0].Name != "example.com/x.Work" {
		t.Errorf("Top(0, self) = %v", names(top))
	}

	q, _ := Parse(strings.NewReader(strings.Replace(sample, "thread: 3", "thread: 4", 1)))
	if err := p.Merge(q); err != nil {
		t.Fatal(err)
	}
	if f := p.Funcs["example.com/x.Work"]; p.Total() != 2320 || f.Self[0] != 2200 || f.Calls != 420 || p.Thread != 0 {
		t.Errorf("merged: total %d, Work self %v calls %d, thread %d", p.Total(), f.Self, f.Calls, p.Thread)
	}
}

func names(fs []*Func) []string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Name)
	}
	return s
}

func TestParseTwoPositionsAndEvents(t *testing.T) {
	p, err := Parse(strings.NewReader("positions: instr line\nevents: Ir Dr\nfn=f\n0x10 3 7 2\n+4 * 1\ncfn=g\ncalls=1 0x20 9\n+2 +1 40 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := p.Funcs["f"]
	if f.Self[0] != 8 || f.Self[1] != 2 || f.Inclusive[0] != 48 || f.Inclusive[1] != 6 || p.Totals[0] != 8 || p.Totals[1] != 2 {
		t.Errorf("f: self %v inclusive %v totals %v", f.Self, f.Inclusive, p.Totals)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		"",                                 // no events
		"events: Ir\n10 5\n",               // cost before fn
		"events: Ir\nfn=(7)\n",             // undefined id
		"events: Ir\nfn=f\n10 x\n",         // bad cost
		"events: Ir\nfn=f\nwhat is this\n", // garbage
		"positions: instr line\nevents: Ir\nfn=f\n10\n", // too few positions
	} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("Parse(%q): no error", in)
		}
	}
}
