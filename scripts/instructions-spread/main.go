// Command instructions-spread measures how much the instruction lane's
// counts (instructions/op under Valgrind, package internal/callgrind) and
// wall time (sec/op, run natively the way the time lane runs) vary from
// process to process, for benchmarks of this project's test modules, on
// this machine, at the same time: each round runs every benchmark once
// natively and once under callgrind, interleaved.
//
// Every callgrind measurement runs at N and 2N (callgrind.Options.Difference),
// so the table also shows the spread of the differenced count
// (C(2N) − C(N)) / N next to the lane's default, C(N) / N.
//
//	go run ./scripts/instructions-spread [-rounds 10] [-target 300ms]
//
// or scripts/instructions-spread.sh.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/benchgate/benchgate/internal/callgrind"
	"golang.org/x/perf/benchfmt"
)

type bench struct {
	module, pkg string // module directory (from the repository root), package directory in it
	name        string
	bin, dir    string
	allocs      float64 // allocs/op, natively
	nsPerOp     float64 // calibration
	nTime       int     // native N: about 100ms
	nInstr      int     // callgrind N
	secOp       []float64
	instr       []float64 // C(N)/N
	diff        []float64 // (C(2N)-C(N))/N
	wall        []time.Duration
	merged      int // samples counted with threads merged (system calls)
}

func main() {
	rounds := flag.Int("rounds", 10, "rounds: each runs every benchmark once natively and once under callgrind (at N and 2N)")
	target := flag.Duration("target", callgrind.DefaultTarget, "valgrind time of one loop, to choose N")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("instructions-spread: ")
	if err := callgrind.Available(callgrind.Options{Env: os.Environ()}); err != nil {
		log.Fatal(err)
	}
	root, err := os.Getwd()
	if err != nil {
		log.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal/callgrind/testdata/mod")); err != nil {
		log.Fatal("run from the repository root")
	}
	work, err := os.MkdirTemp("", "instructions-spread-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)

	benches := []*bench{
		{module: "internal/runner/testdata/mod", pkg: ".", name: "BenchmarkSum"},
		{module: "internal/runner/testdata/mod", pkg: ".", name: "BenchmarkSizes/n=8"},
		{module: "internal/runner/testdata/mod", pkg: "./sub", name: "BenchmarkReadData"},
		{module: "internal/callgrind/testdata/mod", pkg: ".", name: "BenchmarkWork1000"},
		{module: "internal/callgrind/testdata/mod", pkg: ".", name: "BenchmarkAlloc"},
		{module: "internal/callgrind/testdata/mod", pkg: ".", name: "BenchmarkMap"},
	}
	built := map[string]string{}
	for _, b := range benches {
		b.dir = filepath.Join(root, b.module, b.pkg)
		key := b.module + "|" + b.pkg
		if bin, ok := built[key]; ok {
			b.bin = bin
			continue
		}
		b.bin = filepath.Join(work, strconv.Itoa(len(built))+".test")
		cmd := exec.Command("go", "test", "-c", "-o", b.bin, b.pkg)
		cmd.Dir = filepath.Join(root, b.module)
		if out, err := cmd.CombinedOutput(); err != nil {
			log.Fatalf("building %s: %v\n%s", key, err, out)
		}
		built[key] = b.bin
	}

	loadStart := loadavg()
	ctx := context.Background()
	for _, b := range benches {
		r, err := native(ctx, b, "200ms")
		if err != nil {
			log.Fatal(err)
		}
		b.nsPerOp, _ = r.Value("sec/op")
		b.nsPerOp *= 1e9
		b.allocs, _ = r.Value("allocs/op")
		b.nTime = max(1, int(100e6/b.nsPerOp))
		b.nInstr = callgrind.ChooseN(b.nsPerOp, *target)
		log.Printf("%s: %.0f ns/op natively, N = %d natively, %d under callgrind", b.name, b.nsPerOp, b.nTime, b.nInstr)
	}
	o := callgrind.Options{Env: os.Environ(), Timeout: 10 * time.Minute, Difference: true}
	start := time.Now()
	for round := 1; round <= *rounds; round++ {
		log.Printf("round %d/%d", round, *rounds)
		for _, b := range benches {
			r, err := native(ctx, b, strconv.Itoa(b.nTime)+"x")
			if err != nil {
				log.Fatal(err)
			}
			v, _ := r.Value("sec/op")
			b.secOp = append(b.secOp, v)
			s, err := callgrind.Measure(ctx, o, callgrind.Bench{Binary: b.bin, Dir: b.dir, Name: b.name}, b.nInstr)
			if err != nil {
				log.Fatalf("%s: %v", b.name, err)
			}
			b.instr = append(b.instr, float64(s.Loop)/float64(s.N))
			b.diff = append(b.diff, s.PerOp)
			b.wall = append(b.wall, s.Elapsed)
			if s.AllThreads {
				b.merged++
			}
		}
	}
	report(benches, *rounds, *target, time.Since(start), loadStart, loadavg())
}

// loadavg is the first three fields of /proc/loadavg, or "?".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// native runs the benchmark the way the time lane does (one process,
// -test.cpu=1 here, the environment as it is) and returns its result.
func native(ctx context.Context, b *bench, benchtime string) (*benchfmt.Result, error) {
	cmd := exec.CommandContext(ctx, b.bin, "-test.run=^$", "-test.bench="+callgrind.LeafPattern(b.name),
		"-test.benchtime="+benchtime, "-test.count=1", "-test.cpu=1", "-test.benchmem")
	cmd.Dir = b.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", b.name, err, out)
	}
	rd := benchfmt.NewReader(bytes.NewReader(out), b.name)
	for rd.Scan() {
		if r, ok := rd.Result().(*benchfmt.Result); ok && "Benchmark"+r.Name.String() == b.name {
			return r.Clone(), nil
		}
	}
	return nil, fmt.Errorf("%s: no result in\n%s", b.name, out)
}

// spread is (max − min) / median, in percent.
func spread(xs []float64) float64 {
	return 100 * (slices.Max(xs) - slices.Min(xs)) / median(xs)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// cv is the coefficient of variation (standard deviation / mean), in
// percent.
func cv(xs []float64) float64 {
	var m, v float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return 100 * math.Sqrt(v/float64(len(xs)-1)) / m
}

func report(benches []*bench, rounds int, target time.Duration, elapsed time.Duration, loadStart, loadEnd string) {
	vg, _ := exec.Command("valgrind", "--version").Output()
	cpu := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	fmt.Printf("# Spread of instructions/op (callgrind) vs sec/op (native), %d rounds, interleaved\n", rounds)
	fmt.Printf("# %s, %s, %d CPUs (%s), %s; callgrind target %s per loop\n",
		runtime.Version(), strings.TrimSpace(string(vg)), runtime.NumCPU(), cpu, time.Now().UTC().Format("2006-01-02"), target)
	fmt.Printf("# load average (1, 5, 15 min) at the start: %s; at the end: %s\n#\n", loadStart, loadEnd)
	fmt.Println("# spread = (max − min) / median over the rounds; cv = standard deviation / mean.")
	fmt.Println("# instr/op: the lane's count, C(N)/N; differenced: (C(2N) − C(N))/N from the same processes.")
	fmt.Println("# sec/op: a native run of about 100 ms (-test.cpu=1, GC on), right before the callgrind runs.")
	fmt.Println("# merged: rounds whose loop made system calls, counted with callgrind's threads merged.")
	fmt.Println("# valgrind s: wall time of a sample's two callgrind runs, at N and 2N (median); the lane runs only the first.")
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "benchmark\tallocs/op\tN\tinstr/op\tspread\tcv\tdifferenced spread\tmerged\tsec/op\tspread\tcv\tN\tvalgrind s\t")
	for _, b := range benches {
		var wall []float64
		for _, d := range b.wall {
			wall = append(wall, d.Seconds())
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%d\t%.1f\t%.3f%%\t%.3f%%\t%.3f%%\t%d/%d\t%s\t%.1f%%\t%.1f%%\t%d\t%.2f\t\n",
			strings.TrimPrefix(b.name, "Benchmark"), b.allocs, b.nInstr, median(b.instr), spread(b.instr), cv(b.instr), spread(b.diff), b.merged, len(b.instr),
			time.Duration(median(b.secOp)*1e9), spread(b.secOp), cv(b.secOp), b.nTime, median(wall))
	}
	tw.Flush()
	fmt.Printf("\n# wall time of the whole measurement: %s\n", elapsed.Round(time.Second))
}
