package config

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Reference is docs/reference.md: the commands, every flag, every action
// input and the exit statuses, written from Settings (go generate
// ./internal/config writes the file; a test keeps it current).
func Reference() []byte {
	var b bytes.Buffer
	b.WriteString(`# Reference: commands, flags, action inputs, exit status

<!-- Generated from internal/config/settings.go by go generate ./internal/config. Do not edit. -->

` + "`benchgate COMMAND -h`" + ` prints a command's flags, grouped, with their defaults;
` + "`benchgate -h`" + ` the commands. A command refuses a flag it does not take, naming
it. A flag may come before, after or between the positional arguments, with
one or two dashes; a boolean flag is given alone (` + "`--pin`" + `) or with a value
(` + "`--confirm=false`" + `).

## Commands

| command | what it does | flags |
|---|---|---|
`)
	for _, c := range commands {
		var names []string
		for _, f := range flagsOf(c.name) {
			if c.name == "action" && (f.Input != "" || f.Trust) {
				continue
			}
			names = append(names, "`"+dashes(f.Flag)+"`")
		}
		flags := strings.Join(names, ", ")
		switch {
		case c.name == "action":
			flags = "none on its command line: the [inputs](#action-inputs); the `args` input takes " + flags
		case flags == "":
			flags = "none"
		}
		var syn []string
		for _, s := range c.synopses {
			syn = append(syn, "`"+s+"`")
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(strings.Join(syn, " or ")), cell(c.help), flags)
	}

	b.WriteString(`
## Flags

| flag | meaning | default | commands | in the action |
|---|---|---|---|---|
`)
	for _, f := range Flags {
		in := ""
		switch {
		case f.Input != "":
			in = "input `" + f.Input + "`"
		case f.appliesTo("action"):
			in = "`args`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", f.Spelling(), cell(f.Help), code(f.Default), strings.Join(slices.DeleteFunc(slices.Clone(f.Commands), func(c string) bool { return c == "action" }), ", "), in)
	}

	b.WriteString(`
## Action inputs

The runner passes every input to the container as ` + "`INPUT_<NAME>`" + ` (upper case,
hyphens kept: ` + "`INPUT_ACCEPT-LABEL`" + `); an input the workflow leaves out has the
default below. An input refuses a value in its flag's words:
` + "`input threshold: \"0.05\": ambiguous: …`" + `. Every other flag the action takes
goes in ` + "`args`" + `, as on the command line; the settings marked *trust* decide
whom benchgate trusts or where its token writes, and are read from their
input only, never from ` + "`args`" + `.

| input | meaning | default | flag |
|---|---|---|---|
`)
	for _, s := range Settings {
		if s.Input == "" {
			continue
		}
		flag := ""
		if s.Flag != "" {
			flag = "`" + dashes(s.Flag) + "`"
		}
		help := cell(s.InputHelp())
		if s.Trust {
			help += " *Trust: this input only, never args.*"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", s.Input, help, code(s.InputDefault), flag)
	}

	b.WriteString(`
### Old inputs

The inputs of the last release that are now flags of ` + "`args`" + ` (or one input
instead of two) are still read, for one release: the job summary and the log
say what replaces each.

| old input | now |
|---|---|
`)
	// The old inputs that the policy file's top level also sets.
	inPolicy := map[string]string{"alpha": "alpha: P", "fail-on": "fail-on: LIST", "instructions-threshold": "instructions: {threshold: PCT}"}
	for _, s := range Settings {
		if s.Input == "" && s.appliesTo("action") {
			now := "`args: " + s.Spelling() + "`"
			switch {
			case s.Arg == "":
				now = "`args: --" + s.Flag + "=true|false`"
			case s.Flag == "env":
				now = "`args: --env NAME=VALUE`"
			}
			if k, ok := inPolicy[s.Flag]; ok {
				now += ", or `" + k + "` in .benchgate.yml"
			}
			fmt.Fprintf(&b, "| `%s` | %s |\n", s.Flag, cell(now))
		}
	}
	b.WriteString("| `history: true`, `history-branch: NAME` | `history: NAME` (default name `" + defaultHistoryBranch + "`); `history: false`: leave it out |\n")
	b.WriteString("| `allow-pull-request-target` | `allow-privileged-events` |\n")

	b.WriteString(`
## Exit status

| status | meaning |
|---|---|
`)
	for _, e := range exitStatuses {
		fmt.Fprintf(&b, "| %d | %s |\n", e.code, cell(e.more))
	}
	b.WriteString(`
Every error is one line on stderr naming the flag, input, ref, file (with
` + "`file:line`" + ` for benchmark-format and policy errors) or package at fault.
`)
	return b.Bytes()
}

// dashes is how a flag's name is typed: "--count", "-C".
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// code is a default in a code span; "" for none.
func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

// cell escapes text for a Markdown table cell: the pipe ends the cell,
// "<" could open HTML, "*" emphasis.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", "*", `\*`).Replace(s)
}

// ActionInputs returns action.yml with its inputs block, from the line
// "inputs:" to the next top-level key, written from Settings; the rest of
// the file is kept as it is.
func ActionInputs(actionYML []byte) ([]byte, error) {
	start := bytes.Index(actionYML, []byte("\ninputs:\n"))
	if start < 0 {
		return nil, errors.New(`no line "inputs:"`)
	}
	start++
	end := len(actionYML)
	for i := start + len("inputs:\n"); i < len(actionYML); {
		line, _, _ := bytes.Cut(actionYML[i:], []byte("\n"))
		if len(line) > 0 && line[0] != ' ' && line[0] != '#' {
			end = i
			break
		}
		i += len(line) + 1
	}
	var b bytes.Buffer
	b.Write(actionYML[:start])
	b.WriteString("inputs:\n")
	for _, s := range Settings {
		if s.Input == "" {
			continue
		}
		fmt.Fprintf(&b, "  %s:\n    description: >-\n", s.Input)
		b.WriteString(wrap("      ", s.InputHelp(), "      ", 80))
		fmt.Fprintf(&b, "    default: %s\n", strconv.Quote(s.InputDefault))
	}
	b.WriteString("\n")
	b.Write(actionYML[end:])
	return b.Bytes(), nil
}
