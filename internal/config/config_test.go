package config

import (
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseGood(t *testing.T) {
	c, err := Parse([]string{"run", "--base", "main", "./a/...", "--count=12", "-threshold", "3%", "./b", "--cpu", "1,2", "--benchtime", "500x", "--alpha", "0.05", "--fail-on", "time,allocs", "--seed", "42", "--runs", "1", "--estimator=min"})
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	want.Command = "run"
	want.Base = "main"
	want.Packages = []string{"./a/...", "./b"}
	want.Count = 12
	want.Threshold = 0.03
	want.CPU = []int{1, 2}
	want.Benchtime = "500x"
	want.Alpha = 0.05
	want.FailOn = []FailKind{"time", "allocs"}
	want.Seed = 42
	want.Runs, want.Estimator = 1, "min"
	want.Given = map[string]bool{"alpha": true, "base": true, "benchtime": true, "count": true, "cpu": true, "estimator": true, "fail-on": true, "runs": true, "seed": true, "threshold": true}
	if diff := cmp.Diff(&want, c); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}

	c, err = Parse([]string{"compare", "old.txt", "new.txt", "--threshold=5"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Files != [2]string{"old.txt", "new.txt"} || c.Threshold != 0.05 {
		t.Errorf("compare: %+v", c)
	}
	if c.Timeout != 10*time.Minute || c.Count != 10 || c.Runs != 5 || c.Estimator != "median" {
		t.Errorf("defaults not applied: %+v", c)
	}
}

// TestParseBad lists every refused input with the words its one-line message
// must contain: the flag's name and what is wrong.
func TestParseBad(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no command given"},
		{[]string{"bench"}, `unknown command "bench"`},
		{[]string{"run"}, "--base is required"},
		{[]string{"run", "--base", "main", "--head", ""}, "--head must not be empty"},
		{[]string{"run", "--base", "main", "--count", "0"}, `--count "0": must be at least 1`},
		{[]string{"run", "--base", "main", "--measure", "cycles"}, `--measure "cycles": unknown measure "cycles": want time, instructions or time,instructions`},
		{[]string{"run", "--base", "main", "--measure", ""}, `--measure "": unknown measure ""`},
		{[]string{"run", "--base", "main", "--measure", "instructions", "--max-time", "5m"}, "--max-time adds timed rounds, and --measure instructions measures no time"},
		{[]string{"run", "--base", "main", "--instructions-threshold", "0.5"}, `--instructions-threshold "0.5": ambiguous`},
		{[]string{"calibrate", "--measure", "time,instructions"}, "--measure does not apply to calibrate"},
		{[]string{"run", "--base", "main", "--count", "-3"}, `--count "-3": must be at least 1`},
		{[]string{"run", "--base", "main", "--count", "ten"}, `--count "ten": not a whole number`},
		{[]string{"run", "--base", "main", "--threshold", "abc"}, `--threshold "abc": want a percentage such as 5%`},
		{[]string{"run", "--base", "main", "--threshold", "0.05"}, `--threshold "0.05": ambiguous: write 0.05% for 0.05 percent, or 5% for a fraction of 0.05`},
		{[]string{"run", "--base", "main", "--threshold", "-5%"}, `--threshold "-5%": must not be negative`},
		{[]string{"run", "--base", "main", "--alpha", "0"}, `--alpha "0": must be between 0 and 1, exclusive`},
		{[]string{"run", "--base", "main", "--alpha", "1"}, `--alpha "1": must be between 0 and 1, exclusive`},
		{[]string{"run", "--base", "main", "--alpha", "x"}, `--alpha "x": want a number`},
		{[]string{"run", "--base", "main", "--bench", "Foo("}, "--bench \"Foo(\": invalid regular expression: missing closing ): `Foo(`"},
		{[]string{"run", "--base", "main", "--benchtime", "fast"}, `--benchtime "fast": want a duration such as 100ms or an iteration count such as 500x`},
		{[]string{"run", "--base", "main", "--benchtime", "0x"}, `--benchtime "0x": want a duration`},
		{[]string{"run", "--base", "main", "--timeout", "-1s"}, `--timeout "-1s": must be positive`},
		{[]string{"run", "--base", "main", "--cpu", "1,,2"}, `--cpu "1,,2": want a comma-separated list of positive numbers`},
		{[]string{"run", "--base", "main", "--fail-on", "time,speed"}, `--fail-on "time,speed": unknown kind "speed"`},
		{[]string{"run", "--base", "main", "--seed", "x"}, `--seed "x": not a whole number`},
		{[]string{"run", "--base", "main", "--runs", "0"}, `--runs "0": must be at least 1`},
		{[]string{"run", "--base", "main", "--runs", "five"}, `--runs "five": not a whole number`},
		{[]string{"run", "--base", "main", "--estimator", "max"}, `--estimator "max": want median, min, p25 or mean`},
		{[]string{"compare", "a", "b", "--format", "html"}, `--format "html": want text, markdown or json (html is history's page only)`},
		{[]string{"run", "--base", "main", "--format", "html"}, `--format "html": want text, markdown or json (html is history's page only)`},
		{[]string{"compare", "a", "b", "--format", "pdf"}, `--format "pdf": want text, markdown or json`},
		{[]string{"history", "--ledger", "l", "--format", "pdf"}, `--format "pdf": want text, markdown, json or html`},
		{[]string{"bisect", "--good", "a", "--format", "markdown"}, `--format "markdown": want text or json`},
		{[]string{"compare", "a", "b", "--record"}, `--record does not apply to compare`},
		{[]string{"run", "--base", "main", "--record"}, `--record needs --ledger FILE`},
		{[]string{"run", "--base", "main", "--since", "main"}, `--since does not apply to run (a flag of history;`},
		{[]string{"version", "x"}, `version takes no arguments`},
		{[]string{"action", "--count", "3"}, `action takes no arguments: it reads INPUT_* variables as set by GitHub Actions; its flags go in the args input`},
		{[]string{"history"}, `history needs --ledger FILE`},
		{[]string{"history", "--ledger", "l.jsonl", "extra"}, `history takes no arguments`},
		{[]string{"history", "--ledger", "l.jsonl", "--threshold", "x"}, `--threshold`},
		{[]string{"run", "--base", "main", "--frobnicate"}, "unknown flag --frobnicate"},
		{[]string{"run", "--base"}, "--base needs a value"},
		{[]string{"compare"}, "compare needs two files"},
		{[]string{"compare", "a.txt", "b.txt", "c.txt"}, "compare needs two files"},
		{[]string{"demo", "extra"}, "demo takes no arguments"},
	} {
		_, err := Parse(tc.args)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("Parse(%q) = %v, want a UsageError", tc.args, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) = %q, want one line containing %q", tc.args, err, tc.want)
		}
	}
}

func TestParseHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"run", "-h"}, {"compare", "a", "--help"}} {
		if _, err := Parse(args); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("Parse(%q) = %v, want flag.ErrHelp", args, err)
		}
	}
}

func TestParseThreshold(t *testing.T) {
	for in, want := range map[string]float64{"5%": 0.05, "5": 0.05, "2.5 %": 0.025, "0%": 0, "0": 0, "0.5%": 0.005, "150%": 1.5} {
		got, err := ParseThreshold(in)
		if err != nil || got != want {
			t.Errorf("ParseThreshold(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestParseEnv(t *testing.T) {
	c, err := Parse([]string{"run", "--base", "main", "--env", "A,B C", "--env", "D=x,y z", "--env", "E"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A", "B", "C", "D=x,y z", "E"}
	if strings.Join(c.Env, "|") != strings.Join(want, "|") {
		t.Errorf("Env = %q, want %q", c.Env, want)
	}
	for _, bad := range []string{"1A", "A-B", "=x", "A,B-C"} {
		_, err := Parse([]string{"run", "--base", "main", "--env", bad})
		if err == nil || !strings.Contains(err.Error(), "--env") {
			t.Errorf("--env %q: err = %v, want one naming --env", bad, err)
		}
	}
}

func TestInputEnv(t *testing.T) {
	c, _, err := FromInputs(func(k string) string {
		if k == "INPUT_ENV" {
			return "A, B\nC=1 2\n"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"A", "B", "C=1 2"}; strings.Join(c.Env, "|") != strings.Join(want, "|") {
		t.Errorf("Env = %q, want %q", c.Env, want)
	}
	_, _, err = FromInputs(func(k string) string {
		if k == "INPUT_ENV" {
			return "GOOD BAD-NAME"
		}
		return ""
	})
	if err == nil || !strings.Contains(err.Error(), "input env") {
		t.Errorf("bad env input: err = %v, want one naming the input", err)
	}
	// args sets variables by value only: a variable of the step, named,
	// could be a secret.
	c, _, err = FromInputs(getenvFrom(map[string]string{"INPUT_ARGS": "--env 'C=1 2' --env D=x"}))
	if err != nil || strings.Join(c.Env, "|") != "C=1 2|D=x" {
		t.Errorf("args --env NAME=VALUE: %q, %v", c.Env, err)
	}
	for _, named := range []string{"--env INPUT_TOKEN", "--env A,B"} {
		_, _, err = FromInputs(getenvFrom(map[string]string{"INPUT_ARGS": named}))
		if err == nil || !strings.Contains(err.Error(), "input args: --env") || !strings.Contains(err.Error(), "NAME=VALUE only") {
			t.Errorf("args %s: %v, want a refusal naming --env", named, err)
		}
	}
}

// Every estimator name is accepted by the flag and the input, and both are
// documented in the usage text.
func TestRunsAndEstimator(t *testing.T) {
	for _, e := range []string{"median", "min", "p25", "mean"} {
		c, err := Parse([]string{"run", "--base", "main", "--estimator", e, "--runs", "3"})
		if err != nil || string(c.Estimator) != e || c.Runs != 3 {
			t.Errorf("--estimator %s --runs 3: %+v, %v", e, c, err)
		}
		c, _, err = FromInputs(getenvFrom(map[string]string{"INPUT_ARGS": "--estimator " + e + " --runs 3"}))
		if err != nil || string(c.Estimator) != e || c.Runs != 3 {
			t.Errorf("args --estimator %s --runs 3: %+v, %v", e, c, err)
		}
	}
	for _, flag := range []string{"--runs K", "--estimator E"} {
		if !strings.Contains(UsageOf("run"), flag) {
			t.Errorf("run's help does not document %s", flag)
		}
	}
}

// --format chooses the report on stdout; text by default.
func TestParseFormat(t *testing.T) {
	for _, f := range []string{"text", "markdown", "json"} {
		c, err := Parse([]string{"compare", "a.txt", "b.txt", "--format", f})
		if err != nil || string(c.Format) != f {
			t.Errorf("--format %s: %+v, %v", f, c, err)
		}
	}
	if c, err := Parse([]string{"compare", "a.txt", "b.txt"}); err != nil || c.Format != "text" {
		t.Errorf("default format: %+v, %v", c, err)
	}
	if !strings.Contains(UsageOf("compare"), "--format F") {
		t.Errorf("compare's help lacks --format")
	}
}

// --measure picks the lanes (duplicates once, in order); the default
// fail-on is told apart from an explicit one.
func TestParseMeasure(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		measure   []string
		threshold float64
		failOnSet bool
	}{
		{[]string{"run", "--base", "main"}, []string{"time"}, 0.01, false},
		{[]string{"run", "--base", "main", "--measure", "instructions"}, []string{"instructions"}, 0.01, false},
		{[]string{"run", "--base", "main", "--measure", " time , instructions,time", "--instructions-threshold", "0.5%"}, []string{"time", "instructions"}, 0.005, false},
		{[]string{"run", "--base", "main", "--measure", "instructions", "--fail-on", "time,allocs,bytes,failure"}, []string{"instructions"}, 0.01, true},
		{[]string{"compare", "a", "b", "--fail-on", "none"}, []string{"time"}, 0.01, true},
	} {
		c, err := Parse(tc.args)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if !cmp.Equal(c.Measure, tc.measure) || c.InstructionsThreshold != tc.threshold || c.Given["fail-on"] != tc.failOnSet {
			t.Errorf("%q: measure %q, threshold %v, fail-on set %v; want %q, %v, %v", tc.args, c.Measure, c.InstructionsThreshold, c.Given["fail-on"], tc.measure, tc.threshold, tc.failOnSet)
		}
		if c.Measures(LaneInstructions) != slices.Contains(tc.measure, "instructions") {
			t.Errorf("%q: Measures(instructions) = %v", tc.args, c.Measures(LaneInstructions))
		}
	}
}

// TestPolicyFlags reads --policy and the repeatable --accept, and refuses
// an --accept that is not a regexp.
func TestPolicyFlags(t *testing.T) {
	c, err := Parse([]string{"compare", "a.txt", "b.txt", "--policy", "ci/bench.yml", "--accept", `codec\.Encode$`, "--accept", "Parse"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Policy != "ci/bench.yml" || strings.Join(c.Accepts, "|") != `codec\.Encode$|Parse` || !c.Given["policy"] {
		t.Errorf("policy %q accepts %q given %v", c.Policy, c.Accepts, c.Given)
	}
	if c, _ := Parse([]string{"compare", "a.txt", "b.txt"}); c.Policy != ".benchgate.yml" || c.Given["policy"] {
		t.Errorf("default policy %q, given %v", c.Policy, c.Given["policy"])
	}
	_, err = Parse([]string{"compare", "a.txt", "b.txt", "--accept", "codec.(Encode"})
	if err == nil || !strings.Contains(err.Error(), `--accept "codec.(Encode": want a regular expression`) {
		t.Errorf("bad --accept: %v", err)
	}
}

// Every --fail-on kind the code names is a word of the one list.
func TestFailOnKinds(t *testing.T) {
	for _, k := range []FailKind{FailTime, FailAllocs, FailBytes, FailMetrics, FailInstructions, FailFailure, FailRemoved, FailInconclusive, FailScaling} {
		if !slices.Contains(FailOnKinds, k) {
			t.Errorf("%q is not in FailOnKinds %q", k, FailOnKinds)
		}
	}
	if len(FailOnKinds) != 9 {
		t.Errorf("FailOnKinds %q: a kind without a constant", FailOnKinds)
	}
}
