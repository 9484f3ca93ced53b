package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/goccy/go-yaml"
)

// gitlabJob is the part of a GitLab CI job the template must get right.
type gitlabJob struct {
	Image struct {
		Name       string   `yaml:"name"`
		Entrypoint []string `yaml:"entrypoint"`
	} `yaml:"image"`
	Rules []struct {
		If string `yaml:"if"`
	} `yaml:"rules"`
	Variables map[string]string `yaml:"variables"`
	Cache     struct {
		Key struct {
			Files  []string `yaml:"files"`
			Prefix string   `yaml:"prefix"`
		} `yaml:"key"`
		Paths []string `yaml:"paths"`
	} `yaml:"cache"`
	Script    []string `yaml:"script"`
	Stage     string   `yaml:"stage"`
	Artifacts struct {
		When     string   `yaml:"when"`
		ExpireIn string   `yaml:"expire_in"`
		Paths    []string `yaml:"paths"`
		Reports  struct {
			JUnit       string `yaml:"junit"`
			CodeQuality string `yaml:"codequality"`
		} `yaml:"reports"`
	} `yaml:"artifacts"`
}

// The template users copy (templates/benchgate.gitlab-ci.yml, shown in
// docs/gitlab.md) parses, runs the action's image with its entrypoint
// cleared (GitLab runs the script in a shell), runs in merge request
// pipelines and on pushes to the default branch, clones shallow, runs a
// benchgate gitlab whose flags parse, lists exactly the files that command
// writes under artifacts (the reports also when the gate fails), and
// caches the sandbox home's Go caches where benchgate puts them.
func TestGitLabTemplate(t *testing.T) {
	const path = "templates/benchgate.gitlab-ci.yml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]gitlabJob
	if err := yaml.UnmarshalWithOptions(data, &file, yaml.Strict()); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	job, ok := file["benchgate"]
	if !ok || len(file) != 1 {
		t.Fatalf("%s: want one job, benchgate; got %d", path, len(file))
	}
	if !regexp.MustCompile(`^ghcr\.io/OWNER/benchgate:VERSION$`).MatchString(job.Image.Name) || !slices.Equal(job.Image.Entrypoint, []string{""}) {
		t.Errorf("image %q entrypoint %q: want the released action image (docs/release.md) with the entrypoint cleared", job.Image.Name, job.Image.Entrypoint)
	}
	var ifs []string
	for _, r := range job.Rules {
		ifs = append(ifs, r.If)
	}
	want := []string{`$CI_PIPELINE_SOURCE == "merge_request_event"`, `$CI_PIPELINE_SOURCE == "push" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH`}
	if !slices.Equal(ifs, want) {
		t.Errorf("rules %q, want %q", ifs, want)
	}
	if d, err := strconv.Atoi(job.Variables["GIT_DEPTH"]); err != nil || d < 1 {
		t.Errorf("GIT_DEPTH %q: want a shallow clone", job.Variables["GIT_DEPTH"])
	}
	var cfg *config.Config
	for _, line := range job.Script {
		if args, ok := strings.CutPrefix(line, "benchgate "); ok {
			if cfg, err = config.Parse(strings.Fields(args)); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
		}
	}
	if cfg == nil || cfg.Command != "gitlab" {
		t.Fatalf("script %q: no benchgate gitlab", job.Script)
	}
	a := job.Artifacts
	if a.When != "always" || a.Reports.JUnit != cfg.GitLab.JUnit || a.Reports.CodeQuality != cfg.GitLab.CodeQuality ||
		!slices.Equal(a.Paths, []string{cfg.Markdown, cfg.JSON}) {
		t.Errorf("artifacts %+v: want when always, reports %s and %s, paths %s and %s", a, cfg.GitLab.JUnit, cfg.GitLab.CodeQuality, cfg.Markdown, cfg.JSON)
	}
	// The sandbox home is CI_PROJECT_DIR/.benchgate-sandbox; its Go
	// caches are go/pkg/mod and .cache/go-build (internal/sandbox).
	if !slices.Equal(job.Cache.Paths, []string{filepath.Join(".benchgate-sandbox", "go", "pkg", "mod"), filepath.Join(".benchgate-sandbox", ".cache", "go-build")}) {
		t.Errorf("cache paths %q", job.Cache.Paths)
	}
	// docs/gitlab.md shows the template as it is.
	doc, err := os.ReadFile("docs/gitlab.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), string(data)) {
		t.Errorf("docs/gitlab.md does not show %s as it is", path)
	}
}
