package github

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"
)

// MaxStepSummary is the most job summary GitHub takes from one step, in
// bytes. A step that writes more loses its whole summary.
const MaxStepSummary = 1 << 20

// maxAnnotationsPerLevel is how many annotations of each level the runner
// shows for a step; later ones only appear in the log.
const maxAnnotationsPerLevel = 10

// ErrNotInActions matches (errors.Is) the errors returned when a file command
// cannot be written because its variable (GITHUB_STEP_SUMMARY, GITHUB_OUTPUT)
// is not set, as when benchgate runs outside GitHub Actions.
var ErrNotInActions = errors.New("not running in GitHub Actions")

// outputDelimiter is the heredoc delimiter go-githubactions uses for
// GITHUB_OUTPUT; a value containing it would end the value early.
const outputDelimiter = "_GitHubActionsFileCommandDelimeter_"

var outputName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// Actions writes workflow commands for the current step: annotations and
// masks to its standard output, the job summary and outputs to the files the
// runner names in GITHUB_STEP_SUMMARY and GITHUB_OUTPUT.
type Actions struct {
	a      *githubactions.Action
	getenv func(string) string
}

// NewActions returns an Actions writing commands to w and reading the
// file-command variables with getenv.
func NewActions(w io.Writer, getenv func(string) string) *Actions {
	return &Actions{
		a:      githubactions.New(githubactions.WithWriter(w), githubactions.WithGetenv(getenv)),
		getenv: getenv,
	}
}

// SummaryRoom is how many bytes the job summary still takes: what
// MaxStepSummary leaves after the summary already written (the caller
// fits its markdown in it).
func (a *Actions) SummaryRoom() (int, error) {
	path, err := a.file("job summary", "GITHUB_STEP_SUMMARY")
	if err != nil {
		return 0, err
	}
	var used int64
	switch fi, err := os.Stat(path); {
	case err == nil:
		used = fi.Size()
	case !errors.Is(err, fs.ErrNotExist):
		return 0, fmt.Errorf("job summary: %w", err)
	}
	return max(MaxStepSummary-int(used)-len("\n"), 0), nil // go-githubactions ends it with a newline
}

// StepSummary appends markdown to the job summary. Markdown over the
// SummaryRoom is an error: GitHub would drop the step's whole summary.
func (a *Actions) StepSummary(markdown string) error {
	room, err := a.SummaryRoom()
	if err != nil {
		return err
	}
	if len(markdown) > room {
		return fmt.Errorf("job summary: %d bytes, room for %d under GitHub's %d", len(markdown), room, MaxStepSummary)
	}
	return guard("job summary", func() { a.a.AddStepSummary(markdown) })
}

// SetOutputs sets the step's outputs, in the order of their names. Nothing is
// written if a name or value is invalid.
func (a *Actions) SetOutputs(outputs map[string]string) error {
	path, err := a.file("step outputs", "GITHUB_OUTPUT")
	if err != nil {
		return err
	}
	names := slices.Sorted(maps.Keys(outputs))
	for _, k := range names {
		if !outputName.MatchString(k) {
			return fmt.Errorf("step output %q: a name is letters, digits, '_' and '-', not starting with a digit or '-'", k)
		}
		if strings.Contains(outputs[k], outputDelimiter) {
			return fmt.Errorf("step output %s: the value contains %s, which would end it early", k, outputDelimiter)
		}
	}
	for _, k := range names {
		if err := guard("step output "+k, func() { a.a.SetOutput(k, outputs[k]) }); err != nil {
			return fmt.Errorf("%w (file %s)", err, path)
		}
	}
	return nil
}

// Level is the level of an annotation.
type Level string

// Annotation levels.
const (
	Error   Level = "error"
	Warning Level = "warning"
	Notice  Level = "notice"
)

// Annotation is a message attached to a file and line of the repository on
// the run's summary page and on the pull request's diff.
type Annotation struct {
	Level Level
	// File is relative to the repository root (or an absolute path under
	// /github/workspace); empty for none. Paths elsewhere (worktrees in /tmp)
	// cannot be shown on a file.
	File    string
	Line    int // 1-based; 0 for none
	Title   string
	Message string
	// Severity orders annotations for worst: larger is worse (for example the
	// size of a regression).
	Severity float64
}

// Annotate emits one annotation.
func (a *Actions) Annotate(level Level, file string, line int, title, msg string) error {
	act := a.a
	fields := map[string]string{}
	if file != "" {
		fields["file"] = file
		if line > 0 {
			fields["line"] = strconv.Itoa(line)
		}
	}
	if title != "" {
		fields["title"] = title
	}
	if len(fields) > 0 {
		act = act.WithFieldsMap(fields)
	}
	var emit func(string, ...any)
	switch level {
	case Error:
		emit = act.Errorf
	case Warning:
		emit = act.Warningf
	case Notice:
		emit = act.Noticef
	default:
		return fmt.Errorf("annotation level %q: want error, warning or notice", level)
	}
	return guard("annotation", func() { emit("%s", msg) })
}

// AnnotateWorst emits the annotations worst keeps and returns how many it
// dropped.
func (a *Actions) AnnotateWorst(list []Annotation) (dropped int, err error) {
	kept, dropped := worst(list, maxAnnotationsPerLevel)
	for _, an := range kept {
		if err := a.Annotate(an.Level, an.File, an.Line, an.Title, an.Message); err != nil {
			return dropped, err
		}
	}
	return dropped, nil
}

// worst returns at most n annotations of each level (n is capped at
// maxAnnotationsPerLevel), the most severe ones: errors, then warnings, then
// notices, each from the most severe down, ties in their original order. It
// also returns how many it left out.
func worst(list []Annotation, n int) (kept []Annotation, dropped int) {
	n = min(max(n, 0), maxAnnotationsPerLevel)
	rank := map[Level]int{Error: 0, Warning: 1, Notice: 2}
	sorted := slices.Clone(list)
	slices.SortStableFunc(sorted, func(x, y Annotation) int {
		if c := cmp.Compare(rank[x.Level], rank[y.Level]); c != 0 {
			return c
		}
		return cmp.Compare(y.Severity, x.Severity)
	})
	count := map[Level]int{}
	for _, an := range sorted {
		if count[an.Level] >= n {
			dropped++
			continue
		}
		count[an.Level]++
		kept = append(kept, an)
	}
	return kept, dropped
}

// Mask asks the runner to hide secret in the rest of the log. An empty
// secret is ignored; each line of a multi-line secret is masked on its own.
func (a *Actions) Mask(secret string) error {
	for line := range strings.Lines(secret) {
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := guard("mask", func() { a.a.AddMask(line) }); err != nil {
			return err
		}
	}
	return nil
}

// file returns the path in the variable name, or an error if it is unset.
func (a *Actions) file(what, name string) (string, error) {
	path := a.getenv(name)
	if path == "" {
		return "", fmt.Errorf("%s: %s is not set: %w", what, name, ErrNotInActions)
	}
	return path, nil
}

// guard turns go-githubactions' panics (on a file or writer it cannot write)
// into errors.
func guard(what string, f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = fmt.Errorf("%s: %w", what, e)
			} else {
				err = fmt.Errorf("%s: %v", what, r)
			}
		}
	}()
	f()
	return nil
}
