package pipeline

import (
	"time"

	"github.com/benchgate/benchgate/internal/affected"
	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/sandbox"
	"github.com/benchgate/benchgate/internal/shard"
)

// A Record is what a run, a compare or a merge gives the report besides
// the verdict: the commits and settings it judged, the facts its stages
// learned and the explanations, as values (the report words them). record
// makes it, once per command.
type Record struct {
	BaseRef, HeadRef, BaseSHA, HeadSHA string
	Count                              int // interleaved rounds
	Benchtime                          string
	Seed                               int64
	RawBase, RawHead                   string // paths of the raw benchfmt files, "" if unknown
	// RawDir is the run's kept --out directory, "" if none: `benchgate
	// compare DIR` gives the run's verdict.
	RawDir  string
	Partial bool // the run was interrupted
	// BaseGo and HeadGo are the Go toolchains that built each side
	// ("go1.26.8", as go env GOVERSION reports it); "" if unknown.
	BaseGo, HeadGo string
	// Run is what the run learned while it measured.
	Run Facts
	// Explain says where the changes of some rows come from.
	Explain []explain.Why
	// Policy says which policy file was in force and what head's copy
	// would change; nil without one.
	Policy *PolicyInfo
}

// Facts are what a run learned while it measured, each the value of the
// stage (or package) that learned it; the zero Facts say nothing.
type Facts struct {
	// PGO are the profile-guided optimization profiles (default.pgo) the
	// change edits (untrusted: the change's file names): the compiler
	// optimizes the two sides differently.
	PGO []string
	// Policy are the rules that did not apply as written.
	Policy []policy.Note
	// Unclosed is what the sandbox could not close to the benchmarks'
	// code (untrusted: paths).
	Unclosed []sandbox.Open
	// Machine is the computer the benchmarks ran on (machine.Here for a
	// run; for compare and merge what the raw files record); nil when
	// unknown.
	Machine *machine.Info
	// Affected is the --packages affected selection; nil without one.
	Affected *affected.Selection
	// CountAdvice warns that --count cannot reach alpha (gate.CountAdvice).
	CountAdvice *gate.Warning
	// Budget is the screen's rounds planned from the noise a ledger
	// recorded; nil without one.
	Budget    *Budget
	Adaptive  *Adaptive
	Lane      *Lane
	Cancelled *Cancelled
	// Shard is a shard's manifest: its part of the suite (one of
	// several; nil otherwise).
	Shard *shard.Manifest
	// Skipped are what the runner found nothing to measure in, as it says
	// ("importpath: reason"; untrusted: they name the change's code).
	Skipped []string
	// SameBinary are the packages not measured because their test
	// binaries ran the same code on both sides (their rows have status
	// same-binary; untrusted: import paths of the change's code).
	SameBinary   []string
	Timing       *Timing
	Confirmation *Confirmation
	Explain      *Explained
	// Merged are the manifests of the shards a merge judged together;
	// Coverage what keeps them from covering the suite (nil when they
	// do); Machines the machines they ran on, when those differ;
	// Artifact, when they are another run's artifact, the commits it
	// claims and the event names.
	Merged   []shard.Manifest
	Coverage *shard.Coverage
	Machines []ShardMachine
	Artifact *ArtifactCommit
}

// ShardMachine is the machine a shard's raw files record.
type ShardMachine struct {
	Shard string
	Info  machine.Info
}

// ArtifactCommit is what the report of another run's artifact knows of
// its commit (a merge in a workflow_run job): Event is the event's head
// ("" when the event could not be read), the one the report names;
// Claimed the commit the shards' manifest says its run measured.
type ArtifactCommit struct{ Event, Claimed string }

// Cancelled says where a cancellation stopped the run.
type Cancelled struct {
	Rounds, Of int // rounds completed of the planned
	// Confirmation: it stopped the confirmation re-run, after the screen.
	Confirmation bool
}

// Timing is where a run's time went: the runner's figures, taken after
// the last stage (Runner: building, calibrating, the warm-up, the rounds,
// the processes and their timed work), and how much of its measuring
// time was the screen's (the rest was the confirmation's) and how long
// the explanation took.
type Timing struct {
	Runner          *runner.Result
	Screen, Explain time.Duration
}

// PolicyInfo is the policy file of a run, for the report.
type PolicyInfo struct {
	// Source says where the file in force was read (".benchgate.yml of
	// the base commit abc1234"); "" when base has none.
	Source string
	// HeadChanges are the differences of head's copy, in words
	// (untrusted: they quote head's patterns); HeadAffected the
	// benchmarks ("import/path.Name") whose settings they would change.
	// Neither applies to this run.
	HeadChanges, HeadAffected []string
	// HeadError is set when head's copy does not parse (its errors).
	HeadError string
}
