package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// loginPattern matches a GitHub login (letters, digits and single hyphens,
// at most 39 characters) or an app's bot account, "NAME[bot]".
var loginPattern = regexp.MustCompile(`^[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}(?:\[bot\])?$`)

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
}

// Input is one action input: its name in action.yml and its default there.
type Input struct {
	Name, Default string
}

// Inputs are the action's inputs with action.yml's defaults; a test keeps
// the two in step. An input missing from the environment takes its default.
var Inputs = []Input{
	{"packages", "./..."},
	{"bench", "."},
	{"count", "10"},
	{"benchtime", "100ms"},
	{"runs", "5"},
	{"estimator", "median"},
	{"cpu", ""},
	{"threshold", ""},
	{"instructions-threshold", ""},
	{"measure", "time"},
	{"alpha", ""},
	{"base", ""},
	{"head", ""},
	{"working-directory", "."},
	{"token", ""},
	{"comment", "always"},
	{"comment-key", "benchgate"},
	{"comment-author", ""},
	{"fail-on", ""},
	{"allow-privileged-events", "false"},
	{"allow-pull-request-target", "false"}, // the old name of allow-privileged-events
	{"timeout", "10m"},
	{"seed", ""},
	{"correction", "holm"},
	{"test", "auto"},
	{"confirm", "true"},
	{"explain", "true"},
	{"max-time", ""},
	{"pin", "false"},
	{"env", ""},
	{"export", ""},
	{"mode", "gate"},
	{"shard", ""},
	{"merge", ""},
	{"pr-number", ""},
	{"policy", ""},
	{"accept-label", ""},
	{"accept-trailers", "false"},
}

// policySettable are the inputs (and flags) that the policy file's top
// level may set: action.yml gives them no default, so that an input left
// out does not override the file.
var policySettable = map[string]bool{"threshold": true, "instructions-threshold": true, "alpha": true, "fail-on": true}

// InputEnv is the environment variable the runner sets for input name:
// upper case, spaces to underscores, hyphens kept.
func InputEnv(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
}

// FromInputs builds the Config of `benchgate action` from INPUT_* variables.
// Every error names the input.
func FromInputs(getenv func(string) string) (*Config, *Action, error) {
	c := Defaults()
	c.Command = "action"
	c.Head = ""
	// The log shows the Markdown of the job summary and the comment.
	c.Format = "markdown"
	act := &Action{}
	for _, in := range Inputs {
		v, ok := strings.TrimSpace(getenv(InputEnv(in.Name))), true
		if v == "" {
			v, ok = in.Default, false
		}
		if ok {
			c.given(in.Name)
		}
		if in.Name == "fail-on" {
			c.FailOnSet = ok
		}
		if v == "" && policySettable[in.Name] {
			continue // the policy file's top level, or benchgate's default
		}
		if err := setInput(&c, act, in.Name, v); err != nil {
			return nil, nil, usagef("input %s: %q: %v", in.Name, v, err)
		}
	}
	if msg := c.measureConflict(); msg != "" {
		return nil, nil, usagef("inputs measure and max-time: %s", msg)
	}
	return &c, act, nil
}

func setInput(c *Config, a *Action, name, v string) error {
	var err error
	switch name {
	case "packages":
		list, affected, err := packages(v)
		if err != nil {
			return err
		}
		c.Affected = affected
		if !affected {
			c.Packages = list
		}
	case "bench":
		c.Bench = v
		if err := checkRegexp(v); err != nil {
			return err
		}
	case "count":
		err = positiveInt(v, &c.Count)
	case "benchtime":
		err = benchtime(v, &c.Benchtime)
	case "runs":
		err = positiveInt(v, &c.Runs)
	case "estimator":
		err = estimator(v, &c.Estimator)
	case "cpu":
		if v != "" {
			err = cpuList(v, &c.CPU)
		}
	case "threshold":
		err = threshold(v, &c.Threshold)
	case "instructions-threshold":
		err = threshold(v, &c.InstructionsThreshold)
	case "measure":
		err = measure(v, &c.Measure)
	case "alpha":
		err = alpha(v, &c.Alpha)
	case "base":
		c.Base = v
	case "head":
		c.Head = v
	case "working-directory":
		a.WorkingDirectory = v
	case "token":
		// Read from the environment when publishing, never kept here.
	case "comment":
		switch v {
		case "always", "on-change", "never":
			a.Comment = v
		default:
			return fmt.Errorf("want always, on-change or never")
		}
	case "comment-key":
		a.CommentKey = v
		for _, r := range v {
			if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return fmt.Errorf("want letters, digits, '-', '_' or '.'")
			}
		}
	case "fail-on":
		err = failOn(v, &c.FailOn)
	case "policy":
		// Empty: .benchgate.yml when the base commit has one. (The
		// runner sets every input that has a default, so a default here
		// could not be told from a file named on purpose.)
		if v != "" {
			c.Policy = v
		}
	case "accept-label":
		a.AcceptLabel = v
	case "allow-privileged-events", "allow-pull-request-target":
		allow, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		a.AllowPrivilegedEvents = a.AllowPrivilegedEvents || allow
	case "comment-author":
		// A GitHub login, or an app's "NAME[bot]".
		if v != "" && !loginPattern.MatchString(v) {
			return fmt.Errorf(`want a GitHub login, or an app's "NAME[bot]"`)
		}
		a.CommentAuthor = v
	case "timeout":
		err = positiveDuration(v, &c.Timeout)
	case "correction":
		err = correction(v, &c.Correction)
	case "test":
		err = timeTest(v, &c.Test)
	case "confirm":
		c.Confirm, err = strconv.ParseBool(v)
	case "accept-trailers":
		c.AcceptTrailers, err = strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
	case "explain":
		c.Explain, err = strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
	case "pin":
		c.Pin, err = strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
	case "env":
		// One name (or NAME=VALUE) a line, or names separated by commas
		// or spaces.
		for line := range strings.Lines(v) {
			if line = strings.TrimSpace(line); line != "" {
				if err := envList(line, &c.Env); err != nil {
					return err
				}
			}
		}
	case "export":
		// One FORMAT=FILE a line (FILE relative to the workspace).
		for line := range strings.Lines(v) {
			if line = strings.TrimSpace(line); line != "" {
				if err := exportTarget(line, &c.Exports); err != nil {
					return err
				}
			}
		}
	case "max-time":
		if v != "" {
			err = positiveDuration(v, &c.MaxTime)
		}
	case "mode":
		switch v {
		case "gate", "calibrate", "merge":
			a.Mode = v
		default:
			return fmt.Errorf("want gate, calibrate or merge")
		}
	case "shard":
		if v != "" {
			err = shardSpec(v, &c.Shard)
		}
	case "pr-number":
		if v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("want a pull request number")
			}
			a.PRNumber = n
		}
	case "merge":
		if v != "" {
			c.MergeDirs = strings.Fields(v)
		}
	case "seed":
		if v != "" {
			c.Seed, err = strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("not a whole number")
			}
			c.SeedSet = true
		}
	}
	return err
}
