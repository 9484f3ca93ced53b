package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/config"

	"github.com/benchgate/benchgate/internal/demo"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/report"
)

// demo builds the embedded example repository in a temporary directory and
// runs the whole pipeline on it with small settings. The example's verdict
// is "fail" by design (it plants a slowdown and an extra allocation); the demo
// itself succeeds when benchgate found exactly the planted changes, and
// fails (exit 1) when it missed one or raised a false alarm.
func (a *app) demo(ctx context.Context) int {
	tmp, err := os.MkdirTemp("", "benchgate-demo-")
	if err != nil {
		return a.errorf(ExitTool, "temporary directory: %v", err)
	}
	defer os.RemoveAll(tmp)
	repo := filepath.Join(tmp, "shop")
	if err := demo.Write(ctx, repo); err != nil {
		return a.errorf(ExitTool, "demo repository: %v", err)
	}
	fmt.Fprintf(a.env.Stderr, "benchgate demo: example repository with two commits in %s\n", repo)
	fmt.Fprintf(a.env.Stderr, "benchgate demo: running: benchgate %s\n", strings.Join(demoArgs, " "))
	cfg, err := config.Parse(demoArgs)
	if err != nil {
		return a.errorf(ExitTool, "demo settings: %v", err)
	}
	run := &app{env: a.env, cfg: cfg}
	o := run.run(ctx, repo)
	code, v := o.code, o.verdict
	if v == nil {
		return code
	}
	if code != ExitFail && code != ExitPass {
		return code
	}
	if miss := checkDemo(*v); len(miss) > 0 {
		fmt.Fprintf(a.env.Stderr, "benchgate demo: the report differs from the planted changes:\n  %s\n", strings.Join(miss, "\n  "))
		return ExitFail
	}
	fmt.Fprintf(a.env.Stderr, "benchgate demo: the verdict is FAIL by design; benchgate found every planted change and nothing else (%d expectations)\n", len(demo.Expectations))
	return ExitPass
}

// demoArgs are the demo's settings: the demo is a run with its own
// configuration (demo itself takes no flags). The planted changes are 2–3
// times, so short rounds find them; the profiling pass (--explain) is left
// out to keep the demo's measuring within about 15 s on a 2-core machine.
var demoArgs = []string{"run", "--base", "HEAD~1", "--head", "HEAD", "--count", "10", "--benchtime", "10ms", "--explain=false", "./..."}

// checkDemo compares a verdict with the demo's expectations.
func checkDemo(v gate.Verdict) []string {
	var miss []string
	for _, e := range demo.Expectations {
		found := false
		for _, r := range v.Results {
			if baseName(r.Name) != e.Name || (e.Unit != "" && r.Unit != e.Unit) {
				continue
			}
			found = true
			if string(r.Status) != e.Status {
				miss = append(miss, fmt.Sprintf("%s %s: want %s, got %s (%s)", e.Name, e.Unit, e.Status, r.Status, report.ReasonText(r)))
			}
			if e.Unit == "" {
				break
			}
		}
		if !found {
			miss = append(miss, fmt.Sprintf("%s %s: want %s, not in the report", e.Name, e.Unit, e.Status))
		}
	}
	for _, r := range v.Results {
		if r.Status != gate.Regression {
			continue
		}
		planted := false
		for _, e := range demo.Expectations {
			planted = planted || (baseName(r.Name) == e.Name && r.Unit == e.Unit && e.Status == "regression")
		}
		// A planted change may move other units of the same benchmark too
		// (Encode's copy also costs time); only regressions of untouched
		// benchmarks are false alarms.
		if !planted && (baseName(r.Name) == "Words") {
			miss = append(miss, fmt.Sprintf("%s %s: false alarm: %s", r.Name, r.Unit, report.ReasonText(r)))
		}
	}
	return miss
}

// baseName strips the GOMAXPROCS suffix from a benchfmt name.
func baseName(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 && strings.Trim(name[i+1:], "0123456789") == "" && i < len(name)-1 {
		return name[:i]
	}
	return name
}
