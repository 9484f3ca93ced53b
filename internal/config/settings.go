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
// or both. Settings is the one table from which Parse registers each
// command's flags, FromInputs reads the inputs and the args input, each
// command's help is written, and go generate writes docs/reference.md and
// action.yml's inputs. A flag and its input share one parser, so they
// refuse a value in the same words.
type Setting struct {
	Flag string // the flag's name without dashes ("C" is the one short flag); "" for an input only
	Arg  string // the flag value's placeholder ("N", "D"); "" for a boolean
	// Commands are the commands the flag applies to; "action" means the
	// action's args input (and its named input, if any).
	Commands []string
	Group    Group  // where the command's help lists it
	Default  string // the flag's default ("" for none)

	// Input is the action's named input ("" for a flag the action reads
	// only from args, or not at all); InputDefault its default in
	// action.yml. At most 15 settings have one (a test counts).
	Input        string
	InputDefault string
	// Trust says the setting decides whom benchgate trusts or where its
	// token writes: it is a named input only, never read from args, which
	// a workflow may build from values a pull request controls.
	Trust bool
	// Help says what the setting does, lower case, in words that fit the
	// flag and the input; HelpFor replaces it in one command's help; the
	// input's description adds InputNote.
	Help      string
	HelpFor   map[string]string
	InputNote string

	set func(c *Config, s string) error // the flag's (and its input's) parser
	act func(a *Action, s string) error // the parser of a setting that only the action has
}

// A Group is a part of a command's help.
type Group int

// The groups, in the order of the help.
const (
	GroupMeasure Group = iota // what to measure
	GroupDecide               // how to decide
	GroupOutput               // what to write
	GroupCI                   // CI jobs: shards, ledgers, the action's comment
)

var groupTitles = [...]string{"what to measure", "how to decide", "output", "CI"}

// The commands that share flags.
var (
	runOnly    = []string{"run", "action", "gitlab"} // run, the action, and gitlab: a run in a GitLab CI job
	measuring  = []string{"run", "calibrate", "bisect", "action", "gitlab"}
	local      = []string{"run", "calibrate", "bisect", "gitlab"} // the commands that run where the user or the job is
	bisecting  = []string{"bisect"}
	judging    = []string{"run", "compare", "merge", "action", "gitlab"}
	noise      = []string{"run", "compare", "merge", "calibrate", "bisect", "action", "gitlab"} // judging, and calibrate's recommendation
	reporting  = []string{"run", "compare", "merge", "calibrate", "gitlab"}
	ledgered   = []string{"run", "compare", "merge", "history", "gitlab"} // --ledger: run records, all read it for trends
	actionOnly = []string{"action"}
	gitlabOnly = []string{"gitlab"}
)

// Settings are benchgate's flags and action inputs: the action's own
// settings first, then the flags in the order of the help.
var Settings = []Setting{
	{Input: "token", InputDefault: "${{ github.token }}", Trust: true, Group: GroupCI, act: func(*Action, string) error { return nil }, // read when publishing, never kept
		Help: "token for the pull request comment (needs pull-requests: write); it is masked and never printed"},
	{Input: "working-directory", InputDefault: ".", Group: GroupMeasure, act: func(a *Action, s string) error { a.WorkingDirectory = s; return nil },
		Help: "run in this directory of the workspace instead of its root (the directory of the Go module)"},
	{Input: "comment", InputDefault: "always", Group: GroupCI, act: comment,
		Help: "when to post or edit the sticky pull request comment: always, on-change (only when a comment exists or the gate fails), or never"},
	{Flag: "comment-key", Arg: "KEY", Commands: actionOnly, Default: "benchgate", Group: GroupCI, act: commentKey,
		Help: "key of the sticky comment (hidden marker <!-- benchgate:KEY -->); give each job or matrix leg its own key to keep separate comments"},
	{Input: "comment-author", Trust: true, Group: GroupCI, act: commentAuthor,
		Help: "login that owns the sticky comment when the token input is not GITHUB_TOKEN: the user of a personal access token, or an app's NAME[bot]; empty means github-actions[bot]; comments by anyone else are never edited"},
	{Input: "accept-label", Trust: true, Group: GroupDecide, act: func(a *Action, s string) error { a.AcceptLabel = s; return nil },
		Help: `a pull request label that accepts the regressions of the commit it was added for: a run of the pull_request "labeled" event for this label reports them as accepted by whoever added it (the event's sender) and they do not fail the gate; a push after the label gates again ("accepted by a label older than this commit") until someone adds the label again, so add "labeled" to on.pull_request.types; empty: no label accepts`},
	{Input: "history", Trust: true, Group: GroupCI, act: history,
		Help: "the data branch that keeps the default branch's history, e.g. benchgate-data (empty: none): a push to the default branch appends its paired changes to ledger.jsonl there and rewrites the history page, index.html, with the token, which then needs contents: write; other runs only read it, for the trends in the report; the first push recorded creates the branch, sharing no history with the code; see docs/action.md#history"},
	{Input: "mode", InputDefault: "gate", Group: GroupCI, act: mode,
		Help: "gate compares base and head and fails on regressions; calibrate is an A/A run that measures this machine's noise floor and recommends settings; merge combines the results of shard jobs (see the merge input) into one report, one verdict and one comment"},
	{Input: "merge", Group: GroupCI, set: func(c *Config, s string) error { c.MergeDirs = strings.Fields(s); return nil },
		Help: "with mode merge, the shards' result directories, space-separated (shell globs allowed, e.g. shards/*), relative to the workspace"},
	{Input: "pr-number", Trust: true, Group: GroupCI, act: prNumber,
		Help: "comment on this pull request instead of the event's: for a workflow_run job that posts the report of a pull request's run (mode merge over the run's shard directory); see docs/action.md#pull-requests-from-forks; on workflow_run the comment is written only if the pull request's head commit and repository are the event's workflow_run.head_sha and head_repository"},
	{Input: "allow-privileged-events", InputDefault: "false", Trust: true, Group: GroupCI, act: allowPrivileged,
		Help: "run benchmarks on events that give the code benchgate runs a read/write token and the repository's secrets although people without write access can start them: pull_request_target, workflow_run, issue_comment and every event other than push, pull_request (and its reviews), merge_group, workflow_dispatch, repository_dispatch, schedule, release, create, delete and deployment; refused unless true: set it only if every revision benchmarked there is trusted; mode merge (which runs no code) needs no opt-in"},

	{Flag: "base", Arg: "REV", Commands: runOnly, Group: GroupMeasure,
		Help: "base revision (branch, tag or commit); run requires it",
		HelpFor: map[string]string{
			"action": "base revision (branch, tag or commit); by default from the event: the first parent of the test merge commit for pull_request, before for push, base_sha for merge_group; required for other events",
			"gitlab": "base revision (branch, tag or commit); by default from the pipeline: the merge request's diff base, a push's before; required for other pipelines (docs/gitlab.md)",
		},
		set: func(c *Config, s string) error { c.Base = s; return nil }},
	{Flag: "head", Arg: "REV", Commands: runOnly, Default: "HEAD", Group: GroupMeasure,
		Help: "head revision (branch, tag or commit)",
		HelpFor: map[string]string{
			"action": "head revision (branch, tag or commit); by default from the event: the test merge commit (GITHUB_SHA) for pull_request, after for push, head_sha for merge_group, else GITHUB_SHA",
			"gitlab": "head revision (branch, tag or commit); by default from the pipeline (CI_COMMIT_SHA; docs/gitlab.md)",
		},
		set: func(c *Config, s string) error { c.Head = s; return nil }},
	{Flag: "packages", Arg: "LIST", Commands: measuring, Default: "./...", Input: "packages", InputDefault: "./...", Group: GroupMeasure,
		Help:    `package patterns (separated by spaces or commas), or "affected": only packages whose code or dependencies changed between base and head, among the positional packages`,
		HelpFor: map[string]string{"action": `package patterns (separated by spaces or commas), relative to working-directory, or "affected": only packages whose code or dependencies changed between base and head`},
		set:     packagesSetter},
	{Flag: "bench", Arg: "REGEX", Commands: measuring, Default: ".", Input: "bench", InputDefault: ".", Group: GroupMeasure,
		Help: "benchmarks to run, a regular expression like go test -bench",
		set:  bench},
	{Flag: "count", Arg: "N", Commands: measuring, Default: "10", Group: GroupMeasure,
		Help: "interleaved rounds, each running every benchmark on both sides",
		set:  func(c *Config, s string) error { return positiveInt(s, &c.Count) }},
	{Flag: "benchtime", Arg: "D", Commands: measuring, Default: "100ms", Group: GroupMeasure,
		Help: "target time of a side's work per round, used to calibrate the iteration count, or Nx for a fixed count",
		set:  func(c *Config, s string) error { return benchtime(s, &c.Benchtime) }},
	{Flag: "runs", Arg: "K", Commands: measuring, Default: "5", Group: GroupMeasure,
		Help: "separate short runs per side per round sharing that work, base and head alternating; fewer when a run would time less than 10ms or its process would cost more than half the work it times; 1 is one run per side per round",
		set:  func(c *Config, s string) error { return positiveInt(s, &c.Runs) }},
	{Flag: "measure", Arg: "LIST", Commands: []string{"run", "bisect", "action"}, Default: "time", Group: GroupMeasure,
		Help:    "what to measure: time (time/op and allocations, interleaved rounds), instructions (instructions/op under Valgrind: deterministic, no timed rounds), or time,instructions",
		HelpFor: map[string]string{"action": "what to measure: time (time/op and allocations, interleaved rounds), instructions (instructions/op under Valgrind, which the action's image installs: deterministic, no timed rounds), or time,instructions"},
		set:     func(c *Config, s string) error { return measure(s, &c.Measure) }},
	{Flag: "cpu", Arg: "LIST", Commands: measuring, Group: GroupMeasure,
		Help: "GOMAXPROCS values passed to the test binary, e.g. 1,2,4 (default: the machine's GOMAXPROCS)",
		set:  func(c *Config, s string) error { return cpuList(s, &c.CPU) }},
	{Flag: "timeout", Arg: "D", Commands: measuring, Default: "10m", Group: GroupMeasure,
		Help: "limit for one benchmark run",
		set:  func(c *Config, s string) error { return positiveDuration(s, &c.Timeout) }},
	{Flag: "seed", Arg: "N", Commands: measuring, Group: GroupMeasure,
		Help: "seed of the randomized run order (default: random, printed in the report)",
		set:  seed},
	{Flag: "max-time", Arg: "D", Commands: runOnly, Group: GroupMeasure,
		Help: "adaptive: stop adding rounds once every benchmark is decided, or after this duration (default: none, exactly --count rounds)",
		set:  func(c *Config, s string) error { return positiveDuration(s, &c.MaxTime) }},
	{Flag: "pin", Commands: measuring, Default: "false", Group: GroupMeasure,
		Help: "pin each benchmark process to fixed CPUs (Linux)",
		set:  boolSetter(func(c *Config, b bool) { c.Pin = b })},
	{Flag: "env", Arg: "NAME", Commands: measuring, Group: GroupMeasure,
		Help:    "pass the variable NAME (or set NAME=VALUE) to go and the benchmarks, which otherwise see only PATH, HOME, TMPDIR, the locale and the Go build settings; names separated by commas, spaces or lines, a NAME=VALUE on its own (repeatable)",
		HelpFor: map[string]string{"action": "set the variable NAME to VALUE for go and the benchmarks, which otherwise see only PATH, HOME, TMPDIR, the locale and the Go build settings (repeatable; args passes no variable of the step by name, so that no secret reaches them unnamed)"},
		set:     envSetter},
	{Flag: "rev", Arg: "REV", Commands: []string{"calibrate"}, Default: "HEAD", Group: GroupMeasure,
		Help: "the revision measured against itself",
		set:  func(c *Config, s string) error { c.Rev = s; return nil }},
	{Flag: "good", Arg: "REV", Commands: bisecting, Group: GroupMeasure,
		Help: "the revision before the change (the path is bad's first parents back to it); required",
		set:  func(c *Config, s string) error { c.Good = s; return nil }},
	{Flag: "bad", Arg: "REV", Commands: bisecting, Default: "HEAD", Group: GroupMeasure,
		Help: "the revision after the change",
		set:  func(c *Config, s string) error { c.Bad = s; return nil }},
	{Flag: "max-count", Arg: "N", Commands: bisecting, Default: "40", Group: GroupMeasure,
		Help: "the most rounds one step may take while it cannot decide (doubling from --count)",
		set:  func(c *Config, s string) error { return positiveInt(s, &c.MaxCount) }},
	{Flag: "C", Arg: "DIR", Commands: append(slices.Clone(local), "history"), Default: ".", Group: GroupMeasure,
		Help:    "run in DIR instead of the current directory",
		HelpFor: map[string]string{"history": "the repository in which --since resolves a revision (default: the current directory)"},
		set:     func(c *Config, s string) error { c.Dir = s; return nil }},
	{Flag: "allow-same", Commands: []string{"run", "gitlab"}, Default: "false", Group: GroupMeasure,
		Help: "allow base and head to be the same commit (an A/A run)",
		set:  boolSetter(func(c *Config, b bool) { c.AllowSame = b })},

	{Flag: "threshold", Arg: "PCT", Commands: append(slices.Clone(noise), "history"), Default: "5%", Input: "threshold", InputDefault: "5%", Group: GroupDecide,
		Help:      "smallest time/op change that counts, e.g. 5%",
		HelpFor:   map[string]string{"history": "the smallest summed regression that is a creep, e.g. 5%"},
		InputNote: "While it is 5%, a policy file's threshold applies (docs/policy.md).",
		set:       func(c *Config, s string) error { return threshold(s, &c.Threshold) }},
	{Flag: "instructions-threshold", Arg: "PCT", Commands: judging, Default: "1%", Group: GroupDecide,
		Help: "smallest instructions/op change that counts, e.g. 1%",
		set:  func(c *Config, s string) error { return threshold(s, &c.InstructionsThreshold) }},
	{Flag: "alpha", Arg: "P", Commands: append(slices.Clone(noise), "history"), Default: "0.01", Group: GroupDecide,
		Help:    "significance level of the time/op test, in (0, 1)",
		HelpFor: map[string]string{"history": "the suite-wide rate of false creeps, in (0, 1)"},
		set:     func(c *Config, s string) error { return alpha(s, &c.Alpha) }},
	{Flag: "fail-on", Arg: "LIST", Commands: judging, Default: "time,allocs,bytes,metrics,failure", Group: GroupDecide,
		Help: "findings that fail the gate: time,allocs,bytes,metrics,instructions,failure,removed,inconclusive,scaling, or none; the default adds instructions when they are measured (--measure instructions)",
		set:  func(c *Config, s string) error { return failOn(s, &c.FailOn) }},
	{Flag: "policy", Arg: "FILE", Commands: judging, Default: ".benchgate.yml", Group: GroupDecide,
		Help:    `the per-benchmark policy file (thresholds, allowances, ignored and required benchmarks; docs/policy.md), relative to the module's directory; run reads it from the base commit, so that a pull request cannot loosen its own gate; "none" for none`,
		HelpFor: map[string]string{"compare": `the per-benchmark policy file (thresholds, allowances, ignored and required benchmarks; docs/policy.md); "none" for none`, "merge": `the per-benchmark policy file (thresholds, allowances, ignored and required benchmarks; docs/policy.md); "none" for none`},
		set:     func(c *Config, s string) error { c.Policy = s; return nil }},
	{Flag: "accept", Arg: "REGEX", Commands: []string{"run", "compare", "merge", "gitlab"}, Group: GroupDecide,
		Help: "accept regressions of the benchmarks matching REGEX on purpose, like a Benchgate-Accept trailer in head's commit message: reported, not gated (repeatable)",
		set:  accept},
	{Flag: "accept-trailers", Commands: runOnly, Default: "false", Input: "accept-trailers", InputDefault: "false", Trust: true, Group: GroupDecide,
		Help:      "let Benchgate-Accept trailers in head's commit message accept regressions (off by default: the commit's author writes them and its author field is unverified; in the action only on pull_request events, credited to the pull request's author)",
		InputNote: "Never on merge_group; when off, only the accept-label accepts, which needs triage rights.",
		set:       boolSetter(func(c *Config, b bool) { c.AcceptTrailers = b })},
	{Flag: "correction", Arg: "C", Commands: noise, Default: "holm", Group: GroupDecide,
		Help: "suite-wide error control over all time/op tests: holm, bh or none",
		set:  func(c *Config, s string) error { return correction(s, &c.Correction) }},
	{Flag: "test", Arg: "T", Commands: judging, Default: "auto", Group: GroupDecide,
		Help: "the time/op test: auto (the paired test when the rounds can reach alpha, else benchstat's U test on per-round values), paired or utest",
		set:  func(c *Config, s string) error { return timeTest(s, &c.Test) }},
	{Flag: "estimator", Arg: "E", Commands: noise, Default: "median", Group: GroupDecide,
		Help: "one value from each round's runs for the paired test: median, min, p25 or mean",
		set:  func(c *Config, s string) error { return estimator(s, &c.Estimator) }},
	{Flag: "confirm", Commands: runOnly, Default: "true", Group: GroupDecide,
		Help: "re-run the benchmarks flagged as time regressions to confirm them before failing; false fails without re-running",
		set:  boolSetter(func(c *Config, b bool) { c.Confirm = b })},
	{Flag: "resolution", Arg: "PCT", Commands: bisecting, Default: "2%", Group: GroupDecide,
		Help: "the smallest change per commit worth finding; a step whose interval neither excludes 0 nor lies within ±PCT is measured again with twice the rounds",
		set:  func(c *Config, s string) error { return threshold(s, &c.Resolution) }},

	{Flag: "format", Arg: "F", Commands: append(slices.Clone(reporting), "history", "bisect"), Default: "text", Group: GroupOutput,
		Help: "the report on stdout: text (aligned columns for a terminal), markdown or json",
		HelpFor: map[string]string{
			"history": "the report on stdout: text (aligned columns for a terminal), markdown, json or html (one self-contained page)",
			"bisect":  "the culprits on stdout: text (a table) or json",
		},
		set: format},
	{Flag: "json", Arg: "FILE", Commands: append(slices.Clone(reporting), "history", "bisect"), Group: GroupOutput,
		Help: "write the JSON report to FILE",
		set:  func(c *Config, s string) error { c.JSON = s; return nil }},
	{Flag: "markdown", Arg: "FILE", Commands: reporting, Group: GroupOutput,
		Help: "write the Markdown report to FILE",
		set:  func(c *Config, s string) error { c.Markdown = s; return nil }},
	{Flag: "junit", Arg: "FILE", Commands: gitlabOnly, Default: GitLabJUnit, Group: GroupOutput,
		Help: `write the JUnit XML report the merge request's test summary shows (a failed test case per row that fails the gate, a passed one per other row) to FILE; "" for none`,
		set:  func(c *Config, s string) error { c.GitLab.JUnit = s; return nil }},
	{Flag: "codequality", Arg: "FILE", Commands: gitlabOnly, Default: GitLabCodeQuality, Group: GroupOutput,
		Help: `write the Code Quality report the merge request shows (each regression at its benchmark function's file and line) to FILE; "" for none`,
		set:  func(c *Config, s string) error { c.GitLab.CodeQuality = s; return nil }},
	{Flag: "explain", Commands: runOnly, Default: "true", Group: GroupOutput,
		Help: "profile the changed benchmarks after the verdict and show under each regression where the change comes from: allocation sites, the functions that got slower; false skips it",
		set:  boolSetter(func(c *Config, b bool) { c.Explain = b })},
	{Flag: "export", Arg: "FORMAT=FILE", Commands: append(slices.Clone(judging), "history"), Group: GroupOutput,
		Help:    "write head's figures for a history service: bencher (Bencher Metric Format), gab (github-action-benchmark's customSmallerIsBetter) or gab-bigger (its customBiggerIsBetter: rates such as B/s) (repeatable)",
		HelpFor: map[string]string{"history": "write each benchmark's last recorded head median for a history service: bencher, gab or gab-bigger (as run's --export)", "action": "write head's figures for a history service: bencher (Bencher Metric Format), gab (github-action-benchmark's customSmallerIsBetter) or gab-bigger (its customBiggerIsBetter: rates such as B/s); FILE is relative to the workspace (repeatable)"},
		set:     exportSetter},
	{Flag: "out", Arg: "DIR", Commands: local, Group: GroupOutput,
		Help: "keep base.txt, head.txt and the build logs in DIR",
		set:  func(c *Config, s string) error { c.Out = s; return nil }},
	{Flag: "quiet", Commands: local, Default: "false", Group: GroupOutput,
		Help: "no progress on stderr",
		set:  boolSetter(func(c *Config, b bool) { c.Quiet = b })},
	{Flag: "verbose", Commands: append(slices.Clone(reporting), "history"), Default: "false", Group: GroupOutput,
		Help: "text report on a terminal: every layer (each row's statistics, why and command; every section), as in a pipe",
		set:  boolSetter(func(c *Config, b bool) { c.Verbose = b })},

	{Flag: "shard", Arg: "I/N", Commands: []string{"run", "action"}, Group: GroupCI,
		Help:    "measure only the I-th of N balanced parts of the suite, as I/N (a workflow matrix); run needs --out DIR to keep the part's results for benchgate merge",
		HelpFor: map[string]string{"action": "measure only the I-th of N balanced parts of the suite, as I/N (a workflow matrix); the part's results go to the directory of the shard-dir output, to be uploaded as an artifact and merged by a job with mode merge"},
		set:     func(c *Config, s string) error { return shardSpec(s, &c.Shard) }},
	{Flag: "ledger", Arg: "FILE", Commands: ledgered, Group: GroupCI,
		Help: "the ledger of paired changes (JSON Lines, docs/ledger.md): run, compare and merge read it to show each changed row's trend and a running creep in the report, and with --record run appends this run's changes to it",
		HelpFor: map[string]string{
			"history": "the ledger of paired changes to read (JSON Lines, docs/ledger.md); required",
			"compare": "a ledger of paired changes (JSON Lines, docs/ledger.md), read to show each changed row's trend and a running creep in the report",
			"merge":   "a ledger of paired changes (JSON Lines, docs/ledger.md), read to show each changed row's trend and a running creep in the report",
		},
		set: func(c *Config, s string) error { c.Ledger = s; return nil }},
	{Flag: "record", Commands: []string{"run"}, Default: "false", Group: GroupCI,
		Help: "append one line per benchmark and unit of this run to --ledger FILE, after the verdict, also when the gate fails (for runs of merges to the default branch: base the merge's first parent, head the merge)",
		set:  boolSetter(func(c *Config, b bool) { c.Record = b })},
	{Flag: "since", Arg: "REV|DATE", Commands: []string{"history"}, Group: GroupCI,
		Help: "only the merges after the commit REV (a SHA the ledger names, or a revision of the repository in -C DIR) or from DATE on (2006-01-02 or RFC 3339)",
		set:  func(c *Config, s string) error { c.Since = s; return nil }},
	{Flag: "note", Arg: "WHEN", Commands: gitlabOnly, Default: "always", Group: GroupCI,
		Help: "when to create or edit the sticky merge request note (with the token in " + GitLabTokenVar + "): always, on-change (only when a note exists or something changed), or never",
		set:  func(c *Config, s string) error { return oneOf(s, &c.GitLab.Note, "always", "on-change", "never") }},
	{Flag: "note-key", Arg: "KEY", Commands: gitlabOnly, Default: "benchgate", Group: GroupCI,
		Help: "key of the sticky note (hidden marker <!-- benchgate:KEY -->); give each job of a matrix its own",
		set:  noteKey},

	{Input: "args", Group: GroupCI, act: func(*Action, string) error { return nil }, // read by FromInputs, after the named inputs
		Help: "more of benchgate's flags, as on its command line (--count 20 --benchtime 200ms --fail-on allocs,bytes): what to measure and how to decide, split into words like a shell does with quotes, but nothing is expanded or run; benchgate action -h lists the flags it takes; the flags of the named inputs and of trust settings are refused here"},
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

// HelpOf is the setting's help in the command's words.
func (s Setting) HelpOf(command string) string {
	if h, ok := s.HelpFor[command]; ok {
		return h
	}
	return s.Help
}

// InputHelp is the input's description: the action's help as a
// sentence, then InputNote.
func (s Setting) InputHelp() string {
	h := s.HelpOf("action")
	h = strings.ToUpper(h[:1]) + h[1:] + "."
	if s.InputNote != "" {
		h += " " + s.InputNote
	}
	return h
}

// appliesTo reports whether the flag applies to the command.
func (s Setting) appliesTo(command string) bool {
	return s.Flag != "" && slices.Contains(s.Commands, command)
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

// history reads the history input: the data branch's name, empty for
// none. The old boolean (history: true, with the branch in history-branch)
// is read by the deprecated inputs (deprecated.go).
func history(a *Action, s string) error {
	if err := branchName(s); err != nil {
		return err
	}
	a.History, a.HistoryBranch = true, s
	return nil
}

// branchName checks a branch name the way git does, roughly: no
// spaces, control characters, "..", or characters git refuses.
func branchName(s string) error {
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.HasSuffix(s, ".lock") ||
		strings.Contains(s, "..") || strings.Contains(s, "//") || strings.ContainsAny(s, " ~^:?*[\\@{") ||
		strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return errors.New("not a valid branch name")
	}
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

// allowPrivileged reads allow-privileged-events (or its old name,
// allow-pull-request-target, deprecated): either allows.
func allowPrivileged(a *Action, s string) error {
	b, err := parseBool(s)
	if err != nil {
		return err
	}
	a.AllowPrivilegedEvents = a.AllowPrivilegedEvents || b
	return nil
}
