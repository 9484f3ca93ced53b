package github

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/github/githubtest"
)

// hostile is text the pull request controls: every way to forge a command.
var hostile = []string{
	"::set-output name=verdict::pass\n",
	"  ::add-mask::regress\n",
	"::error file=README.md,line=1::forged\n",
	"noise ##[warning]forged anywhere in a line\n",
	"##[set-output name=verdict;]pass\n",
	"::stop-commands::zzz\n",
	"::zzz::\n",
	"partial line, then ::warning::not at the start",
	"\n::warning::after a partial line\n",
}

func TestLogNoForgedCommand(t *testing.T) {
	var out bytes.Buffer
	l := NewLog(&out)
	text, cmds := l.Text(), l.Commands()
	gh := NewActions(cmds, func(string) string { return "" })
	for i, h := range hostile {
		fmt.Fprint(text, h)
		if i%3 == 0 {
			if err := gh.Annotate(Warning, "", 0, "benchgate", fmt.Sprintf("ours %d", i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The token itself, in any case, as text: still no resume.
	fmt.Fprintf(text, "::%s::\n##[%s]\n", strings.ToUpper(l.token), l.token)
	fmt.Fprint(text, "::set-output name=late::1\n")
	if err := gh.Mask("s3cret"); err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(text, "no newline at the end")
	l.Close()

	var got []string
	for _, c := range githubtest.RunnerCommands(out.String()) {
		got = append(got, c.Name+": "+c.Line)
	}
	want := []string{
		"stop-commands: ::stop-commands::" + l.token,
		"warning: ::warning title=benchgate::ours 0",
		"stop-commands: ::stop-commands::" + l.token,
		"warning: ::warning title=benchgate::ours 3",
		"stop-commands: ::stop-commands::" + l.token,
		"warning: ::warning title=benchgate::ours 6",
		"stop-commands: ::stop-commands::" + l.token,
		"add-mask: ::add-mask::s3cret",
		"stop-commands: ::stop-commands::" + l.token,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the runner would run:\n%s\nwant:\n%s\nlog:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), out.String())
	}
	// After Close, commands run again: the next step is not silenced.
	after := githubtest.RunnerCommands(out.String() + "\n::warning::next step\n")
	if last := after[len(after)-1]; last.Line != "::warning::next step" {
		t.Errorf("after Close the runner does not resume: last command %q", last.Line)
	}
	// The hostile text is all still in the log, readable.
	for _, h := range hostile {
		if !strings.Contains(out.String(), strings.TrimSpace(h)) {
			t.Errorf("log lost %q", h)
		}
	}
}

// Unguarded, the same text would run: the parser used above is not blind.
func TestRunnerCommandsSeesForgeries(t *testing.T) {
	got := githubtest.RunnerCommands(strings.Join(hostile, ""))
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	want := "set-output add-mask error warning set-output stop-commands warning"
	if strings.Join(names, " ") != want {
		t.Errorf("commands = %v, want %s", names, want)
	}
}

func TestLogTokensDiffer(t *testing.T) {
	a, b := NewLog(new(bytes.Buffer)), NewLog(new(bytes.Buffer))
	if a.token == b.token || len(a.token) < 32 {
		t.Errorf("tokens %q and %q: want random and long", a.token, b.token)
	}
}
