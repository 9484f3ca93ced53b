package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/google/go-cmp/cmp"
)

// recordedRun is the state of a run whose session plays the recorded raw
// files of testdata/recorded back (four benchmarks of example.com/m over
// 12 rounds: Same unchanged, Slow +30 %, Edge +6 %, Alloc one more
// allocation), its raw files in a temporary --out.
func recordedRun(t *testing.T, p Plan) (*run, *playback, Files) {
	t.Helper()
	if p.Flags.Policy.FailOn == nil {
		p.Flags.Policy = gate.DefaultPolicy()
	}
	p.Out, p.OutPath = "out", filepath.Join(t.TempDir(), "out")
	pb := newPlayback(t, "testdata/recorded")
	r := &run{p: p, env: Env{Stderr: testWriter{t}}, sess: pb, jd: p.Flags.Judge(nil)}
	raw, err := r.openRaw()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw[0].Close(); raw[1].Close() })
	return r, pb, raw
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// statuses are the verdict's rows as "Name unit: status".
func statuses(v gate.Verdict) []string {
	var out []string
	for _, r := range v.Results {
		out = append(out, r.Name+" "+r.Unit+": "+string(r.Status))
	}
	return out
}

// The time lane, the judgement and the confirmation run on recorded raw
// files: the time lane writes --count rounds of every unit, the verdict
// finds the +30 % time and the extra allocation, the confirmation re-runs
// promising rows after the screen's rounds and writes its files, and the
// directory the run leaves is judged alike by Judge.Raw (compare DIR).
func TestStagesRecorded(t *testing.T) {
	for _, confirm := range []bool{false, true} {
		r, pb, raw := recordedRun(t, Plan{Time: true, Confirm: confirm, Runner: runner.Options{Count: 12}})
		ad, budget, err := r.timeLane(context.Background(), raw)
		if err != nil || ad != nil || budget != nil {
			t.Fatalf("timeLane: %v, adaptive facts %v, budget %v for a fixed count without a ledger", err, ad, budget)
		}
		raw[0].Close()
		raw[1].Close()
		if want := "1+12:example.com/m.Same-2,example.com/m.Slow-2,example.com/m.Edge-2,example.com/m.Alloc-2"; pb.calls[0] != want {
			t.Errorf("the time lane measured %q, want %q", pb.calls[0], want)
		}
		j, err := r.judge(context.Background(), measured{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]gate.Status{}
		for _, row := range j.verdict.Results {
			got[row.Name+" "+row.Unit] = row.Status
		}
		for k, want := range map[string]gate.Status{
			"Same-2 sec/op": gate.Unchanged, "Slow-2 sec/op": gate.Regression,
			"Alloc-2 allocs/op": gate.Regression, "Same-2 allocs/op": gate.Unchanged,
		} {
			if got[k] != want {
				t.Errorf("confirm %v: %s is %s, want %s (verdict %q)", confirm, k, got[k], want, statuses(j.verdict))
			}
		}
		if j.verdict.Pass {
			t.Errorf("confirm %v: the verdict passes", confirm)
		}
		cf, err := os.ReadFile(filepath.Join(r.out, "confirm-base.txt"))
		switch {
		case confirm && (err != nil || !strings.HasPrefix(string(cf), "screen-rounds: 12\n")):
			t.Errorf("confirmation files: %v, %.40q", err, cf)
		case confirm && !j.verdict.Confirmed:
			t.Errorf("the confirmed verdict does not say it was confirmed")
		case confirm && (j.confirmed.Confirmation == nil || len(pb.calls) < 2):
			t.Errorf("no promising row was re-run (Slow +30 %%, Edge +6 %%): %q", pb.calls)
		case confirm && !strings.HasPrefix(pb.calls[1], "13+"):
			t.Errorf("the fresh rounds start at %q, want after the screen's 12", pb.calls[1])
		case !confirm && err == nil:
			t.Errorf("a run without confirmation wrote confirm-base.txt")
		}
		in, err := ReadDir(r.out, r.out)
		if err != nil {
			t.Fatal(err)
		}
		again, err := r.jd.Raw(in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(statuses(j.verdict), statuses(*again)); diff != "" {
			t.Errorf("confirm %v: the kept directory judged again (-run +compare DIR):\n%s", confirm, diff)
		}
	}
}

// An adaptive time lane writes its looks first and stops each unit at a
// look that decides it, within its rounds; every unit is decided or
// counted as undecided.
func TestAdaptiveRecorded(t *testing.T) {
	r, pb, raw := recordedRun(t, Plan{Time: true, MaxTime: time.Minute, Runner: runner.Options{Count: 12}})
	pb.res.RoundTime = 10 * time.Millisecond
	ad, _, err := r.timeLane(context.Background(), raw)
	if err != nil || ad == nil {
		t.Fatalf("timeLane: %v, adaptive facts %v", err, ad)
	}
	decided := ad.Undecided
	for _, d := range ad.Decided {
		decided += d.Count
	}
	if decided != len(pb.units) || ad.Rounds < 1 || ad.Rounds > ad.MaxRounds || len(ad.Looks) == 0 {
		t.Errorf("adaptive facts %+v: %d of %d units accounted for", *ad, decided, len(pb.units))
	}
	b, _ := os.ReadFile(raw[0].Name())
	if !strings.HasPrefix(string(b), "looks: ") {
		t.Errorf("base.txt starts %.30q, want its looks", b)
	}
}
