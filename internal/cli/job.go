package cli

import (
	"fmt"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/report"
)

// A rev is a commit and the name reports give it ("main", "abc123^1").
type rev struct{ SHA, Label string }

// A job is one measurement as its command resolved it. The Config stays as
// the user gave it; what a command decides on top of it (the commits and
// their labels, the module's directory, where the raw files and reports go,
// whether to confirm) is here, and every step gets it as a value.
type job struct {
	base, head rev
	dir        string // the module's directory
	out        string // where the raw files are kept; "" for a temporary directory
	confirm    bool   // re-run flagged time regressions
	prHead     string // the pull request's head commit, recorded in a shard manifest
	dest       dest
	// accept says which acceptances apply besides --accept.
	accept acceptance
	// policyAt, when set, is the commit the policy file is read from
	// instead of base, and its label why ("the merge base of feature-1
	// and main (a stacked pull request: ...)").
	policyAt rev
	// rules is the per-benchmark policy, read once the worktrees exist.
	rules *rules
}

// acceptance says which Benchgate-Accept trailers and which label accept
// regressions, and who is credited: never a git author field, which
// whoever writes the commit types.
type acceptance struct {
	// trailersOf is the commit whose trailers are read (the pull
	// request's head, not a test merge commit); "" for none.
	trailersOf string
	// trailersOff, when set, says why the trailers are not applied: they
	// are read only for a note that says so.
	trailersOff string
	// trailersBy is who a trailer is credited to ("@login, the pull
	// request's author"); "" for "author unverified" (a local run).
	trailersBy string
	// label is the accept label when it accepts this run's head commit,
	// labelBy who added it ("@login") and labelAt the commit it was
	// added for.
	label, labelBy, labelAt string
	// notes say why a label on the pull request accepts nothing.
	notes []string
}

// dest says where a judgement's reports go besides standard output.
type dest struct {
	json, markdown string // files, as given ("" for none)
	calibrate      bool   // the A/A noise report instead of the verdict's
	raw            string // the raw files, kept if a report cannot be written
	rawKept        bool   // raw is the user's --out directory: kept anyway
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
