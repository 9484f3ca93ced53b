package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/testenv"
)

// The version is the release's (-X cli.Version), else the module version
// the build info holds (go install …@v1.2.3; go build in a git checkout
// stamps a pseudo-version), else dev with the commit.
func TestVersionOf(t *testing.T) {
	stamped := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		set  string
		bi   debug.BuildInfo
		want string
	}{
		{"v1.2.3", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-x"}}, "v1.2.3"},
		{"", debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"},
		{"dev", debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"},
		{"", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260101120000-0123456789ab+dirty"}}, "v0.0.0-20260101120000-0123456789ab+dirty"},
		{"", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: stamped}, "dev-0123456789ab+dirty"},
		{"", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: stamped[:1]}, "dev-0123456789ab"},
		{"", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
	} {
		if got := versionOf(tc.set, &tc.bi); got != tc.want {
			t.Errorf("versionOf(%q, %+v) = %q, want %q", tc.set, tc.bi.Main, got, tc.want)
		}
	}
	// In the action, a build without a version is named by the action's
	// ref.
	gh := config.GitHubContext(func(k string) string {
		return map[string]string{"GITHUB_ACTION_REPOSITORY": "benchgate/benchgate", "GITHUB_ACTION_REF": "v1"}[k]
	})
	a := &app{gh: &gh}
	if got := a.tool(); version() == "dev" && got != "benchgate benchgate/benchgate@v1" {
		t.Errorf("tool in the action = %q", got)
	}
}

// A binary built from a tagged commit says the tag, as one from go install
// …@TAG does (both set the build info's module version); built at a
// commit after it, the pseudo-version with the commit; with -X, the
// release's version. Builds benchgate three times.
func TestVersionOfBuilds(t *testing.T) {
	testenv.Heavy(t)
	env := testenv.Env(t, "HOME="+testenv.TempDir(t))
	clone := filepath.Join(testenv.TempDir(t), "benchgate")
	testenv.Git(t, env, "", "clone", "-q", "../..", clone)
	testenv.Git(t, env, clone, "-c", "user.name=a", "-c", "user.email=a@b", "tag", "-a", "v1.8.7", "-m", "v1.8.7")
	build := func(args ...string) string {
		t.Helper()
		bin := filepath.Join(t.TempDir(), "benchgate")
		cmd := exec.Command("go", append(append([]string{"build", "-buildvcs=true", "-o", bin}, args...), ".")...)
		cmd.Dir, cmd.Env = clone, append(os.Environ(), "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatalf("benchgate --version: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	if got := build(); !regexp.MustCompile(`^benchgate v1\.8\.7 \(go1\.\S+ \w+/\w+\)$`).MatchString(got) {
		t.Errorf("built at the tag: %q, want benchgate v1.8.7 (go…)", got)
	}
	testenv.Git(t, env, clone, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "after the tag")
	if got := build(); !regexp.MustCompile(`^benchgate v1\.8\.8-0\.\d{14}-[0-9a-f]{12} \(`).MatchString(got) {
		t.Errorf("built after the tag: %q, want the pseudo-version v1.8.8-0.DATE-COMMIT", got)
	}
	if got := build("-ldflags", "-X github.com/benchgate/benchgate/internal/cli.Version=v2.0.0"); !strings.HasPrefix(got, "benchgate v2.0.0 (") {
		t.Errorf("built with -X: %q", got)
	}
}
