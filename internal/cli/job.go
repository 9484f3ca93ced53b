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
	// acceptFrom is the commit whose Benchgate-Accept trailers accept
	// regressions (the pull request's head, not a test merge commit);
	// acceptLabel the accept label when the pull request carries it.
	acceptFrom, acceptLabel string
	// rules is the per-benchmark policy, read once the worktrees exist.
	rules *rules
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
