package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/benchgate/benchgate/internal/testenv"
)

// TestProfile takes allocation and CPU profiles of testdata/mod's
// benchmarks on both sides. Run as root (the action's container), the
// binaries run as another user, as they do in the sandbox: the profiles
// must still land in the caller's directory, as benchgate's files.
func TestProfile(t *testing.T) {
	testenv.Heavy(t)
	if testing.Short() {
		t.Skip("builds real test binaries and profiles them")
	}
	root := openTempDir(t)
	dirs := [2]string{filepath.Join(root, "base"), filepath.Join(root, "head")}
	for _, d := range dirs {
		testenv.CopyTree(t, "testdata/mod", d)
	}
	binDir := filepath.Join(root, "bin")
	if err := os.Mkdir(binDir, 0o711); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var progress bytes.Buffer
	s, err := Prepare(ctx, Side{"base", dirs[0]}, Side{"head", dirs[1]}, Options{
		Bench:     "Sizes/n=8|Flaky",
		Count:     1,
		Benchtime: "5ms",
		Runs:      1,
		CPU:       []int{1},
		BinDir:    binDir,
		Progress:  &progress,
	})
	if err != nil {
		t.Fatalf("Prepare: %v\n%s", err, progress.String())
	}
	sandboxed := os.Geteuid() == 0
	if sandboxed {
		// Built as root, run as a user of no account, like the
		// sandbox's: the side directories as Prepare leaves them with a
		// Credential.
		for _, side := range sideNames {
			if err := seal(filepath.Join(binDir, side)); err != nil {
				t.Fatal(err)
			}
		}
		s.r.o.Credential = &syscall.Credential{Uid: 61234, Gid: 61234}
	}
	units := map[string]Unit{}
	for _, u := range s.Units() {
		units[u.Name] = u
	}
	u, ok := units["BenchmarkSizes/n=8"]
	if !ok {
		t.Fatalf("units: %+v", s.Units())
	}
	out := filepath.Join(root, "out", "sizes")
	processes := s.Result().Processes

	set, err := s.ProfileAllocs(ctx, u, 0, out)
	if err != nil {
		t.Fatal(err)
	}
	for i, side := range sideNames {
		if len(set.Runs[i]) != 2 {
			t.Fatalf("%s: %d runs", side, len(set.Runs[i]))
		}
		for k, r := range set.Runs[i] {
			n := u.N << k
			if r.Side != i || r.N != n || r.Result == nil || r.Result.Iters != n {
				t.Errorf("%s run %d: %+v, want %d iterations", side, k, r, n)
			}
			if want := filepath.Join(out, fmt.Sprintf("%s-allocs-%dx.pprof", side, n)); r.Path != want {
				t.Errorf("%s run %d: %s, want %s", side, k, r.Path, want)
			}
			checkProfile(t, r.Path)
		}
	}
	if set.Kind != AllocProfile || set.Elapsed <= 0 {
		t.Errorf("set: %+v", set)
	}

	cpu, err := s.ProfileCPU(ctx, u, 0, 2, out)
	if err != nil {
		t.Fatal(err)
	}
	for i, side := range sideNames {
		for k, r := range cpu.Runs[i] {
			if want := filepath.Join(out, fmt.Sprintf("%s-cpu-%d.pprof", side, k+1)); r.Path != want || r.N != u.N {
				t.Errorf("%s CPU run %d: %s at %dx, want %s at %dx", side, k, r.Path, r.N, want, u.N)
			}
			checkProfile(t, r.Path)
		}
		if len(cpu.Runs[i]) != 2 {
			t.Errorf("%s: %d CPU runs, want 2", side, len(cpu.Runs[i]))
		}
	}
	if got := s.Result().Processes - processes; got != 8 {
		t.Errorf("%d processes counted, want 8", got)
	}
	// The private directories the binaries wrote in are gone.
	if left, _ := filepath.Glob(filepath.Join(binDir, "*", "profile-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}

	bins, err := s.KeepBinaries(u, out)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range bins {
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(s.r.pkgs[u.Package][i].Binary)
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(p); err != nil || !bytes.Equal(got, want) || fi.Mode().Perm() != 0o755 || filepath.Base(p) != sideNames[i]+".test" {
			t.Errorf("kept binary %s: %v, mode %v, same bytes %v", p, err, fi.Mode(), bytes.Equal(got, want))
		}
	}

	// A benchmark that fails while profiled is an error, not a failure
	// of the measurement, and leaves no profile.
	if err := os.WriteFile(filepath.Join(dirs[1], "FLAKY"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	failures := len(s.Result().Failures)
	_, err = s.Profile(ctx, units["BenchmarkFlaky"], 1, CPUProfile, 0, out, "flaky.pprof")
	if err == nil || !strings.Contains(err.Error(), "head side") || !strings.Contains(err.Error(), "exploded") {
		t.Errorf("Profile of a failing benchmark: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(out, "flaky.pprof")); !os.IsNotExist(err) {
		t.Errorf("profile of a failed run: %v", err)
	}
	if got := len(s.Result().Failures); got != failures {
		t.Errorf("%d failures recorded, want %d", got, failures)
	}
	if _, err := s.Profile(ctx, u, 0, AllocProfile, 0, out, "../escape.pprof"); err == nil {
		t.Error("Profile into ../escape.pprof: no error")
	}

	if sandboxed {
		// The runs really are the other user's: a package directory
		// only root may enter stops them.
		if err := os.Chmod(dirs[1], 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := s.Profile(ctx, u, 1, CPUProfile, 0, out, "denied.pprof")
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("Profile as user 61234 in a directory of root's: %v", err)
		}
		if err := os.Chmod(dirs[1], 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// checkProfile checks that path is a gzipped profile, a regular file of
// benchgate's user that only it may write.
func checkProfile(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 || int(st.Uid) != os.Geteuid() {
		t.Errorf("%s: mode %v, owner %d", path, fi.Mode(), st.Uid)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("%s: not gzipped (%d bytes)", path, len(b))
	}
}

// openTempDir is a temporary directory every user may enter (t.TempDir's
// are root's alone).
func openTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "runner-profile-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
