package runner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/benchout"
	"golang.org/x/perf/benchfmt"
)

var sideNames = [2]string{"base", "head"}

// listBenchmarks returns the top-level benchmark functions of a test binary.
func (r *run) listBenchmarks(ctx context.Context, i int, p string) ([]string, error) {
	c := r.testCmd(i, p, "-test.list", "^Benchmark")
	out, err := r.exec(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("%s side: listing benchmarks of %s: %w\n%s", sideNames[i], p, err, firstLines(append(out.Stdout, out.Stderr...), 20))
	}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(out.Stdout))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "Benchmark") && !strings.ContainsAny(l, " \t") {
			names = append(names, l)
		}
	}
	return names, nil
}

// exec runs a test binary invocation and accounts its time.
func (r *run) exec(ctx context.Context, c command) (output, error) {
	out, err := c.run(ctx)
	r.res.ProcessTime += out.Elapsed
	r.res.Processes++
	return out, err
}

// benchArgs are the flags of a measuring invocation of one run of each
// benchmark pattern selects.
func (r *run) benchArgs(pattern, benchtime string, cpu int) []string {
	return r.countArgs(pattern, benchtime, cpu, 1)
}

// countArgs are the flags of a measuring invocation that runs each
// benchmark pattern selects count times: the testing package runs a
// leaf's count runs one after the other inside one call of its parent
// benchmark function, so the parent's set-up is paid once.
func (r *run) countArgs(pattern, benchtime string, cpu, count int) []string {
	return []string{
		"-test.run=^$",
		"-test.bench=" + pattern,
		"-test.benchtime=" + benchtime,
		"-test.count=" + strconv.Itoa(count),
		"-test.benchmem",
		"-test.cpu=" + strconv.Itoa(cpu),
		// -test.timeout does not cover benchmarks: the runner kills the
		// process group itself after Options.Timeout.
	}
}

// parsed is one benchmark result line of a run.
type parsed struct {
	leaf   string // "Benchmark..." without GOMAXPROCS suffix
	result *benchfmt.Result
}

// parseResults reads the benchfmt results in a test binary's output.
func parseResults(stdout []byte, cpu int) []parsed {
	var res []parsed
	rd := benchfmt.NewReader(bytes.NewReader(benchout.Rejoin(stdout)), "")
	suffix := procSuffix(cpu)
	for rd.Scan() {
		rec, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		name := rec.Name.String()
		if suffix != "" {
			if !strings.HasSuffix(name, suffix) {
				continue
			}
			name = strings.TrimSuffix(name, suffix)
		}
		res = append(res, parsed{leaf: "Benchmark" + name, result: rec.Clone()})
	}
	return res
}

// failedNames extracts the benchmarks a run reported as failed.
func failedNames(b []byte) []string {
	var names []string
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "--- FAIL: "); ok {
			names = append(names, strings.Fields(rest)[0])
		}
	}
	return names
}

// recordFailure notes that a run failed on side i. The failing benchmarks are
// taken from the output's "--- FAIL:" lines; a crash without one is charged
// to the whole pattern (top).
func (r *run) recordFailure(i int, p, top string, cpu int, c command, out output, err error, results []parsed) {
	names := failedNames(out.Stdout)
	if len(names) == 0 {
		names = []string{top}
	}
	reason := err.Error()
	if out.TimedOut {
		reason = fmt.Sprintf("timed out after %s: %s", r.o.Timeout, c.String())
	} else if code := exitCode(err); code >= 0 {
		reason = fmt.Sprintf("exit status %d: %s", code, c.String())
	}
	msg := reason + "\n" + firstLines(append(append([]byte{}, out.Stdout...), out.Stderr...), 12)
	for _, n := range names {
		n = strings.TrimSuffix(n, procSuffix(cpu))
		id := sideNames[i] + " " + p + "." + n + procSuffix(cpu)
		if r.failed[id] {
			continue
		}
		r.failed[id] = true
		r.res.Failures = append(r.res.Failures, Failure{
			Package: p,
			Name:    strings.TrimPrefix(n, "Benchmark") + procSuffix(cpu),
			Side:    sideNames[i],
			Message: msg,
		})
	}
	_ = results
}

// isFailed reports whether unit u (or a benchmark enclosing it) has failed
// on side i.
func (r *run) isFailed(i int, u Unit) bool {
	name := u.Name
	for {
		if r.failed[sideNames[i]+" "+u.Package+"."+name+procSuffix(u.CPU)] {
			return true
		}
		j := strings.LastIndexByte(name, '/')
		if j < 0 {
			return false
		}
		name = name[:j]
	}
}
