package config

import (
	"errors"
	"flag"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// referenceTable returns the rows of docs/reference.md's table whose header
// line starts with header: the first cell's code span (the name) and the
// cells.
func referenceTable(t *testing.T, header string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile("^`([^`]+)`$")
	rows := map[string][]string{}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, header):
			in = true
			continue
		case in && strings.HasPrefix(line, "|---"):
			continue
		case in && !strings.HasPrefix(line, "|"):
			in = false
			continue
		case !in:
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		m := code.FindStringSubmatch(cells[0])
		if m == nil {
			t.Errorf("docs/reference.md: row %q names no flag or input", line)
			continue
		}
		rows[m[1]] = cells
	}
	if len(rows) == 0 {
		t.Fatalf("docs/reference.md has no table with header %q", header)
	}
	return rows
}

// Each command's help and docs/reference.md's tables hold every flag and
// input of Settings with its default; an input that shares a flag's parser
// has the flag's default.
func TestSettingsAgree(t *testing.T) {
	flags := referenceTable(t, "| flag | meaning | default |")
	inputs := referenceTable(t, "| input | meaning | default |")
	seenFlag, seenInput := map[string]bool{}, map[string]bool{}
	for _, s := range Settings {
		if s.Flag == "" && s.Input == "" || (s.set == nil) == (s.act == nil) {
			t.Errorf("%+v: want a flag or an input, and one parser", s)
		}
		if s.Flag != "" && len(s.Commands) == 0 {
			t.Errorf("--%s: a flag is some command's", s.Flag)
		}
		if s.act != nil && s.Flag != "" && !slices.Equal(s.Commands, []string{"action"}) {
			t.Errorf("--%s sets the action's settings: it is the action's flag only", s.Flag)
		}
		if s.Flag != "" {
			if seenFlag[s.Flag] {
				t.Errorf("flag %s twice in the table", s.Flag)
			}
			seenFlag[s.Flag] = true
			for _, c := range s.Commands {
				if !strings.Contains(UsageOf(c), "\n  "+s.Spelling()+" ") && !strings.Contains(UsageOf(c), "\n  "+s.Spelling()+"\n") && !(c == "action" && (s.Input != "" || s.Trust)) {
					t.Errorf("benchgate %s -h lacks %s", c, s.Spelling())
				}
			}
			row, ok := flags[s.Spelling()]
			delete(flags, s.Spelling())
			switch {
			case !ok:
				t.Errorf("docs/reference.md's flag table has no row for %s", s.Spelling())
			case row[2] != code(s.Default):
				t.Errorf("docs/reference.md: %s defaults to %q, want %q", s.Spelling(), row[2], code(s.Default))
			case row[1] != cell(s.Help):
				t.Errorf("docs/reference.md: %s means %q, want %q", s.Spelling(), row[1], cell(s.Help))
			}
		}
		if s.Input != "" {
			if seenInput[s.Input] {
				t.Errorf("input %s twice in the table", s.Input)
			}
			seenInput[s.Input] = true
			if a := UsageOf("action"); !strings.Contains(a, "\n  "+s.Input+" ") && !strings.Contains(a, "\n  "+s.Input+"\n") {
				t.Errorf("benchgate action -h lacks the input %s", s.Input)
			}
			row, ok := inputs[s.Input]
			delete(inputs, s.Input)
			switch {
			case !ok:
				t.Errorf("docs/reference.md's input table has no row for %s", s.Input)
			case row[2] != code(s.InputDefault):
				t.Errorf("docs/reference.md: input %s defaults to %q, want %q", s.Input, row[2], code(s.InputDefault))
			case !strings.HasPrefix(row[1], cell(s.InputHelp())):
				t.Errorf("docs/reference.md: input %s means %q, want %q", s.Input, row[1], cell(s.InputHelp()))
			}
		}
		if s.Flag != "" && s.Input != "" && s.InputDefault != s.Default {
			t.Errorf("--%s defaults to %q, input %s to %q", s.Flag, s.Default, s.Input, s.InputDefault)
		}
	}
	for key := range flags {
		t.Errorf("docs/reference.md's flag table has a row for %s, which is no flag", key)
	}
	for key := range inputs {
		t.Errorf("docs/reference.md's input table has a row for %s, which is no input", key)
	}
}

// A command's help lists its own flags and no other, by group, every
// default shown (booleans' too), within 100 columns.
func TestCommandHelp(t *testing.T) {
	for _, c := range commands {
		help := UsageOf(c.name)
		for i, l := range strings.Split(help, "\n") {
			if n := utf8.RuneCountInString(l); n > helpWidth {
				t.Errorf("benchgate %s -h, line %d: %d columns: %q", c.name, i+1, n, l)
			}
		}
		for _, f := range Flags {
			listed := strings.Contains(help, "\n  "+f.Spelling()+" ") || strings.Contains(help, "\n  "+f.Spelling()+"\n")
			if listed != f.appliesTo(c.name) && !(c.name == "action" && (f.Input != "" || f.Trust)) {
				t.Errorf("benchgate %s -h lists %s: %v; the flag applies: %v", c.name, f.Spelling(), listed, f.appliesTo(c.name))
			}
		}
	}
	for _, line := range strings.Split(Usage, "\n") {
		if n := utf8.RuneCountInString(line); n > helpWidth {
			t.Errorf("benchgate -h: %d columns: %q", n, line)
		}
	}
	compare := UsageOf("compare")
	for _, want := range []string{"usage:\n  benchgate compare BASE.txt HEAD.txt [flags]\n  benchgate compare DIR [flags]\n", "\nhow to decide:\n", "\noutput:\n",
		"(default 5%)", "(default false)", "(default auto)", "\nexit status: 0 pass, 1 fail, 2 usage or input error"} {
		if !strings.Contains(compare, want) {
			t.Errorf("benchgate compare -h lacks %q:\n%s", want, compare)
		}
	}
	if strings.Contains(compare, "--count") || strings.Contains(compare, "what to measure") {
		t.Errorf("benchgate compare -h lists what it does not take:\n%s", compare)
	}
	run := UsageOf("run")
	for _, want := range []string{"  --confirm           re-run", "(default true)", "\nwhat to measure:\n  --base REV", "\nCI:\n"} {
		if !strings.Contains(run, want) {
			t.Errorf("benchgate run -h lacks %q", want)
		}
	}
	// run's --format offers what run writes: not history's page.
	if i := strings.Index(run, "--format F"); i < 0 || strings.Contains(run[i:i+200], "html") {
		t.Errorf("benchgate run -h offers --format html")
	}
	if !strings.Contains(UsageOf("history"), "html (one self-contained page)") {
		t.Errorf("benchgate history -h lacks --format html")
	}
	action := UsageOf("action")
	for _, want := range []string{"\ninputs:\n  token ", "  args ", "args: what to measure:\n", "--count N", "--comment-key KEY"} {
		if !strings.Contains(action, want) {
			t.Errorf("benchgate action -h lacks %q:\n%s", want, action)
		}
	}
	for _, not := range []string{"--accept-trailers", "--json FILE", "-C DIR", "--bench REGEX"} {
		if strings.Contains(action, "\n  "+not) {
			t.Errorf("benchgate action -h lists %s, which args refuses or an input sets", not)
		}
	}
}

// A command refuses a flag it does not take in one line naming the flag
// and the command; an unknown flag near one of the command's gets "did you
// mean".
func TestFlagOfAnotherCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "a.txt", "b.txt", "--count", "5"}, "--count does not apply to compare (a flag of run, calibrate, bisect, gitlab; benchgate compare -h lists compare's flags)"},
		{[]string{"compare", "a.txt", "b.txt", "--base", "main"}, "--base does not apply to compare"},
		{[]string{"compare", "a.txt", "b.txt", "--count=5"}, "--count does not apply to compare"},
		{[]string{"history", "--ledger", "l", "--bench", "X"}, "--bench does not apply to history"},
		{[]string{"demo", "--count", "3"}, "--count does not apply to demo"},
		{[]string{"run", "--base", "main", "--treshold", "5%"}, "unknown flag --treshold: did you mean --threshold? (benchgate run -h lists its flags)"},
		{[]string{"run", "--base", "main", "--bnech", "X"}, "did you mean --bench?"},
		{[]string{"compare", "a", "b", "--josn", "x"}, "did you mean --json?"},
		{[]string{"run", "--base", "main", "--frobnicate"}, "unknown flag --frobnicate (benchgate run -h lists its flags)"},
		{[]string{"--count", "3"}, "--count comes before a command"},
	} {
		_, err := Parse(tc.args)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) = %v, want one usage line containing %q", tc.args, err, tc.want)
		}
	}
}

// version and --version are a command of their own; help for a command
// is that command's.
func TestVersionAndHelp(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		if c, err := Parse(args); err != nil || c.Command != "version" {
			t.Errorf("Parse(%q) = %+v, %v; want the version command", args, c, err)
		}
	}
	for args, want := range map[string]string{"help": "", "-h": "", "run -h": "run", "compare --help": "compare", "help merge": "merge", "action -h": "action"} {
		_, err := Parse(strings.Fields(args))
		var he *HelpError
		if !errors.As(err, &he) || he.Command != want || !errors.Is(err, flag.ErrHelp) {
			t.Errorf("Parse(%q) = %v, want help for %q", args, err, want)
		}
	}
}

// A flag typed wrongly names itself, whatever its place in the table.
func TestEveryFlagParses(t *testing.T) {
	for _, f := range Flags {
		if f.Arg != "" || f.act != nil {
			continue
		}
		cmd := f.Commands[0]
		args := map[string][]string{"compare": {"compare", "a", "b"}, "run": {"run", "--base", "main"}, "calibrate": {"calibrate"}, "bisect": {"bisect", "--good", "a"}, "history": {"history", "--ledger", "l"}}[cmd]
		if _, err := Parse(append(args, "--"+f.Flag+"=maybe")); err == nil || !strings.Contains(err.Error(), f.Flag) {
			t.Errorf("%s --%s=maybe: err = %v, want one naming the flag", cmd, f.Flag, err)
		}
	}
}

// The default the table shows is the default Parse applies.
func TestFlagDefaultsAreDefaults(t *testing.T) {
	for _, f := range Flags {
		if f.Default == "" || f.Flag == "C" || f.set == nil { // -C: "." shows the current directory, kept as ""
			continue
		}
		want, got := Defaults(), Defaults()
		if err := f.set(&got, f.Default); err != nil {
			t.Errorf("--%s's default %q does not parse: %v", f.Flag, f.Default, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("--%s %s changes the defaults: %+v, want %+v", f.Flag, f.Default, got, want)
		}
	}
}
