package config

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
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

// The usage text and docs/reference.md's tables hold every flag and input
// of Settings with its default; an input that shares a flag's parser has
// the flag's default unless the event or the policy file decides first.
func TestSettingsAgree(t *testing.T) {
	// Inputs whose default differs from the flag's on purpose: empty in
	// action.yml, so that the event (head), the policy file (threshold,
	// instructions-threshold, alpha, fail-on) or the base commit
	// (policy: .benchgate.yml if it has one) decides.
	differs := map[string]bool{"head": true, "threshold": true, "instructions-threshold": true, "alpha": true, "fail-on": true, "policy": true}
	flags := referenceTable(t, "| flag | meaning | default |")
	inputs := referenceTable(t, "| input | meaning | default |")
	seenFlag, seenInput := map[string]bool{}, map[string]bool{}
	for _, s := range Settings {
		if s.Flag == "" && s.Input == "" || (s.set == nil) == (s.act == nil) {
			t.Errorf("%+v: want a flag or an input, and one parser", s)
		}
		if s.Flag != "" && (s.act != nil || len(s.Commands) == 0) {
			t.Errorf("--%s: a flag sets the Config, for some command", s.Flag)
		}
		if s.Flag != "" {
			if seenFlag[s.Flag] {
				t.Errorf("flag %s twice in the table", s.Flag)
			}
			seenFlag[s.Flag] = true
			if !strings.Contains(Usage, "\n  "+s.Spelling()+" ") {
				t.Errorf("usage lacks %s", s.Spelling())
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
		if s.Flag != "" && s.Input != "" && !differs[s.Input] && s.InputDefault != s.Default {
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

// A flag typed wrongly names itself, whatever its place in the table.
func TestEveryFlagParses(t *testing.T) {
	for _, f := range Flags {
		if f.Arg == "" {
			if _, err := Parse([]string{"compare", "a", "b", "--" + f.Flag + "=maybe"}); err == nil || !strings.Contains(err.Error(), f.Flag) {
				t.Errorf("--%s=maybe: err = %v, want one naming the flag", f.Flag, err)
			}
		}
	}
}

// The default the table shows is the default Parse applies.
func TestFlagDefaultsAreDefaults(t *testing.T) {
	for _, f := range Flags {
		if f.Default == "" || f.Flag == "C" { // -C: "." shows the current directory, kept as ""
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
