package config

import (
	"strings"
)

// Action holds the settings that only the GitHub Action has.
type Action struct {
	Comment    string // always, on-change, never
	CommentKey string
	// CommentAuthor is the login that owns the sticky comment ("" means
	// github-actions[bot], GITHUB_TOKEN's author). The token input is not
	// here: the action reads it from the environment only when publishing.
	CommentAuthor    string
	WorkingDirectory string
	// AllowPrivilegedEvents is allow-privileged-events, or its old name
	// allow-pull-request-target: run code on events that give it secrets.
	AllowPrivilegedEvents bool
	Mode                  string // gate, calibrate or merge
	PRNumber              int    // comment on this pull request (a workflow_run job); 0: from the event
	// AcceptLabel is a pull request label that accepts every regression
	// of the commit it was added for ("" for none): reported, not gated.
	AcceptLabel string
	// History keeps the default branch's ledger on HistoryBranch: pushes
	// to the default branch record, other runs read.
	History       bool
	HistoryBranch string
}

// InputEnv is the environment variable the runner sets for input name:
// upper case, spaces to underscores, hyphens kept.
func InputEnv(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
}

// FromInputs builds the Config of `benchgate action` from INPUT_* variables,
// each read by its flag's parser (or the input's own). An input missing
// from the environment takes its default; an empty value leaves the
// setting to the event, the policy file or benchgate's default. Every
// error names the input: `input NAME: "VALUE": reason`.
func FromInputs(getenv func(string) string) (*Config, *Action, error) {
	c := Defaults()
	c.Command = "action"
	c.Head = ""
	// The log shows the Markdown of the job summary and the comment.
	c.Format = "markdown"
	act := &Action{}
	for _, s := range Settings {
		if s.Input == "" {
			continue
		}
		v, ok := strings.TrimSpace(getenv(InputEnv(s.Input))), true
		if v == "" {
			v, ok = s.InputDefault, false
		}
		if ok {
			c.given(s.Input)
		}
		if v == "" {
			continue
		}
		var err error
		if s.act != nil {
			err = s.act(act, v)
		} else {
			err = s.set(&c, v)
		}
		if err != nil {
			return nil, nil, usagef("input %s: %q: %v", s.Input, v, err)
		}
	}
	if msg := c.measureConflict(); msg != "" {
		return nil, nil, usagef("inputs measure and max-time: %s", msg)
	}
	return &c, act, nil
}
