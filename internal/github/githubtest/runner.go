package githubtest

import (
	"strings"
)

// Command is a workflow command the runner would act on.
type Command struct {
	Name string // e.g. "error", "add-mask", "set-output"
	Line string // the whole log line
	// Resumed: the line came right after the one that resumed command
	// processing, as every command benchgate's guarded log emits does.
	Resumed bool
}

// runnerCommands are the commands the runner registers (actions/runner,
// ActionCommandManager and its extensions), including the deprecated ones
// it still parses.
var runnerCommands = map[string]bool{
	"set-env": true, "set-output": true, "save-state": true, "add-path": true,
	"add-mask": true, "add-matcher": true, "remove-matcher": true,
	"warning": true, "error": true, "notice": true, "debug": true,
	"group": true, "endgroup": true, "echo": true,
	"stop-commands": true, "internal-set-repo-path": true,
}

// RunnerCommands parses a step's log as the GitHub Actions runner does and
// returns the commands it would run: a line is a command if, after leading
// white space, it starts "::NAME" ("::NAME::data" or "::NAME k=v::data",
// the v2 form), or if it contains "##[NAME" and a later "]" anywhere (the
// v1 form), with NAME registered. "::stop-commands::TOKEN" stops all
// processing until a line whose command is TOKEN (either form, any case).
// Standard output and standard error go through the same state; pass them
// interleaved as the runner received them.
func RunnerCommands(log string) []Command {
	var out []Command
	stopped, token, resumed := false, "", false
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimRight(line, "\r")
		name, ok := parse(line, stopped, token)
		after := resumed
		resumed = false
		if !ok {
			continue
		}
		if stopped {
			if strings.EqualFold(name, token) {
				stopped, token, resumed = false, "", true
			}
			continue
		}
		out = append(out, Command{Name: name, Line: line, Resumed: after})
		if name == "stop-commands" {
			if data := v2Data(line); data != "" {
				stopped, token = true, data
			}
		}
	}
	return out
}

// parse finds the command name of line, if the runner would see one.
func parse(line string, stopped bool, token string) (string, bool) {
	registered := func(n string) bool {
		return runnerCommands[strings.ToLower(n)] || stopped && strings.EqualFold(n, token)
	}
	// v2: "::command args::data", after leading white space.
	if t := strings.TrimLeft(line, " \t"); strings.HasPrefix(t, "::") {
		if end := strings.Index(t[2:], "::"); end >= 0 {
			info := t[2 : 2+end]
			name, _, _ := strings.Cut(info, " ")
			if registered(name) {
				return strings.ToLower(name), true
			}
		}
	}
	// v1: "##[command args]data" anywhere in the line.
	if i := strings.Index(line, "##["); i >= 0 {
		rest := line[i+3:]
		if j := strings.IndexByte(rest, ']'); j >= 0 {
			name, _, _ := strings.Cut(rest[:j], " ")
			if registered(name) {
				return strings.ToLower(name), true
			}
		}
	}
	return "", false
}

// v2Data is the data part of a v2 command line.
func v2Data(line string) string {
	t := strings.TrimLeft(line, " \t")
	if end := strings.Index(t[2:], "::"); end >= 0 {
		return t[2+end+2:]
	}
	return ""
}
