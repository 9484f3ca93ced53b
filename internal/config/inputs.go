package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/internal/policy"
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
	// History keeps the default branch's ledger on HistoryBranch (the
	// history input): pushes to the default branch record, other runs
	// read.
	History       bool
	HistoryBranch string
	// Deprecated are the old inputs the workflow still sets, each with
	// what replaces it: read for one more release, said in the job
	// summary and on stderr.
	Deprecated []DeprecatedInput
}

// InputEnv is the environment variable the runner sets for input name:
// upper case, spaces to underscores, hyphens kept.
func InputEnv(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
}

// defaultHistoryBranch is the data branch of the old history: true.
const defaultHistoryBranch = "benchgate-data"

// FromInputs builds the Config of `benchgate action` from INPUT_* variables:
// the named inputs (action.yml's), each read by its flag's parser (or the
// input's own); the old inputs of the last release, read the same way and
// listed in Action.Deprecated; then the args input, benchgate's flags as
// words (ParseArgs). An input missing from the environment takes its
// default; an input at its default leaves the setting to the event, the
// policy file or benchgate's default. Every error names the input:
// `input NAME: "VALUE": reason`, `input args: --flag …`.
func FromInputs(getenv func(string) string) (*Config, *Action, error) {
	c := Defaults()
	c.Command = "action"
	c.Head = ""
	// The log shows the Markdown of the job summary and the comment.
	c.Format = "markdown"
	act := &c.Action
	for _, s := range Settings {
		if s.act != nil && s.Flag != "" && s.Default != "" {
			// An action setting only args sets (comment-key).
			if err := s.act(act, s.Default); err != nil {
				return nil, nil, err
			}
		}
	}
	// set is where each setting came from, for the conflicts with args.
	set := map[string]string{}
	for _, s := range Settings {
		if s.Input == "" || s.Input == "args" {
			continue
		}
		v := strings.TrimSpace(getenv(InputEnv(s.Input)))
		if v == "" {
			v = s.InputDefault
		} else if v != s.InputDefault {
			c.given(s.Input)
			if s.Flag != "" {
				set[s.Flag] = "input " + s.Input
			}
		}
		if v == "" {
			continue
		}
		if err := apply(s, &c, v); err != nil {
			return nil, nil, usagef("input %s: %q: %v", s.Input, v, err)
		}
	}
	if err := readDeprecated(getenv, &c, set); err != nil {
		return nil, nil, err
	}
	if err := ParseArgs(getenv(InputEnv("args")), &c, set); err != nil {
		return nil, nil, err
	}
	if msg := c.measureConflict(); msg != "" {
		return nil, nil, usagef("input args: %s", msg)
	}
	return &c, act, nil
}

// apply sets s from the value v.
func apply(s Setting, c *Config, v string) error {
	if s.act != nil {
		return s.act(&c.Action, v)
	}
	return s.set(c, v)
}

// DeprecatedInput is an action input of the last release that a workflow
// still sets: read as before for one more release, and replaced by Use, as
// the workflow would write it ("args: --count 12", "history:
// benchgate-data").
type DeprecatedInput struct {
	Input, Use string
}

// readDeprecated reads the inputs action.yml no longer has: every flag the
// args input takes was an input of the same name (count, fail-on, …),
// plus history: true with history-branch, and allow-pull-request-target.
// The runner still passes them (with a warning of its own); each is read
// as before and listed with its replacement.
func readDeprecated(getenv func(string) string, c *Config, set map[string]string) error {
	act := &c.Action
	note := func(input, use string) {
		act.Deprecated = append(act.Deprecated, DeprecatedInput{Input: input, Use: use})
	}
	for _, s := range Settings {
		if s.Input != "" || !s.appliesTo("action") {
			continue
		}
		v := strings.TrimSpace(getenv(InputEnv(s.Flag)))
		if v == "" {
			continue
		}
		if err := apply(s, c, v); err != nil {
			return usagef("input %s: %q: %v", s.Flag, v, err)
		}
		c.given(s.Flag)
		set[s.Flag] = "input " + s.Flag
		var words []string
		for line := range strings.Lines(v) {
			if line = strings.TrimSpace(line); line != "" {
				words = append(words, argSpelling(s, line))
			}
		}
		note(s.Flag, "args: "+strings.Join(words, " "))
	}
	branch := strings.TrimSpace(getenv(InputEnv("history-branch")))
	if branch != "" {
		if err := branchName(branch); err != nil {
			return usagef("input history-branch: %q: %v", branch, err)
		}
	}
	switch h := strings.TrimSpace(getenv(InputEnv("history"))); h {
	case "true":
		act.History, act.HistoryBranch = true, cmpOr(branch, defaultHistoryBranch)
		note("history", "history: "+act.HistoryBranch)
	case "false":
		act.History, act.HistoryBranch = false, ""
		note("history", "no history input (no history is the default)")
	default:
		if branch != "" {
			note("history-branch", "history: "+cmpOr(act.HistoryBranch, branch))
		}
	}
	if v := strings.TrimSpace(getenv(InputEnv("allow-pull-request-target"))); v != "" {
		if err := allowPrivileged(act, v); err != nil {
			return usagef("input allow-pull-request-target: %q: %v", v, err)
		}
		note("allow-pull-request-target", "allow-privileged-events: "+v)
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// argSpelling is how a flag's value is written in args: --count 12,
// --confirm=false, --bench 'A|B'.
func argSpelling(s Setting, v string) string {
	if s.Arg == "" {
		return "--" + s.Flag + "=" + v
	}
	return "--" + s.Flag + " " + shellQuote(v)
}

// shellQuote quotes v for args when it holds anything but plain
// characters.
func shellQuote(v string) string {
	if v != "" && strings.IndexFunc(v, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./,:=%+@", r))
	}) < 0 {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

// argsRefusal says why a flag benchgate has is not taken in the args
// input: it does not apply in the action (with what does instead), or it
// is a trust setting.
func argsRefusal(s Setting) string {
	switch {
	case s.Trust && s.Input != "":
		return fmt.Sprintf("%s is a trust setting: set it with the input %s, where it shows in the workflow file (args may be built from values a pull request controls)", dashes(s.Flag), s.Input)
	case s.Flag == "C":
		return "-C does not apply in the action: use the working-directory input"
	case s.Flag == "ledger" || s.Flag == "record":
		return dashes(s.Flag) + " does not apply in the action: the history input keeps the ledger"
	case s.Flag == "accept":
		return "--accept does not apply in the action: accept regressions with the accept-label input or a rule of the policy file (docs/policy.md)"
	case s.Flag == "json" || s.Flag == "markdown" || s.Flag == "format" || s.Flag == "out" || s.Flag == "quiet" || s.Flag == "verbose":
		return dashes(s.Flag) + " does not apply in the action: it writes the job summary, the comment and " + reportJSONName
	}
	return fmt.Sprintf("%s does not apply in the action (a flag of %s)", dashes(s.Flag), strings.Join(s.Commands, ", "))
}

// reportJSONName is the action's JSON report (cli.ReportJSON).
const reportJSONName = "benchgate-report.json"

// ParseArgs reads the args input: benchgate's flags as words (SplitArgs),
// each read by its flag's parser into c. It refuses what does not apply
// in the action, the trust settings, positional words, --env NAME without
// a value (a step's variable by name: a secret could reach the
// benchmarks), and a setting that an input (set[flag], named or old)
// already gives.
func ParseArgs(args string, c *Config, set map[string]string) error {
	words, err := SplitArgs(args)
	if err != nil {
		return usagef("input args: %v", err)
	}
	if len(words) == 0 {
		return nil
	}
	fs := flag.NewFlagSet("args", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	raw := map[string]string{}
	var taken []Setting
	for _, f := range flagsOf("action") {
		if f.Trust {
			continue
		}
		if f.Flag == "env" {
			f.set = func(c *Config, s string) error {
				if !strings.Contains(s, "=") {
					return errors.New("args sets a variable as NAME=VALUE only (no variable of the step reaches the benchmarks by name: a secret could)")
				}
				return envList(s, &c.Env)
			}
		}
		taken = append(taken, f)
	}
	register(fs, taken, c, raw)
	if err := fs.Parse(words); err != nil {
		return usagef("input args: %s", argsFlagError(err))
	}
	if rest := fs.Args(); len(rest) > 0 {
		return usagef("input args: %q is not a flag: args takes flags only (benchgate action -h lists them)", rest[0])
	}
	for name := range raw {
		if from, ok := set[name]; ok {
			return usagef("input args: %s: %s sets it already; give it once", dashes(name), from)
		}
		c.given(name)
	}
	return nil
}

// argsFlagError words the flag package's error for the args input.
func argsFlagError(err error) string {
	msg := flagError("action", err).Error()
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return msg
	}
	name, _, _ = strings.Cut(strings.TrimPrefix(name, "-"), "=")
	for _, s := range Settings {
		switch {
		case s.Flag == name && (s.Trust || !s.appliesTo("action")):
			return argsRefusal(s)
		case s.Flag == "" && s.Input == name:
			return fmt.Sprintf("--%s is not a flag: set it with the input %s", name, name)
		}
	}
	var names []string
	for _, f := range flagsOf("action") {
		if !f.Trust {
			names = append(names, f.Flag)
		}
	}
	if near := policy.Suggest(name, names); near != "" {
		return fmt.Sprintf("unknown flag %s: did you mean %s? (benchgate action -h lists the flags args takes)", dashes(name), dashes(near))
	}
	return fmt.Sprintf("unknown flag %s (benchgate action -h lists the flags args takes)", dashes(name))
}

// SplitArgs splits the args input into words as a POSIX shell splits a
// command line, without expanding anything: words are separated by spaces,
// tabs and newlines; '…' keeps everything literally; "…" keeps everything
// but \", \\ and \$ (the backslash quotes them); a backslash outside
// quotes quotes the next character; # at the start of a word starts a
// comment to the end of the line. $VARIABLE, $(command) and `command`
// would be expanded by a shell, so they are refused: nothing runs them.
func SplitArgs(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
		case r == '\\':
			inWord = true
			if i+1 < len(rs) {
				i++
				if rs[i] != '\n' {
					w.WriteRune(rs[i])
				}
			}
		case r == '\'':
			inWord = true
			j := slices.Index(rs[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("a ' quote is not closed")
			}
			w.WriteString(string(rs[i+1 : i+1+j]))
			i += j + 1
		case r == '"':
			inWord = true
			i++
			for ; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' && i+1 < len(rs) && strings.ContainsRune(`"\$`+"`", rs[i+1]) {
					i++
				} else if err := expansion(rs, i); err != nil {
					return nil, err
				}
				w.WriteRune(rs[i])
			}
			if i == len(rs) {
				return nil, errors.New(`a " quote is not closed`)
			}
		default:
			if err := expansion(rs, i); err != nil {
				return nil, err
			}
			inWord = true
			w.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// expansion refuses what a shell would expand at rs[i]: `…`, $NAME,
// ${…} and $(…). A $ before anything else ("Encode$", "$|") is a
// character.
func expansion(rs []rune, i int) error {
	switch {
	case rs[i] == '`':
		return errors.New("` would run a command in a shell; args runs nothing (quote it with '…' to mean the character)")
	case rs[i] == '$' && i+1 < len(rs) && (rs[i+1] == '{' || rs[i+1] == '(' || rs[i+1] == '_' || rs[i+1] >= 'A' && rs[i+1] <= 'Z' || rs[i+1] >= 'a' && rs[i+1] <= 'z'):
		return fmt.Errorf("%s would be expanded by a shell; args expands nothing: write the value (a workflow expression ${{ … }} is expanded before benchgate sees it), or quote it with '…' to mean the characters", string(rs[i:min(len(rs), i+2)])+"…")
	}
	return nil
}
