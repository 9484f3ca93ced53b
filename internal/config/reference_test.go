package config

import (
	"bytes"
	"os"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"
)

// docs/reference.md and action.yml's inputs are what the table writes now.
func TestGeneratedFilesCurrent(t *testing.T) {
	ref, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ref, Reference()) {
		t.Errorf("docs/reference.md is not what the table in settings.go writes: run go generate ./internal/config")
	}
	action, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	want, err := ActionInputs(action)
	if err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if !bytes.Equal(action, want) {
		t.Errorf("action.yml's inputs are not what the table in settings.go writes: run go generate ./internal/config")
	}
}

// ActionInputs rewrites only the inputs block, and rewriting is stable.
func TestActionInputsKeepsTheRest(t *testing.T) {
	in := []byte("name: x\n# about inputs\ninputs:\n  old:\n    description: gone\n\n  # a comment\n  legacy: {}\noutputs:\n  verdict:\n    description: pass or fail\nruns:\n  using: docker\n")
	got, err := ActionInputs(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, []byte("name: x\n# about inputs\ninputs:\n  token:\n")) ||
		!bytes.HasSuffix(got, []byte("\n\noutputs:\n  verdict:\n    description: pass or fail\nruns:\n  using: docker\n")) ||
		bytes.Contains(got, []byte("gone")) || bytes.Contains(got, []byte("legacy")) {
		t.Errorf("ActionInputs:\n%s", got)
	}
	again, err := ActionInputs(got)
	if err != nil || !bytes.Equal(again, got) {
		t.Errorf("ActionInputs is not stable: %v\n%s", err, again)
	}
	if _, err := ActionInputs([]byte("name: x\n")); err == nil {
		t.Errorf("a file without inputs: no error")
	}
}

// action.yml parses as action metadata whose inputs are Inputs, with their
// defaults and descriptions, and keeps what is not generated.
func TestActionYAML(t *testing.T) {
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	type input struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	}
	var meta struct {
		Name        string            `yaml:"name"`
		Description string            `yaml:"description"`
		Author      string            `yaml:"author"`
		Branding    map[string]string `yaml:"branding"`
		Inputs      yaml.MapSlice     `yaml:"inputs"`
		Outputs     map[string]input  `yaml:"outputs"`
		Runs        struct {
			Using string    `yaml:"using"`
			Image string    `yaml:"image"`
			Args  *[]string `yaml:"args"`
		} `yaml:"runs"`
	}
	if err := yaml.UnmarshalWithOptions(b, &meta, yaml.Strict()); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	// runs.args, empty, keeps the args input off the container's command
	// line: the runner passes with.args there unless action.yml has args.
	if meta.Runs.Args == nil || len(*meta.Runs.Args) != 0 {
		t.Errorf("action.yml: runs.args = %v, want []", meta.Runs.Args)
	}
	if meta.Name != "benchgate" || meta.Description == "" || meta.Runs.Using != "docker" || meta.Runs.Image != "Dockerfile" ||
		meta.Branding["icon"] == "" || len(meta.Outputs) == 0 {
		t.Errorf("action.yml lost its metadata: %+v", meta)
	}
	var got, want []Input
	for _, item := range meta.Inputs {
		var in input
		v, err := yaml.Marshal(item.Value)
		if err == nil {
			err = yaml.UnmarshalWithOptions(v, &in, yaml.Strict())
		}
		if err != nil {
			t.Errorf("input %v: %v", item.Key, err)
		}
		got = append(got, Input{item.Key.(string), in.Default})
	}
	want = Inputs
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("action.yml inputs (-Inputs +action.yml):\n%s", diff)
	}
	for _, s := range Settings {
		if s.Input == "" {
			continue
		}
		for _, item := range meta.Inputs {
			if item.Key == s.Input {
				m, _ := item.Value.(map[string]any)
				if m["description"] != s.InputHelp() {
					t.Errorf("input %s: description %q, want %q", s.Input, m["description"], s.InputHelp())
				}
			}
		}
	}
}
