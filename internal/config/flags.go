package config

import (
	"flag"
	"fmt"
	"strings"
)

// A command is one of benchgate's commands, as the usage text lists it.
type command struct {
	name, synopsis, help string
}

var commands = []command{
	{"run", "benchgate run --base REV [--head REV] [flags] [packages]", "measure and judge (packages default ./...)"},
	{"compare", "benchgate compare BASE.txt HEAD.txt [flags]", "judge existing go test -bench output"},
	{"compare", "benchgate compare DIR [flags]", "judge a run's --out directory again: the run's verdict"},
	{"merge", "benchgate merge DIR... [flags]", "one report and verdict from the shards' --out directories"},
	{"demo", "benchgate demo", "the whole pipeline on an embedded example"},
	{"calibrate", "benchgate calibrate [--rev REV] [flags] [packages]", "A/A run: this machine's noise floor, recommended settings"},
	{"bisect", "benchgate bisect --good REV --bad REV [flags] [packages]", "find the commits between good and bad (first parents) where benchmarks changed, largest first"},
	{"history", "benchgate history --ledger FILE [--since REV|DATE] [flags]", "levels, merges and creeps from a ledger of paired changes"},
	{"gitlab", "benchgate gitlab [flags] [packages]", "a GitLab CI job: the commits from CI_* variables, one merge request note, JUnit and Code Quality reports (docs/gitlab.md)"},
	{"action", "benchgate action", "the GitHub Action (reads INPUT_* and GITHUB_*)"},
}

// An exitStatus is one of benchgate's exit statuses: a few words for the
// usage text, and what it covers for the reference.
type exitStatus struct {
	code        int
	words, more string
}

var exitStatuses = []exitStatus{
	{0, "the gate passed", ""},
	{1, "the gate failed", "a regression (or, by default, a benchmark that fails on head)"},
	{2, "usage or input error", "a bad flag or input, a ref that does not exist, base equal to head, not a Go module, no benchmark matching --bench, an unreadable or malformed compare file, a malformed event"},
	{3, "benchgate could not finish", "a side does not build (the compiler output is shown), git failed, the run was cancelled (a partial report is still written)"},
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
			raw[f.Flag] = s
			return f.set(c, s)
		}
		if f.Arg == "" {
			fs.Var(boolValue{c, set}, f.Flag, f.Help)
			continue
		}
		fs.Func(f.Flag, f.Help, func(s string) error { return set(c, s) })
	}
}

// Usage is the text printed for -h, written from Flags.
var Usage = usage(110)

// usage writes the commands, the flags' lines wrapped at width columns, and
// the exit statuses.
func usage(width int) string {
	var b strings.Builder
	b.WriteString("usage:\n")
	col := 0
	for _, c := range commands {
		col = max(col, len(c.synopsis))
	}
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-*s   %s\n", col, c.synopsis, c.help)
	}
	b.WriteString("\nflags:\n")
	const helpCol = 21 // where a flag's help starts
	for _, f := range Flags {
		help := f.Help
		if f.Default != "" && f.Arg != "" {
			help += " (default " + f.Default + ")"
		}
		b.WriteString(wrap(fmt.Sprintf("  %-*s", helpCol-2, f.Spelling()+" "), help, strings.Repeat(" ", helpCol), width))
	}
	b.WriteString("\nexit status:")
	for i, e := range exitStatuses {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d %s", e.code, e.words)
	}
	b.WriteString("\n")
	return b.String()
}

// wrap fills text's words after first, continuing on lines that start
// with indent, at most width columns when the words allow.
func wrap(first, text, indent string, width int) string {
	var b strings.Builder
	line, empty := first, true // empty: no word on this line yet
	for _, w := range strings.Fields(text) {
		if !empty && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line, empty = indent, true
		}
		if !empty {
			line += " "
		}
		line += w
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}
