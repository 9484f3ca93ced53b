package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func getenvFrom(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestFromInputsDefaults(t *testing.T) {
	c, a, err := FromInputs(getenvFrom(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	want.Command = "action"
	want.Head = ""
	want.Format = "markdown"
	if diff := cmp.Diff(&want, c); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&Action{Comment: "always", CommentKey: "benchgate", WorkingDirectory: ".", Mode: "gate", HistoryBranch: "benchgate-data"}, a); diff != "" {
		t.Errorf("action (-want +got):\n%s", diff)
	}
}

func TestFromInputs(t *testing.T) {
	c, a, err := FromInputs(getenvFrom(map[string]string{
		"INPUT_PACKAGES": "./a/... ./b", "INPUT_COUNT": "12", "INPUT_THRESHOLD": "3%",
		"INPUT_COMMENT-KEY": "linux-amd64", "INPUT_COMMENT": "on-change", "INPUT_TOKEN": "t",
		"INPUT_ALLOW-PULL-REQUEST-TARGET": "true", "INPUT_MAX-TIME": "20m", "INPUT_CONFIRM": "false",
		"INPUT_CORRECTION": "bh", "INPUT_MODE": "calibrate", "INPUT_CPU": "1,4",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Count != 12 || c.Threshold != 0.03 || c.MaxTime != 20*time.Minute || c.Confirm || c.Correction != "bh" ||
		!cmp.Equal(c.Packages, []string{"./a/...", "./b"}) || !cmp.Equal(c.CPU, []int{1, 4}) {
		t.Errorf("config: %+v", c)
	}
	if a.CommentKey != "linux-amd64" || a.Comment != "on-change" || !a.AllowPrivilegedEvents || a.Mode != "calibrate" {
		t.Errorf("action: %+v", a)
	}
}

// allow-pull-request-target is the old name of allow-privileged-events; the
// token input is read only when publishing, so FromInputs does not keep it;
// comment-author takes a login or an app's bot.
func TestFromInputsActionSettings(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want Action
	}{
		{map[string]string{"INPUT_ALLOW-PRIVILEGED-EVENTS": "true"}, Action{AllowPrivilegedEvents: true}},
		{map[string]string{"INPUT_ALLOW-PULL-REQUEST-TARGET": "true"}, Action{AllowPrivilegedEvents: true}},
		{map[string]string{"INPUT_ALLOW-PULL-REQUEST-TARGET": "true", "INPUT_ALLOW-PRIVILEGED-EVENTS": "false"}, Action{AllowPrivilegedEvents: true}},
		{map[string]string{"INPUT_ALLOW-PULL-REQUEST-TARGET": "false", "INPUT_ALLOW-PRIVILEGED-EVENTS": "false"}, Action{}},
		{map[string]string{"INPUT_COMMENT-AUTHOR": "my-app[bot]", "INPUT_TOKEN": "ghp_x"}, Action{CommentAuthor: "my-app[bot]"}},
		{map[string]string{"INPUT_COMMENT-AUTHOR": " octo-cat "}, Action{CommentAuthor: "octo-cat"}},
		{map[string]string{"INPUT_HISTORY": "true", "INPUT_HISTORY-BRANCH": "perf/ledger"}, Action{History: true, HistoryBranch: "perf/ledger"}},
	}
	for _, tt := range tests {
		_, a, err := FromInputs(getenvFrom(tt.env))
		if err != nil {
			t.Errorf("%v: %v", tt.env, err)
			continue
		}
		tt.want.Comment, tt.want.CommentKey, tt.want.WorkingDirectory, tt.want.Mode = "always", "benchgate", ".", "gate"
		if tt.want.HistoryBranch == "" {
			tt.want.HistoryBranch = "benchgate-data"
		}
		if diff := cmp.Diff(&tt.want, a); diff != "" {
			t.Errorf("%v: action (-want +got):\n%s", tt.env, diff)
		}
	}
	for _, bad := range []string{"a b", "-x", "a..b", "x.lock", "a:b", "a/", "a@{1}"} {
		_, _, err := FromInputs(getenvFrom(map[string]string{"INPUT_HISTORY-BRANCH": bad}))
		if err == nil || !strings.Contains(err.Error(), "input history-branch") {
			t.Errorf("history-branch %q: %v, want an error naming the input", bad, err)
		}
	}
	if _, _, err := FromInputs(getenvFrom(map[string]string{"INPUT_HISTORY": "yes"})); err == nil || !strings.Contains(err.Error(), "input history") {
		t.Errorf("history yes: %v, want an error naming the input", err)
	}
	for _, bad := range []string{"a--b", "-a", "a-", "[bot]", "a[bot][bot]", "x/y", strings.Repeat("a", 40)} {
		if _, _, err := FromInputs(getenvFrom(map[string]string{"INPUT_COMMENT-AUTHOR": bad})); err == nil {
			t.Errorf("comment-author %q accepted", bad)
		}
	}
}

func TestFromInputsBad(t *testing.T) {
	for env, want := range map[string]string{
		"INPUT_COUNT":                     `input count: "0": must be at least 1`,
		"INPUT_THRESHOLD":                 `input threshold: "abc": want a percentage`,
		"INPUT_ALPHA":                     `input alpha: "1.5": must be between 0 and 1`,
		"INPUT_COMMENT":                   `input comment: "sometimes": want always, on-change or never`,
		"INPUT_COMMENT-KEY":               `input comment-key: "a b": want letters`,
		"INPUT_FAIL-ON":                   `input fail-on: "speed": unknown kind "speed"`,
		"INPUT_ALLOW-PULL-REQUEST-TARGET": `input allow-pull-request-target: "yes please": want true or false`,
		"INPUT_ALLOW-PRIVILEGED-EVENTS":   `input allow-privileged-events: "1 please": want true or false`,
		"INPUT_COMMENT-AUTHOR":            `input comment-author: "@mona": want a GitHub login, or an app's "NAME[bot]"`,
		"INPUT_BENCH":                     `input bench: "(": `,
		"INPUT_PACKAGES":                  `input packages: "-exec=x": package pattern "-exec=x" looks like a flag`,
		"INPUT_CORRECTION":                `input correction: "bonferroni": want holm, bh or none`,
		"INPUT_MODE":                      `input mode: "fast": want gate, calibrate or merge`,
		"INPUT_RUNS":                      `input runs: "0": must be at least 1`,
		"INPUT_ESTIMATOR":                 `input estimator: "max": want median, min, p25 or mean`,
		"INPUT_MEASURE":                   `input measure: "cycles": unknown lane "cycles"`,
		"INPUT_INSTRUCTIONS-THRESHOLD":    `input instructions-threshold: "x": want a percentage`,
	} {
		val := map[string]string{
			"INPUT_COUNT": "0", "INPUT_THRESHOLD": "abc", "INPUT_ALPHA": "1.5", "INPUT_COMMENT": "sometimes",
			"INPUT_COMMENT-KEY": "a b", "INPUT_FAIL-ON": "speed", "INPUT_ALLOW-PULL-REQUEST-TARGET": "yes please",
			"INPUT_BENCH": "(", "INPUT_PACKAGES": "-exec=x", "INPUT_CORRECTION": "bonferroni", "INPUT_MODE": "fast",
			"INPUT_ALLOW-PRIVILEGED-EVENTS": "1 please", "INPUT_COMMENT-AUTHOR": "@mona",
			"INPUT_RUNS": "0", "INPUT_ESTIMATOR": "max", "INPUT_MEASURE": "cycles", "INPUT_INSTRUCTIONS-THRESHOLD": "x",
		}[env]
		_, _, err := FromInputs(getenvFrom(map[string]string{env: val}))
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%q: err = %v, want a UsageError containing %q", env, val, err, want)
		}
	}
}

// An input refuses a bad value in its flag's words: `input NAME: "VALUE":`
// then what --NAME says after `--NAME "VALUE":`.
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
		{"env", "BAD-NAME", ""},
	} {
		var flag *Setting
		for i, s := range Settings {
			if s.Input == tc.name {
				flag = &Settings[i]
			}
		}
		if flag == nil || flag.Flag == "" {
			t.Errorf("input %s has no flag", tc.name)
			continue
		}
		_, ferr := Parse([]string{"run", "--base", "main", "--" + flag.Flag + "=" + tc.value})
		_, _, ierr := FromInputs(getenvFrom(map[string]string{InputEnv(tc.name): tc.value}))
		if ferr == nil || ierr == nil {
			t.Errorf("%s %q: flag error %v, input error %v", tc.name, tc.value, ferr, ierr)
			continue
		}
		reason, ok := strings.CutPrefix(ferr.Error(), fmt.Sprintf("--%s %q: ", flag.Flag, tc.value))
		if !ok || tc.want != "" && reason != tc.want {
			t.Errorf("%s %q: flag error %q, want --%s %q: %s", tc.name, tc.value, ferr, flag.Flag, tc.value, tc.want)
		}
		if want := fmt.Sprintf("input %s: %q: %s", tc.name, tc.value, reason); ierr.Error() != want {
			t.Errorf("input error %q, want %q", ierr, want)
		}
		var ue *UsageError
		if !errors.As(ierr, &ue) {
			t.Errorf("input %s: %T is not a UsageError", tc.name, ierr)
		}
	}
}

// Every input that shares a flag is read by the flag's parser: what the
// input sets is what the flag sets.
func TestInputsSetWhatFlagsSet(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"confirm", "false"}, {"explain", "false"}, {"pin", "true"}, {"count", "7"}, {"benchtime", "3x"},
		{"seed", "42"}, {"cpu", "1,4"}, {"packages", "affected"}, {"packages", "./a ./b"},
		{"env", "A\nB=c d"}, {"export", "bencher=a.json\ngab=b.json"}, {"measure", "time,instructions"},
		{"bench", "Encode"}, {"shard", "2/3"}, {"max-time", "20m"}, {"policy", "ci/b.yml"},
	} {
		value := strings.ReplaceAll(tc.value, `\n`, "\n")
		flag := ""
		for _, s := range Settings {
			if s.Input == tc.name {
				flag = s.Flag
			}
		}
		args := []string{"run", "--base", "main", "--out", "o"}
		for _, v := range strings.Split(value, "\n") {
			args = append(args, "--"+flag+"="+v)
		}
		want, err := Parse(args)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := FromInputs(getenvFrom(map[string]string{"INPUT_BASE": "main", InputEnv(tc.name): value}))
		if err != nil {
			t.Fatal(err)
		}
		// What the input and the flag share, apart from how they were given.
		want.Command, want.Head, want.Format, want.Out, want.Given, got.Given = got.Command, got.Head, got.Format, got.Out, nil, nil
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("input %s %q (-flag +input):\n%s", tc.name, value, diff)
		}
	}
}

// The measure and instructions-threshold inputs set the lanes; fail-on
// given (even with its default's value) is explicit; max-time needs the
// time lane.
func TestFromInputsMeasure(t *testing.T) {
	c, _, err := FromInputs(getenvFrom(map[string]string{"INPUT_MEASURE": "time,instructions", "INPUT_INSTRUCTIONS-THRESHOLD": "2%"}))
	if err != nil || !cmp.Equal(c.Measure, []string{"time", "instructions"}) || c.InstructionsThreshold != 0.02 || c.Given["fail-on"] {
		t.Errorf("measure inputs: %+v, %v", c, err)
	}
	c, _, err = FromInputs(getenvFrom(map[string]string{"INPUT_FAIL-ON": "time,allocs,bytes,failure"}))
	if err != nil || !c.Given["fail-on"] {
		t.Errorf("fail-on given: set = %v, %v", c != nil && c.Given["fail-on"], err)
	}
	_, _, err = FromInputs(getenvFrom(map[string]string{"INPUT_MEASURE": "instructions", "INPUT_MAX-TIME": "10m"}))
	if err == nil || !strings.Contains(err.Error(), "inputs measure and max-time: --max-time adds timed rounds") {
		t.Errorf("measure instructions with max-time: %v", err)
	}
}

// TestInputsGiven tells an input the workflow set from one left out, so
// that only the first overrides the policy file's top level.
func TestInputsGiven(t *testing.T) {
	env := map[string]string{"INPUT_THRESHOLD": "7%", "INPUT_ALPHA": "", "INPUT_POLICY": "ci/bench.yml", "INPUT_ACCEPT-LABEL": "slower-on-purpose"}
	c, a, err := FromInputs(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if !c.Given["threshold"] || c.Threshold != 0.07 {
		t.Errorf("threshold 7%%: given %v, %v", c.Given["threshold"], c.Threshold)
	}
	if c.Given["alpha"] || c.Alpha != 0.01 || c.Given["fail-on"] {
		t.Errorf("alpha and fail-on left out: given %v %v, alpha %v", c.Given["alpha"], c.Given["fail-on"], c.Alpha)
	}
	if c.Policy != "ci/bench.yml" || a.AcceptLabel != "slower-on-purpose" {
		t.Errorf("policy %q, accept-label %q", c.Policy, a.AcceptLabel)
	}
	// As the runner passes action.yml's defaults: the policy input is
	// empty, so a missing .benchgate.yml is no error.
	defaults := map[string]string{}
	for _, in := range Inputs {
		defaults[InputEnv(in.Name)] = in.Default
	}
	c, _, err = FromInputs(func(k string) string { return defaults[k] })
	if err != nil || c.Policy != ".benchgate.yml" || c.Given["policy"] || c.Given["threshold"] {
		t.Errorf("defaults: policy %q given %v, %v", c.Policy, c.Given, err)
	}
	// The pull request's author writes the trailers: they accept nothing
	// unless the workflow opts in.
	if c.AcceptTrailers {
		t.Errorf("defaults: accept-trailers is on")
	}
	defaults[InputEnv("accept-trailers")] = "true"
	if c, _, err = FromInputs(func(k string) string { return defaults[k] }); err != nil || !c.AcceptTrailers {
		t.Errorf("accept-trailers: true: %v, %v", c.AcceptTrailers, err)
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
