// Command gen writes docs/reference.md and the inputs of action.yml from
// config's table of settings. go generate ./internal/config runs it:
//
//	go run ./gen -root ../..
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/config"
)

func main() {
	root := flag.String("root", ".", "the repository's root directory")
	flag.Parse()
	if err := generate(*root); err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}

func generate(root string) error {
	if err := os.WriteFile(filepath.Join(root, "docs", "reference.md"), config.Reference(), 0o644); err != nil {
		return err
	}
	path := filepath.Join(root, "action.yml")
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	b, err := config.ActionInputs(old)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return os.WriteFile(path, b, 0o644)
}
