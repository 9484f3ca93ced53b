package config

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeTable returns the rows of the README table whose header line starts
// with header: the first cell's code spans (the names) and the last cell.
func readmeTable(t *testing.T, header string) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile("`([^`]+)`")
	rows := map[string]string{}
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
		for _, m := range code.FindAllStringSubmatch(cells[0], -1) {
			rows[m[1]] = strings.TrimSpace(cells[len(cells)-1])
		}
	}
	if len(rows) == 0 {
		t.Fatalf("README has no table with header %q", header)
	}
	return rows
}

// The usage text, the README's flag table, the action's inputs (config.Inputs,
// which TestActionYAMLMatchesInputs holds to action.yml) and the README's
// input table all come from or agree with Flags.
func TestFlagsAgree(t *testing.T) {
	inputs := map[string]string{}
	for _, in := range Inputs {
		inputs[in.Name] = in.Default
	}
	// Inputs whose default differs from the flag's on purpose.
	differs := map[string]bool{
		"head": true, // the event names it
		"C":    true, // working-directory is relative to the workspace
		// Empty in action.yml, so that an input left out does not
		// override the policy file (the flag's default applies then).
		"threshold": true, "instructions-threshold": true, "alpha": true, "fail-on": true,
		// Empty in action.yml: .benchgate.yml if the base commit has one,
		// an error for a file named on purpose that is missing.
		"policy": true,
	}
	readme := readmeTable(t, "| flag | meaning | default |")
	seen := map[string]bool{}
	for _, f := range Flags {
		if !strings.Contains(Usage, "\n  "+f.Spelling()+" ") {
			t.Errorf("usage lacks %s", f.Spelling())
		}
		if seen[f.Name] {
			t.Errorf("flag %s twice in the table", f.Name)
		}
		seen[f.Name] = true
		if f.Input != "" {
			def, ok := inputs[f.Input]
			switch {
			case !ok:
				t.Errorf("--%s names input %q, which the action does not have", f.Name, f.Input)
			case !differs[f.Name] && def != f.Default && !(f.Arg == "" && def == "false" && f.Default == ""):
				t.Errorf("--%s defaults to %q, input %s to %q", f.Name, f.Default, f.Input, def)
			}
		}
		// The README row: "--name ARG", or "--name=false" for a boolean
		// whose default is true.
		var cell string
		var ok bool
		for _, key := range []string{f.Spelling(), "--" + f.Name + "=false"} {
			if cell, ok = readme[key]; ok {
				delete(readme, key)
				break
			}
		}
		switch {
		case !ok:
			t.Errorf("README's flag table has no row for %s", f.Spelling())
		case f.Arg != "" && f.Default != "" && !strings.Contains(cell, "`"+f.Default+"`"):
			t.Errorf("README: %s defaults to %q, want `%s`", f.Spelling(), cell, f.Default)
		case f.Arg != "" && f.Default == "" && strings.Contains(cell, "`"):
			t.Errorf("README: %s shows a default %q the flag does not have", f.Spelling(), cell)
		}
	}
	for key := range readme {
		t.Errorf("README's flag table has a row for %s, which is no flag", key)
	}

	rows := readmeTable(t, "| input | meaning | default |")
	aliases := []string{"allow-pull-request-target"} // an old name, told in the allow-privileged-events row
	for _, in := range Inputs {
		cell, ok := rows[in.Name]
		delete(rows, in.Name)
		switch {
		case !ok && !slices.Contains(aliases, in.Name):
			t.Errorf("README's input table has no row for %s", in.Name)
		case ok && in.Default != "" && !strings.Contains(cell, "`"+in.Default+"`"):
			t.Errorf("README: input %s defaults to %q, want `%s`", in.Name, cell, in.Default)
		}
	}
	for name := range rows {
		t.Errorf("README's input table has a row for %s, which is no input", name)
	}
}

// A flag typed wrongly names itself, whatever its place in the table.
func TestEveryFlagParses(t *testing.T) {
	for _, f := range Flags {
		if f.Arg == "" {
			if _, err := Parse([]string{"compare", "a", "b", "--" + f.Name + "=maybe"}); err == nil || !strings.Contains(err.Error(), f.Name) {
				t.Errorf("--%s=maybe: err = %v, want one naming the flag", f.Name, err)
			}
		}
	}
}

// The default the table shows is the default Parse applies.
func TestFlagDefaultsAreDefaults(t *testing.T) {
	for _, f := range Flags {
		if f.Default == "" || f.Name == "C" { // -C: "." shows the current directory, kept as ""
			continue
		}
		want, got := Defaults(), Defaults()
		if err := f.set(&got, f.Default); err != nil {
			t.Errorf("--%s's default %q does not parse: %v", f.Name, f.Default, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("--%s %s changes the defaults: %+v, want %+v", f.Name, f.Default, got, want)
		}
	}
}
