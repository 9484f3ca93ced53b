package pipeline

import (
	"errors"
	"io"
	"time"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/benchgate/benchgate/internal/stats"
)

// A Rev is a commit and the name reports give it ("main", "abc123^1").
type Rev struct{ SHA, Label string }

// A Plan is one run as its command resolved it from the configuration,
// the event and the repository, before anything is checked out: the
// commits and their labels, where the raw files go, the lanes, the
// runner's settings, and where the policy comes from and what accepts
// regressions. The stages read it and never change it.
type Plan struct {
	Base, Head Rev
	// Out is where the raw files are kept ("" for a temporary directory
	// the run removes), as the user gave it; OutPath is Out made
	// absolute.
	Out, OutPath string
	// Time and Instructions are the lanes measured: timed interleaved
	// rounds, and instruction counts under callgrind.
	Time, Instructions bool
	// Calibrate: the run is an A/A calibration (the time lane only, no
	// explanations).
	Calibrate bool
	// Confirm re-runs the promising time rows; Explain profiles the rows
	// that changed after the verdict.
	Confirm, Explain bool
	// Runner is the runner's settings as the user gave them (packages,
	// bench, count, benchtime, runs, CPUs, timeout, pinning); the stages
	// add the seed, the sandbox, the directories and the ignore rules.
	Runner runner.Options
	Seed   int64
	// MaxTime, when set, makes the time lane adaptive (Adaptive).
	MaxTime time.Duration
	// Noise is the per-round noise a ledger recorded for each benchmark
	// on this kind of machine, by package + "." + name as the ledger
	// names it (ledger.Noise): the screen's rounds are planned from it
	// (gate.PlanScreen); nil without a ledger.
	Noise map[string]float64
	// Affected selects the packages the change affects from
	// Runner.Packages (--packages affected).
	Affected bool
	// Shard is the run's part of the suite (zero: not sharded); a shard
	// records PRHead, Tool and Settings in its manifest.
	Shard                  shard.Spec
	PRHead, Tool, Settings string
	// Policy is where the rules come from; Flags the policy the flags
	// give before the rules apply.
	Policy PolicySource
	Flags  Flags
}

// PolicySource says where a run reads its rules (docs/policy.md) and
// what accepts regressions besides the policy file.
type PolicySource struct {
	// File is the policy file's path below the module's directory; ""
	// for none. Given says the user named it: a missing file is then
	// an error.
	File  string
	Given bool
	// At, when set, is the commit the file is read from instead of
	// base's tree, and its label why ("the merge base of feature-1 and
	// main (a stacked pull request: ...)").
	At Rev
	// Accepts are the --accept patterns, parsed.
	Accepts    []policy.Accept
	Acceptance Acceptance
}

// Acceptance says which Benchgate-Accept trailers and which label accept
// regressions, and who is credited: never a git author field, which
// whoever writes the commit types.
type Acceptance struct {
	// TrailersOf is the commit whose trailers are read (the pull
	// request's head, not a test merge commit); "" for none.
	TrailersOf string
	// TrailersOff, when set, says why the trailers are not applied: they
	// are read only for a note that says so.
	TrailersOff policy.TrailersOff
	// TrailersBy is who a trailer is credited to ("@login, the pull
	// request's author"); "" for "author unverified" (a local run).
	TrailersBy string
	// Label is the accept label when it accepts this run's head commit,
	// LabelBy who added it ("@login") and LabelAt the commit it was
	// added for.
	Label, LabelBy, LabelAt string
	// AcceptLabel names the accept label in a note that trailers are
	// off (policy.OffInput); Notes say why a label on the pull request
	// accepts nothing.
	AcceptLabel string
	Notes       []policy.Note
}

// Flags is the gate's policy as the flags give it, before a policy file's
// top level applies where they were not given explicitly.
type Flags struct {
	// Policy is the flags' policy (threshold, alpha, correction, test,
	// fail-on, instruction threshold, selective), with instructions
	// gated when the lane is measured and no fail-on list was given.
	Policy gate.Policy
	// Given says which of them were given explicitly: they override the
	// policy file (and a fail-on list given keeps instructions out of
	// the gated kinds when results hold their rows).
	ThresholdGiven, AlphaGiven, InstructionsGiven, FailOnGiven bool

	Estimator stats.Estimator
}

// Env is what a run writes besides its files: the runner's progress
// lines (nil for none, --quiet), the run's steps (nil for none; warnings
// among them too: the caller words them, report.StepLines), errors that
// do not stop the run (stderr), and the environment of child processes
// when there is no sandbox.
type Env struct {
	Progress, Stderr io.Writer
	Steps            func(Step)
	Environ          []string
	// GitEnv is git's environment (without credentials).
	GitEnv []string
}

// inputError is an error of the user's input found by a stage (exit
// status 2); every other error of a stage means the run could not finish
// (exit status 3).
type inputError struct{ Err error }

func (e *inputError) Error() string { return e.Err.Error() }
func (e *inputError) Unwrap() error { return e.Err }

// inputErr marks err as the user's input.
func inputErr(err error) error { return &inputError{err} }

// IsInput reports whether err is the user's input (exit status 2).
func IsInput(err error) bool {
	var ie *inputError
	return errors.As(err, &ie)
}
