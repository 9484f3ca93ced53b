// Command runnercmds prints the workflow commands the GitHub Actions runner
// would run for a step that printed the given log (a file, or standard
// input), one per line as "name: line", and "UNGUARDED name: line" for a
// command that did not come right after a resume of command processing (as
// all of benchgate's own do). scripts/docker-e2e.sh uses it to check that
// nothing a pull request prints becomes a command.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/benchgate/benchgate/internal/github/githubtest"
)

func main() {
	var in io.Reader = os.Stdin
	if len(os.Args) > 1 {
		f, err := os.Open(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "runnercmds:", err)
			os.Exit(2)
		}
		defer f.Close()
		in = f
	}
	b, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "runnercmds:", err)
		os.Exit(2)
	}
	for _, c := range githubtest.RunnerCommands(string(b)) {
		if !c.Resumed && c.Name != "stop-commands" {
			fmt.Print("UNGUARDED ")
		}
		fmt.Printf("%s: %s\n", c.Name, c.Line)
	}
}
