package config

//go:generate go run ./gen -root ../..

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/export"
)

// A Setting is one thing a user sets: a command-line flag, an action input,
// or both. Settings is the one table from which Parse registers the flags,
// FromInputs reads the inputs, Usage is written, and go generate writes
// docs/reference.md and action.yml's inputs. A flag and its input share one
// parser, so they refuse a value in the same words.
type Setting struct {
	Flag     string   // the flag's name without dashes ("C" is the one short flag); "" for an input only
	Arg      string   // the flag value's placeholder ("N", "D"); "" for a boolean
	Commands []string // the commands the flag affects
	Default  string   // the flag's default ("" for none)

	Input        string // the action input; "" for a flag the action does not have
	InputDefault string // the input's default in action.yml
	// Help says what the setting does, lower case, in words that fit the
	// flag and the input; the input's description adds InputNote.
	Help      string
	InputNote string

	set func(c *Config, s string) error // the flag's (and its input's) parser
	act func(a *Action, s string) error // an input's parser that sets an Action field
}

// The commands that share flags.
var (
	runOnly    = []string{"run", "gitlab"} // run, and gitlab: a run in a GitLab CI job
	measuring  = []string{"run", "calibrate", "bisect", "gitlab"}
	bisecting  = []string{"bisect"}
	judging    = []string{"run", "compare", "merge", "gitlab"}
	noise      = []string{"run", "compare", "merge", "calibrate", "bisect", "gitlab"} // judging, and calibrate's recommendation
	reporting  = []string{"run", "compare", "merge", "calibrate", "gitlab"}
	ledgered   = []string{"run", "compare", "merge", "history", "gitlab"} // --ledger: run records, all read it for trends
	gitlabOnly = []string{"gitlab"}
)

// Settings are benchgate's flags and action inputs: the action's own inputs
// first, then the flags in the order of the usage text.
var Settings = []Setting{
	{Input: "mode", InputDefault: "gate", act: mode,
		Help: "gate compares base and head and fails on regressions; calibrate is an A/A run that measures this machine's noise floor and recommends settings; merge combines the results of shard jobs (see the merge input) into one report, one verdict and one comment"},
	{Input: "working-directory", InputDefault: ".", act: func(a *Action, s string) error { a.WorkingDirectory = s; return nil },
		Help: "run in this directory of the workspace instead of its root (the directory of the Go module)"},
	{Input: "token", InputDefault: "${{ github.token }}", act: func(*Action, string) error { return nil }, // read when publishing, never kept
		Help: "token for the pull request comment (needs pull-requests: write); it is masked and never printed"},
	{Input: "comment", InputDefault: "always", act: comment,
		Help: "when to post or edit the sticky pull request comment: always, on-change (only when a comment exists or the gate fails), or never"},
	{Input: "comment-key", InputDefault: "benchgate", act: commentKey,
		Help: "key of the sticky comment (hidden marker <!-- benchgate:KEY -->); give each job or matrix leg its own key to keep separate comments"},
	{Input: "comment-author", act: commentAuthor,
		Help: "login that owns the sticky comment when the token input is not GITHUB_TOKEN: the user of a personal access token, or an app's NAME[bot]; empty means github-actions[bot]; comments by anyone else are never edited"},
	{Input: "merge", set: func(c *Config, s string) error { c.MergeDirs = strings.Fields(s); return nil },
		Help: "with mode merge, the shards' result directories, space-separated (shell globs allowed, e.g. shards/*), relative to the workspace"},
	{Input: "pr-number", act: prNumber,
		Help: "comment on this pull request instead of the event's: for a workflow_run job that posts the report of a pull request's run (mode merge over the run's shard directory); see docs/action.md#pull-requests-from-forks; on workflow_run the comment is written only if the pull request's head commit and repository are the event's workflow_run.head_sha and head_repository"},
	{Input: "accept-label", act: func(a *Action, s string) error { a.AcceptLabel = s; return nil },
		Help: `a pull request label that accepts the regressions of the commit it was added for: a run of the pull_request "labeled" event for this label reports them as accepted by whoever added it (the event's sender) and they do not fail the gate; a push after the label gates again ("accepted by a label older than this commit") until someone adds the label again, so add "labeled" to on.pull_request.types; empty: no label accepts`},
	{Input: "history", InputDefault: "false", act: func(a *Action, s string) error { return boolInput(s, &a.History) },
		Help: "keep the history of the default branch in a ledger on the data branch (history-branch): a push to the default branch appends its paired changes and rewrites the history page (index.html) there with the token, which then needs contents: write; other runs only read the ledger, for the trends in the report; see docs/action.md#history"},
	{Input: "history-branch", InputDefault: "benchgate-data", act: historyBranch,
		Help: "the branch that holds the ledger (ledger.jsonl) and the history page (index.html); created, sharing no history with the code, by the first push recorded"},
	{Input: "allow-privileged-events", InputDefault: "false", act: allowPrivileged,
		Help: "run benchmarks on events that give the code benchgate runs a read/write token and the repository's secrets although people without write access can start them: pull_request_target, workflow_run, issue_comment and every event other than push, pull_request (and its reviews), merge_group, workflow_dispatch, repository_dispatch, schedule, release, create, delete and deployment; refused unless true: set it only if every revision benchmarked there is trusted; mode merge (which runs no code) needs no opt-in"},
	{Input: "allow-pull-request-target", InputDefault: "false", act: allowPrivileged,
		Help: "the old name of allow-privileged-events; either allows"},

	{Flag: "base", Arg: "REV", Commands: runOnly, Input: "base",
		Help:      "base revision (branch, tag or commit); run requires it",
		InputNote: "Empty: from the event: the first parent of the test merge commit for pull_request, before for push, base_sha for merge_group; required for other events.",
		set:       func(c *Config, s string) error { c.Base = s; return nil }},
	{Flag: "head", Arg: "REV", Commands: runOnly, Default: "HEAD", Input: "head",
		Help:      "head revision (branch, tag or commit)",
		InputNote: "Empty: from the event: the test merge commit (GITHUB_SHA) for pull_request, after for push, head_sha for merge_group, else GITHUB_SHA.",
		set:       func(c *Config, s string) error { c.Head = s; return nil }},
	{Flag: "bench", Arg: "REGEX", Commands: measuring, Default: ".", Input: "bench", InputDefault: ".",
		Help: "benchmarks to run, a regular expression like go test -bench",
		set:  bench},
	{Flag: "count", Arg: "N", Commands: measuring, Default: "10", Input: "count", InputDefault: "10",
		Help: "interleaved rounds, each running every benchmark on both sides",
		set:  func(c *Config, s string) error { return positiveInt(s, &c.Count) }},
	{Flag: "benchtime", Arg: "D", Commands: measuring, Default: "100ms", Input: "benchtime", InputDefault: "100ms",
		Help: "target time of a side's work per round, used to calibrate the iteration count, or Nx for a fixed count",
		set:  func(c *Config, s string) error { return benchtime(s, &c.Benchtime) }},
	{Flag: "runs", Arg: "K", Commands: measuring, Default: "5", Input: "runs", InputDefault: "5",
		Help: "separate short runs per side per round sharing that work, base and head alternating; fewer when a run would time less than 10ms or its process would cost more than half the work it times; 1 is one run per side per round",
		set:  func(c *Config, s string) error { return positiveInt(s, &c.Runs) }},
	{Flag: "estimator", Arg: "E", Commands: noise, Default: "median", Input: "estimator", InputDefault: "median",
		Help: "one value from each round's runs for the paired test: median, min, p25 or mean",
		set:  func(c *Config, s string) error { return estimator(s, &c.Estimator) }},
	{Flag: "measure", Arg: "LIST", Commands: []string{"run", "bisect"}, Default: "time", Input: "measure", InputDefault: "time",
		Help:      "what to measure: time (time/op and allocations, interleaved rounds), instructions (instructions/op under Valgrind: deterministic, no timed rounds), or time,instructions",
		InputNote: "The action's image installs Valgrind.",
		set:       func(c *Config, s string) error { return measure(s, &c.Measure) }},
	{Flag: "cpu", Arg: "LIST", Commands: measuring, Input: "cpu",
		Help:      "GOMAXPROCS values passed to the test binary, e.g. 1,2,4",
		InputNote: "Empty: the runner's GOMAXPROCS.",
		set:       func(c *Config, s string) error { return cpuList(s, &c.CPU) }},
	{Flag: "timeout", Arg: "D", Commands: measuring, Default: "10m", Input: "timeout", InputDefault: "10m",
		Help: "limit for one benchmark run",
		set:  func(c *Config, s string) error { return positiveDuration(s, &c.Timeout) }},
	{Flag: "seed", Arg: "N", Commands: measuring, Input: "seed",
		Help: "seed of the randomized run order (default: random, printed in the report)",
		set:  seed},
	{Flag: "threshold", Arg: "PCT", Commands: append(noise, "history"), Default: "5%", Input: "threshold",
		Help:      "smallest time/op change that counts, e.g. 5% (history: the smallest summed regression that is a creep)",
		InputNote: "Empty: the policy file's threshold, else 5%.",
		set:       func(c *Config, s string) error { return threshold(s, &c.Threshold) }},
	{Flag: "instructions-threshold", Arg: "PCT", Commands: judging, Default: "1%", Input: "instructions-threshold",
		Help:      "smallest instructions/op change that counts, e.g. 1%",
		InputNote: "Empty: the policy file's instructions threshold, else 1%.",
		set:       func(c *Config, s string) error { return threshold(s, &c.InstructionsThreshold) }},
	{Flag: "alpha", Arg: "P", Commands: append(noise, "history"), Default: "0.01", Input: "alpha",
		Help:      "significance level of the time/op test, in (0, 1) (history: the suite-wide rate of false creeps)",
		InputNote: "Empty: the policy file's alpha, else 0.01.",
		set:       func(c *Config, s string) error { return alpha(s, &c.Alpha) }},
	{Flag: "fail-on", Arg: "LIST", Commands: judging, Default: "time,allocs,bytes,metrics,failure", Input: "fail-on",
		Help:      "findings that fail the gate: time,allocs,bytes,metrics,instructions,failure,removed,inconclusive,scaling, or none; the default adds instructions when that lane is measured",
		InputNote: "Empty: the policy file's fail-on, else the default time,allocs,bytes,metrics,failure.",
		set:       func(c *Config, s string) error { return failOn(s, &c.FailOn) }},
	{Flag: "policy", Arg: "FILE", Commands: judging, Default: ".benchgate.yml", Input: "policy",
		Help:      `the per-benchmark policy file (thresholds, allowances, ignored and required benchmarks; docs/policy.md), relative to the module's directory; run reads it from the base commit, so that a pull request cannot loosen its own gate; "none" for none`,
		InputNote: "Empty: .benchgate.yml when the base commit has one; a file named here that the base commit lacks is an error.",
		set:       func(c *Config, s string) error { c.Policy = s; return nil }},
	{Flag: "accept", Arg: "REGEX", Commands: judging,
		Help: "accept regressions of the benchmarks matching REGEX on purpose, like a Benchgate-Accept trailer in head's commit message: reported, not gated (repeatable)",
		set:  accept},
	{Flag: "accept-trailers", Commands: runOnly, Default: "false", Input: "accept-trailers", InputDefault: "false",
		Help:      "let Benchgate-Accept trailers in head's commit message accept regressions (off by default: the commit's author writes them and its author field is unverified; in the action only on pull_request events, credited to the pull request's author)",
		InputNote: "Never on merge_group; when off, only the accept-label accepts, which needs triage rights.",
		set:       boolSetter(func(c *Config, b bool) { c.AcceptTrailers = b })},
	{Flag: "correction", Arg: "C", Commands: noise, Default: "holm", Input: "correction", InputDefault: "holm",
		Help: "suite-wide error control over all time/op tests: holm, bh or none",
		set:  func(c *Config, s string) error { return correction(s, &c.Correction) }},
	{Flag: "test", Arg: "T", Commands: judging, Default: "auto", Input: "test", InputDefault: "auto",
		Help: "the time/op test: auto (the paired test when the rounds can reach alpha, else benchstat's U test on per-round values), paired or utest",
		set:  func(c *Config, s string) error { return timeTest(s, &c.Test) }},
	{Flag: "confirm", Commands: runOnly, Default: "true", Input: "confirm", InputDefault: "true",
		Help: "re-run the benchmarks flagged as time regressions to confirm them before failing; false fails without re-running",
		set:  boolSetter(func(c *Config, b bool) { c.Confirm = b })},
	{Flag: "explain", Commands: runOnly, Default: "true", Input: "explain", InputDefault: "true",
		Help: "profile the changed benchmarks after the verdict and show under each regression where the change comes from: allocation sites, the functions that got slower; false skips it",
		set:  boolSetter(func(c *Config, b bool) { c.Explain = b })},
	{Flag: "max-time", Arg: "D", Commands: runOnly, Input: "max-time",
		Help: "adaptive: stop adding rounds once every benchmark is decided, or after this duration (without it, exactly count rounds)",
		set:  func(c *Config, s string) error { return positiveDuration(s, &c.MaxTime) }},
	{Flag: "pin", Commands: measuring, Default: "false", Input: "pin", InputDefault: "false",
		Help: "pin each benchmark process to fixed CPUs (Linux)",
		set:  boolSetter(func(c *Config, b bool) { c.Pin = b })},
	{Flag: "env", Arg: "NAME", Commands: measuring, Input: "env",
		Help:      "pass the variable NAME (or set NAME=VALUE) to go and the benchmarks, which otherwise see only PATH, HOME, TMPDIR, the locale and the Go build settings; names separated by commas, spaces or lines, a NAME=VALUE on its own (repeatable)",
		InputNote: "Never name a secret the pull request's code must not see.",
		set:       envSetter},
	{Flag: "rev", Arg: "REV", Commands: []string{"calibrate"}, Default: "HEAD",
		Help: "calibrate: the revision measured against itself",
		set:  func(c *Config, s string) error { c.Rev = s; return nil }},
	{Flag: "good", Arg: "REV", Commands: bisecting,
		Help: "bisect: the revision before the change (the path is bad's first parents back to it); required",
		set:  func(c *Config, s string) error { c.Good = s; return nil }},
	{Flag: "bad", Arg: "REV", Commands: bisecting, Default: "HEAD",
		Help: "bisect: the revision after the change",
		set:  func(c *Config, s string) error { c.Bad = s; return nil }},
	{Flag: "resolution", Arg: "PCT", Commands: bisecting, Default: "2%",
		Help: "bisect: the smallest change per commit worth finding; a step whose interval neither excludes 0 nor lies within ±PCT is measured again with twice the rounds",
		set:  func(c *Config, s string) error { return threshold(s, &c.Resolution) }},
	{Flag: "max-count", Arg: "N", Commands: bisecting, Default: "40",
		Help: "bisect: the most rounds one step may take while it cannot decide (doubling from --count)",
		set:  func(c *Config, s string) error { return positiveInt(s, &c.MaxCount) }},
	{Flag: "packages", Arg: "LIST", Commands: measuring, Default: "./...", Input: "packages", InputDefault: "./...",
		Help:      `package patterns (separated by spaces or commas), or "affected": only packages whose code or dependencies changed between base and head, among the positional packages`,
		InputNote: "Relative to working-directory.",
		set:       packagesSetter},
	{Flag: "shard", Arg: "I/N", Commands: []string{"run"}, Input: "shard",
		Help:      "measure only the I-th of N balanced parts of the suite, as I/N (a workflow matrix); run needs --out DIR to keep the part's results for benchgate merge",
		InputNote: "The shard's results go to the directory of the shard-dir output, to be uploaded as an artifact and merged by a job with mode merge.",
		set:       func(c *Config, s string) error { return shardSpec(s, &c.Shard) }},
	{Flag: "format", Arg: "F", Commands: append(reporting, "history"), Default: "text",
		Help: "the report on stdout: text (aligned columns for a terminal), markdown or json (history also html: one self-contained page)",
		set:  func(c *Config, s string) error { return format(s, &c.Format) }},
	{Flag: "json", Arg: "FILE", Commands: append(slices.Clone(reporting), "history", "bisect"),
		Help: "write the JSON report to FILE",
		set:  func(c *Config, s string) error { c.JSON = s; return nil }},
	{Flag: "export", Arg: "FORMAT=FILE", Commands: append(judging, "history"), Input: "export",
		Help:      "write head's figures for a history service: bencher (Bencher Metric Format), gab (github-action-benchmark's customSmallerIsBetter) or gab-bigger (its customBiggerIsBetter: rates such as B/s); one FORMAT=FILE a flag or a line (history: each benchmark's last recorded head median)",
		InputNote: "FILE is relative to the workspace.",
		set:       exportSetter},
	{Flag: "ledger", Arg: "FILE", Commands: ledgered,
		Help: "the ledger of paired changes (JSON Lines, docs/ledger.md): history reads it; run, compare and merge read it to show each changed row's trend and a running creep in the report, and with --record run appends this run's changes to it",
		set:  func(c *Config, s string) error { c.Ledger = s; return nil }},
	{Flag: "record", Commands: []string{"run"}, Default: "false",
		Help: "append one line per benchmark and unit of this run to --ledger FILE, after the verdict, also when the gate fails (for runs of merges to the default branch: base the merge's first parent, head the merge)",
		set:  boolSetter(func(c *Config, b bool) { c.Record = b })},
	{Flag: "since", Arg: "REV|DATE", Commands: []string{"history"},
		Help: "history: only the merges after the commit REV (a SHA the ledger names, or a revision of the repository in -C DIR) or from DATE on (2006-01-02 or RFC 3339)",
		set:  func(c *Config, s string) error { c.Since = s; return nil }},
	{Flag: "markdown", Arg: "FILE", Commands: reporting,
		Help: "write the Markdown report to FILE",
		set:  func(c *Config, s string) error { c.Markdown = s; return nil }},
	{Flag: "junit", Arg: "FILE", Commands: gitlabOnly, Default: GitLabJUnit,
		Help: `gitlab: write the JUnit XML report the merge request's test summary shows (a failed test case per row that fails the gate, a passed one per other row) to FILE; "" for none`,
		set:  func(c *Config, s string) error { c.GitLab.JUnit = s; return nil }},
	{Flag: "codequality", Arg: "FILE", Commands: gitlabOnly, Default: GitLabCodeQuality,
		Help: `gitlab: write the Code Quality report the merge request shows (each regression at its benchmark function's file and line) to FILE; "" for none`,
		set:  func(c *Config, s string) error { c.GitLab.CodeQuality = s; return nil }},
	{Flag: "note", Arg: "WHEN", Commands: gitlabOnly, Default: "always",
		Help: "gitlab: when to create or edit the sticky merge request note (with the token in " + GitLabTokenVar + "): always, on-change (only when a note exists or something changed), or never",
		set:  func(c *Config, s string) error { return oneOf(s, &c.GitLab.Note, "always", "on-change", "never") }},
	{Flag: "note-key", Arg: "KEY", Commands: gitlabOnly, Default: "benchgate",
		Help: "gitlab: key of the sticky note (hidden marker <!-- benchgate:KEY -->); give each job of a matrix its own",
		set:  noteKey},
	{Flag: "out", Arg: "DIR", Commands: measuring,
		Help: "keep base.txt, head.txt and the build logs in DIR",
		set:  func(c *Config, s string) error { c.Out = s; return nil }},
	{Flag: "C", Arg: "DIR", Commands: measuring, Default: ".",
		Help: "run in DIR instead of the current directory",
		set:  func(c *Config, s string) error { c.Dir = s; return nil }},
	{Flag: "allow-same", Commands: runOnly, Default: "false",
		Help: "allow base and head to be the same commit (an A/A run)",
		set:  boolSetter(func(c *Config, b bool) { c.AllowSame = b })},
	{Flag: "quiet", Commands: measuring, Default: "false",
		Help: "no progress on stderr",
		set:  boolSetter(func(c *Config, b bool) { c.Quiet = b })},
	{Flag: "verbose", Commands: reporting, Default: "false",
		Help: "text report on a terminal: every layer (each row's statistics, why and command; every section), as in a pipe",
		set:  boolSetter(func(c *Config, b bool) { c.Verbose = b })},
}

// Flags are the settings that are flags, in the order of the usage text.
var Flags = func() []Setting {
	var fs []Setting
	for _, s := range Settings {
		if s.Flag != "" {
			fs = append(fs, s)
		}
	}
	return fs
}()

// Input is one action input: its name in action.yml and its default there.
type Input struct {
	Name, Default string
}

// Inputs are the action's inputs with action.yml's defaults, in its order.
// The runner sets every one (a missing variable takes its default).
var Inputs = func() []Input {
	var ins []Input
	for _, s := range Settings {
		if s.Input != "" {
			ins = append(ins, Input{s.Input, s.InputDefault})
		}
	}
	return ins
}()

// Spelling returns how the flag is typed: "--count N", "-C DIR", "--pin".
func (s Setting) Spelling() string {
	sp := "--" + s.Flag
	if len(s.Flag) == 1 {
		sp = "-" + s.Flag
	}
	if s.Arg != "" {
		sp += " " + s.Arg
	}
	return sp
}

// InputHelp is the input's description: Help as a sentence, then InputNote.
func (s Setting) InputHelp() string {
	h := strings.ToUpper(s.Help[:1]) + s.Help[1:] + "."
	if s.InputNote != "" {
		h += " " + s.InputNote
	}
	return h
}

// The parsers. Each returns the reason only: the caller names the flag or
// input and the value.

// boolSetter parses a boolean flag's value.
func boolSetter(set func(*Config, bool)) func(*Config, string) error {
	return func(c *Config, s string) error {
		b, err := parseBool(s)
		if err != nil {
			return err
		}
		set(c, b)
		return nil
	}
}

func parseBool(s string) (bool, error) {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, errors.New("want true or false")
	}
	return b, nil
}

// eachLine calls set for every non-blank line of s.
func eachLine(s string, set func(string) error) error {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			if err := set(line); err != nil {
				return err
			}
		}
	}
	return nil
}

// envSetter adds --env's names, or an input's lines of them.
func envSetter(c *Config, s string) error {
	return eachLine(s, func(l string) error { return envList(l, &c.Env) })
}

// exportSetter adds --export's target, or an input's lines of them.
func exportSetter(c *Config, s string) error {
	return eachLine(s, func(l string) error { return exportTarget(l, &c.Exports) })
}

func bench(c *Config, s string) error {
	if err := checkRegexp(s); err != nil {
		return fmt.Errorf("invalid regular expression: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	c.Bench = s
	return nil
}

func seed(c *Config, s string) error {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return errors.New("not a whole number")
	}
	c.Seed = v
	return nil
}

func accept(c *Config, s string) error {
	if err := checkRegexp(s); err != nil || s == "" {
		return errors.New("want a regular expression over import/path.Name")
	}
	c.Accepts = append(c.Accepts, s)
	return nil
}

// packagesSetter reads --packages; Parse weighs the patterns against the
// positional packages.
func packagesSetter(c *Config, s string) error {
	list, affected, err := packages(s)
	if err != nil {
		return err
	}
	c.Affected = affected
	if !affected {
		c.Packages = list
	}
	return nil
}

// exportTarget adds a --export FORMAT=FILE target.
func exportTarget(s string, list *[]export.Target) error {
	t, err := export.ParseTarget(s)
	if err != nil {
		// ParseTarget's message names --export and the value already.
		_, msg, _ := strings.Cut(err.Error(), ": ")
		return errors.New(msg)
	}
	*list = append(*list, t)
	return nil
}

// loginPattern matches a GitHub login (letters, digits and single hyphens,
// at most 39 characters) or an app's bot account, "NAME[bot]".
var loginPattern = regexp.MustCompile(`^[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}(?:\[bot\])?$`)

func mode(a *Action, s string) error {
	return oneOf(s, &a.Mode, "gate", "calibrate", "merge")
}

func comment(a *Action, s string) error {
	return oneOf(s, &a.Comment, "always", "on-change", "never")
}

func commentKey(a *Action, s string) error {
	for _, r := range s {
		if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return errors.New("want letters, digits, '-', '_' or '.'")
		}
	}
	a.CommentKey = s
	return nil
}

func commentAuthor(a *Action, s string) error {
	if !loginPattern.MatchString(s) {
		return errors.New(`want a GitHub login, or an app's "NAME[bot]"`)
	}
	a.CommentAuthor = s
	return nil
}

func boolInput(s string, dst *bool) error {
	b, err := parseBool(s)
	*dst = b
	return err
}

// historyBranch checks a branch name the way git does, roughly: no
// spaces, control characters, "..", or characters git refuses.
func historyBranch(a *Action, s string) error {
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.HasSuffix(s, ".lock") ||
		strings.Contains(s, "..") || strings.Contains(s, "//") || strings.ContainsAny(s, " ~^:?*[\\@{") ||
		strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return errors.New("not a valid branch name")
	}
	a.HistoryBranch = s
	return nil
}

func prNumber(a *Action, s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return errors.New("want a pull request number")
	}
	a.PRNumber = n
	return nil
}

// allowPrivileged reads allow-privileged-events or its old name: either
// allows.
func allowPrivileged(a *Action, s string) error {
	b, err := parseBool(s)
	if err != nil {
		return err
	}
	a.AllowPrivilegedEvents = a.AllowPrivilegedEvents || b
	return nil
}
