package cli

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runner"
)

// A job is one measurement as its command resolved it. The Config stays as
// the user gave it; what a command decides on top of it (the commits and
// their labels, the module's directory, where the raw files and reports go,
// whether to confirm) is here, and plan turns both into the pipeline's Plan.
type job struct {
	base, head pipeline.Rev
	dir        string // the module's directory
	out        string // where the raw files are kept; "" for a temporary directory
	confirm    bool   // re-run flagged time regressions
	prHead     string // the pull request's head commit, recorded in a shard manifest
	dest       dest
	// accept says which acceptances apply besides --accept.
	accept pipeline.Acceptance
	// policyAt, when set, is the commit the policy file is read from
	// instead of base, and its label why ("the merge base of feature-1
	// and main (a stacked pull request: ...)").
	policyAt pipeline.Rev
}

// dest says where a judgement's reports go besides standard output.
type dest struct {
	json, markdown string // files, as given ("" for none)
	calibrate      bool   // the A/A noise report instead of the verdict's
	raw            string // the raw files, kept if a report cannot be written
	rawKept        bool   // raw is the user's --out directory: kept anyway
	// request is what the reports call the change judged
	// (report.Meta.Request): "PR" in the run of a pull request.
	request string
}

// An outcome is what a command's judgement gave: the exit status and, when
// it got that far, the verdict, the report's metadata and the calibration,
// for the caller to publish.
type outcome struct {
	code        int
	verdict     *gate.Verdict
	meta        report.Meta
	calibration *report.Calibration
	// summary, without a verdict, is the job summary that says why
	// (Markdown).
	summary string
}

// failf prints one error line and returns the outcome of exit status code.
func (a *app) failf(code int, format string, args ...any) outcome {
	return outcome{code: a.errorf(code, "%s", fmt.Sprintf(format, args...))}
}

// plan resolves job j and the Config into the pipeline's Plan, once:
// the commits, the raw files' directory, the lanes, the runner's
// settings, the seed, the shard, where the policy comes from and what
// accepts. Its errors are the user's input.
func (a *app) plan(j job) (pipeline.Plan, error) {
	src := pipeline.PolicySource{Given: a.cfg.Given["policy"], At: j.policyAt, Acceptance: j.accept}
	if a.cfg.Policy != "none" {
		rel, err := a.policyPath()
		if err != nil {
			return pipeline.Plan{}, err
		}
		src.File = rel
	}
	accepts, err := a.flagAccepts()
	if err != nil {
		return pipeline.Plan{}, err
	}
	src.Accepts = accepts
	seed := a.cfg.Seed
	if !a.cfg.Given["seed"] {
		seed = rand.Int64N(1 << 31)
	}
	outPath := j.out
	if outPath != "" && !filepath.IsAbs(outPath) {
		outPath = filepath.Join(a.env.Dir, outPath)
	}
	c := a.cfg
	return pipeline.Plan{
		Base: j.base, Head: j.head,
		Out: j.out, OutPath: outPath,
		Time:         c.Measures(config.LaneTime) || j.dest.calibrate,
		Instructions: c.Measures(config.LaneInstructions) && !j.dest.calibrate,
		Calibrate:    j.dest.calibrate,
		Confirm:      j.confirm, Explain: c.Explain,
		Runner: runner.Options{
			Packages: c.Packages, Bench: c.Bench, Count: c.Count, Benchtime: c.Benchtime,
			Runs: c.Runs, CPU: c.CPU, Timeout: c.Timeout, Pin: c.Pin,
		},
		Seed: seed, MaxTime: c.MaxTime, Noise: a.recordedNoise(j), Affected: c.Affected,
		Shard: c.Shard, PRHead: j.prHead, Tool: a.tool(), Settings: a.settings(),
		Policy: src, Flags: a.flags(),
	}, nil
}

// settings are the measurement settings shards must agree on to be merged.
func (a *app) settings() string {
	return fmt.Sprintf("bench=%q count=%d benchtime=%s runs=%d cpu=%v packages=%q affected=%v measure=%v", a.cfg.Bench, a.cfg.Count, a.cfg.Benchtime, a.cfg.Runs, a.cfg.CPU, a.cfg.Packages, a.cfg.Affected, a.cfg.Measure)
}

// flags is the gate's policy as the flags give it: instructions are gated
// when the instruction lane is measured and --fail-on was not given (a
// --fail-on list without them only reports them); which flags were given
// explicitly, to override a policy file's top level.
func (a *app) flags() pipeline.Flags {
	p := gate.DefaultPolicy()
	p.Threshold, p.Alpha, p.Correction = a.cfg.Threshold, a.cfg.Alpha, a.cfg.Correction
	p.InstructionThreshold = a.cfg.InstructionsThreshold
	p.Test = a.cfg.Test
	p.SetFailOn(failOnWords(a.cfg.FailOn))
	if !a.cfg.Given["fail-on"] && a.cfg.Measures(config.LaneInstructions) {
		p.FailOn[gate.Instructions] = true
	}
	p.Selective = a.selective()
	g := a.cfg.Given
	return pipeline.Flags{
		Policy:         p,
		ThresholdGiven: g["threshold"], AlphaGiven: g["alpha"], InstructionsGiven: g["instructions-threshold"], FailOnGiven: g["fail-on"],
		Estimator: a.cfg.Estimator,
	}
}

// selective reports whether the run measures part of the suite: one shard
// of several, a --bench other than every benchmark, or packages other than
// the module's all (compare and merge judge whole files: never).
func (a *app) selective() bool {
	switch a.cfg.Command {
	case "compare", "merge":
		return false
	}
	all := len(a.cfg.Packages) == 1 && a.cfg.Packages[0] == "./..."
	return a.cfg.Shard.Count > 1 || (a.cfg.Bench != "." && a.cfg.Bench != "") || !all
}

// failOnWords are the --fail-on kinds as words.
func failOnWords(kinds []config.FailKind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}
