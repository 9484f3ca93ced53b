package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/callgrind"
	"golang.org/x/perf/benchfmt"
)

// LaneKey and LaneInstructions are the configuration line ("lane:
// instructions") that precedes the instruction lane's results in each
// side's stream; the stream deletes the key again after them ("lane:").
const (
	LaneKey          = "lane"
	LaneInstructions = "instructions"
)

// InstructionOptions tune MeasureInstructions; the zero value is the
// default.
type InstructionOptions struct {
	Repeats int           // measurements per side and benchmark; default 3
	Target  time.Duration // valgrind time of one loop; default callgrind.DefaultTarget
	// Valgrind is the valgrind executable; default "valgrind", looked up
	// in the PATH of the benchmarks' environment (Options.Env).
	Valgrind string
	// Difference measures each sample as (C(2N) − C(N)) / N, two
	// processes (see callgrind.Options.Difference).
	Difference bool
}

// InstructionResult summarises an instruction lane. The samples went to
// the writers.
type InstructionResult struct {
	// Failures are the benchmarks that have no instruction count, each
	// with a message starting "unavailable: " and Unit "instructions/op"
	// (they are also added to the session's Result). Name is the benchfmt
	// name at GOMAXPROCS 1 (no suffix: the lane always runs -test.cpu=1).
	// Side is "base" or "head", or "" when the reason concerns both
	// (valgrind missing).
	Failures []Failure
	// Missing is set (an error with callgrind.Reason Missing) when
	// valgrind was not found: every benchmark then failed with it, and no
	// process ran.
	Missing error
	// Benchmarks is the number of benchmarks measured on both sides
	// (each once, whatever its -cpu values); Processes and ProcessTime
	// count the valgrind processes and their wall time (both also added
	// to the session's Result); Elapsed is the lane's wall time.
	Benchmarks           int
	Processes            int
	ProcessTime, Elapsed time.Duration
	// Profiles are the per-function counts of each benchmark measured on
	// both sides, by its ID without "Benchmark" ("example.com/m.Parse"):
	// base's and head's loop profiles, each side's samples merged.
	Profiles map[string]*[2]LaneProfile
}

// LaneProfile is one side's per-function instruction counts of a
// benchmark's loop (callgrind.Sample.Profile): its samples' profiles
// merged, covering Ops iterations, and the test binary that ran them (for
// the functions' lines).
type LaneProfile struct {
	Profile *callgrind.Profile
	Ops     int64
	Binary  string
}

// MeasureInstructions counts the instructions per op of the given units
// under Valgrind (see package callgrind): each benchmark present on both
// sides and not failed in the time lane, once whatever its -cpu values, at
// an N chosen from its calibrated time per op (raised after the first
// sample if that loop counted fewer than callgrind.MinLoop instructions,
// and the sample taken again), o.Repeats times per side,
// base and head alternating (base first in odd repeats, head first in even
// ones). Each side's results go to its writer as benchfmt lines in the unit
// "instructions/op", after a "lane: instructions" configuration line.
//
// The benchmarks run like every other benchmark process: with Options.Env,
// as Options.Credential, in their package directory, bounded by
// Options.Timeout, their process group killed on cancellation. A benchmark
// that fails under Valgrind is a Failure and not measured again; the others
// go on. The error is the context's, or a writer's.
func (s *Session) MeasureInstructions(ctx context.Context, units []Unit, o InstructionOptions, base, head io.Writer) (*InstructionResult, error) {
	r := s.r
	start := time.Now()
	res := &InstructionResult{Profiles: map[string]*[2]LaneProfile{}}
	defer func() {
		res.Elapsed = time.Since(start)
		r.res.ProcessTime += res.ProcessTime
		r.res.Processes += res.Processes
		r.res.Failures = append(r.res.Failures, res.Failures...)
	}()
	if o.Repeats <= 0 {
		o.Repeats = 3
	}
	env := r.o.Env
	if env == nil {
		env = os.Environ() // Options.Env: nil inherits
	}
	co := callgrind.Options{
		Valgrind:   o.Valgrind,
		Env:        env,
		Credential: r.o.Credential,
		Timeout:    r.o.Timeout,
		WorkDir:    r.o.BinDir,
		Difference: o.Difference,
	}
	todo := r.instructionUnits(units)
	if err := callgrind.Available(co); err != nil {
		res.Missing = err
		for _, u := range todo {
			res.Failures = append(res.Failures, Failure{Package: u.Package, Name: strings.TrimPrefix(u.Name, "Benchmark"), Message: "unavailable: " + err.Error(), Unit: callgrind.Unit})
		}
		return res, nil
	}
	out := [2]io.Writer{base, head}
	w := [2]*benchfmt.Writer{benchfmt.NewWriter(base), benchfmt.NewWriter(head)}
	wrote := [2]bool{}
	defer func() {
		// Later results in the same stream are not the lane's.
		for i := range out {
			if wrote[i] {
				fmt.Fprintf(out[i], "%s:\n", LaneKey)
			}
		}
	}()
	if len(todo) > 0 {
		r.progress("instructions: %d benchmarks × %d runs per side under valgrind", len(todo), o.Repeats)
	}
	for k, u := range todo {
		n := callgrind.ChooseN(perOp(u), o.Target)
		r.progress("instructions %d/%d: %s.%s (N=%d)", k+1, len(todo), u.Package, strings.TrimPrefix(u.Name, "Benchmark"), n)
		measured, rescaled := true, false
		var profiles [2]LaneProfile
	repeats:
		for rep := range o.Repeats {
			sides := [2]int{0, 1}
			if rep%2 == 1 {
				sides = [2]int{1, 0}
			}
			for j := 0; j < len(sides); j++ {
				i := sides[j]
				pk := r.pkgs[u.Package][i]
				t := time.Now()
				sample, err := callgrind.Measure(ctx, co, callgrind.Bench{Binary: pk.Binary, Dir: pk.Dir, Name: u.Name}, n)
				res.ProcessTime += time.Since(t)
				if sample != nil {
					res.Processes += sample.Processes
				} else {
					res.Processes++ // at least
				}
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				if err != nil {
					var ce *callgrind.Error
					if !errors.As(err, &ce) {
						return res, err
					}
					res.Failures = append(res.Failures, Failure{
						Package: u.Package,
						Name:    strings.TrimPrefix(u.Name, "Benchmark"),
						Side:    sideNames[i],
						Message: "unavailable: " + err.Error(),
						Unit:    callgrind.Unit,
					})
					measured = false
					break repeats
				}
				if m, ok := callgrind.Rescale(n, sample.Loop); ok && !rescaled && rep == 0 && j == 0 {
					// The first sample decides N for every run of both
					// sides: too few instructions (N came from a time per
					// op measured on a loaded machine), so it is measured
					// again at the larger N.
					r.progress("instructions %d/%d: %s.%s: %d instructions at N=%d; N=%d", k+1, len(todo), u.Package, strings.TrimPrefix(u.Name, "Benchmark"), sample.Loop, n, m)
					n, rescaled = m, true
					j--
					continue
				}
				b := sample.BenchfmtResult()
				b.SetConfig(LaneKey, LaneInstructions)
				if j, ok := b.ConfigIndex(LaneKey); ok {
					b.Config[j].File = true
				}
				if err := w[i].Write(b); err != nil {
					return res, fmt.Errorf("writing %s results: %w", sideNames[i], err)
				}
				wrote[i] = true
				if sample.Profile != nil {
					lp := &profiles[i]
					if lp.Profile == nil {
						lp.Profile, lp.Binary = &callgrind.Profile{}, pk.Binary
					}
					if err := lp.Profile.Merge(sample.Profile); err == nil {
						lp.Ops += int64(sample.N)
					}
				}
			}
		}
		if measured && profiles[0].Ops > 0 && profiles[1].Ops > 0 {
			res.Profiles[u.Package+"."+strings.TrimPrefix(u.Name, "Benchmark")] = &profiles
		}
		if measured {
			res.Benchmarks++
		}
	}
	return res, nil
}

// instructionUnits picks the units the instruction lane measures: present
// on both sides, not failed in the time lane, one per benchmark (the lane
// runs every benchmark at GOMAXPROCS 1, whatever its -cpu values), with
// the largest time per op of its units.
func (r *run) instructionUnits(units []Unit) []Unit {
	var todo []Unit
	index := map[string]int{}
	for _, u := range units {
		if !u.Sides[0] || !u.Sides[1] || r.isFailed(0, u) || r.isFailed(1, u) {
			continue
		}
		if r.pkgs[u.Package][0] == nil || r.pkgs[u.Package][1] == nil {
			continue
		}
		key := u.Package + "." + u.Name
		if j, ok := index[key]; ok {
			if perOp(u) > perOp(todo[j]) {
				todo[j] = u
			}
			continue
		}
		index[key] = len(todo)
		todo = append(todo, u)
	}
	return todo
}

// perOp is the unit's calibrated time per op in nanoseconds (0 if
// unknown): Cost is the pilot's estimate of RoundN iterations.
func perOp(u Unit) float64 {
	iters := u.RoundN
	if iters <= 0 {
		iters = u.N
	}
	if iters <= 0 {
		return 0
	}
	return float64(u.Cost.Nanoseconds()) / float64(iters)
}
