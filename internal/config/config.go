// Package config turns benchgate's command line (Parse) or the GitHub
// Action's INPUT_* variables (FromInputs) into one validated Config.
// Settings is the one table of flags and inputs: their parsers, defaults
// and words, from which go generate writes docs/reference.md and
// action.yml's inputs.
//
// Every problem is reported as a *UsageError whose message names the flag or
// input at fault; callers print it on one line and exit with status 2. Flags
// may appear before, after or between positional arguments, with one or two
// dashes.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/benchgate/benchgate/internal/export"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/sandbox"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/benchgate/benchgate/internal/stats"
)

// Config is everything one benchgate invocation needs.
type Config struct {
	Command string // a command of the commands table: "run", "compare", …, "action", "version"

	// What to measure (run).
	Base, Head string
	Packages   []string
	Bench      string
	Count      int
	Benchtime  string // a duration ("100ms") or a fixed iteration count ("500x")
	Runs       int    // short runs per side per round (at most; 1: one run)
	CPU        []int
	Timeout    time.Duration
	Seed       int64 // Given["seed"] says it was given; else a random one
	AllowSame  bool
	Dir        string        // -C: directory to run in
	MaxTime    time.Duration // adaptive rounds within this budget (0: fixed --count)
	Pin        bool          // pin benchmark processes to CPUs
	Confirm    bool          // re-run flagged time regressions before failing
	Explain    bool          // profile the changed rows after the verdict: where the change comes from
	Rev        string        // calibrate: the commit measured against itself
	Affected   bool          // only packages affected by the change (--packages affected)
	Shard      shard.Spec    // this job's part of a sharded suite; zero: all
	MergeDirs  []string      // merge: the shards' --out directories

	// Bisect: the path's ends, the smallest change per commit worth
	// finding (a fraction), and the most rounds of one step.
	Good, Bad  string
	Resolution float64
	MaxCount   int

	// Exports are the --export FORMAT=FILE targets: head's figures for a
	// history service.
	Exports []export.Target

	// Ledger is the --ledger file of paired changes (docs/ledger.md);
	// Record makes run append to it; Since limits history to the merges
	// after a revision or from a date on.
	Ledger string
	Record bool
	Since  string

	// Env names the variables (NAME, or NAME=VALUE) passed on to the
	// change's code beyond the allow-list (--env, repeatable).
	Env []string

	// How to judge.
	Threshold  float64 // fraction: 0.05 is 5%
	Alpha      float64
	Correction gate.Correction // suite-wide error control
	Test       gate.Test       // the time/op test
	Estimator  stats.Estimator // one value from each round's runs
	// FailOn are the findings that fail the gate; when Given["fail-on"]
	// is not set, the instruction lane's are added to them.
	FailOn []FailKind
	// Given holds the flags (by name) or inputs given explicitly: they
	// override the policy file's top level (docs/policy.md).
	Given map[string]bool

	// Policy is the policy file, relative to the module's directory and
	// read from the base commit (run), or from the file system (compare,
	// merge); "none" for no policy. Accepts are the --accept patterns:
	// regressions accepted on purpose, like a Benchgate-Accept trailer.
	Policy  string
	Accepts []string
	// AcceptTrailers lets Benchgate-Accept trailers in head's commit
	// message accept regressions. It is off unless asked for: the
	// commit's author writes the trailer (by default only --accept and
	// the action's accept-label accept, which that author cannot set).
	AcceptTrailers bool
	// Measure lists the lanes measured: "time" (time/op and allocations
	// in interleaved rounds), "instructions" (instructions/op under
	// Valgrind); InstructionsThreshold is the instructions/op threshold.
	Measure               []string
	InstructionsThreshold float64

	// Where to write.
	Format              Format // the report on stdout
	JSON, Markdown, Out string
	Quiet               bool
	Verbose             bool // the whole text report on a terminal too

	// The two files (compare).
	Files [2]string
	// CompareDir is compare's one argument instead: a run's --out
	// directory, judged with its kept rules as the run judged it.
	CompareDir string

	// Action holds the settings only the action has (FromInputs).
	Action Action

	// GitLab is what only benchgate gitlab has (gitlab.go).
	GitLab GitLabSettings
}

// given records that the flag or input name was given explicitly.
func (c *Config) given(name string) {
	if c.Given == nil {
		c.Given = map[string]bool{}
	}
	c.Given[name] = true
}

// UsageError is bad input from the user: exit status 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// FailKind is a kind of finding that --fail-on can make fail the gate.
type FailKind string

// The --fail-on kinds.
const (
	FailTime         FailKind = "time"
	FailAllocs       FailKind = "allocs"
	FailBytes        FailKind = "bytes"
	FailMetrics      FailKind = "metrics"
	FailInstructions FailKind = "instructions"
	FailFailure      FailKind = "failure"
	FailRemoved      FailKind = "removed"
	FailInconclusive FailKind = "inconclusive"
	FailScaling      FailKind = "scaling"
)

// FailOnKinds are the accepted --fail-on values: the words of the policy
// file's fail-on lists (one list for both).
var FailOnKinds = func() []FailKind {
	ks := make([]FailKind, len(policy.FailOnKinds))
	for i, w := range policy.FailOnKinds {
		ks[i] = FailKind(w)
	}
	return ks
}()

// Format is what --format writes on stdout.
type Format string

// The --format values.
const (
	FormatText     Format = "text"
	FormatMarkdown Format = "markdown"
	FormatJSON     Format = "json"
	// FormatHTML is history's page only.
	FormatHTML Format = "html"
)

// The lanes of --measure.
const (
	LaneTime         = "time"
	LaneInstructions = "instructions"
)

// Measures reports whether lane is measured.
func (c *Config) Measures(lane string) bool {
	for _, l := range c.Measure {
		if l == lane {
			return true
		}
	}
	return false
}

// measureConflict says, naming the flags, why the lanes cannot be
// measured with the other settings; "" when they can.
func (c *Config) measureConflict() string {
	if c.MaxTime > 0 && !c.Measures(LaneTime) {
		return "--max-time adds timed rounds, and --measure " + strings.Join(c.Measure, ",") + " measures no time"
	}
	return ""
}

// ledgerConflict checks the ledger flags against the command, naming the
// flag.
func (c *Config) ledgerConflict(pos []string) error {
	switch {
	case c.Record && c.Ledger == "":
		return usagef("--record needs --ledger FILE: the ledger to append to")
	case c.Command == "history" && c.Ledger == "":
		return usagef("history needs --ledger FILE: the ledger of paired changes to read")
	case c.Command == "history" && len(pos) > 0:
		return usagef("history takes no arguments; got %q", pos[0])
	}
	return nil
}

// measure reads a --measure list.
func measure(s string, dst *[]string) error {
	var list []string
	for _, f := range strings.Split(s, ",") {
		switch f = strings.TrimSpace(f); f {
		case LaneTime, LaneInstructions:
			if !slices.Contains(list, f) {
				list = append(list, f)
			}
		default:
			return fmt.Errorf("unknown measure %q: want time, instructions or time,instructions", f)
		}
	}
	*dst = list
	return nil
}

// Defaults returns the configuration with every default applied.
func Defaults() Config {
	return Config{
		Head:       "HEAD",
		Packages:   []string{"./..."},
		Bench:      ".",
		Count:      10,
		Benchtime:  "100ms",
		Runs:       5,
		Estimator:  stats.Median,
		Timeout:    10 * time.Minute,
		Threshold:  0.05,
		Alpha:      0.01,
		Correction: gate.Holm,
		Test:       gate.TestAuto,
		Format:     FormatText,
		Confirm:    true,
		Explain:    true,
		Rev:        "HEAD",
		Bad:        "HEAD",
		Resolution: 0.02,
		MaxCount:   40,
		FailOn:     []FailKind{FailTime, FailAllocs, FailBytes, FailMetrics, FailFailure},
		Measure:    []string{LaneTime},
		Policy:     ".benchgate.yml",

		InstructionsThreshold: 0.01,

		GitLab: GitLabSettings{JUnit: GitLabJUnit, CodeQuality: GitLabCodeQuality, Note: "always", NoteKey: "benchgate"},
	}
}

// HelpError is a request for help (-h, --help, help): benchgate's, or
// the command's (UsageOf). It is flag.ErrHelp to errors.Is.
type HelpError struct{ Command string }

func (e *HelpError) Error() string        { return "help requested" }
func (e *HelpError) Is(target error) bool { return target == flag.ErrHelp }

// Parse reads args (without the program name). Each command takes its
// own flags (flagsOf): a flag of another command is refused, naming both.
func Parse(args []string) (*Config, error) {
	if len(args) == 0 {
		return nil, usagef("no command given: want %s (benchgate -h for help)", commandNames())
	}
	c := Defaults()
	c.Command = args[0]
	switch c.Command {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			if _, ok := commandNamed(args[1]); ok {
				return nil, &HelpError{Command: args[1]}
			}
		}
		return nil, &HelpError{}
	case "--version", "-version", "version":
		if len(args) > 1 {
			if isHelp(args[1]) {
				return nil, &HelpError{Command: "version"}
			}
			return nil, usagef("version takes no arguments; got %q", args[1])
		}
		return &Config{Command: "version"}, nil
	case "action":
		if len(args) > 1 {
			if isHelp(args[1]) {
				return nil, &HelpError{Command: "action"}
			}
			return nil, usagef("action takes no arguments: it reads INPUT_* variables as set by GitHub Actions; its flags go in the args input")
		}
		return &Config{Command: "action"}, nil
	}
	if _, ok := commandNamed(c.Command); !ok {
		msg := fmt.Sprintf("unknown command %q: want %s", c.Command, commandNames())
		if strings.HasPrefix(c.Command, "-") {
			msg = fmt.Sprintf("%s comes before a command: want %s, then its flags", c.Command, commandNames())
		}
		return nil, usagef("%s", msg)
	}
	fs := flag.NewFlagSet("benchgate "+c.Command, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	raw := map[string]string{}
	register(fs, flagsOf(c.Command), &c, raw)

	var pos []string
	rest := args[1:]
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &HelpError{Command: c.Command}
			}
			return nil, flagError(c.Command, err)
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			pos = append(pos, rest[1:]...)
			break
		}
		pos = append(pos, rest[0])
		rest = rest[1:]
	}
	for name := range raw {
		c.given(name)
	}
	if msg := c.measureConflict(); msg != "" {
		return nil, usagef("%s", msg)
	}
	if err := c.ledgerConflict(pos); err != nil {
		return nil, err
	}
	switch c.Command {
	case "run":
		if c.Base == "" {
			return nil, usagef("--base is required: the revision to compare against (e.g. --base main)")
		}
		if c.Head == "" {
			return nil, usagef("--head must not be empty")
		}
		var packagesFlag []string
		if s, ok := raw["packages"]; ok {
			packagesFlag, _, _ = packages(s)
		}
		if len(pos) > 0 && len(packagesFlag) > 0 {
			return nil, usagef("--packages and positional packages %q: give one or the other", pos)
		}
		if len(pos) > 0 {
			c.Packages = pos
		}
		if len(packagesFlag) > 0 {
			c.Packages = packagesFlag
		}
		for _, p := range c.Packages {
			if strings.HasPrefix(p, "-") {
				return nil, usagef("package pattern %q looks like a flag", p)
			}
		}
		if !c.Shard.IsZero() && c.Out == "" {
			return nil, usagef("--shard %s needs --out DIR: the shard's results are kept there for benchgate merge", c.Shard)
		}
	case "merge":
		if len(pos) == 0 {
			return nil, usagef("merge needs the shards' --out directories")
		}
		c.MergeDirs = pos
	case "compare":
		switch len(pos) {
		case 1:
			c.CompareDir = pos[0]
		case 2:
			c.Files = [2]string{pos[0], pos[1]}
		default:
			return nil, usagef("compare needs two files, BASE.txt and HEAD.txt, or the --out directory of a run; got %d argument(s)", len(pos))
		}
	case "calibrate":
		if c.Rev == "" {
			return nil, usagef("--rev must not be empty")
		}
		if len(pos) > 0 {
			c.Packages = pos
		}
	case "bisect":
		if err := c.bisectFlags(pos); err != nil {
			return nil, err
		}
	case "gitlab":
		if err := c.gitlabFlags(pos, raw); err != nil {
			return nil, err
		}
	default:
		// demo, and a command without arguments of its own.
		if len(pos) > 0 {
			return nil, usagef("%s takes no arguments; got %q", c.Command, pos[0])
		}
	}
	return &c, nil
}

func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// flagError rewrites the flag package's messages to name the flag the way
// users type it, and the command: a flag of another command is named as
// one; an unknown one gets the nearest flag of the command, if one is
// near.
func flagError(command string, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		name = strings.TrimPrefix(name, "-")
		return usagef("%s", unknownFlag(command, name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usagef("%s needs a value", dashes(name))
	}
	// invalid value "x" for flag -count: reason
	// invalid boolean value "x" for -confirm: reason
	for _, p := range [][2]string{{"invalid value ", " for flag -"}, {"invalid boolean value ", " for -"}} {
		if rest, ok := strings.CutPrefix(msg, p[0]); ok {
			if i := strings.Index(rest, p[1]); i >= 0 {
				val := rest[:i]
				name, reason, _ := strings.Cut(rest[i+len(p[1]):], ": ")
				return usagef("%s %s: %s", dashes(name), val, reason)
			}
		}
	}
	return usagef("%s", msg)
}

// unknownFlag says why the command does not take --name: it is another
// command's, or nobody's (with the nearest of the command's flags).
func unknownFlag(command, name string) string {
	flagName, _, _ := strings.Cut(name, "=")
	for _, f := range Flags {
		if f.Flag != flagName {
			continue
		}
		var others []string
		for _, o := range f.Commands {
			if o != "action" {
				others = append(others, o)
			}
		}
		return fmt.Sprintf("%s does not apply to %s (a flag of %s; benchgate %s -h lists %s's flags)",
			dashes(flagName), command, strings.Join(others, ", "), command, command)
	}
	var names []string
	for _, f := range flagsOf(command) {
		names = append(names, f.Flag)
	}
	if near := policy.Suggest(flagName, names); near != "" {
		return fmt.Sprintf("unknown flag %s: did you mean %s? (benchgate %s -h lists its flags)", dashes(flagName), dashes(near), command)
	}
	return fmt.Sprintf("unknown flag %s (benchgate %s -h lists its flags)", dashes(flagName), command)
}

// envList adds the --env names (or NAME=VALUE) in s, separated by commas or
// white space; a value with either needs a flag of its own.
func envList(s string, list *[]string) error {
	if strings.Contains(s, "=") {
		if err := sandbox.CheckName(s); err != nil {
			return err
		}
		*list = append(*list, s)
		return nil
	}
	for _, name := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if err := sandbox.CheckName(name); err != nil {
			return err
		}
		*list = append(*list, name)
	}
	return nil
}

// checkRegexp validates a -bench expression the way testing splits it:
// every slash-separated element must compile on its own.
func checkRegexp(s string) error {
	if _, err := regexp.Compile(s); err != nil {
		return err
	}
	return nil
}

// packages reads a --packages value: "affected", or patterns separated by
// spaces or commas.
func packages(s string) ([]string, bool, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	if len(fields) == 1 && fields[0] == "affected" {
		return nil, true, nil
	}
	if len(fields) == 0 {
		return nil, false, errors.New("want package patterns or affected")
	}
	for _, f := range fields {
		if f == "affected" {
			return nil, false, errors.New("affected cannot be combined with package patterns")
		}
		if strings.HasPrefix(f, "-") {
			return nil, false, fmt.Errorf("package pattern %q looks like a flag", f)
		}
	}
	return fields, false, nil
}

// shardSpec reads I/N; the error is the reason only, since callers name the
// flag or input.
func shardSpec(s string, dst *shard.Spec) error {
	spec, err := shard.Parse(s)
	if err != nil {
		var pe *shard.ParseError
		if errors.As(err, &pe) {
			return errors.New(pe.Reason)
		}
		return err
	}
	*dst = spec
	return nil
}

// oneOf sets *dst to the value in s when it is one of values, or says
// which values it wants.
func oneOf[T ~string](s string, dst *T, values ...T) error {
	v := T(strings.TrimSpace(s))
	if slices.Contains(values, v) {
		*dst = v
		return nil
	}
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = string(v)
	}
	return errors.New("want " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1])
}

func timeTest(s string, dst *gate.Test) error {
	return oneOf(s, dst, gate.TestAuto, gate.TestPaired, gate.TestUTest)
}

func estimator(s string, dst *stats.Estimator) error {
	return oneOf(s, dst, stats.Median, stats.Min, stats.P25, stats.Mean)
}

// format reads --format: the values depend on the command (history also
// writes a page, bisect a table or JSON).
func format(c *Config, s string) error {
	switch c.Command {
	case "history":
		return oneOf(s, &c.Format, FormatText, FormatMarkdown, FormatJSON, FormatHTML)
	case "bisect":
		return oneOf(s, &c.Format, FormatText, FormatJSON)
	}
	if err := oneOf(s, &c.Format, FormatText, FormatMarkdown, FormatJSON); err != nil {
		if strings.TrimSpace(s) == string(FormatHTML) {
			return fmt.Errorf("%v (html is history's page only)", err)
		}
		return err
	}
	return nil
}

func correction(s string, dst *gate.Correction) error {
	return oneOf(s, dst, gate.Holm, gate.BH, gate.NoCorrection)
}

func positiveInt(s string, dst *int) error {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return errors.New("not a whole number")
	}
	if v < 1 {
		return errors.New("must be at least 1")
	}
	*dst = v
	return nil
}

func positiveDuration(s string, dst *time.Duration) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return errors.New("not a duration such as 30s or 10m")
	}
	if d <= 0 {
		return errors.New("must be positive")
	}
	*dst = d
	return nil
}

func benchtime(s string, dst *string) error {
	s = strings.TrimSpace(s)
	if n, ok := strings.CutSuffix(s, "x"); ok {
		v, err := strconv.Atoi(n)
		if err != nil || v < 1 {
			return errors.New("want a duration such as 100ms or an iteration count such as 500x")
		}
		*dst = s
		return nil
	}
	var d time.Duration
	if err := positiveDuration(s, &d); err != nil {
		return errors.New("want a duration such as 100ms or an iteration count such as 500x")
	}
	*dst = d.String()
	return nil
}

func cpuList(s string, dst *[]int) error {
	var list []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return fmt.Errorf("want a comma-separated list of positive numbers such as 1,2,4, got %q", f)
		}
		list = append(list, v)
	}
	*dst = list
	return nil
}

// ParseThreshold reads a percentage: "5%" or "5" is five percent. A bare
// number below 1 ("0.05") is refused as ambiguous.
func ParseThreshold(s string) (float64, error) {
	s = strings.TrimSpace(s)
	num, pct := strings.CutSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("want a percentage such as 5%")
	}
	if v < 0 {
		return 0, errors.New("must not be negative")
	}
	if !pct && v > 0 && v < 1 {
		return 0, fmt.Errorf("ambiguous: write %g%% for %g percent, or %g%% for a fraction of %g", v, v, v*100, v)
	}
	if v >= 1000 {
		return 0, errors.New("must be below 1000%")
	}
	return v / 100, nil
}

func threshold(s string, dst *float64) error {
	v, err := ParseThreshold(s)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// ParseAlpha reads a significance level in (0, 1).
func ParseAlpha(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) {
		return 0, errors.New("want a number such as 0.01")
	}
	if v <= 0 || v >= 1 {
		return 0, errors.New("must be between 0 and 1, exclusive")
	}
	return v, nil
}

func alpha(s string, dst *float64) error {
	v, err := ParseAlpha(s)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// ParseFailOn reads a comma-separated list of FailOnKinds; "none" is empty.
func ParseFailOn(s string) ([]FailKind, error) {
	s = strings.TrimSpace(s)
	if s == "none" || s == "" {
		return []FailKind{}, nil
	}
	var list []FailKind
	for _, f := range strings.Split(s, ",") {
		k := FailKind(strings.TrimSpace(f))
		if !slices.Contains(FailOnKinds, k) {
			names := make([]string, len(FailOnKinds))
			for i, k := range FailOnKinds {
				names[i] = string(k)
			}
			return nil, fmt.Errorf("unknown kind %q: want a comma-separated list of %s, or none", k, strings.Join(names, ", "))
		}
		list = append(list, k)
	}
	return list, nil
}

func failOn(s string, dst *[]FailKind) error {
	v, err := ParseFailOn(s)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// bisectFlags checks bisect's flags and takes its positional packages.
func (c *Config) bisectFlags(pos []string) error {
	switch {
	case c.Good == "":
		return usagef("--good is required: the revision before the change (e.g. --good v1.2.0)")
	case c.Bad == "":
		return usagef("--bad must not be empty")
	case c.Resolution <= 0:
		return usagef("--resolution must be more than 0%%")
	case c.MaxCount < c.Count && c.Given["max-count"]:
		return usagef("--max-count %d is less than --count %d", c.MaxCount, c.Count)
	}
	c.MaxCount = max(c.MaxCount, c.Count)
	if len(pos) > 0 {
		c.Packages = pos
	}
	for _, p := range c.Packages {
		if strings.HasPrefix(p, "-") {
			return usagef("package pattern %q looks like a flag", p)
		}
	}
	return nil
}
