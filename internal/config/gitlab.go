package config

import (
	"errors"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/gitlab"
)

// GitLabTokenVar is the CI/CD variable benchgate gitlab reads the note's
// token from, when it publishes and at no other time: a project access
// token with the api scope, stored masked (CI_JOB_TOKEN cannot write
// notes).
const GitLabTokenVar = "BENCHGATE_GITLAB_TOKEN"

// The files benchgate gitlab writes unless told otherwise, relative to
// the working directory (the job's CI_PROJECT_DIR): the job lists them
// under artifacts (reports:junit, reports:codequality, paths).
const (
	GitLabJUnit       = "benchgate-junit.xml"
	GitLabCodeQuality = "benchgate-codequality.json"
	GitLabMarkdown    = "benchgate-report.md"
	GitLabJSON        = "benchgate-report.json"
)

// GitLabSettings are the flags only benchgate gitlab has.
type GitLabSettings struct {
	JUnit, CodeQuality string // report files; "" for none
	Note               string // always, on-change or never
	NoteKey            string
}

// gitlabFlags applies gitlab's defaults to what the flags left unset (the
// reports are written by default, as artifacts) and takes its positional
// packages.
func (c *Config) gitlabFlags(pos []string, raw map[string]string) error {
	// The Markdown and JSON reports are artifacts of the job.
	if _, given := raw["markdown"]; !given {
		c.Markdown = GitLabMarkdown
	}
	if _, given := raw["json"]; !given {
		c.JSON = GitLabJSON
	}
	if c.Head == "HEAD" && raw["head"] == "" {
		c.Head = "" // from the pipeline
	}
	if len(pos) > 0 {
		c.Packages = pos
	}
	for _, p := range c.Packages {
		if strings.HasPrefix(p, "-") {
			return usagef("package pattern %q looks like a flag", p)
		}
	}
	return nil
}

func noteKey(c *Config, s string) error {
	if s == "" || strings.ContainsAny(s, "<>") || strings.Contains(s, "--") || strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return errors.New(`want a key without spaces, control characters, "<", ">" or "--"`)
	}
	c.GitLab.NoteKey = s
	return nil
}

var (
	fullSHA   = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)
	numericID = regexp.MustCompile(`^[1-9][0-9]{0,18}$`)
)

// GitLab reads GitLab's predefined variables, once, into the pipeline
// they describe, and checks what it reads: commits are full SHAs, IDs
// positive numbers, CI_PROJECT_DIR an absolute path. Every error names the
// variable (exit status 2). Nothing else reads them.
func GitLab(getenv func(string) string) (gitlab.Pipeline, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	p := gitlab.Pipeline{
		Source: get("CI_PIPELINE_SOURCE"), EventType: get("CI_MERGE_REQUEST_EVENT_TYPE"),
		CommitSHA: get("CI_COMMIT_SHA"), BeforeSHA: get("CI_COMMIT_BEFORE_SHA"),
		DiffBaseSHA: get("CI_MERGE_REQUEST_DIFF_BASE_SHA"), TargetBranchSHA: get("CI_MERGE_REQUEST_TARGET_BRANCH_SHA"),
		SourceBranchSHA: get("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"),
		TargetBranch:    get("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"), SourceBranch: get("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"),
		ProjectID: get("CI_PROJECT_ID"), MRProjectID: get("CI_MERGE_REQUEST_PROJECT_ID"), SourceProjectID: get("CI_MERGE_REQUEST_SOURCE_PROJECT_ID"),
		MRProjectURL: get("CI_MERGE_REQUEST_PROJECT_URL"),
		Ref:          get("CI_COMMIT_REF_NAME"), DefaultBranch: get("CI_DEFAULT_BRANCH"),
		APIURL: get("CI_API_V4_URL"), ProjectDir: get("CI_PROJECT_DIR"), BuildsDir: get("CI_BUILDS_DIR"), JobURL: get("CI_JOB_URL"),
	}
	if p.Source == "" {
		return p, usagef("CI_PIPELINE_SOURCE is not set: benchgate gitlab runs in a GitLab CI job (elsewhere: benchgate run --base REV)")
	}
	for _, v := range []struct {
		name, value string
		zeros       bool
	}{
		{"CI_COMMIT_SHA", p.CommitSHA, false}, {"CI_COMMIT_BEFORE_SHA", p.BeforeSHA, true},
		{"CI_MERGE_REQUEST_DIFF_BASE_SHA", p.DiffBaseSHA, false}, {"CI_MERGE_REQUEST_TARGET_BRANCH_SHA", p.TargetBranchSHA, false},
		{"CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", p.SourceBranchSHA, false},
	} {
		if v.value != "" && !fullSHA.MatchString(v.value) && !(v.zeros && (len(v.value) == 40 || len(v.value) == 64) && gitlab.IsZeroSHA(v.value)) {
			return p, usagef("%s %q: not a full commit name", v.name, v.value)
		}
	}
	if p.CommitSHA == "" {
		return p, usagef("CI_COMMIT_SHA is not set: the commit the job checked out is unknown")
	}
	if s := get("CI_MERGE_REQUEST_IID"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return p, usagef("CI_MERGE_REQUEST_IID %q: not a merge request number", s)
		}
		p.IID = n
	}
	for _, v := range []struct{ name, value string }{
		{"CI_PROJECT_ID", p.ProjectID}, {"CI_MERGE_REQUEST_PROJECT_ID", p.MRProjectID}, {"CI_MERGE_REQUEST_SOURCE_PROJECT_ID", p.SourceProjectID},
	} {
		if v.value != "" && !numericID.MatchString(v.value) {
			return p, usagef("%s %q: not a project ID", v.name, v.value)
		}
	}
	for _, v := range []struct{ name, value string }{{"CI_PROJECT_DIR", p.ProjectDir}, {"CI_BUILDS_DIR", p.BuildsDir}} {
		if v.value != "" && !filepath.IsAbs(v.value) {
			return p, usagef("%s %q: not an absolute path", v.name, v.value)
		}
	}
	if p.Source == gitlab.SourceMergeRequest && p.IID == 0 {
		return p, usagef("CI_MERGE_REQUEST_IID is not set in a %s pipeline", p.Source)
	}
	return p, nil
}
