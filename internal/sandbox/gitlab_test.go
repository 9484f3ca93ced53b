package sandbox

import (
	"strings"
	"testing"
)

// gitlabJob is a GitLab CI job's environment as the runner gives it to
// the job's container: the predefined variables (CI_JOB_TOKEN, the
// registry's and dependency proxy's passwords, the clone URL with the
// token in it), the project's CI/CD variables, masked or not (they cannot
// be told from ordinary ones by name or value), a file-type variable's
// path, the note's token, and the Go settings the image sets.
var gitlabJob = []string{
	"CI=true", "GITLAB_CI=true", "CI_SERVER_URL=https://gitlab.example",
	"CI_JOB_TOKEN=glcbt-64_jobsecret", "CI_REGISTRY_PASSWORD=glcbt-64_jobsecret", "CI_REGISTRY_USER=gitlab-ci-token",
	"CI_DEPENDENCY_PROXY_PASSWORD=glcbt-64_jobsecret", "CI_DEPLOY_PASSWORD=gldt-deploysecret",
	"CI_REPOSITORY_URL=https://gitlab-ci-token:glcbt-64_jobsecret@gitlab.example/group/project.git",
	"CI_JOB_JWT=eyJhbGciOi.jwtsecret", "CI_JOB_JWT_V2=eyJhbGciOi.jwtsecret", "GITLAB_OIDC_TOKEN=eyJhbGciOi.oidcsecret",
	"CI_SERVER_TLS_CA_FILE=/builds/group/project.tmp/CI_SERVER_TLS_CA_FILE",
	"BENCHGATE_GITLAB_TOKEN=glpat-notesecret",
	"AWS_SECRET_ACCESS_KEY=awssecret", "DEPLOY_KEY=deploysecret", "NPM_TOKEN=npmsecret",
	"GOOGLE_APPLICATION_CREDENTIALS=/builds/group/project.tmp/GOOGLE_APPLICATION_CREDENTIALS",
	"GOOGLE_CREDENTIALS={\"private_key\":\"gcpsecret\"}", "GORELEASER_KEY=goreleasersecret", "GOPHER_TOKEN=gophersecret",
	"GITLAB_TOKEN=glpat-usersecret", "FF_USE_FASTZIP=true", "GIT_DEPTH=10",
	"PATH=/usr/local/go/bin:/usr/bin:/bin", "HOME=/root", "GOFLAGS=-buildvcs=false", "GOTOOLCHAIN=auto", "GOPROXY=https://proxy.golang.org",
	"GOMAXPROCS=2", "LANG=C.UTF-8",
}

// None of a GitLab job's secrets, nor anything of GitLab's, reaches the
// change's code; Go's settings do.
func TestGitLabJobEnv(t *testing.T) {
	env := Env(gitlabJob, nil)
	got := map[string]bool{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = true
		if strings.Contains(v, "secret") || strings.HasPrefix(k, "CI") || strings.HasPrefix(k, "GITLAB") || strings.HasPrefix(k, "FF_") || strings.Contains(v, "/builds/") {
			t.Errorf("the change's code gets %s", kv)
		}
	}
	for _, k := range []string{"PATH", "HOME", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY", "GOMAXPROCS", "LANG"} {
		if !got[k] {
			t.Errorf("%s is not passed", k)
		}
	}
	// git, benchgate's own, keeps GIT_DEPTH but no secret either.
	for _, kv := range GitEnv(gitlabJob, nil) {
		if strings.Contains(kv, "secret") {
			t.Errorf("git gets %s", kv)
		}
	}
}
