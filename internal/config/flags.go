package config

import (
	"flag"
	"fmt"
	"slices"
	"strings"
)

// A command is one of benchgate's commands: its synopses and what it does,
// for the help and the reference. Its flags are the settings whose
// Commands name it, or, with like, another command's: a new command that
// takes the flags of an existing one is one line here.
type command struct {
	name     string
	synopses []string
	help     string
	like     string // the command whose flags it takes; "" for its own
}

var commands = []command{
	{name: "run", synopses: []string{"benchgate run --base REV [--head REV] [flags] [packages]"}, help: "measure base and head, interleaved, and judge them (packages default ./...)"},
	{name: "compare", synopses: []string{"benchgate compare BASE.txt HEAD.txt [flags]", "benchgate compare DIR [flags]"}, help: "judge go test -bench output you have, or a run's --out directory again (the run's verdict)"},
	{name: "merge", synopses: []string{"benchgate merge DIR... [flags]"}, help: "one report and verdict from the shards' --out directories"},
	{name: "calibrate", synopses: []string{"benchgate calibrate [--rev REV] [flags] [packages]"}, help: "A/A run: this machine's noise floor, recommended settings"},
	{name: "bisect", synopses: []string{"benchgate bisect --good REV [--bad REV] [flags] [packages]"}, help: "the commits between good and bad (first parents) where benchmarks changed, largest first"},
	{name: "history", synopses: []string{"benchgate history --ledger FILE [--since REV|DATE] [flags]"}, help: "levels, merges and creeps from a ledger of paired changes"},
	{name: "gitlab", synopses: []string{"benchgate gitlab [flags] [packages]"}, help: "a GitLab CI job: the commits from CI_* variables, one merge request note, JUnit and Code Quality reports (docs/gitlab.md)"},
	{name: "demo", synopses: []string{"benchgate demo"}, help: "the whole pipeline on an embedded example"},
	{name: "action", synopses: []string{"benchgate action"}, help: "the GitHub Action: reads its inputs (INPUT_*) and the event (GITHUB_*)"},
	{name: "version", synopses: []string{"benchgate version", "benchgate --version"}, help: "the version of benchgate, from the build"},
}

// commandNamed returns the command called name.
func commandNamed(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// commandNames lists the commands for an error message: "run, compare, … or version".
func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// flagsOf are the flags of the command, in the table's order.
func flagsOf(name string) []Setting {
	c, _ := commandNamed(name)
	var fs []Setting
	for _, f := range Flags {
		if f.appliesTo(name) || c.like != "" && f.appliesTo(c.like) {
			fs = append(fs, f)
		}
	}
	return fs
}

// An exitStatus is one of benchgate's exit statuses: a few words for the
// help, and in full what it covers for the reference.
type exitStatus struct {
	code        int
	words, more string
}

var exitStatuses = []exitStatus{
	{0, "pass", "the gate passed"},
	{1, "fail", "the gate failed: a regression (or, by default, a benchmark that fails on head)"},
	{2, "usage or input error", "usage or input error: a bad flag or input, a flag the command does not take, a ref that does not exist, base equal to head, not a Go module, a directory or package pattern that base and head lack, no benchmark matching --bench, compare files that are unreadable, malformed or share no benchmark, a malformed event"},
	{3, "could not finish", "benchgate could not finish: a side does not build (the compiler output is shown), git failed, the run was cancelled (a partial report is still written)"},
}

// boolValue is a flag.Value for a boolean flag ("--pin", "--confirm=false").
type boolValue struct {
	set func(string) error
}

func (b boolValue) String() string     { return "" }
func (b boolValue) Set(s string) error { return b.set(s) }
func (b boolValue) IsBoolFlag() bool   { return true }

// register adds the flags fs to the flag set, setting c (and c.Action);
// raw gets the last value given to each flag.
func register(set *flag.FlagSet, fs []Setting, c *Config, raw map[string]string) {
	for _, f := range fs {
		parse := func(s string) error {
			raw[f.Flag] = s
			if f.act != nil {
				return f.act(&c.Action, s)
			}
			return f.set(c, s)
		}
		if f.Arg == "" {
			set.Var(boolValue{parse}, f.Flag, f.Help)
			continue
		}
		set.Func(f.Flag, f.Help, parse)
	}
}

// helpWidth is the width the help is wrapped at.
const helpWidth = 100

// Usage is the text printed for benchgate -h: the commands and the exit
// statuses. UsageOf is a command's.
var Usage = usage(helpWidth)

// usage writes the commands, each with its synopses and what it does,
// then the exit statuses, wrapped at width columns.
func usage(width int) string {
	var b strings.Builder
	b.WriteString("benchgate: did this change make the Go benchmarks slower, or make them allocate more?\n\nusage:\n")
	for _, c := range commands {
		for _, s := range c.synopses {
			b.WriteString("  " + s + "\n")
		}
		b.WriteString(wrap("      ", c.help, "      ", width))
	}
	b.WriteString("\nbenchgate COMMAND -h lists the command's flags; docs/reference.md has every flag and input.\n")
	b.WriteString(exitLine(width))
	return b.String()
}

// UsageOf is the help of one command: its synopses, what it does, and its
// flags by group with every default; for the action, its inputs and the
// flags its args input takes. "" is benchgate's help.
func UsageOf(name string) string {
	c, ok := commandNamed(name)
	if !ok {
		return Usage
	}
	return commandUsage(c, helpWidth)
}

func commandUsage(c command, width int) string {
	var b strings.Builder
	b.WriteString("usage:\n")
	for _, s := range c.synopses {
		b.WriteString("  " + s + "\n")
	}
	b.WriteString("\n" + wrap("", strings.ToUpper(c.help[:1])+c.help[1:]+".", "", width))
	if c.name == "action" {
		b.WriteString("\ninputs:\n")
		for _, s := range Settings {
			if s.Input == "" {
				continue
			}
			help := s.HelpOf("action")
			if s.InputDefault != "" {
				help += " (default " + s.InputDefault + ")"
			}
			b.WriteString(flagLine(s.Input, help, width))
		}
	}
	fs := flagsOf(c.name)
	if c.name == "action" {
		b.WriteString("\nThe args input takes these flags as on the command line (--count 20 --fail-on allocs):\n")
		// args takes the flags no named input sets, trust settings never.
		fs = slices.DeleteFunc(fs, func(s Setting) bool { return s.Input != "" || s.Trust })
	}
	for g := range groupTitles {
		title := groupTitles[g]
		if c.name == "action" {
			title = "args: " + title
		}
		first := true
		for _, f := range fs {
			if f.Group != Group(g) {
				continue
			}
			if first {
				b.WriteString("\n" + title + ":\n")
				first = false
			}
			help := f.HelpOf(c.name)
			// The action's and gitlab's head come from the event (their
			// help says how).
			if f.Default != "" && !((c.name == "action" || c.name == "gitlab") && f.Flag == "head") {
				help += " (default " + f.Default + ")"
			}
			b.WriteString(flagLine(f.Spelling(), help, width))
		}
	}
	if c.name != "version" && c.name != "demo" {
		b.WriteString("\n")
		b.WriteString(exitLine(width))
	}
	return b.String()
}

// flagLine is one flag's (or input's) line of the help: the name, then the
// help from column helpCol, on the next lines when the name is longer.
func flagLine(name, help string, width int) string {
	const helpCol = 22
	indent := strings.Repeat(" ", helpCol)
	if len(name) > helpCol-4 {
		return "  " + name + "\n" + wrap(indent, help, indent, width)
	}
	return wrap(fmt.Sprintf("  %-*s", helpCol-2, name), help, indent, width)
}

// exitLine lists the exit statuses.
func exitLine(width int) string {
	var parts []string
	for _, e := range exitStatuses {
		parts = append(parts, fmt.Sprintf("%d %s", e.code, e.words))
	}
	return wrap("exit status:", strings.Join(parts, ", "), "  ", width)
}

// wrap fills text's words after first, continuing on lines that start
// with indent, at most width columns when the words allow.
func wrap(first, text, indent string, width int) string {
	var b strings.Builder
	line, empty := first, true // empty: no word on this line yet
	if strings.TrimSpace(first) != "" && !strings.HasSuffix(first, " ") {
		empty = false
	}
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
