package runner

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/benchgate/benchgate/internal/safefile"
	"golang.org/x/perf/benchfmt"
)

// ProfileKind is what a profiling run records.
type ProfileKind int

const (
	// AllocProfile is -test.memprofile with -test.memprofilerate=1: every
	// heap allocation of the process, with its stack (see
	// explain.AllocDelta for what the file covers).
	AllocProfile ProfileKind = iota + 1
	// CPUProfile is -test.cpuprofile: the process's CPU time, sampled at
	// 100 Hz.
	CPUProfile
)

func (k ProfileKind) String() string {
	switch k {
	case AllocProfile:
		return "allocs"
	case CPUProfile:
		return "cpu"
	}
	return "ProfileKind(" + strconv.Itoa(int(k)) + ")"
}

// ProfileRun is one profiling run of a unit on one side.
type ProfileRun struct {
	Side    int    // 0 base, 1 head
	N       int    // -test.benchtime=<N>x
	Path    string // the profile
	Result  *benchfmt.Result
	Elapsed time.Duration
}

// ProfileSet is what a profiling pass of one unit left in its directory.
type ProfileSet struct {
	Unit    Unit
	Kind    ProfileKind
	Runs    [2][]ProfileRun // per side (base, head), in the order they ran
	Elapsed time.Duration   // the pass's wall time
}

// maxProfileSize bounds a profile file taken back from a run.
const maxProfileSize = 256 << 20

// Profile runs unit u once on side (0 base, 1 head) at n iterations
// (-test.benchtime=<n>x; u.N if n <= 0), with the flags of every counted
// run (exact leaf pattern, -test.benchmem, -test.cpu) and kind's profile
// on, and leaves the profile in dir/name. It is never a counted run: the
// result line is returned, not written to a stream, and a failure is
// returned, not recorded (profiling must not change what was measured).
//
// The run goes through the same plumbing as every benchmark process:
// Options.Env, Options.Credential, the package directory, Options.Timeout,
// the pinned CPUs, its process group killed on cancellation, its time
// counted in Result.ProcessTime. The test binary writes the profile into
// a fresh private directory next to the binaries, given to the sandbox
// user when Options.Credential is set and taken back (seal) after the
// run; the profile is then copied from there into dir, which the
// sandboxed code never gets to write: head's code cannot touch base's
// profiles or anything else in dir. dir is created if missing.
func (s *Session) Profile(ctx context.Context, u Unit, side int, kind ProfileKind, n int, dir, name string) (*ProfileRun, error) {
	r := s.r
	if side != 0 && side != 1 {
		return nil, fmt.Errorf("profile: side %d", side)
	}
	if kind != AllocProfile && kind != CPUProfile {
		return nil, fmt.Errorf("profile: %v", kind)
	}
	pk := r.pkgs[u.Package][side]
	if pk == nil || !u.Sides[side] {
		return nil, fmt.Errorf("profile: %s is not on the %s side", u.ID(), sideNames[side])
	}
	if n <= 0 {
		n = u.N
	}
	if name == "" || name != filepath.Base(name) {
		return nil, fmt.Errorf("profile: bad file name %q", name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := safefile.CheckDir(dir); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(filepath.Dir(pk.Binary), "profile-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	if cr := r.o.Credential; cr != nil {
		// The test binary runs as the sandbox user and creates the
		// file.
		if err := os.Chown(stage, int(cr.Uid), int(cr.Gid)); err != nil {
			return nil, err
		}
	}
	file := filepath.Join(stage, kind.String()+".pprof")
	args := r.benchArgs(leafPattern(u.Name), strconv.Itoa(n)+"x", u.CPU)
	switch kind {
	case AllocProfile:
		args = append(args, "-test.memprofile="+file, "-test.memprofilerate=1")
	case CPUProfile:
		args = append(args, "-test.cpuprofile="+file)
	}
	c := r.testCmd(side, u.Package, args...)
	out, err := r.exec(ctx, c)
	if r.o.Credential != nil {
		if serr := seal(stage); serr != nil && err == nil {
			return nil, fmt.Errorf("taking back %s: %w", stage, serr)
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	run := &ProfileRun{Side: side, N: n, Path: filepath.Join(dir, name), Elapsed: out.Elapsed}
	for _, pr := range parseResults(out.Stdout, u.CPU) {
		if pr.leaf == u.Name {
			run.Result = pr.result
		}
	}
	if err == nil && run.Result == nil {
		err = fmt.Errorf("%s: no result for %s", c.String(), u.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s side: profiling %s: %w\n%s", sideNames[side], u.ID(), err, firstLines(append(append([]byte{}, out.Stdout...), out.Stderr...), 12))
	}
	if err := copyOut(file, run.Path, 0o644); err != nil {
		return nil, fmt.Errorf("%s side: profiling %s: %w", sideNames[side], u.ID(), err)
	}
	return run, nil
}

// copyOut copies the regular file src (never a link) to dst.
func copyOut(src, dst string, perm os.FileMode) error {
	f, err := safefile.OpenRegular(src)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProfileSize+1))
	if err != nil {
		return err
	}
	if len(data) > maxProfileSize {
		return fmt.Errorf("%s: larger than %d bytes", src, maxProfileSize)
	}
	return safefile.WriteFile(dst, data, perm)
}

// ProfileAllocs takes unit u's allocation profiles on both sides, each at
// n and 2n iterations (n at least 2; u.N if n <= 0), into dir as
// <side>-allocs-<n>x.pprof: explain.AllocDelta of a side's two profiles
// is exactly n ops of its loop. Runs[i] holds side i's n and 2n runs.
// See AllocProfileN for an n that bounds the pass's time.
func (s *Session) ProfileAllocs(ctx context.Context, u Unit, n int, dir string) (*ProfileSet, error) {
	start := time.Now()
	if n <= 0 {
		n = u.N
	}
	n = max(2, n)
	set := &ProfileSet{Unit: u, Kind: AllocProfile}
	defer func() { set.Elapsed = time.Since(start) }()
	for _, iters := range []int{n, 2 * n} {
		for i := range 2 {
			run, err := s.Profile(ctx, u, i, AllocProfile, iters, dir, fmt.Sprintf("%s-allocs-%dx.pprof", sideNames[i], iters))
			if err != nil {
				return set, err
			}
			set.Runs[i] = append(set.Runs[i], *run)
		}
	}
	return set, nil
}

// ProfileCPU takes runs CPU profiles of unit u per side at n iterations
// each (u.N if n <= 0), base and head alternating (base first in odd
// pairs, head first in even ones), into dir as <side>-cpu-<k>.pprof. It is
// a pass of its own, never run while timing. See CPUProfileN for an n
// that gives a run enough samples.
func (s *Session) ProfileCPU(ctx context.Context, u Unit, n, runs int, dir string) (*ProfileSet, error) {
	start := time.Now()
	if n <= 0 {
		n = u.N
	}
	runs = max(1, runs)
	set := &ProfileSet{Unit: u, Kind: CPUProfile}
	defer func() { set.Elapsed = time.Since(start) }()
	for k := range runs {
		sides := [2]int{0, 1}
		if k%2 == 1 {
			sides = [2]int{1, 0}
		}
		for _, i := range sides {
			run, err := s.Profile(ctx, u, i, CPUProfile, n, dir, fmt.Sprintf("%s-cpu-%d.pprof", sideNames[i], k+1))
			if err != nil {
				return set, err
			}
			set.Runs[i] = append(set.Runs[i], *run)
		}
	}
	return set, nil
}

// KeepBinaries copies the test binaries of u's package on both sides to
// dir/base.test and dir/head.test (those the profiles came from: go tool
// pprof -diff_base base.pprof head.pprof head.test) and returns their
// paths.
func (s *Session) KeepBinaries(u Unit, dir string) ([2]string, error) {
	var paths [2]string
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return paths, err
	}
	for i := range 2 {
		pk := s.r.pkgs[u.Package][i]
		if pk == nil {
			return paths, fmt.Errorf("%s is not on the %s side", u.Package, sideNames[i])
		}
		paths[i] = filepath.Join(dir, sideNames[i]+".test")
		if err := copyFile(pk.Binary, paths[i], 0o755); err != nil {
			return paths, err
		}
	}
	return paths, nil
}

// copyFile copies a regular file of any size.
func copyFile(src, dst string, perm os.FileMode) error {
	f, err := safefile.OpenRegular(src)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := safefile.Create(dst, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, f); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// MaxProfiledAllocs bounds the allocations an allocation pass records per
// side (n + 2n ops): with rate 1 the runtime records the stack of every
// allocation and tracks the object until it is freed, 2.5 to 10 µs each
// (measured on 2 cores), so 10⁵ take up to a second per side.
const MaxProfiledAllocs = 100_000

// AllocProfileN returns the n of u's allocation pass given its allocs/op
// (the larger side's): u.N, less where the pass would record more than
// MaxProfiledAllocs allocations per side, at least 2. The per-op figures
// do not depend on n for allocations made the same way in every op.
func AllocProfileN(u Unit, allocsPerOp float64) int {
	n := u.N
	if allocsPerOp > 0 {
		n = min(n, int(MaxProfiledAllocs/(3*allocsPerOp)))
	}
	return max(2, n)
}

// CPUProfileN returns the n of a CPU profiling run of u that does about
// target of work by the pilot's time per op, and at least u.N: at 100
// samples per second a run of 20 ms holds 2 samples, one of 1 s 100.
func CPUProfileN(u Unit, target time.Duration) int {
	n := max(1, u.N)
	if u.RoundN > 0 && u.Cost > 0 {
		perOp := float64(u.Cost) / float64(u.RoundN)
		n = max(n, int(min(float64(target)/perOp, math.MaxInt32)))
	}
	return n
}
