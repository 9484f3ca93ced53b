package config

import "strings"

// GitHub is the GitHub Actions context of the action, read once from the
// runner's variables and the token input: where the workspace is, which
// repository and API, the run's page, the event, and the token, which
// only the publishing client holds (the benchmarks never see it:
// docs/security.md).
type GitHub struct {
	Workspace  string // GITHUB_WORKSPACE
	Repository string // "owner/name", GITHUB_REPOSITORY
	// ServerURL and APIURL are github.com's or a GitHub Enterprise
	// Server's (GITHUB_SERVER_URL, GITHUB_API_URL).
	ServerURL, APIURL string
	RunID             string // GITHUB_RUN_ID
	// EventName, EventPath and SHA are the event that started the
	// workflow, its payload's file and its commit.
	EventName, EventPath, SHA string
	// ActionRepository and ActionRef name the action the workflow uses
	// ("benchgate/benchgate", "v1"): a build without a version is named
	// by them.
	ActionRepository, ActionRef string
	// Token is the token input, trimmed; "" for none.
	Token string
}

// GitHubContext reads the context with getenv.
func GitHubContext(getenv func(string) string) GitHub {
	return GitHub{
		Workspace: getenv("GITHUB_WORKSPACE"), Repository: getenv("GITHUB_REPOSITORY"),
		ServerURL: getenv("GITHUB_SERVER_URL"), APIURL: getenv("GITHUB_API_URL"), RunID: getenv("GITHUB_RUN_ID"),
		EventName: getenv("GITHUB_EVENT_NAME"), EventPath: getenv("GITHUB_EVENT_PATH"), SHA: getenv("GITHUB_SHA"),
		ActionRepository: getenv("GITHUB_ACTION_REPOSITORY"), ActionRef: getenv("GITHUB_ACTION_REF"),
		Token: strings.TrimSpace(getenv(InputEnv("token"))),
	}
}

// OwnerRepo splits Repository; ok is false when it is not "owner/name".
func (g GitHub) OwnerRepo() (owner, repo string, ok bool) {
	return strings.Cut(g.Repository, "/")
}

// RepoURL is the repository's page ("" when unknown).
func (g GitHub) RepoURL() string {
	if g.ServerURL == "" || g.Repository == "" {
		return ""
	}
	return strings.TrimRight(g.ServerURL, "/") + "/" + g.Repository
}

// RunURL is the workflow run's page ("" when unknown).
func (g GitHub) RunURL() string {
	if r := g.RepoURL(); r != "" && g.RunID != "" {
		return r + "/actions/runs/" + g.RunID
	}
	return ""
}
