package pipeline

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/runner"
)

// playback is a session that plays recorded raw files back instead of
// running benchmarks: round k of a unit is its line of recorded round
// k (cycling through the recorded rounds), so the stages after the
// runner's preparation (the time lane, Adaptive, the judgement, Confirm)
// run on real benchfmt without a benchmark process.
type playback struct {
	units []runner.Unit
	// lines[side][i][id] is unit id's result line in recorded round i.
	lines [2][]map[string]string
	res   runner.Result
	calls []string // "first+count:id,id" per Measure
}

// newPlayback reads the recorded base.txt and head.txt of dir.
func newPlayback(t *testing.T, dir string) *playback {
	t.Helper()
	pb := &playback{}
	for side, name := range []string{"base.txt", "head.txt"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		pkg := ""
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "pkg: "):
				pkg = strings.TrimPrefix(line, "pkg: ")
			case strings.HasPrefix(line, "round: "):
				pb.lines[side] = append(pb.lines[side], map[string]string{})
			case strings.HasPrefix(line, "Benchmark"):
				full := strings.Fields(line)[0]
				name, cpu, _ := strings.Cut(full, "-")
				n, err := strconv.Atoi(cpu)
				if err != nil {
					t.Fatalf("%s: %q: no GOMAXPROCS suffix", name, full)
				}
				u := runner.Unit{Package: pkg, Name: name, CPU: n, N: 10000, Runs: 1, Sides: [2]bool{true, true}}
				round := pb.lines[side][len(pb.lines[side])-1]
				if side == 0 && len(pb.lines[0]) == 1 {
					pb.units = append(pb.units, u)
				}
				round[u.ID()] = line
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if len(pb.lines[0]) == 0 || len(pb.lines[0]) != len(pb.lines[1]) {
		t.Fatalf("%s: %d and %d recorded rounds", dir, len(pb.lines[0]), len(pb.lines[1]))
	}
	pb.res.Units = pb.units
	return pb
}

func (pb *playback) Result() *runner.Result { return &pb.res }
func (pb *playback) Units() []runner.Unit   { return pb.units }
func (pb *playback) Reseed(int64)           {}
func (pb *playback) Expect(int)             {}

// Measure writes rounds first … first+count-1 of units, as the runner
// does: the units' exact allocation metadata first, then per round its
// "round: N" line and each unit's recorded line under its package.
func (pb *playback) Measure(ctx context.Context, units []runner.Unit, first, count int, base, head io.Writer) error {
	var ids []string
	for _, u := range units {
		ids = append(ids, u.ID())
	}
	pb.calls = append(pb.calls, fmt.Sprintf("%d+%d:%s", first, count, strings.Join(ids, ",")))
	for side, w := range []io.Writer{base, head} {
		if first == 1 {
			fmt.Fprint(w, "Unit allocs/op assume=exact\nUnit B/op assume=exact\n")
		}
		for k := first; k < first+count; k++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			rec := pb.lines[side][(k-1)%len(pb.lines[side])]
			fmt.Fprintf(w, "round: %d\n", k)
			for _, u := range units {
				fmt.Fprintf(w, "pkg: %s\n%s\n", u.Package, rec[u.ID()])
			}
		}
	}
	pb.res.Rounds = max(pb.res.Rounds, first+count-1)
	return nil
}

var errNotRecorded = errors.New("not recorded")

func (pb *playback) MeasureInstructions(context.Context, []runner.Unit, runner.InstructionOptions, io.Writer, io.Writer) (*runner.InstructionResult, error) {
	return nil, errNotRecorded
}
func (pb *playback) KeepBinaries(runner.Unit, string) ([2]string, error) {
	return [2]string{}, errNotRecorded
}
func (pb *playback) ProfileAllocs(context.Context, runner.Unit, int, string) (*runner.ProfileSet, error) {
	return nil, errNotRecorded
}
func (pb *playback) ProfileCPU(context.Context, runner.Unit, int, int, string) (*runner.ProfileSet, error) {
	return nil, errNotRecorded
}
