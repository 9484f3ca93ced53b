package config

import (
	"strings"
	"testing"
)

func TestParseGitLab(t *testing.T) {
	c, err := Parse([]string{"gitlab", "--count", "12", "./codec/..."})
	if err != nil {
		t.Fatal(err)
	}
	if c.Command != "gitlab" || c.Count != 12 || c.Head != "" || c.Packages[0] != "./codec/..." ||
		c.JSON != GitLabJSON || c.Markdown != GitLabMarkdown || c.GitLab.JUnit != GitLabJUnit || c.GitLab.CodeQuality != GitLabCodeQuality ||
		c.GitLab.Note != "always" || c.GitLab.NoteKey != "benchgate" {
		t.Errorf("Parse(gitlab ...) = %+v", c)
	}
	c, err = Parse([]string{"gitlab", "--junit", "", "--json", "", "--note", "on-change", "--note-key", "bench-linux"})
	if err != nil {
		t.Fatal(err)
	}
	if c.GitLab.JUnit != "" || c.JSON != "" || c.GitLab.Note != "on-change" || c.GitLab.NoteKey != "bench-linux" {
		t.Errorf("Parse(gitlab, flags) = %+v", c.GitLab)
	}
	for args, want := range map[string]string{
		"gitlab --note sometimes": `--note "sometimes": want always, on-change or never`,
		"gitlab --note-key a-->b": `--note-key "a-->b"`,
		"gitlab --record":         `--record`,
	} {
		if _, err := Parse(strings.Fields(args)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want %q", args, err, want)
		}
	}
}

func TestGitLabVariables(t *testing.T) {
	sha := strings.Repeat("a", 40)
	base := map[string]string{
		"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_EVENT_TYPE": "merged_result",
		"CI_COMMIT_SHA": sha, "CI_COMMIT_BEFORE_SHA": strings.Repeat("0", 40), "CI_MERGE_REQUEST_IID": "7",
		"CI_MERGE_REQUEST_TARGET_BRANCH_SHA": strings.Repeat("b", 40), "CI_PROJECT_ID": "42", "CI_MERGE_REQUEST_PROJECT_ID": "42",
		"CI_PROJECT_DIR": "/builds/group/project", "CI_API_V4_URL": "https://gitlab.example/api/v4",
	}
	env := func(over map[string]string) func(string) string {
		return func(k string) string {
			if v, ok := over[k]; ok {
				return v
			}
			return base[k]
		}
	}
	p, err := GitLab(env(nil))
	if err != nil || p.IID != 7 || p.CommitSHA != sha || p.APIURL != "https://gitlab.example/api/v4" {
		t.Fatalf("GitLab = %+v, %v", p, err)
	}
	for k, v := range map[string]string{
		"CI_PIPELINE_SOURCE":                 "",
		"CI_COMMIT_SHA":                      "abc123",
		"CI_MERGE_REQUEST_TARGET_BRANCH_SHA": "--upload-pack=x",
		"CI_COMMIT_BEFORE_SHA":               "0000",
		"CI_MERGE_REQUEST_IID":               "seven",
		"CI_MERGE_REQUEST_PROJECT_ID":        "../1",
		"CI_PROJECT_DIR":                     "builds/x",
	} {
		_, err := GitLab(env(map[string]string{k: v}))
		if err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%q: err = %v, want one naming %s", k, v, err, k)
		}
		if _, ok := err.(*UsageError); !ok {
			t.Errorf("%s=%q: %T, want a usage error (exit 2)", k, v, err)
		}
	}
}
