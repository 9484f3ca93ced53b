package report

import (
	"encoding/json"
	"fmt"
	"github.com/benchgate/benchgate/internal/pipeline"
	"math"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// hostileCPUName is a benchmark name (without spaces, as benchfmt needs)
// that tries to break a table, the chart and its fence.
const hostileCPUName = "Evil\"]-->B[x]```|@octocat_<b>"

// scalingVerdict judges a run with --cpu 1,2,4,8 in 10 interleaved rounds,
// written and read as benchfmt: Encode/size=64 scales 1, 1.9, 3.6, 6.5 on
// base and 1, 1.8, 2.5, 2.6 on head (contention); Decode scales the same
// on both; Hash is 20% slower at every cpu value (a regression, not a
// loss of scaling); a hostile name at cpu 1 and 2; Single ran at one cpu
// value only.
func scalingVerdict(t testing.TB) gate.Verdict {
	t.Helper()
	type bench struct {
		pkg, name  string
		cpus       []int
		ns, hns    float64
		base, head []float64
	}
	scales, contends := []float64{1, 1.9, 3.6, 6.5}, []float64{1, 1.8, 2.5, 2.6}
	cpus := []int{1, 2, 4, 8}
	benches := []bench{
		{"example.com/codec", "Encode/size=64", cpus, 1000, 1000, scales, contends},
		{"example.com/codec", "Decode", cpus, 2000, 2000, scales, scales},
		{"example.com/codec", "Hash", cpus, 500, 600, scales, scales},
		{"example.com/codec", hostileCPUName, []int{1, 2}, 300, 300, []float64{1, 2}, []float64{1, 1.5}},
		{"example.com/store", "Single", []int{8}, 100, 100, []float64{1}, []float64{1}},
	}
	write := func(head bool) string {
		var b strings.Builder
		b.WriteString("goos: linux\ngoarch: amd64\n")
		for r := range 10 {
			fmt.Fprintf(&b, "round: %d\n", r)
			for bi, bn := range benches {
				fmt.Fprintf(&b, "pkg: %s\n", bn.pkg)
				for i, c := range bn.cpus {
					name := "Benchmark" + bn.name
					if c != 1 {
						name += fmt.Sprintf("-%d", c)
					}
					ns, s := bn.ns, bn.base[i]
					jit := 1 + 0.004*math.Sin(float64(r*7+i*13+bi*5))
					if head {
						ns, s = bn.hns, bn.head[i]
						jit = 1 + 0.004*math.Sin(float64(r*11+i*3+bi*5+1))
					}
					fmt.Fprintf(&b, "%s\t100000\t%.2f ns/op\n", name, ns/s*jit)
				}
			}
		}
		return b.String()
	}
	set, err := stats.Load(stats.Input{Name: "base.txt", R: strings.NewReader(write(false))}, stats.Input{Name: "head.txt", R: strings.NewReader(write(true))})
	if err != nil {
		t.Fatal(err)
	}
	p := gate.DefaultPolicy()
	return gate.Judge(stats.CompareAlpha(set, 0.95, p.Alpha), nil, p)
}

func TestScalingVerdict(t *testing.T) {
	v := scalingVerdict(t)
	got := map[string]bool{}
	for _, s := range v.Scaling {
		got[s.Name] = s.Worse
	}
	want := map[string]bool{"Encode/size=64": true, "Decode": false, "Hash": false, hostileCPUName: true}
	if len(got) != len(want) {
		t.Errorf("scalings %v, want %v", got, want)
	}
	for name, w := range want {
		if g, ok := got[name]; !ok || g != w {
			t.Errorf("%s: worse %v (present %v), want %v", name, g, ok, w)
		}
	}
}

func TestScalingGolden(t *testing.T) {
	v := scalingVerdict(t)
	md := Markdown(v, Meta{Record: pipeline.Record{Count: 10}}, Options{})
	golden(t, "scaling.md", []byte(md))
	golden(t, "scaling.txt", []byte(Text(v, Meta{Record: pipeline.Record{Count: 10}}, TextOptions{})))
	j, err := JSON(v, Meta{Record: pipeline.Record{Count: 10}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "scaling.json", j)

	// The hostile name is a code span in the tables and sanitized in the
	// chart: shown whole, inert.
	r := checkGFM(t, md)
	if !r.hasCode(hostileCPUName) {
		t.Errorf("the hostile name is not shown as code: %q", r.code)
	}
	if !strings.Contains(md, "| ⚠️ | ````"+strings.ReplaceAll(hostileCPUName, "|", `\|`)+"```` | 1× | 2.00× → 1.50× | — | — |\n") {
		t.Errorf("no scaling row for the hostile name:\n%s", md)
	}
	for _, want := range []string{
		"#### CPU scaling: speed-up vs cpu 1 (4 benchmarks, 2 worse)\n",
		"|  | benchmark | cpu 1 | cpu 2 | cpu 4 | cpu 8 |\n|:--|:--|--:|--:|--:|--:|\n",
		"| ⚠️ | `Encode/size=64` | 1× | 1.90× → 1.80× | 3.60× → 2.50× | 6.50× → 2.60× |\n", "\n⚠️ scaling got worse (",
		"- parallel scaling got worse for 2 benchmarks",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	// Worse first, then in verdict order.
	if i, j := strings.Index(md, "| `Encode/size=64` | 1×"), strings.Index(md, "| `Decode` | 1×"); i < 0 || j < 0 || i > j {
		t.Errorf("Encode (worse) is not listed before Decode")
	}

	var doc struct {
		Policy struct {
			FailOnScaling *bool `json:"fail_on_scaling"`
		}
		Scaling []struct {
			Package, Name string
			CPUs          []int
			Base, Head    []float64
			Change        *float64
			Worse         bool
			Reason        struct{ Code, Text string }
		}
	}
	if err := json.Unmarshal(j, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Policy.FailOnScaling == nil || *doc.Policy.FailOnScaling || len(doc.Scaling) != len(v.Scaling) {
		t.Fatalf("fail_on_scaling %v, %d scalings", doc.Policy.FailOnScaling, len(doc.Scaling))
	}
	enc := doc.Scaling[0]
	if enc.Package != "example.com/codec" || enc.Name != "Encode/size=64" || fmt.Sprint(enc.CPUs) != "[1 2 4 8]" || !enc.Worse ||
		enc.Change == nil || math.Abs(*enc.Change-1.5) > 0.02 || enc.Base[0] != 1 || math.Abs(enc.Head[3]-2.6) > 0.03 || enc.Reason.Code != string(v.Scaling[0].Reason.Code) || !strings.HasPrefix(enc.Reason.Text, "scaling got worse (+149.8% ≥ +5%, intervals disjoint)") {
		t.Errorf("Encode: %+v", enc)
	}
}

func TestJSONScalingIsAnArray(t *testing.T) {
	out, err := JSON(gate.Verdict{Pass: true}, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"scaling": []`) {
		t.Errorf("no empty scaling array:\n%s", out)
	}
}

func TestScalingRowsAreCut(t *testing.T) {
	v := scalingVerdict(t)
	full := Markdown(v, Meta{}, Options{})
	// Room for the regressions and how the run was made (the last
	// section) but not for the whole scaling table.
	start := strings.Index(full, "\n#### CPU scaling") + len(full) - strings.Index(full, "\n<details><summary>How the run was made")
	md := Markdown(v, Meta{}, Options{MaxChars: start + 1200})
	if len(md) > start+1200 {
		t.Errorf("%d bytes", len(md))
	}
	if strings.Contains(md, "```mermaid") {
		t.Errorf("chart kept while rows are cut")
	}
	if !strings.Contains(md, " of 4 cpu scaling rows") && !strings.Contains(md, "4 of 4 cpu scaling rows") {
		t.Errorf("cut line does not count the scaling rows:\n%s", md)
	}
	for _, r := range v.Regressions() {
		if !strings.Contains(md, "| ❌ | "+mdName(r.Name, true)+" | sec/op |") {
			t.Errorf("regression %s missing", r.Name)
		}
	}
}

func TestScalingSectionMixedReference(t *testing.T) {
	v := gate.Verdict{Policy: gate.DefaultPolicy(), Scaling: []gate.Scaling{
		{Package: "p", Name: "A", CPUs: []int{1, 4}, Base: []float64{1, 3.9}, Head: []float64{1, 3.8}, Reason: gate.ScalingReason{Code: gate.ScalingUnpaired, CPUs: []int{1}}},
		{Package: "p", Name: "B", CPUs: []int{2, 8}, Base: []float64{1, 3.5}, Head: []float64{1, 1.2}, Worse: true, Reason: gate.ScalingReason{Code: gate.ScalingUnpaired, CPUs: []int{8}}},
	}}
	sec := scalingSection(v)
	got, n := mdSection(sec, sec.Body.items()), sec.Body.items()
	want := "\n#### CPU scaling: speed-up vs the smallest cpu value (2 benchmarks, 1 worse)\n\n" +
		"Speed-up t(smallest cpu) / t(cpu) of the medians, base → head. ⚠️: parallel scaling got worse, the symptom of contention or false sharing (a warning, not gated): " +
		"head/base at the largest cpu value exceeds head/base at the smallest by at least the threshold, and their 95% intervals do not overlap.\n\n" +
		"**`p`**\n\n|  | benchmark | cpu 1 | cpu 2 | cpu 4 | cpu 8 |\n|:--|:--|--:|--:|--:|--:|\n" +
		"| ⚠️ | `B` | — | 1× | — | 3.50× → 1.20× |\n" +
		"| — | `A` | 1× | — | 3.90× → 3.80× | — |\n" +
		"\n<details><summary><code>B</code>: why</summary>\n\n⚠️ not judged: no paired rounds at cpu 8; speed-up at cpu 8 3.50× → 1.20×\n\n</details>\n" +
		"\n<details><summary><code>A</code>: why</summary>\n\nnot judged: no paired rounds at cpu 1; speed-up at cpu 4 3.90× → 3.80×\n\n</details>\n"
	if n != 2 || got != want {
		t.Errorf("got %d rows:\n%s\nwant:\n%s", n, got, want)
	}
	v.Policy.FailOnScaling = true
	if got := mdSection(scalingSection(v), 2); !strings.Contains(got, "(fails the gate)") {
		t.Errorf("FailOnScaling not said:\n%s", got)
	}
}
