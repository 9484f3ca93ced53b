package cli

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version is set at build time (-ldflags "-X ...cli.Version=v1.2.3"), as
// the release's binaries and image are built; empty, the build info says
// (version).
var Version string

// version is benchgate's version: Version when the build set it, else the
// module's version from the build info: the tag of `go install
// …@v1.2.3`, or the pseudo-version go build stamps in a git checkout
// (v0.0.0-20260101120000-abcdef123456, +dirty with uncommitted changes);
// else "dev" with the commit when stamped.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return cmp.Or(Version, "dev")
	}
	return versionOf(Version, bi)
}

func versionOf(set string, bi *debug.BuildInfo) string {
	if set != "" && set != "dev" {
		return set
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	v := "dev-" + rev[:min(12, len(rev))]
	if modified {
		v += "+dirty"
	}
	return v
}

// tool names benchgate in reports: "benchgate v1.2.3". In the action, a
// build without a version (the runner builds the image from the action's
// Dockerfile at the ref the workflow names) is named by that ref.
func (a *app) tool() string {
	v := version()
	if gh := a.githubContext(); strings.HasPrefix(v, "dev") && gh.ActionRepository != "" && gh.ActionRef != "" {
		return fmt.Sprintf("benchgate %s@%s", gh.ActionRepository, gh.ActionRef)
	}
	return "benchgate " + v
}

// versionLine is what benchgate version prints: the version, the Go
// toolchain and the platform, for bug reports.
func versionLine() string {
	return fmt.Sprintf("benchgate %s (%s %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
