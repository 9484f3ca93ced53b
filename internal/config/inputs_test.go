package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func getenvFrom(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// runnerEnv is what the runner passes: every input of action.yml, the
// workflow's value or else the default, and the workflow's other with:
// keys as they are (the old inputs).
func runnerEnv(with map[string]string) func(string) string {
	env := map[string]string{}
	for _, in := range Inputs {
		env[InputEnv(in.Name)] = in.Default
	}
	for k, v := range with {
		env[InputEnv(k)] = v
	}
	return getenvFrom(env)
}

// The action has at most 15 inputs, the dozen a workflow author sets and
// args; the rest are flags of args.
func TestAtMost15Inputs(t *testing.T) {
	var names []string
	for _, in := range Inputs {
		names = append(names, in.Name)
	}
	if len(names) > 15 || !slices.Contains(names, "args") {
		t.Errorf("%d inputs %q: want at most 15, with args", len(names), names)
	}
	for _, want := range []string{"token", "working-directory", "packages", "bench", "threshold", "comment", "accept-label", "history"} {
		if !slices.Contains(names, want) {
			t.Errorf("no input %s", want)
		}
	}
	// A default that benchgate has is written in action.yml.
	for _, s := range Settings {
		if s.Input != "" && s.Flag != "" && s.InputDefault != s.Default {
			t.Errorf("input %s: action.yml says %q, benchgate's default is %q", s.Input, s.InputDefault, s.Default)
		}
	}
}

func TestFromInputsDefaults(t *testing.T) {
	for name, getenv := range map[string]func(string) string{"nothing set": getenvFrom(nil), "as the runner sets them": runnerEnv(nil)} {
		c, a, err := FromInputs(getenv)
		if err != nil {
			t.Fatal(err)
		}
		want := Defaults()
		want.Command = "action"
		want.Head = ""
		want.Format = "markdown"
		want.Action = Action{Comment: "always", CommentKey: "benchgate", WorkingDirectory: ".", Mode: "gate"}
		if diff := cmp.Diff(&want, c); diff != "" {
			t.Errorf("%s: config (-want +got):\n%s", name, diff)
		}
		if a != &c.Action {
			t.Errorf("the Action is not the Config's")
		}
	}
}

func TestFromInputs(t *testing.T) {
	c, a, err := FromInputs(runnerEnv(map[string]string{
		"packages": "./a/... ./b", "threshold": "3%", "comment": "on-change", "token": "t", "mode": "calibrate",
		"history": "perf/ledger", "allow-privileged-events": "true",
		"args": "--count 12 --comment-key linux-amd64\n--max-time 20m --confirm=false\t--correction bh --cpu 1,4",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Count != 12 || c.Threshold != 0.03 || c.MaxTime != 20*time.Minute || c.Confirm || c.Correction != "bh" ||
		!cmp.Equal(c.Packages, []string{"./a/...", "./b"}) || !cmp.Equal(c.CPU, []int{1, 4}) {
		t.Errorf("config: %+v", c)
	}
	if a.CommentKey != "linux-amd64" || a.Comment != "on-change" || !a.AllowPrivilegedEvents || a.Mode != "calibrate" ||
		!a.History || a.HistoryBranch != "perf/ledger" || len(a.Deprecated) != 0 {
		t.Errorf("action: %+v", a)
	}
	for _, bad := range []string{"a b", "-x", "a..b", "x.lock", "a:b", "a/", "a@{1}"} {
		_, _, err := FromInputs(getenvFrom(map[string]string{"INPUT_HISTORY": bad}))
		if err == nil || !strings.Contains(err.Error(), "input history: ") || !strings.Contains(err.Error(), "not a valid branch name") {
			t.Errorf("history %q: %v, want an error naming the input", bad, err)
		}
	}
}

// comment-author takes a login or an app's bot; the token input is read
// only when publishing, so FromInputs does not keep it.
func TestFromInputsActionSettings(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want Action
	}{
		{map[string]string{"INPUT_ALLOW-PRIVILEGED-EVENTS": "true"}, Action{AllowPrivilegedEvents: true}},
		{map[string]string{"INPUT_COMMENT-AUTHOR": "my-app[bot]", "INPUT_TOKEN": "ghp_x"}, Action{CommentAuthor: "my-app[bot]"}},
		{map[string]string{"INPUT_COMMENT-AUTHOR": " octo-cat "}, Action{CommentAuthor: "octo-cat"}},
		{map[string]string{"INPUT_HISTORY": "benchgate-data"}, Action{History: true, HistoryBranch: "benchgate-data"}},
		{map[string]string{"INPUT_PR-NUMBER": "12"}, Action{PRNumber: 12}},
	}
	for _, tt := range tests {
		_, a, err := FromInputs(getenvFrom(tt.env))
		if err != nil {
			t.Errorf("%v: %v", tt.env, err)
			continue
		}
		tt.want.Comment, tt.want.CommentKey, tt.want.WorkingDirectory, tt.want.Mode = "always", "benchgate", ".", "gate"
		if diff := cmp.Diff(&tt.want, a); diff != "" {
			t.Errorf("%v: action (-want +got):\n%s", tt.env, diff)
		}
	}
	for _, bad := range []string{"a--b", "-a", "a-", "[bot]", "a[bot][bot]", "x/y", strings.Repeat("a", 40)} {
		if _, _, err := FromInputs(getenvFrom(map[string]string{"INPUT_COMMENT-AUTHOR": bad})); err == nil {
			t.Errorf("comment-author %q accepted", bad)
		}
	}
}

func TestFromInputsBad(t *testing.T) {
	for _, tc := range []struct{ env, val, want string }{
		{"INPUT_THRESHOLD", "abc", `input threshold: "abc": want a percentage`},
		{"INPUT_COMMENT", "sometimes", `input comment: "sometimes": want always, on-change or never`},
		{"INPUT_ALLOW-PRIVILEGED-EVENTS", "1 please", `input allow-privileged-events: "1 please": want true or false`},
		{"INPUT_ACCEPT-TRAILERS", "on", `input accept-trailers: "on": want true or false`},
		{"INPUT_COMMENT-AUTHOR", "@mona", `input comment-author: "@mona": want a GitHub login, or an app's "NAME[bot]"`},
		{"INPUT_BENCH", "(", `input bench: "(": `},
		{"INPUT_PACKAGES", "-exec=x", `input packages: "-exec=x": package pattern "-exec=x" looks like a flag`},
		{"INPUT_MODE", "fast", `input mode: "fast": want gate, calibrate or merge`},
		{"INPUT_PR-NUMBER", "seven", `input pr-number: "seven": want a pull request number`},
		{"INPUT_ARGS", "--count 0", `input args: --count "0": must be at least 1`},
		{"INPUT_ARGS", "--comment-key 'a b'", `input args: --comment-key "a b": want letters`},
		{"INPUT_ARGS", "--fail-on speed", `input args: --fail-on "speed": unknown kind "speed"`},
		{"INPUT_ARGS", "--measure cycles", `input args: --measure "cycles": unknown measure "cycles"`},
		{"INPUT_ARGS", "--measure instructions --max-time 10m", `input args: --max-time adds timed rounds, and --measure instructions measures no time`},
		// What args refuses, in one line naming the flag.
		{"INPUT_ARGS", "--treshold 5%", `input args: unknown flag --treshold: did you mean --threshold? (benchgate action -h lists the flags args takes)`},
		{"INPUT_ARGS", "--accept-trailers", `input args: --accept-trailers is a trust setting: set it with the input accept-trailers`},
		{"INPUT_ARGS", "--allow-privileged-events", `input args: --allow-privileged-events is not a flag: set it with the input allow-privileged-events`},
		{"INPUT_ARGS", "--accept-label=ok", `input args: --accept-label is not a flag: set it with the input accept-label`},
		{"INPUT_ARGS", "--pr-number 3", `input args: --pr-number is not a flag: set it with the input pr-number`},
		{"INPUT_ARGS", "-C sub", `input args: -C does not apply in the action: use the working-directory input`},
		{"INPUT_ARGS", "--json r.json", `input args: --json does not apply in the action: it writes the job summary, the comment and benchgate-report.json`},
		{"INPUT_ARGS", "--record", `input args: --record does not apply in the action: the history input keeps the ledger`},
		{"INPUT_ARGS", "--accept Encode", `input args: --accept does not apply in the action`},
		{"INPUT_ARGS", "--good v1", `input args: --good does not apply in the action (a flag of bisect)`},
		{"INPUT_ARGS", "./...", `input args: "./..." is not a flag: args takes flags only`},
		{"INPUT_ARGS", "--bench 'A", `input args: a ' quote is not closed`},
		{"INPUT_ARGS", `--bench "A`, `input args: a " quote is not closed`},
		{"INPUT_ARGS", "--bench $BENCH", `input args: $B… would be expanded by a shell; args expands nothing`},
		{"INPUT_ARGS", "--bench \"$(touch x)\"", `input args: $(… would be expanded by a shell`},
		{"INPUT_ARGS", "--bench `touch x`", "input args: ` would run a command in a shell; args runs nothing"},
		{"INPUT_ARGS", "--count", `input args: --count needs a value`},
	} {
		_, _, err := FromInputs(getenvFrom(map[string]string{tc.env: tc.val}))
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%q: err = %v, want one usage line containing %q", tc.env, tc.val, err, tc.want)
		}
	}
}

// SplitArgs splits as a shell does, quotes and comments included, and
// expands nothing.
func TestSplitArgs(t *testing.T) {
	for in, want := range map[string][]string{
		"":                                   nil,
		"  \n\t ":                            nil,
		"--count 5 --bench 'A|B'":            {"--count", "5", "--bench", "A|B"},
		`--bench "Encode$" --env 'X=a b'`:    {"--bench", "Encode$", "--env", "X=a b"},
		`--bench ^Foo$|Bar\ Baz`:             {"--bench", "^Foo$|Bar Baz"},
		`--env "A=say \"hi\"" --env B=\$x`:   {"--env", `A=say "hi"`, "--env", "B=$x"},
		"--count 5 # rounds\n--benchtime 1s": {"--count", "5", "--benchtime", "1s"},
		"--bench a#b":                        {"--bench", "a#b"},
		"--env 'A=$HOME'":                    {"--env", "A=$HOME"},
		"--bench ''":                         {"--bench", ""},
		"--count \\\n5":                      {"--count", "5"},
	} {
		got, err := SplitArgs(in)
		if err != nil || !cmp.Equal(got, want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// An input refuses a bad value in its flag's words: `input NAME: "VALUE":`
// or `input args: --NAME "VALUE":` then what --NAME says after `--NAME
// "VALUE":`.
func TestInputErrorsAreFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name, value, want string
	}{
		{"confirm", "maybe", "want true or false"},
		{"explain", "yes please", "want true or false"},
		{"pin", "2", "want true or false"},
		{"accept-trailers", "on", "want true or false"},
		{"count", "ten", "not a whole number"},
		{"runs", "0", "must be at least 1"},
		{"seed", "x", "not a whole number"},
		{"timeout", "-1s", "must be positive"},
		{"max-time", "soon", "not a duration such as 30s or 10m"},
		{"benchtime", "0x", "want a duration such as 100ms or an iteration count such as 500x"},
		{"threshold", "0.05", "ambiguous: write 0.05% for 0.05 percent, or 5% for a fraction of 0.05"},
		{"alpha", "1", "must be between 0 and 1, exclusive"},
		{"cpu", "1,,2", `want a comma-separated list of positive numbers such as 1,2,4, got ""`},
		{"correction", "bonferroni", "want holm, bh or none"},
		{"test", "t", "want auto, paired or utest"},
		{"estimator", "max", "want median, min, p25 or mean"},
		{"shard", "3/2", ""},
		{"bench", "(", "invalid regular expression: missing closing ): `(`"},
		{"packages", "affected ./x", "affected cannot be combined with package patterns"},
		{"export", "csv=x.csv", ""},
		{"env", "BAD-NAME=1", ""},
	} {
		var flag *Setting
		for i, s := range Flags {
			if s.Flag == tc.name {
				flag = &Flags[i]
			}
		}
		if flag == nil {
			t.Errorf("no flag %s", tc.name)
			continue
		}
		_, ferr := Parse([]string{"run", "--base", "main", "--" + flag.Flag + "=" + tc.value})
		var ierr error
		want := ""
		if flag.Input != "" {
			_, _, ierr = FromInputs(getenvFrom(map[string]string{InputEnv(flag.Input): tc.value}))
			want = fmt.Sprintf("input %s: %q: ", flag.Input, tc.value)
		} else {
			_, _, ierr = FromInputs(getenvFrom(map[string]string{"INPUT_ARGS": "--" + flag.Flag + "=" + shellQuote(tc.value)}))
			want = fmt.Sprintf("input args: --%s %q: ", flag.Flag, tc.value)
		}
		if ferr == nil || ierr == nil {
			t.Errorf("%s %q: flag error %v, input error %v", tc.name, tc.value, ferr, ierr)
			continue
		}
		reason, ok := strings.CutPrefix(ferr.Error(), fmt.Sprintf("--%s %q: ", flag.Flag, tc.value))
		if !ok || tc.want != "" && reason != tc.want {
			t.Errorf("%s %q: flag error %q, want --%s %q: %s", tc.name, tc.value, ferr, flag.Flag, tc.value, tc.want)
		}
		if want += reason; ierr.Error() != want {
			t.Errorf("input error %q, want %q", ierr, want)
		}
		var ue *UsageError
		if !errors.As(ierr, &ue) {
			t.Errorf("input %s: %T is not a UsageError", tc.name, ierr)
		}
	}
}

// Every flag args takes is read by the flag's parser: what args sets is
// what the flag sets. The old inputs of the same names set the same, and
// each says what replaces it.
func TestArgsSetWhatFlagsSet(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"confirm", "false"}, {"explain", "false"}, {"pin", "true"}, {"count", "7"}, {"benchtime", "3x"},
		{"seed", "42"}, {"cpu", "1,4"}, {"packages", "affected"}, {"packages", "./a,./b"},
		{"env", "B=c d"}, {"export", "bencher=a.json"}, {"measure", "time,instructions"},
		{"bench", "Encode|Decode"}, {"shard", "2/3"}, {"max-time", "20m"}, {"policy", "ci/b.yml"}, {"fail-on", "allocs"},
		{"alpha", "0.05"}, {"instructions-threshold", "2%"}, {"base", "main"},
	} {
		want, err := Parse([]string{"run", "--base", "main", "--out", "o", "--" + tc.name + "=" + tc.value})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := FromInputs(getenvFrom(map[string]string{"INPUT_ARGS": "--base main --" + tc.name + "=" + shellQuote(tc.value)}))
		if err != nil {
			t.Fatalf("args --%s=%s: %v", tc.name, tc.value, err)
		}
		// What args and the flag share, apart from how they were given.
		want.Command, want.Head, want.Format, want.Out, want.Given, want.Action, got.Given = got.Command, got.Head, got.Format, got.Out, nil, got.Action, nil
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("args --%s %q (-flag +args):\n%s", tc.name, tc.value, diff)
		}
		if slices.ContainsFunc(Settings, func(s Setting) bool { return s.Input == tc.name }) || tc.name == "base" {
			continue
		}
		old, _, err := FromInputs(getenvFrom(map[string]string{"INPUT_BASE": "main", InputEnv(tc.name): tc.value}))
		if err != nil {
			t.Fatalf("old input %s: %v", tc.name, err)
		}
		dep := old.Action.Deprecated
		old.Given, old.Action = nil, got.Action
		if diff := cmp.Diff(got, old); diff != "" {
			t.Errorf("old input %s %q (-args +input):\n%s", tc.name, tc.value, diff)
		}
		if want := []DeprecatedInput{{Input: tc.name, Use: "args: --" + tc.name + spelled(tc.name, tc.value)}}; !cmp.Equal(dep[max(0, len(dep)-1):], want) {
			t.Errorf("old input %s: deprecated %+v, want %+v", tc.name, dep, want)
		}
	}
}

func spelled(name, v string) string {
	for _, f := range Flags {
		if f.Flag == name && f.Arg == "" {
			return "=" + v
		}
	}
	return " " + shellQuote(v)
}

// The old inputs keep working for one release, each listed with what
// replaces it: history: true with history-branch becomes history: NAME,
// allow-pull-request-target becomes allow-privileged-events.
func TestDeprecatedInputs(t *testing.T) {
	for _, tc := range []struct {
		with        map[string]string
		history     string
		privileged  bool
		commentKey  string
		deprecated  []DeprecatedInput
		count       int
		thresholdBy string
	}{
		{with: map[string]string{"history": "true"}, history: "benchgate-data",
			deprecated: []DeprecatedInput{{Input: "history", Use: "history: benchgate-data"}}},
		{with: map[string]string{"history": "true", "history-branch": "perf/ledger"}, history: "perf/ledger",
			deprecated: []DeprecatedInput{{Input: "history", Use: "history: perf/ledger"}}},
		{with: map[string]string{"history": "false", "history-branch": "x"},
			deprecated: []DeprecatedInput{{Input: "history", Use: "no history input (no history is the default)"}}},
		{with: map[string]string{"history-branch": "x"},
			deprecated: []DeprecatedInput{{Input: "history-branch", Use: "history: x"}}},
		{with: map[string]string{"allow-pull-request-target": "true"}, privileged: true,
			deprecated: []DeprecatedInput{{Input: "allow-pull-request-target", Use: "allow-privileged-events: true"}}},
		{with: map[string]string{"allow-pull-request-target": "true", "allow-privileged-events": "false"}, privileged: true,
			deprecated: []DeprecatedInput{{Input: "allow-pull-request-target", Use: "allow-privileged-events: true"}}},
		{with: map[string]string{"comment-key": "linux", "count": "12"}, commentKey: "linux", count: 12,
			deprecated: []DeprecatedInput{{Input: "comment-key", Use: "args: --comment-key linux"}, {Input: "count", Use: "args: --count 12"}}},
	} {
		c, a, err := FromInputs(runnerEnv(tc.with))
		if err != nil {
			t.Errorf("%v: %v", tc.with, err)
			continue
		}
		if a.History != (tc.history != "") || a.HistoryBranch != tc.history || a.AllowPrivilegedEvents != tc.privileged ||
			a.CommentKey != cmpOr(tc.commentKey, "benchgate") || c.Count != max(tc.count, 10) {
			t.Errorf("%v: action %+v, count %d", tc.with, a, c.Count)
		}
		if diff := cmp.Diff(tc.deprecated, a.Deprecated); diff != "" {
			t.Errorf("%v: deprecated (-want +got):\n%s", tc.with, diff)
		}
	}
	// An old input and args both setting one flag: refused, naming both.
	_, _, err := FromInputs(runnerEnv(map[string]string{"count": "5", "args": "--count 7"}))
	if err == nil || err.Error() != "input args: --count: input count sets it already; give it once" {
		t.Errorf("count twice: %v", err)
	}
	// So is a named input set away from its default, and args.
	_, _, err = FromInputs(runnerEnv(map[string]string{"bench": "Encode", "args": "--bench Decode"}))
	if err == nil || err.Error() != "input args: --bench: input bench sets it already; give it once" {
		t.Errorf("bench twice: %v", err)
	}
	// At its default, args sets it.
	c, _, err := FromInputs(runnerEnv(map[string]string{"args": "--bench Decode"}))
	if err != nil || c.Bench != "Decode" {
		t.Errorf("args --bench with the bench input at its default: %q, %v", c.Bench, err)
	}
	if _, _, err := FromInputs(runnerEnv(map[string]string{"history-branch": "a b"})); err == nil || !strings.Contains(err.Error(), `input history-branch: "a b": not a valid branch name`) {
		t.Errorf("bad history-branch: %v", err)
	}
}

// TestInputsGiven tells an input the workflow set from one left at its
// default, so that only the first overrides the policy file's top level;
// a flag of args is given.
func TestInputsGiven(t *testing.T) {
	c, a, err := FromInputs(runnerEnv(map[string]string{"threshold": "7%", "accept-label": "slower-on-purpose", "args": "--policy ci/bench.yml"}))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Given["threshold"] || c.Threshold != 0.07 {
		t.Errorf("threshold 7%%: given %v, %v", c.Given["threshold"], c.Threshold)
	}
	if c.Given["alpha"] || c.Alpha != 0.01 || c.Given["fail-on"] {
		t.Errorf("alpha and fail-on left out: given %v %v, alpha %v", c.Given["alpha"], c.Given["fail-on"], c.Alpha)
	}
	if c.Policy != "ci/bench.yml" || !c.Given["policy"] || a.AcceptLabel != "slower-on-purpose" {
		t.Errorf("policy %q (given %v), accept-label %q", c.Policy, c.Given["policy"], a.AcceptLabel)
	}
	// As the runner passes action.yml's defaults: threshold at 5% leaves
	// the policy file's in force; no policy given, so a missing
	// .benchgate.yml is no error.
	c, _, err = FromInputs(runnerEnv(nil))
	if err != nil || c.Policy != ".benchgate.yml" || c.Given["policy"] || c.Given["threshold"] || c.Threshold != 0.05 {
		t.Errorf("defaults: policy %q given %v, %v", c.Policy, c.Given, err)
	}
	// The pull request's author writes the trailers: they accept nothing
	// unless the workflow opts in.
	if c.AcceptTrailers {
		t.Errorf("defaults: accept-trailers is on")
	}
	if c, _, err = FromInputs(runnerEnv(map[string]string{"accept-trailers": "true"})); err != nil || !c.AcceptTrailers {
		t.Errorf("accept-trailers: true: %v, %v", c.AcceptTrailers, err)
	}
	c, _, err = FromInputs(runnerEnv(map[string]string{"args": "--fail-on time,allocs,bytes,failure"}))
	if err != nil || !c.Given["fail-on"] {
		t.Errorf("fail-on in args: given = %v, %v", c != nil && c.Given["fail-on"], err)
	}
}

// TestAcceptTrailersFlag: the CLI applies trailers only when asked, as the
// action does.
func TestAcceptTrailersFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"run", "--base", "main"}, false},
		{[]string{"run", "--base", "main", "--accept-trailers"}, true},
		{[]string{"run", "--base", "main", "--accept-trailers=true"}, true},
		{[]string{"run", "--base", "main", "--accept-trailers=false"}, false},
	} {
		got, err := Parse(c.args)
		if err != nil || got.AcceptTrailers != c.want {
			t.Errorf("%q: accept-trailers %v, %v; want %v", c.args, got.AcceptTrailers, err, c.want)
		}
	}
}
