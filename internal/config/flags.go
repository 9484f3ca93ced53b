package config

import (
	"errors"

	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/export"
)

// A Flag is one command-line flag. Flags is the one table from which Parse
// registers them and Usage is written; a test checks action.yml's inputs
// and the README's tables against it.
type Flag struct {
	Name    string // without dashes ("C" is the one short flag)
	Arg     string // the value's placeholder ("N", "D"); "" for a boolean
	Help    string
	Default string // shown as "(default X)"; "" for none
	Input   string // the action input that sets the same thing; "" for none
	set     func(c *Config, s string) error
}

// Flags are benchgate's flags, in the order of the usage text.
var Flags = []Flag{
	{"base", "REV", "base revision (run: required)", "", "base", func(c *Config, s string) error { c.Base = s; return nil }},
	{"head", "REV", "head revision", "HEAD", "head", func(c *Config, s string) error { c.Head = s; return nil }},
	{"bench", "REGEX", "benchmarks to run, like go test -bench", ".", "bench", func(c *Config, s string) error { c.Bench = s; return nil }},
	{"count", "N", "interleaved rounds, each running every benchmark on both sides", "10", "count", func(c *Config, s string) error { return positiveInt(s, &c.Count) }},
	{"benchtime", "D", "target time of a side's work per round, used to calibrate the iteration count, or Nx for a fixed count", "100ms", "benchtime", func(c *Config, s string) error { return benchtime(s, &c.Benchtime) }},
	{"runs", "K", "separate short runs per side per round sharing that work, base and head alternating; fewer when a run would time less than 10ms or its process would cost more than half the work it times; 1 is one run per side per round", "5", "runs", func(c *Config, s string) error { return positiveInt(s, &c.Runs) }},
	{"estimator", "E", "one value from each round's runs for the paired test: median, min, p25 or mean", "median", "estimator", func(c *Config, s string) error { return estimator(s, &c.Estimator) }},
	{"measure", "LIST", "what to measure: time (time/op and allocations, interleaved rounds), instructions (instructions/op under Valgrind: deterministic, no timed rounds), or time,instructions", "time", "measure", func(c *Config, s string) error { return measure(s, &c.Measure) }},
	{"cpu", "LIST", "GOMAXPROCS values passed to the test binary, e.g. 1,2,4", "", "cpu", func(c *Config, s string) error { return cpuList(s, &c.CPU) }},
	{"timeout", "D", "limit for one benchmark run", "10m", "timeout", func(c *Config, s string) error { return positiveDuration(s, &c.Timeout) }},
	{"seed", "N", "seed of the randomized run order (default: random, printed)", "", "seed", func(c *Config, s string) error {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return errors.New("not a whole number")
		}
		c.Seed, c.SeedSet = v, true
		return nil
	}},
	{"threshold", "PCT", "smallest time/op change that counts, e.g. 5%", "5%", "threshold", func(c *Config, s string) error { return threshold(s, &c.Threshold) }},
	{"instructions-threshold", "PCT", "smallest instructions/op change that counts, e.g. 1%", "1%", "instructions-threshold", func(c *Config, s string) error { return threshold(s, &c.InstructionsThreshold) }},
	{"alpha", "P", "significance level of the time/op test, in (0, 1)", "0.01", "alpha", func(c *Config, s string) error { return alpha(s, &c.Alpha) }},
	{"fail-on", "LIST", "findings that fail the gate: time,allocs,bytes,instructions,failure,removed,inconclusive,scaling, or none; the default adds instructions when that lane is measured", "time,allocs,bytes,failure", "fail-on", func(c *Config, s string) error { return failOn(s, &c.FailOn) }},
	{"policy", "FILE", `the per-benchmark policy file (thresholds, allowances, ignored and required benchmarks), relative to the module's directory; run reads it from the base commit; "none" for none`, ".benchgate.yml", "policy", func(c *Config, s string) error { c.Policy = s; return nil }},
	{"accept", "REGEX", "accept regressions of the benchmarks matching REGEX on purpose, like a Benchgate-Accept trailer in head's commit message: reported, not gated (repeatable)", "", "", func(c *Config, s string) error {
		if err := checkRegexp(s); err != nil || s == "" {
			return errors.New("want a regular expression over import/path.Name")
		}
		c.Accepts = append(c.Accepts, s)
		return nil
	}},
	{"accept-trailers", "", "let Benchgate-Accept trailers in head's commit message accept regressions (off by default: the commit's author writes them and its author field is unverified; in the action only on pull_request events, credited to the pull request's author)", "false", "accept-trailers", boolSetter(func(c *Config, b bool) { c.AcceptTrailers = b })},
	{"correction", "C", "suite-wide error control over all time/op tests: holm, bh or none", "holm", "correction", func(c *Config, s string) error { return correction(s, &c.Correction) }},
	{"test", "T", "the time/op test: auto (the paired test when the rounds can reach alpha, else benchstat's U test on per-round values), paired or utest", "auto", "test", func(c *Config, s string) error { return timeTest(s, &c.Test) }},
	{"confirm", "", "re-run the benchmarks flagged as time regressions to confirm them (--confirm=false fails without)", "true", "confirm", boolSetter(func(c *Config, b bool) { c.Confirm = b })},
	{"explain", "", "profile the changed benchmarks after the verdict and show where the change comes from: allocation sites, the functions that got slower (--explain=false skips it)", "true", "explain", boolSetter(func(c *Config, b bool) { c.Explain = b })},
	{"max-time", "D", "adaptive: stop adding rounds once every benchmark is decided, or after D", "", "max-time", func(c *Config, s string) error { return positiveDuration(s, &c.MaxTime) }},
	{"pin", "", "pin each benchmark process to fixed CPUs (Linux)", "", "pin", boolSetter(func(c *Config, b bool) { c.Pin = b })},
	{"env", "NAME", "pass the variable NAME (or set NAME=VALUE) to go and the benchmarks, which otherwise see only PATH, HOME, TMPDIR, the locale and the Go build settings (repeatable)", "", "env", func(c *Config, s string) error { return envList(s, &c.Env) }},
	{"rev", "REV", "calibrate: the revision measured against itself", "HEAD", "", func(c *Config, s string) error { c.Rev = s; return nil }},
	{"packages", "LIST", `package patterns (space- or comma-separated), or "affected": only packages whose code or dependencies changed between base and head, among the positional packages`, "./...", "packages", func(c *Config, s string) error {
		// The patterns are weighed against the positional packages in
		// Parse, from the raw value.
		_, affected, err := packages(s)
		c.Affected = affected
		return err
	}},
	{"shard", "I/N", "measure only the I-th of N balanced parts of the suite (a workflow matrix); needs --out", "", "shard", func(c *Config, s string) error { return shardSpec(s, &c.Shard) }},
	{"format", "F", "the report on stdout: text (aligned columns for a terminal), markdown or json", "text", "", func(c *Config, s string) error { return format(s, &c.Format) }},
	{"json", "FILE", "write the JSON report to FILE", "", "", func(c *Config, s string) error { c.JSON = s; return nil }},
	{"export", "FORMAT=FILE", "write head's figures for a history service: bencher (Bencher Metric Format) or gab (github-action-benchmark's customSmallerIsBetter); repeatable", "", "export", func(c *Config, s string) error { return exportTarget(s, &c.Exports) }},
	{"markdown", "FILE", "write the Markdown report to FILE", "", "", func(c *Config, s string) error { c.Markdown = s; return nil }},
	{"out", "DIR", "keep base.txt, head.txt and the build logs in DIR", "", "", func(c *Config, s string) error { c.Out = s; return nil }},
	{"C", "DIR", "run in DIR instead of the current directory", ".", "working-directory", func(c *Config, s string) error { c.Dir = s; return nil }},
	{"allow-same", "", "allow base and head to be the same commit (an A/A run)", "", "", boolSetter(func(c *Config, b bool) { c.AllowSame = b })},
	{"quiet", "", "no progress on stderr", "", "", boolSetter(func(c *Config, b bool) { c.Quiet = b })},
	{"verbose", "", "text report on a terminal: every layer (each row's statistics, why and command; every section), as in a pipe", "", "", boolSetter(func(c *Config, b bool) { c.Verbose = b })},
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

// boolSetter parses a boolean flag's value.
func boolSetter(set func(*Config, bool)) func(*Config, string) error {
	return func(c *Config, s string) error {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return errors.New("want true or false")
		}
		set(c, b)
		return nil
	}
}

// Spelling returns how the flag is typed: "--count N", "-C DIR", "--pin".
func (f Flag) Spelling() string {
	s := "--" + f.Name
	if len(f.Name) == 1 {
		s = "-" + f.Name
	}
	if f.Arg != "" {
		s += " " + f.Arg
	}
	return s
}

// boolValue is a flag.Value for a boolean flag ("--pin", "--confirm=false").
type boolValue struct {
	c   *Config
	set func(*Config, string) error
}

func (b boolValue) String() string     { return "" }
func (b boolValue) Set(s string) error { return b.set(b.c, s) }
func (b boolValue) IsBoolFlag() bool   { return true }

// register adds the table's flags to fs, setting c; raw gets the last
// value given to each flag.
func register(fs *flag.FlagSet, c *Config, raw map[string]string) {
	for _, f := range Flags {
		set := func(c *Config, s string) error {
			raw[f.Name] = s
			return f.set(c, s)
		}
		if f.Arg == "" {
			fs.Var(boolValue{c, set}, f.Name, f.Help)
			continue
		}
		fs.Func(f.Name, f.Help, func(s string) error { return set(c, s) })
	}
}

// usageHead lists the commands.
const usageHead = `usage:
  benchgate run --base REV [--head REV] [flags] [packages]   measure and judge (packages default ./...)
  benchgate compare BASE.txt HEAD.txt [flags]                judge existing go test -bench output
  benchgate compare DIR [flags]                              judge a run's --out directory again: the run's verdict
  benchgate merge DIR... [flags]                             one report and verdict from the shards' --out directories
  benchgate demo                                             the whole pipeline on an embedded example
  benchgate calibrate [--rev REV] [flags] [packages]         A/A run: this machine's noise floor, recommended settings
  benchgate action                                           the GitHub Action (reads INPUT_* and GITHUB_*)

flags:
`

const usageTail = `
exit status: 0 the gate passed, 1 the gate failed, 2 usage or input error, 3 benchgate could not finish
`

// Usage is the text printed for -h, written from Flags.
var Usage = usage(110)

// usage writes the flags' lines, wrapped at width columns.
func usage(width int) string {
	const col = 21 // where the help starts
	var b strings.Builder
	b.WriteString(usageHead)
	for _, f := range Flags {
		help := f.Help
		if f.Default != "" && f.Arg != "" {
			help += " (default " + f.Default + ")"
		}
		line := fmt.Sprintf("  %-*s", col-2, f.Spelling()+" ")
		empty := true // no word of help on this line yet
		for _, w := range strings.Fields(help) {
			if !empty && len(line)+1+len(w) > width {
				b.WriteString(line + "\n")
				line, empty = strings.Repeat(" ", col), true
			}
			if !empty {
				line += " "
			}
			line += w
			empty = false
		}
		b.WriteString(line + "\n")
	}
	b.WriteString(usageTail)
	return b.String()
}
