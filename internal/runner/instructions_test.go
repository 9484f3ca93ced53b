package runner

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/callgrind"
	"github.com/benchgate/benchgate/internal/testenv"
	"golang.org/x/perf/benchfmt"
)

// TestMeasureInstructions runs the instruction lane on testdata/mod after a
// real time lane: base and head are the same code, so BenchmarkSum (no
// allocation) must count the same instructions on both sides; head's
// BenchmarkFlaky, made to panic after the time lane, fails with a reason.
func TestMeasureInstructions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds real test binaries and runs valgrind")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind is not installed (apt-get install valgrind)")
	}
	baseDir := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	headDir := testenv.CopyTree(t, "testdata/mod", t.TempDir())
	var progress bytes.Buffer
	s, err := Prepare(context.Background(), Side{"base", baseDir}, Side{"head", headDir}, Options{
		Bench:     "Sum|Flaky",
		Count:     1,
		Benchtime: "5ms",
		CPU:       []int{1, 2},
		BinDir:    t.TempDir(),
		Progress:  &progress,
	})
	if err != nil {
		t.Fatalf("Prepare: %v\n%s", err, progress.String())
	}
	if err := os.WriteFile(filepath.Join(headDir, "FLAKY"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	processes := s.Result().Processes
	var baseOut, headOut bytes.Buffer
	res, err := s.MeasureInstructions(context.Background(), s.Units(), InstructionOptions{Repeats: 2, Target: 150 * time.Millisecond}, &baseOut, &headOut)
	if err != nil {
		t.Fatalf("MeasureInstructions: %v", err)
	}
	t.Logf("base:\n%s\nhead:\n%s", baseOut.String(), headOut.String())
	// Sum and Flaky at -cpu 1 and 2 are two benchmarks: Sum measured
	// twice per side, Flaky once on base and once, failing, on head.
	// (One more process for a run repeated with threads merged.)
	if res.Benchmarks != 1 || res.Processes < 6 || res.ProcessTime <= 0 || res.Missing != nil {
		t.Errorf("result: %+v", res)
	}
	if got := s.Result().Processes; got != processes+res.Processes {
		t.Errorf("session processes %d, want %d + %d", got, processes, res.Processes)
	}
	if len(res.Failures) != 1 {
		t.Fatalf("failures: %+v, want head's Flaky", res.Failures)
	}
	f := res.Failures[0]
	if f.Side != "head" || f.Name != "Flaky" || f.Package != "example.com/mod" || !strings.HasPrefix(f.Message, "unavailable: benchmark failed under valgrind") || !strings.Contains(f.Message, "flaky benchmark exploded") {
		t.Errorf("failure: %+v", f)
	}
	if f.Unit != callgrind.Unit {
		t.Errorf("failure's unit %q, want %q", f.Unit, callgrind.Unit)
	}
	if all := s.Result().Failures; len(all) == 0 || all[len(all)-1] != f {
		t.Errorf("the session's failures %+v lack the lane's", all)
	}

	values := func(name string, out []byte) map[string][]float64 {
		got := map[string][]float64{}
		rd := benchfmt.NewReader(bytes.NewReader(append(out, "BenchmarkAfter 1 1 ns/op\n"...)), name)
		for rd.Scan() {
			switch r := rd.Result().(type) {
			case *benchfmt.Result:
				if r.Name.String() == "After" {
					if lane := r.GetConfig(LaneKey); lane != "" {
						t.Errorf("%s: a result after the lane's still has lane: %q", name, lane)
					}
					continue
				}
				v, ok := r.Value(callgrind.Unit)
				if !ok || len(r.Values) != 1 || r.GetConfig(LaneKey) != LaneInstructions || r.GetConfig("pkg") != "example.com/mod" || r.Iters < callgrind.MinN {
					t.Errorf("%s: result %s %d %v, config lane %q pkg %q", name, r.Name, r.Iters, r.Values, r.GetConfig(LaneKey), r.GetConfig("pkg"))
				}
				got[r.Name.String()] = append(got[r.Name.String()], v)
			case *benchfmt.SyntaxError:
				t.Errorf("%s: %v", name, r)
			}
		}
		return got
	}
	b, h := values("base", baseOut.Bytes()), values("head", headOut.Bytes())
	if len(b["Sum"]) != 2 || len(h["Sum"]) != 2 || len(b["Flaky"]) != 1 || len(h["Flaky"]) != 0 || len(b) != 2 || len(h) != 1 {
		t.Fatalf("samples: base %v, head %v", b, h)
	}
	// The same code: the same count, but for the runtime's background
	// work that the scheduler may run during the loop (measured: up to
	// ~10,000 instructions, 0.1 % of this loop).
	all := append(b["Sum"], h["Sum"]...)
	for _, v := range all {
		if math.Abs(v/all[0]-1) > 0.005 {
			t.Errorf("Sum: %v instructions/op, want the same count within 0.5%% on both sides", all)
			break
		}
	}
	if !strings.Contains(progress.String(), "instructions 1/2: example.com/mod.Sum") {
		t.Errorf("progress:\n%s", progress.String())
	}
	// Both sides ran at one N (chosen, maybe raised, on the first
	// sample): their per-function counts cover the same ops, repeats × N,
	// and add up to the written counts; Flaky, not counted on head, has
	// none.
	iters := map[int]bool{}
	for _, out := range []*bytes.Buffer{&baseOut, &headOut} {
		rd := benchfmt.NewReader(bytes.NewReader(out.Bytes()), "out")
		for rd.Scan() {
			if r, ok := rd.Result().(*benchfmt.Result); ok && r.Name.String() == "Sum" {
				iters[r.Iters] = true
			}
		}
	}
	if len(iters) != 1 {
		t.Errorf("Sum ran at N %v on the two sides, want one N", iters)
	}
	lp := res.Profiles["example.com/mod.Sum"]
	if lp == nil || len(res.Profiles) != 1 {
		t.Fatalf("lane profiles: %v, want Sum's only", res.Profiles)
	}
	for i, p := range lp {
		var n int
		for k := range iters {
			n = k
		}
		if p.Ops != int64(2*n) || p.Profile == nil || p.Binary == "" {
			t.Errorf("side %d: profile of %d ops (want 2 × %d), binary %q", i, p.Ops, n, p.Binary)
			continue
		}
		var self int64
		for _, f := range p.Profile.Funcs {
			if len(f.Self) > 0 {
				self += f.Self[0]
			}
		}
		vs := b["Sum"]
		if i == 1 {
			vs = h["Sum"]
		}
		if want := (vs[0] + vs[1]) * float64(n); math.Abs(float64(self)/want-1) > 1e-6 {
			t.Errorf("side %d: functions' own counts add up to %d, the samples to %.0f", i, self, want)
		}
	}

	// Without valgrind, every benchmark fails with one clear reason, and
	// nothing runs.
	res, err = s.MeasureInstructions(context.Background(), s.Units(), InstructionOptions{Valgrind: "/nonexistent/valgrind"}, &baseOut, &headOut)
	if err != nil || res.Missing == nil || len(res.Failures) != 2 || res.Processes != 0 {
		t.Fatalf("without valgrind: %+v, %v", res, err)
	}
	for _, f := range res.Failures {
		if f.Side != "" || !strings.HasPrefix(f.Message, "unavailable: ") || !strings.Contains(f.Message, "apt-get install valgrind") {
			t.Errorf("failure without valgrind: %+v", f)
		}
	}
}
