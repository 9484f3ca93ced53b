package gate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
	"github.com/google/go-cmp/cmp"
)

// cpuBench describes one benchmark measured at several GOMAXPROCS values:
// its time/op at the first cpu value on each side and each side's
// speed-ups.
type cpuBench struct {
	pkg, name  string
	cpus       []int
	t1, h1     float64 // seconds/op at cpus[0] on base and head
	base, head []float64
	noise      float64 // relative amplitude of the per-round jitter
}

// cpuSet builds the time/op observations of benchmarks measured in n
// interleaved rounds (rounds < 0: without rounds, as plain go test
// output), with a deterministic jitter per round, side and cpu value.
func cpuSet(n int, paired bool, benches ...cpuBench) *stats.Set {
	s := &stats.Set{Base: map[stats.Key][]stats.Obs{}, Head: map[stats.Key][]stats.Obs{}}
	for bi, b := range benches {
		noise := b.noise
		if noise == 0 {
			noise = 0.004
		}
		for i, cpu := range b.cpus {
			name := b.name
			if cpu != 1 {
				name += fmt.Sprintf("-%d", cpu)
			}
			k := stats.Key{Package: b.pkg, Name: name, Unit: "sec/op"}
			s.Keys = append(s.Keys, k)
			for r := range n {
				round := r
				if !paired {
					round = -1
				}
				jb := 1 + noise*math.Sin(float64(r*7+i*13+bi*5))
				jh := 1 + noise*math.Sin(float64(r*11+i*3+bi*5+1))
				s.Base[k] = append(s.Base[k], stats.Obs{Value: b.t1 / b.base[i] * jb, Round: round, Iters: 100000})
				s.Head[k] = append(s.Head[k], stats.Obs{Value: b.h1 / b.head[i] * jh, Round: round, Iters: 100000})
			}
		}
	}
	return s
}

var (
	cpus1248 = []int{1, 2, 4, 8}
	scales   = []float64{1, 1.9, 3.6, 6.5}
	contends = []float64{1, 1.8, 2.5, 2.6}
)

func judgeCPU(t *testing.T, p Policy, set *stats.Set, failures ...Failure) Verdict {
	t.Helper()
	return Judge(stats.CompareAlpha(set, 0.95, p.Alpha), failures, p)
}

func TestScalingWorse(t *testing.T) {
	p := DefaultPolicy()
	v := judgeCPU(t, p, cpuSet(10, true,
		cpuBench{pkg: "example.com/codec", name: "Encode/size=64", cpus: cpus1248, t1: 1e-6, h1: 1e-6, base: scales, head: contends},
		cpuBench{pkg: "example.com/codec", name: "Decode", cpus: cpus1248, t1: 2e-6, h1: 2e-6, base: scales, head: scales},
	))
	if len(v.Scaling) != 2 {
		t.Fatalf("%d scalings, want 2: %+v", len(v.Scaling), v.Scaling)
	}
	enc, dec := v.Scaling[0], v.Scaling[1]
	if enc.Package != "example.com/codec" || enc.Name != "Encode/size=64" || !cmp.Equal(enc.CPUs, cpus1248) {
		t.Errorf("Encode: %s %s %v", enc.Package, enc.Name, enc.CPUs)
	}
	near := func(got, want []float64) bool {
		return cmp.Equal(got, want, cmp.Comparer(func(a, b float64) bool { return math.Abs(a/b-1) < 0.01 }))
	}
	if !near(enc.Base, scales) || !near(enc.Head, contends) || enc.Base[0] != 1 || enc.Head[0] != 1 {
		t.Errorf("Encode speed-ups: base %v, head %v", enc.Base, enc.Head)
	}
	if !enc.Worse || enc.Change == nil || math.Abs(*enc.Change-1.5) > 0.02 {
		t.Errorf("Encode: worse %v, change %v, reason %q", enc.Worse, enc.Change, scalingText(enc))
	}
	if !strings.HasPrefix(scalingText(enc), "scaling got worse (+149.8% ≥ +5%, intervals disjoint)") || !strings.Contains(scalingText(enc), "speed-up at cpu 8 6.50× → 2.60×; head/base") {
		t.Errorf("Encode reason: %q", scalingText(enc))
	}
	if dec.Name != "Decode" || dec.Worse || dec.Change == nil || math.Abs(*dec.Change) > 0.01 ||
		!strings.HasPrefix(scalingText(dec), "no significant change of scaling") {
		t.Errorf("Decode: worse %v, change %v, reason %q", dec.Worse, dec.Change, scalingText(dec))
	}
	want := "parallel scaling got worse for 1 benchmark (head's speed-up at the largest cpu value fell short of base's by ≥ 5%: the symptom of contention or false sharing; not gated): Encode/size=64 (cpu 8: 6.50× → 2.60×)"
	if !containsString(warningTexts(v), want) {
		t.Errorf("warnings %q lack %q", warningTexts(v), want)
	}
	if got := v.ScalingWorse(); len(got) != 1 || got[0].Name != "Encode/size=64" {
		t.Errorf("ScalingWorse = %+v", got)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestScalingIsNotGatedByDefault(t *testing.T) {
	// Head is twice as fast at cpu 1 and as fast as base at cpu 8: no row
	// regresses, but head's speed-up at cpu 8 is half of base's.
	set := cpuSet(10, true, cpuBench{pkg: "p", name: "Lock", cpus: []int{1, 8}, t1: 1e-6, h1: 0.5e-6, base: []float64{1, 8}, head: []float64{1, 4}})
	p := DefaultPolicy()
	v := judgeCPU(t, p, set)
	if len(v.Scaling) != 1 || !v.Scaling[0].Worse {
		t.Fatalf("scaling %+v, want worse", v.Scaling)
	}
	if v.Count(Regression) != 0 || !v.Pass {
		t.Errorf("default policy: %d regressions, pass %v; want 0 and pass", v.Count(Regression), v.Pass)
	}
	p.FailOnScaling = true
	v = judgeCPU(t, p, set)
	if v.Pass {
		t.Errorf("FailOnScaling: pass, want fail")
	}
	if !strings.Contains(strings.Join(warningTexts(v), "\n"), "contention or false sharing; fails the gate): Lock (cpu 8: 8.00× → 4.00×)") {
		t.Errorf("warnings %q", warningTexts(v))
	}
	// Confirm keeps the screening's scaling.
	if c := Confirm(v, Verdict{}); len(c.Scaling) != 1 || c.Pass {
		t.Errorf("after Confirm: scaling %+v, pass %v", c.Scaling, c.Pass)
	}
}

func TestScalingNotWorse(t *testing.T) {
	tests := []struct {
		name   string
		b      cpuBench
		n      int
		paired bool
		reason string // prefix
	}{
		{"head 20% slower at every cpu value: a regression, not a scaling loss",
			cpuBench{t1: 1e-6, h1: 1.2e-6, base: scales, head: scales}, 10, true,
			"no significant change of scaling (-0.1%, intervals overlap): speed-up at cpu 8 6.50× → 6.50×; head/base +20.0%"},
		{"a +8% loss of scaling hidden in ±15% noise",
			cpuBench{t1: 1e-6, h1: 1e-6, base: scales, head: []float64{1, 1.9, 3.6, 6.5 / 1.08}, noise: 0.15}, 10, true,
			"no significant change of scaling (+"},
		{"a clear loss of 3%, within the threshold",
			cpuBench{t1: 1e-6, h1: 1e-6, base: scales, head: []float64{1, 1.9, 3.6, 6.5 / 1.03}, noise: 0.001}, 10, true,
			"scaling changed by +3.0%, within ±5%"},
		{"head scales better",
			cpuBench{t1: 1e-6, h1: 1e-6, base: contends, head: scales}, 10, true,
			"scaling got better (-60.0% ≤ -5%, intervals disjoint)"},
		{"no rounds: not judged",
			cpuBench{t1: 1e-6, h1: 1e-6, base: scales, head: contends}, 10, false,
			"not judged: no paired rounds at cpu 1 and 8; speed-up at cpu 8 6.50× → 2.60×"},
		{"4 rounds: no interval",
			cpuBench{t1: 1e-6, h1: 1e-6, base: scales, head: contends}, 4, true,
			"not judged: too few rounds for an interval at cpu 1 (4 rounds) and cpu 8 (4 rounds); speed-up at cpu 8 6.50× → 2.60×"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.b.pkg, tt.b.name, tt.b.cpus = "p", "X", cpus1248
			v := judgeCPU(t, DefaultPolicy(), cpuSet(tt.n, tt.paired, tt.b))
			if len(v.Scaling) != 1 {
				t.Fatalf("%d scalings", len(v.Scaling))
			}
			s := v.Scaling[0]
			if s.Worse || !strings.HasPrefix(scalingText(s), tt.reason) {
				t.Errorf("worse %v, reason %q; want not worse, reason %q…", s.Worse, scalingText(s), tt.reason)
			}
			if (s.Change == nil) != !tt.paired {
				t.Errorf("change %v with paired %v", s.Change, tt.paired)
			}
			for _, w := range warningTexts(v) {
				if strings.Contains(w, "scaling") {
					t.Errorf("warning %q", w)
				}
			}
		})
	}
}

// TestScalingRule checks the boundaries of the rule on constructed rows.
func TestScalingRule(t *testing.T) {
	row := func(ratio, lo, hi float64) *Result {
		return &Result{Comparison: stats.Comparison{Paired: &stats.Paired{N: 10, Ratio: ratio, Low: lo, High: hi}}}
	}
	tests := []struct {
		name   string
		lo, hi *Result
		worse  bool
		reason string
	}{
		{"change exactly +threshold, disjoint", row(1, 0.99, 1.01), row(1.05, 1.02, 1.08), true,
			"scaling got worse (+5.0% ≥ +5%, intervals disjoint)"},
		{"change exactly +threshold with rounding (3 → 3.15)", row(3, 2.97, 3.03), row(3.15, 3.1, 3.2), true,
			"scaling got worse (+5.0% ≥ +5%, intervals disjoint)"},
		{"change just under the threshold", row(1, 0.99, 1.01), row(1.049, 1.02, 1.08), false,
			"scaling changed by +4.9%, within ±5%"},
		{"intervals touch", row(1, 0.99, 1.02), row(1.10, 1.02, 1.18), false,
			"no significant change of scaling (+10.0%, intervals overlap)"},
		{"intervals overlap", row(1, 0.95, 1.05), row(1.10, 1.04, 1.16), false,
			"no significant change of scaling (+10.0%, intervals overlap)"},
		{"unbounded interval at the largest cpu", row(1, 0.99, 1.01), &Result{Comparison: stats.Comparison{Paired: &stats.Paired{N: 5, Ratio: 2, Low: 0, High: math.Inf(1)}}}, false,
			"not judged: too few rounds for an interval at cpu 8 (5 rounds)"},
		{"no pairs at the smallest cpu", &Result{}, row(2, 1.9, 2.1), false,
			"not judged: no paired rounds at cpu 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Scaling{CPUs: []int{1, 8}, Base: []float64{1, 8}, Head: []float64{1, 4}}
			judgeScalingRule(&s, scalingMember{1, tt.lo}, scalingMember{8, tt.hi}, DefaultPolicy())
			if s.Worse != tt.worse || !strings.HasPrefix(scalingText(s), tt.reason) {
				t.Errorf("worse %v, reason %q; want %v, %q…", s.Worse, scalingText(s), tt.worse, tt.reason)
			}
		})
	}
}

func TestScalingGroups(t *testing.T) {
	even := []float64{1, 1, 1}
	set := cpuSet(6, true,
		// A sub-benchmark whose name ends in "-64": cpu 1 is "Foo/n-64".
		cpuBench{pkg: "a", name: "Foo/n-64", cpus: []int{1, 8}, t1: 1e-6, h1: 1e-6, base: even, head: even},
		// No cpu 1.
		cpuBench{pkg: "a", name: "Bar", cpus: []int{2, 4}, t1: 1e-6, h1: 1e-6, base: even, head: even},
		// "-1" is never a GOMAXPROCS suffix.
		cpuBench{pkg: "a", name: "Baz-1", cpus: []int{1, 2}, t1: 1e-6, h1: 1e-6, base: even, head: even},
		// One cpu value: no scaling.
		cpuBench{pkg: "a", name: "Single", cpus: []int{8}, t1: 1e-6, h1: 1e-6, base: even, head: even},
		// The same name in another package is another benchmark.
		cpuBench{pkg: "b", name: "Bar", cpus: []int{2, 4}, t1: 1e-6, h1: 1e-6, base: even, head: even},
		// Its cpu 8 row fails on head: cpu 1 and 2 remain.
		cpuBench{pkg: "b", name: "Qux", cpus: []int{1, 2, 8}, t1: 1e-6, h1: 1e-6, base: even, head: even},
		// Its cpu 2 row fails: one value remains.
		cpuBench{pkg: "b", name: "Crash", cpus: []int{1, 2}, t1: 1e-6, h1: 1e-6, base: even, head: even},
	)
	v := judgeCPU(t, DefaultPolicy(), set,
		Failure{Package: "b", Name: "BenchmarkQux-8", Side: SideHead},
		Failure{Package: "b", Name: "Crash-2", Side: SideBase})
	var got []string
	for _, s := range v.Scaling {
		got = append(got, fmt.Sprintf("%s %s %v", s.Package, s.Name, s.CPUs))
	}
	want := []string{"a Foo/n-64 [1 8]", "a Bar [2 4]", "a Baz-1 [1 2]", "b Bar [2 4]", "b Qux [1 2]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	// A verdict without several cpu values has no scaling at all.
	if v := Judge([]stats.Comparison{measured("p", "X-8", "sec/op", spread(100, 6), spread(100, 6))}, nil, DefaultPolicy()); v.Scaling != nil {
		t.Errorf("scaling %+v", v.Scaling)
	}
}

func TestCPUSuffix(t *testing.T) {
	for _, tt := range []struct {
		in   string
		base string
		cpu  int
		ok   bool
	}{
		{"Encode-8", "Encode", 8, true},
		{"Encode/size=64-16", "Encode/size=64", 16, true},
		{"Encode", "Encode", 1, false},
		{"Encode-1", "Encode-1", 1, false},
		{"Encode-0", "Encode-0", 1, false},
		{"Encode-", "Encode-", 1, false},
		{"Encode-99999999999999999999", "Encode-99999999999999999999", 1, false},
	} {
		base, cpu, ok := cpuSuffix(tt.in)
		if base != tt.base || cpu != tt.cpu || ok != tt.ok {
			t.Errorf("cpuSuffix(%q) = %q, %d, %v; want %q, %d, %v", tt.in, base, cpu, ok, tt.base, tt.cpu, tt.ok)
		}
	}
}
