//go:build unix

package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/github/githubtest"
	"github.com/rogpeppe/go-internal/txtar"
)

const (
	dockerRepo  = "owner/repo"
	dockerOwner = "owner"
	dockerPR    = 7
	dockerKey   = "e2e-bench" // the comment-key input
	runnerUID   = 1001        // the runner user, owner of the workspace
	sandboxUID  = 65532       // the image's benchgate-sandbox user
	runTimeout  = 15 * time.Minute
)

// dockerModule is the module of the origin repository's main branch.
// dockerSlower turns it into the pull request.
const dockerModule = `
-- go.mod --
module example.com/e2ebench

go 1.26
-- mix.go --
// Package e2ebench is the module TestDocker benchmarks.
package e2ebench

import "strings"

// rounds is how much work Mix does per call.
const rounds = 64

// Mix scrambles x.
func Mix(x uint64) uint64 {
	for i := 0; i < rounds; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// Join joins parts with commas.
func Join(parts []string) string {
	return strings.Join(parts, ",")
}
-- mix_test.go --
package e2ebench

import "testing"

var (
	sinkU uint64
	sinkS string
)

func BenchmarkMix(b *testing.B) {
	x := uint64(1)
	for b.Loop() {
		x = Mix(x)
	}
	sinkU = x
}

func BenchmarkJoin(b *testing.B) {
	parts := []string{"alpha", "beta", "gamma"}
	for b.Loop() {
		sinkS = Join(parts)
	}
}
-- stable/sum.go --
// Package stable has a benchmark that the pull request does not change.
package stable

// Sum adds xs.
func Sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}
-- stable/sum_test.go --
package stable

import "testing"

var sink int

func BenchmarkSum(b *testing.B) {
	xs := make([]int, 256)
	for i := range xs {
		xs[i] = i
	}
	for b.Loop() {
		sink = Sum(xs)
	}
}
`

// dockerSlower are the pull request's edits of mix.go: Mix 4x slower, one
// more allocation in Join.
var dockerSlower = [][2]string{
	{"const rounds = 64", "const rounds = 256"},
	{`return strings.Join(parts, ",")`, `return strings.Clone(strings.Join(parts, ","))`},
}

// dockerHeadFile is a file of the pull request's module: dockerModule's
// with dockerSlower's edits.
func dockerHeadFile(t *testing.T, name string) string {
	s := string(txtarFile(t, dockerModule, name))
	for _, e := range dockerSlower {
		s = strings.Replace(s, e[0], e[1], 1)
	}
	return s
}

// hostileFiles are the files of the hostile pull request (run 5): the spy
// package of testdata/action_hostile.txtar, which the test puts in spy/ of
// the module.
var hostileFiles = map[string]string{
	"origin/lib.go":       "spy/lib.go",
	"origin/lib_test.go":  "spy/lib_test.go",
	"origin/spy_test.go":  "spy/spy_test.go",
	"head_loud_test.go":   "spy/loud_test.go",
	"docker_walk_test.go": "spy/walk_test.go",
}

// laneSpy is the hostile pull request's addition to the stable package
// (run 5), which is on both sides, so that the instruction lane measures
// it: an init function, run by every process of the package's test
// binary (valgrind's included), that panics with whatever it can steal.
const laneSpy = `package stable

import (
	"os"
	"strings"
)

func init() {
	var leaks []string
	for _, kv := range os.Environ() {
		if strings.Contains(kv, "_secret") || strings.Contains(kv, "s3cret") || strings.HasPrefix(kv, "INPUT_") || strings.HasPrefix(kv, "GITHUB_") || strings.HasPrefix(kv, "ACTIONS_") {
			leaks = append(leaks, "LEAK env "+kv)
		}
	}
	for _, p := range []string{"/proc/1/environ", "/github/workspace/.git/config"} {
		if b, err := os.ReadFile(p); err == nil {
			leaks = append(leaks, "LEAK read "+p+": "+string(b))
		}
	}
	if len(leaks) > 0 {
		panic(strings.Join(leaks, "\n"))
	}
}
`

// The secrets the runner would give the job in run 5.
var dockerSecrets = []string{"ghs_github_secret_e2e", "rt_runtime_secret_e2e", "oidc_request_secret_e2e"}

// mixRow matches a Markdown table row of the slowed benchmark, loosely:
// "| ❌ | `Mix-2` | sec/op | ...", the name in a code span or not.
var mixRow = regexp.MustCompile("(?m)^\\|.*\\|[^|\n]*Mix[^|\n]*\\|\\s*sec/op\\s*\\|")

// dockerTest is the state of TestDocker, shared by its runs.
type dockerTest struct {
	ctx     context.Context
	root    string // the benchgate repository, the build context
	tmp     string
	image   string
	created []string // image ids this test's build made
	keep    bool

	fake     *githubtest.Server
	token    string
	attacker *attacker // where run 5's walking spy sends what it found

	origin, ws, home, filecmds string
	runnerTemp, workflow       string
	credentials                string // checkout v6's credentials file, host path
	mounts                     []dockerMount
	gitEnv                     []string
	containers                 []string

	prBase, prHead, mainTip, merge string
	reportInWS                     string // benchgate-report.json, once run 1 has named it
	events                         map[string][]byte

	passed, failed int
}

// dockerMount is a host directory mounted into the container.
type dockerMount struct{ host, container string }

// TestDocker builds the action's image and runs it the way the GitHub Actions
// runner runs a Docker container action, against the fake GitHub API
// (githubtest) served by the test on 127.0.0.1 (the containers use the host's
// network). It needs docker and git, takes several minutes, and runs only
// with BENCHGATE_DOCKER=1 (as .ci/run does):
//
//	BENCHGATE_DOCKER=1 go test -count=1 -run TestDocker -timeout 40m ./e2e/
//
// BENCHGATE_DOCKER_KEEP=1 keeps the temporary directory and the image.
// BENCHGATE_DOCKER_RUNS=5,6 runs only the runs listed (the setup is the
// same; run 2 needs run 1's comment, run 3 run 2's).
//
// The scenario is a pull request on a small Go module: the PR makes one
// benchmark about 4x slower and adds one allocation to another; a third, in a
// sub-package, is unchanged. The origin repository has main, the PR branch and
// GitHub's test merge commit (refs/pull/7/merge); the workspace is a depth-1
// checkout of that merge commit, fetched by SHA as actions/checkout does, with
// the token persisted the way both checkout v4 (in .git/config) and v6 (in
// $RUNNER_TEMP/git-credentials-<uuid>.config, 0644, which .git/config
// includes) persist it, and owned by uid 1001 (the runner user) while the
// container runs as root. The mounts are the runner's, /github/home,
// /github/workflow and /github/file_commands in /github/runner_temp on the
// host.
//
//	run 1  pull_request: exit 1, job summary, step outputs, report JSON, one
//	       sticky comment; only the inputs a user would set, the rest default,
//	       and measure: time,instructions (the instruction lane under the
//	       image's valgrind, as the sandbox user)
//	run 2  same event again, with every action input (config.Inputs) set as
//	       the runner sets them (defaults filled in, ${{ github.token }} for
//	       the token): the same comment is edited (PATCH), not duplicated
//	run 3  pull request from a fork, read-only token (403): still exit 1, a
//	       note in the summary, a ::warning, the comment untouched
//	run 4  pull_request_target without allow-privileged-events: exit 2
//	run 5  a hostile pull request (the spy benchmarks of
//	       testdata/action_hostile.txtar): they read the token variables and
//	       /proc/1/environ, write the file-command files, open the Docker
//	       socket (mounted, as the runner does), read the checkout's persisted
//	       credentials, print forged workflow commands (also in a failing
//	       run's message and in sub-benchmark names), in the time lane and
//	       under valgrind in the instruction lane: nothing leaks, no forged
//	       command would run, the verdict is the real one; and one more
//	       benchmark reads every file the sandbox user can read (but /proc,
//	       /sys and /dev), every /proc/*/environ and /proc/*/cmdline, for
//	       the token, its basic-auth form and the job's secrets, and sends
//	       its record to a server of the test's (the network is open): it
//	       finds nothing, the server receives no secret, and the record
//	       shows it read the image's files, its home, the worktree and /proc
//	run 6  the PR's head commit, by its author under a maintainer's name,
//	       says Benchgate-Accept: . : at the action's default inputs, exit 1
//	       and the regressions stay regressions
//
// After every run the workspace must be exactly as checked out: no changed or
// untracked files but benchgate-report.json, no extra worktrees, nothing owned
// by root. Only docker build, docker run and git are executed.
func TestDocker(t *testing.T) {
	if os.Getenv("BENCHGATE_DOCKER") != "1" {
		t.Skip("the Docker test of the action image runs with BENCHGATE_DOCKER=1 (see .ci/run); it needs docker, git and a few minutes")
	}
	for _, tool := range []string{"docker", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("BENCHGATE_DOCKER=1 but %s is not installed: %v", tool, err)
		}
	}
	if out, err := exec.Command("docker", "info").CombinedOutput(); err != nil {
		t.Fatalf("BENCHGATE_DOCKER=1 but no Docker engine answers (../shared/tools/docker-golang-image.sh starts one): %v\n%s", err, lastLines(string(out), 10))
	}
	selected, err := selectedRuns(os.Getenv("BENCHGATE_DOCKER_RUNS"), 6)
	if err != nil {
		t.Fatal(err)
	}

	// Stop early enough to remove the containers: on a signal, and a minute
	// before go test's -timeout, after which no cleanup would run.
	ctx, stop := signal.NotifyContext(t.Context(), os.Interrupt, syscall.SIGTERM)
	t.Cleanup(stop)
	if dl, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, dl.Add(-time.Minute), errors.New("stopped a minute before the test's -timeout, to clean up"))
		t.Cleanup(cancel)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	d := &dockerTest{ctx: ctx, root: root, keep: os.Getenv("BENCHGATE_DOCKER_KEEP") == "1", events: map[string][]byte{}}
	d.tmp, err = os.MkdirTemp("", "benchgate-docker-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.cleanup(t) })
	start := time.Now()
	d.setup(t)

	runs := []struct {
		name string
		run  func(*testing.T)
	}{
		{"1_pull_request", d.run1},
		{"2_same_comment_edited", d.run2},
		{"3_fork_read_only_token", d.run3},
		{"4_pull_request_target_refused", d.run4},
		{"5_hostile_pull_request", d.run5},
		{"6_forged_trailer_author", d.run6},
	}
	if !selected[1] {
		d.reportInWS = "benchgate-report.json" // what run 1 checks that the output names
	}
	for i, r := range runs {
		if selected[i+1] {
			t.Run(r.name, r.run)
		}
	}
	t.Logf("%d checks passed, %d failed, in %v", d.passed, d.failed, time.Since(start).Round(time.Second))
}

// selectedRuns reads BENCHGATE_DOCKER_RUNS: run numbers separated by
// commas, or empty for all n runs.
func selectedRuns(sel string, n int) (map[int]bool, error) {
	runs := map[int]bool{}
	if sel == "" {
		for i := 1; i <= n; i++ {
			runs[i] = true
		}
		return runs, nil
	}
	for _, f := range strings.Split(sel, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 1 || i > n {
			return nil, fmt.Errorf("BENCHGATE_DOCKER_RUNS=%s: want run numbers from 1 to %d, separated by commas", sel, n)
		}
		runs[i] = true
	}
	return runs, nil
}

// check counts a check and fails t unless ok.
func (d *dockerTest) check(t *testing.T, ok bool, format string, args ...any) bool {
	t.Helper()
	if ok {
		d.passed++
		t.Logf("PASS: "+format, args...)
	} else {
		d.failed++
		t.Errorf("FAIL: "+format, args...)
	}
	return ok
}

// cleanup removes the containers, the temporary directory and the images
// this test made, whatever happened.
func (d *dockerTest) cleanup(t *testing.T) {
	for _, c := range d.containers {
		d.dockerQuiet("rm", "-f", c)
	}
	if d.keep {
		t.Logf("kept %s and image %s (BENCHGATE_DOCKER_KEEP=1)", d.tmp, d.image)
		return
	}
	if err := os.RemoveAll(d.tmp); err != nil && d.image != "" {
		// Not root: the containers leave root-owned files (build cache) behind.
		parent := filepath.Dir(d.tmp)
		d.dockerQuiet("run", "--rm", "-v", parent+":"+parent, "--entrypoint", "rm", d.image, "-rf", d.tmp)
		err = os.RemoveAll(d.tmp)
		if err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}
	if d.image != "" {
		// Exactly the images this build made: the tag, then the layers that
		// did not come from the cache (the legacy builder keeps the build
		// stage as a dangling image), newest first. The cache of earlier
		// builds stays.
		d.dockerQuiet("rmi", "--no-prune", d.image)
		for _, id := range slices.Backward(d.created) {
			removeLayer(id)
		}
	}
}

// removeLayer removes an image layer, waiting for a stopped build to let go
// of it.
func removeLayer(id string) {
	for range 30 {
		out, err := exec.Command("docker", "rmi", "--no-prune", id).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "running container") {
			return
		}
		time.Sleep(2 * time.Second)
	}
}

// dockerQuiet runs a docker command whose failure does not matter, such as
// removing a container that is already gone.
func (d *dockerTest) dockerQuiet(args ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	exec.CommandContext(ctx, "docker", args...).Run()
}

// setup builds the image, starts the fake API and builds the repositories.
func (d *dockerTest) setup(t *testing.T) {
	// The runner's layout: home, workflow and file commands are in the
	// runner's temporary directory on the host, each mounted on its own
	// too, so that the sandbox user could reach them by two paths.
	d.origin, d.ws, d.runnerTemp = filepath.Join(d.tmp, "origin"), filepath.Join(d.tmp, "ws"), filepath.Join(d.tmp, "runnertemp")
	d.home, d.workflow, d.filecmds = filepath.Join(d.runnerTemp, "_github_home"), filepath.Join(d.runnerTemp, "_github_workflow"), filepath.Join(d.runnerTemp, "_runner_file_commands")
	for _, dir := range []string{d.ws, d.home, d.workflow, d.filecmds, filepath.Join(d.tmp, "logs")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d.mounts = []dockerMount{
		{d.ws, "/github/workspace"},
		{d.home, "/github/home"},
		{d.workflow, "/github/workflow"},
		{d.filecmds, "/github/file_commands"},
		{d.runnerTemp, "/github/runner_temp"},
		{d.origin, d.origin}, // the workspace's remote, file://ORIGIN
	}
	d.build(t)

	d.token = "ghs_e2e" + dockerRandomHex(t, 12)
	d.fake = githubtest.NewServer(githubtest.Config{Token: d.token}) // on 127.0.0.1
	t.Cleanup(d.fake.Close)
	t.Logf("fake GitHub API at %s", d.fake.APIURL())

	// Isolate git from any user or system configuration.
	gitconfig := filepath.Join(d.tmp, "gitconfig")
	if err := os.WriteFile(gitconfig, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d.gitEnv = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+gitconfig,
		"GIT_AUTHOR_NAME=Mona", "GIT_AUTHOR_EMAIL=mona@example.com",
		"GIT_COMMITTER_NAME=Mona", "GIT_COMMITTER_EMAIL=mona@example.com")

	// The origin repository.
	o := d.origin
	d.git(t, "", "init", "-q", "-b", "main", o)
	// GitHub lets clients fetch any reachable commit by SHA.
	d.git(t, o, "config", "uploadpack.allowReachableSHA1InWant", "true")
	for _, f := range txtar.Parse([]byte(dockerModule)).Files {
		dockerWriteFile(t, filepath.Join(o, f.Name), f.Data)
	}
	d.git(t, o, "add", "-A")
	d.git(t, o, "commit", "-q", "-m", "initial module")
	d.prBase = d.git(t, o, "rev-parse", "HEAD") // pull_request.base.sha: main when the PR was opened

	d.git(t, o, "checkout", "-q", "-b", "slower")
	mix := filepath.Join(o, "mix.go")
	src, err := os.ReadFile(mix)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range dockerSlower {
		if !bytes.Contains(src, []byte(e[0])) {
			t.Fatalf("mix.go has no %q to edit", e[0])
		}
		src = bytes.Replace(src, []byte(e[0]), []byte(e[1]), 1)
	}
	dockerWriteFile(t, mix, src)
	d.git(t, o, "commit", "-q", "-am", "mix harder, copy the joined string")
	d.prHead = d.git(t, o, "rev-parse", "HEAD")

	// main moves on after the PR was opened, so pull_request.base.sha is
	// stale and the merge commit's first parent is the current tip of main.
	d.git(t, o, "checkout", "-q", "main")
	dockerWriteFile(t, filepath.Join(o, "README.md"), []byte("# e2ebench\n"))
	d.git(t, o, "add", "README.md")
	d.git(t, o, "commit", "-q", "-m", "add a README")
	d.mainTip = d.git(t, o, "rev-parse", "HEAD")
	d.merge = d.mergePR(t, "slower", d.prHead)
	t.Logf("main %s, PR head %s, merge %s", d.mainTip, d.prHead, d.merge)

	// The workspace, as actions/checkout leaves it for a pull_request event,
	// with its default persist-credentials.
	d.git(t, d.ws, "init", "-q")
	d.git(t, d.ws, "remote", "add", "origin", "file://"+o)
	d.checkout(t)
	d.persistCredentials(t)
	d.chown(t, d.ws, runnerUID)
	d.chown(t, d.runnerTemp, runnerUID)
	if os.Geteuid() != 0 {
		d.chown(t, o, 0) // the container (root) fetches from it
	}

	d.events["pr"] = d.prEvent(t, "owner", false, d.prHead)
	d.events["fork"] = d.prEvent(t, "contributor", true, d.prHead)
}

// persistCredentials leaves the token where actions/checkout's default
// persist-credentials does, in both of its layouts at once: v4's, the
// basic-auth header in .git/config; and v6's (src/git-auth-helper.ts,
// configureToken), the header in $RUNNER_TEMP/git-credentials-<uuid>.config,
// written by git config --file and then rewritten (0644, in the runner
// user's 0755 directory), included by .git/config for the host's and the
// container's paths of the repository and of its worktrees.
func (d *dockerTest) persistCredentials(t *testing.T) {
	header := "AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+d.token))
	d.git(t, d.ws, "config", "--local", "http.https://github.com/.extraheader", header)

	u := dockerRandomHex(t, 16)
	name := fmt.Sprintf("git-credentials-%s-%s-%s-%s-%s.config", u[:8], u[8:12], u[12:16], u[16:20], u[20:])
	d.credentials = filepath.Join(d.runnerTemp, name)
	placeholder := "AUTHORIZATION: basic ***"
	d.git(t, "", "config", "--file", d.credentials, "http.https://github.com/.extraheader", placeholder)
	data, err := os.ReadFile(d.credentials)
	if err != nil || bytes.Count(data, []byte(placeholder)) != 1 {
		t.Fatalf("checkout v6's credentials file %s: %v\n%s", d.credentials, err, data)
	}
	if err := os.WriteFile(d.credentials, bytes.Replace(data, []byte(placeholder), []byte(header), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(os.Chmod(d.credentials, 0o644), os.Chmod(d.runnerTemp, 0o755)); err != nil {
		t.Fatal(err)
	}
	for _, git := range [][2]string{
		{filepath.Join(d.ws, ".git"), d.credentials},
		{"/github/workspace/.git", "/github/runner_temp/" + name},
	} {
		d.git(t, d.ws, "config", "--local", "includeIf.gitdir:"+git[0]+".path", git[1])
		d.git(t, d.ws, "config", "--local", "includeIf.gitdir:"+git[0]+"/worktrees/*.path", git[1])
	}
	// Both layouts take effect (here through the host's paths).
	if got := d.git(t, d.ws, "config", "--includes", "--get-all", "http.https://github.com/.extraheader"); got != header+"\n"+header {
		t.Fatalf("the persisted credentials: git config --get-all http.https://github.com/.extraheader shows %q, want the header twice (.git/config and the included %s)", got, name)
	}
}

// build builds the action's image under a tag of its own and records the
// layers the build made, for cleanup.
func (d *dockerTest) build(t *testing.T) {
	d.image = "benchgate-e2e-test:" + dockerRandomHex(t, 6)
	start := time.Now()
	logPath := filepath.Join(d.tmp, "logs", "build.log")
	out, err := exec.CommandContext(d.ctx, "docker", "build", "--force-rm", "-t", d.image, d.root).CombinedOutput()
	os.WriteFile(logPath, out, 0o644)
	d.created = createdLayers(string(out))
	if d.ctx.Err() != nil {
		err = context.Cause(d.ctx)
	}
	if err != nil {
		t.Fatalf("docker build: %v\n%s", err, lastLines(string(out), 40))
	}
	t.Logf("image %s built in %v", d.image, time.Since(start).Round(time.Second))
}

// createdLayers returns the ids of the images the legacy builder made (the
// steps not taken from the cache, FROM excepted), oldest first. Its log has
// "Step I/N : INSTRUCTION", then " ---> Using cache" or " ---> Running in
// CONTAINER", and " ---> IMAGE" last. BuildKit's log has none: nothing then.
func createdLayers(log string) []string {
	var ids []string
	id, cached, from := "", false, false
	flush := func() {
		if id != "" && !cached && !from {
			ids = append(ids, id)
		}
	}
	hexID := regexp.MustCompile(`^---> ([0-9a-f]{12,64})$`)
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "Step "):
			flush()
			_, instr, _ := strings.Cut(line, " : ")
			id, cached, from = "", false, strings.HasPrefix(strings.ToUpper(instr), "FROM ")
		case line == "---> Using cache":
			cached = true
		case hexID.MatchString(line):
			id = hexID.FindStringSubmatch(line)[1]
		}
	}
	flush()
	return ids
}

// mergePR makes GitHub's test merge commit of branch (head sha) into main,
// refs/pull/7/merge, and returns it.
func (d *dockerTest) mergePR(t *testing.T, branch, head string) string {
	o := d.origin
	d.git(t, o, "checkout", "-q", "--detach", "main")
	d.git(t, o, "merge", "-q", "--no-ff", "-m", fmt.Sprintf("Merge %s into %s", head, d.mainTip), branch)
	merge := d.git(t, o, "rev-parse", "HEAD")
	d.git(t, o, "update-ref", fmt.Sprintf("refs/pull/%d/head", dockerPR), head)
	d.git(t, o, "update-ref", fmt.Sprintf("refs/pull/%d/merge", dockerPR), merge)
	d.git(t, o, "checkout", "-q", "main")
	return merge
}

// checkout fetches d.merge by SHA at depth 1 and checks it out in the
// workspace, as actions/checkout does.
func (d *dockerTest) checkout(t *testing.T) {
	ref := fmt.Sprintf("refs/remotes/pull/%d/merge", dockerPR)
	d.git(t, d.ws, "-c", "protocol.version=2", "fetch", "-q", "--no-tags", "--prune", "--no-recurse-submodules",
		"--depth=1", "origin", "+"+d.merge+":"+ref)
	d.git(t, d.ws, "checkout", "-q", "--force", ref)
}

// git runs git in dir and returns its trimmed standard output. The
// workspace belongs to the runner user, so safe.directory; and
// GIT_OPTIONAL_LOCKS=0 keeps git status from rewriting the index while
// looking.
func (d *dockerTest) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := d.gitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func (d *dockerTest) gitErr(dir string, args ...string) (string, error) {
	if dir != "" {
		args = append([]string{"-c", "safe.directory=*", "-C", dir}, args...)
	}
	cmd := exec.CommandContext(d.ctx, "git", args...)
	cmd.Env = append(slices.Clip(d.gitEnv), "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// chown gives the tree at path to uid (and the group of that number), as
// root on the host or, for another user, in a container of the image.
func (d *dockerTest) chown(t *testing.T, path string, uid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		owner := fmt.Sprintf("%d:%d", uid, uid)
		out, err := exec.CommandContext(d.ctx, "docker", "run", "--rm", "-v", d.tmp+":"+d.tmp, "--entrypoint", "chown", d.image, "-R", owner, path).CombinedOutput()
		if err != nil {
			t.Fatalf("chown -R %s %s in a container: %v\n%s", owner, path, err, out)
		}
		return
	}
	err := filepath.WalkDir(path, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ownedBy returns up to 5 paths under dir owned by uid.
func ownedBy(dir string, uid uint32) []string {
	var found []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || len(found) >= 5 {
			return nil
		}
		if fi, err := e.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == uid {
				found = append(found, p)
			}
		}
		return nil
	})
	return found
}

// The event payloads, in GitHub's shape (see internal/event/testdata).
type (
	ghUser struct {
		Login string `json:"login"`
		ID    int64  `json:"id"`
		Type  string `json:"type"`
	}
	ghRepo struct {
		ID            int64  `json:"id"`
		Name          string `json:"name"`
		FullName      string `json:"full_name"`
		Private       bool   `json:"private"`
		Owner         ghUser `json:"owner"`
		Fork          bool   `json:"fork"`
		DefaultBranch string `json:"default_branch"`
	}
	ghBranch struct {
		Label string `json:"label"`
		Ref   string `json:"ref"`
		SHA   string `json:"sha"`
		User  ghUser `json:"user"`
		Repo  ghRepo `json:"repo"`
	}
	ghPullRequest struct {
		URL               string   `json:"url"`
		ID                int64    `json:"id"`
		Number            int      `json:"number"`
		State             string   `json:"state"`
		Locked            bool     `json:"locked"`
		Title             string   `json:"title"`
		User              ghUser   `json:"user"`
		Body              string   `json:"body"`
		MergeCommitSHA    string   `json:"merge_commit_sha"`
		Draft             bool     `json:"draft"`
		Head              ghBranch `json:"head"`
		Base              ghBranch `json:"base"`
		AuthorAssociation string   `json:"author_association"`
		Mergeable         *bool    `json:"mergeable"`
		Commits           int      `json:"commits"`
	}
	ghPullRequestEvent struct {
		Action      string        `json:"action"`
		Number      int           `json:"number"`
		Before      string        `json:"before"`
		After       string        `json:"after"`
		PullRequest ghPullRequest `json:"pull_request"`
		Repository  ghRepo        `json:"repository"`
		Sender      ghUser        `json:"sender"`
	}
)

// prEvent is the payload of a pull_request event for the PR, opened by
// author from author/repo, a fork or not, whose head commit is head.
func (d *dockerTest) prEvent(t *testing.T, author string, fork bool, head string) []byte {
	org := ghUser{Login: dockerOwner, ID: 9919, Type: "Organization"}
	user := ghUser{Login: author, ID: 583231, Type: "User"}
	base := ghRepo{ID: 700000001, Name: "repo", FullName: dockerRepo, Owner: org, DefaultBranch: "main"}
	headRepo := ghRepo{ID: 700000002, Name: "repo", FullName: author + "/repo", Owner: user, Fork: fork, DefaultBranch: "main"}
	ev := ghPullRequestEvent{
		Action: "synchronize", Number: dockerPR, Before: d.prBase, After: head,
		PullRequest: ghPullRequest{
			URL: fmt.Sprintf("https://api.github.com/repos/%s/pulls/%d", dockerRepo, dockerPR),
			ID:  2100000007, Number: dockerPR, State: "open", Title: "Mix harder", User: user,
			Body: "Makes Mix slower and Join allocate.", MergeCommitSHA: d.merge,
			Head:              ghBranch{Label: author + ":slower", Ref: "slower", SHA: head, User: user, Repo: headRepo},
			Base:              ghBranch{Label: dockerOwner + ":main", Ref: "main", SHA: d.prBase, User: org, Repo: base},
			AuthorAssociation: "CONTRIBUTOR", Commits: 1,
		},
		Repository: base,
		Sender:     user,
	}
	data, err := json.MarshalIndent(ev, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// userInputs are the inputs a user sets in the workflow's with: block. The
// runner passes them as INPUT_<NAME>, upper case, hyphens kept.
func (d *dockerTest) userInputs() map[string]string {
	return map[string]string{"token": d.token, "args": "--comment-key " + dockerKey + " --count 10 --benchtime 20ms"}
}

// runnerInputs is what the runner really passes: every input of action.yml
// (config.Inputs), the user's value or else the default, with action.yml's
// ${{ github.token }} default of token evaluated.
func (d *dockerTest) runnerInputs() map[string]string {
	user := d.userInputs()
	in := map[string]string{}
	for _, i := range config.Inputs {
		v, ok := user[i.Name]
		if !ok {
			v = i.Default
		}
		in[i.Name] = v
	}
	in["token"] = d.token
	return in
}

// actionRun is one run of the action's container.
type actionRun struct {
	n                int
	rc               int
	start            time.Time
	stdout, stderr   string
	summary, outputs string // host paths of GITHUB_STEP_SUMMARY and GITHUB_OUTPUT
}

func (r *actionRun) summaryText() string { return dockerReadText(r.summary) }
func (r *actionRun) outputsText() string { return dockerReadText(r.outputs) }

// output is the value of a step output, in either form of GITHUB_OUTPUT
// (name=value or name<<DELIMITER ... DELIMITER); the last one wins.
func (r *actionRun) output(name string) (string, bool) {
	lines := strings.Split(r.outputsText(), "\n")
	val, got := "", false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if k, delim, ok := strings.Cut(line, "<<"); ok && k != "" && !strings.Contains(k, "=") {
			j := slices.Index(lines[i+1:], delim)
			if j < 0 {
				break
			}
			if k == name {
				val, got = strings.Join(lines[i+1:i+1+j], "\n"), true
			}
			i += j + 1
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && k == name {
			val, got = v, true
		}
	}
	return val, got
}

// notStopped ends run n if the test was stopped (by a signal, or before its
// -timeout).
func (d *dockerTest) notStopped(t *testing.T, n int) {
	t.Helper()
	if d.ctx.Err() != nil {
		t.Fatalf("run %d not started: %v", n, context.Cause(d.ctx))
	}
}

// runAction runs the image as the runner does, with fresh file-command
// files, the event, GITHUB_SHA and GITHUB_REF given, the inputs as INPUT_*
// variables, and extra docker run arguments.
func (d *dockerTest) runAction(t *testing.T, n int, eventName, event, sha, ref string, inputs map[string]string, extra ...string) *actionRun {
	t.Helper()
	d.notStopped(t, n)
	name := fmt.Sprintf("benchgate-e2e-%d-%s-%d", os.Getpid(), filepath.Base(d.tmp), n)
	dockerWriteFile(t, filepath.Join(d.workflow, "event.json"), d.events[event])
	cmdFile := func(kind string) string {
		p := filepath.Join(d.filecmds, fmt.Sprintf("%s_%d", kind, n))
		dockerWriteFile(t, p, nil)
		return p
	}
	r := &actionRun{n: n, summary: cmdFile("step_summary"), outputs: cmdFile("set_output")}
	for _, kind := range []string{"set_env", "add_path", "save_state"} {
		cmdFile(kind)
	}
	fc := func(kind string) string { return fmt.Sprintf("/github/file_commands/%s_%d", kind, n) }
	env := []string{
		"HOME=/github/home",
		"GITHUB_ACTIONS=true", "CI=true",
		"GITHUB_EVENT_NAME=" + eventName,
		"GITHUB_EVENT_PATH=/github/workflow/event.json",
		"GITHUB_SHA=" + sha,
		"GITHUB_REF=" + ref,
		"GITHUB_REPOSITORY=" + dockerRepo,
		"GITHUB_REPOSITORY_OWNER=" + dockerOwner,
		"GITHUB_API_URL=" + d.fake.APIURL(),
		"GITHUB_SERVER_URL=https://github.com",
		"GITHUB_GRAPHQL_URL=" + d.fake.URL + "/api/graphql",
		fmt.Sprintf("GITHUB_RUN_ID=%d", 4200+n), fmt.Sprintf("GITHUB_RUN_NUMBER=%d", n), "GITHUB_RUN_ATTEMPT=1",
		"GITHUB_WORKFLOW=Benchmarks", "GITHUB_JOB=bench", "GITHUB_ACTOR=mona",
		"GITHUB_ACTION=__benchgate_benchgate", "GITHUB_ACTION_REPOSITORY=benchgate/benchgate",
		"GITHUB_WORKSPACE=/github/workspace",
		"GITHUB_STEP_SUMMARY=" + fc("step_summary"),
		"GITHUB_OUTPUT=" + fc("set_output"),
		"GITHUB_ENV=" + fc("set_env"),
		"GITHUB_PATH=" + fc("add_path"),
		"GITHUB_STATE=" + fc("save_state"),
		"RUNNER_OS=Linux", "RUNNER_ARCH=X64", "RUNNER_NAME=GitHub Actions 2",
		"RUNNER_ENVIRONMENT=github-hosted",
		"RUNNER_TEMP=/github/runner_temp",
		"RUNNER_TOOL_CACHE=/opt/hostedtoolcache",
	}
	for _, k := range slices.Sorted(maps.Keys(inputs)) {
		env = append(env, config.InputEnv(k)+"="+inputs[k])
	}
	args := []string{"run", "--name", name, "--rm", "--network", "host", "--workdir", "/github/workspace"}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	args = append(args, extra...)
	for _, m := range d.mounts {
		args = append(args, "-v", m.host+":"+m.container)
	}
	args = append(args, d.image)

	ctx, cancel := context.WithTimeout(d.ctx, runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "docker", args...)
	// Killing the client would leave the container running.
	cmd.Cancel = func() error {
		d.dockerQuiet("rm", "-f", name)
		return cmd.Process.Kill()
	}
	cmd.WaitDelay = 30 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	d.containers = append(d.containers, name)
	r.start = time.Now()
	err := cmd.Run()
	r.stdout, r.stderr = stdout.String(), stderr.String()
	os.WriteFile(filepath.Join(d.tmp, "logs", fmt.Sprintf("run%d.out", n)), stdout.Bytes(), 0o644)
	os.WriteFile(filepath.Join(d.tmp, "logs", fmt.Sprintf("run%d.err", n)), stderr.Bytes(), 0o644)
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("run %d (%s) stopped after %v: %v\n%s", n, eventName, time.Since(r.start).Round(time.Second), context.Cause(ctx), r.logTail())
	case errors.As(err, &exit):
		r.rc = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %d: docker run: %v\n%s", n, err, r.logTail())
	}
	t.Logf("run %d (%s) exited with status %d after %v", n, eventName, r.rc, time.Since(r.start).Round(time.Second))
	return r
}

// logTail is the end of the run's output, for a failed check.
func (r *actionRun) logTail() string {
	return fmt.Sprintf("----- run %d: stderr (last 40 lines)\n%s\n----- run %d: stdout (last 20 lines)\n%s",
		r.n, lastLines(r.stderr, 40), r.n, lastLines(r.stdout, 20))
}

// hostPath is where a container path is on the host. A relative path is
// taken relative to the container's working directory, the workspace.
func (d *dockerTest) hostPath(p string) (string, bool) {
	if p == "" {
		return "", false
	}
	if !strings.HasPrefix(p, "/") {
		return filepath.Join(d.ws, p), true
	}
	for _, m := range d.mounts {
		if p == m.container {
			return m.host, true
		}
		if rest, ok := strings.CutPrefix(p, m.container+"/"); ok {
			return filepath.Join(m.host, rest), true
		}
	}
	return "", false
}

// checkWorkspace checks that the workspace is exactly as actions/checkout
// left it, but for the one documented file benchgate adds: the JSON report
// named by the report-json output.
func (d *dockerTest) checkWorkspace(t *testing.T, n int) {
	t.Helper()
	// Ownership first: nothing the checks below do may create files.
	root := ownedBy(d.ws, 0)
	d.check(t, len(root) == 0, "run %d: no file under the workspace is owned by root %q", n, root)
	status, err := d.gitErr(d.ws, "status", "--porcelain", "--ignored", "--untracked-files=all")
	if err != nil {
		status = "git status failed: " + err.Error()
	}
	var changed []string
	for _, line := range strings.Split(status, "\n") {
		if line != "" && (d.reportInWS == "" || line != "?? "+d.reportInWS && line != "!! "+d.reportInWS) {
			changed = append(changed, line)
		}
	}
	d.check(t, len(changed) == 0, "run %d: workspace has no changed, untracked or ignored files %q", n, firstLines(changed, 10))
	list, err := d.gitErr(d.ws, "worktree", "list", "--porcelain")
	worktrees := strings.Count("\n"+list, "\nworktree ")
	d.check(t, err == nil && worktrees == 1, "run %d: git worktree list shows only the workspace (%d, %v)", n, worktrees, err)
	head, err := d.gitErr(d.ws, "rev-parse", "HEAD")
	d.check(t, err == nil && head == d.merge, "run %d: workspace HEAD is still the merge commit (%s, want %s)", n, head, d.merge)
}

// checkNoToken checks that the token appears only in ::add-mask:: commands,
// which the runner consumes.
func (d *dockerTest) checkNoToken(t *testing.T, r *actionRun) {
	t.Helper()
	leaks := linesMatching(regexp.MustCompile(regexp.QuoteMeta(d.token)), r.stdout, r.stderr, r.summaryText(), r.outputsText())
	d.check(t, len(leaks) == 0, "run %d: the token appears in no output, summary or log (%d lines)", r.n, len(leaks))
}

// finish runs the checks of every run and shows the run's output if a check
// of the run failed.
func (d *dockerTest) finish(t *testing.T, r *actionRun) {
	t.Helper()
	d.checkWorkspace(t, r.n)
	d.checkNoToken(t, r)
	if t.Failed() {
		t.Log(r.logTail())
	}
}

// dockerReport is the part of benchgate-report.json the test reads.
type dockerReport struct {
	Verdict string `json:"verdict"`
	Base    struct {
		SHA string `json:"sha"`
	} `json:"base"`
	Head struct {
		SHA string `json:"sha"`
	} `json:"head"`
	Count     int    `json:"count"`
	Benchtime string `json:"benchtime"`
	Policy    struct {
		Threshold     float64  `json:"threshold"`
		Alpha         float64  `json:"alpha"`
		FailOn        []string `json:"fail_on"`
		FailOnFailure bool     `json:"fail_on_failure"`
	} `json:"policy"`
	Benchmarks []struct {
		Package  string          `json:"package"`
		Name     string          `json:"name"`
		Unit     string          `json:"unit"`
		Status   string          `json:"status"`
		Accepted bool            `json:"accepted"`
		Reason   json.RawMessage `json:"reason"`
	} `json:"benchmarks"`
}

// rows describes the report's rows of benchmark name in unit, with their
// status and reason (for a failed check's message).
func (rep *dockerReport) rows(name, unit string) string {
	var b strings.Builder
	for _, r := range rep.Benchmarks {
		if strings.HasPrefix(r.Name, name) && r.Unit == unit {
			fmt.Fprintf(&b, "\n  %s %s: %s %s", r.Name, r.Unit, r.Status, r.Reason)
		}
	}
	if b.Len() == 0 {
		return " (no such row)"
	}
	return b.String()
}

// readReport reads a JSON report; a missing or bad one is the zero report,
// which fails every check on it.
func readReport(t *testing.T, path string) dockerReport {
	var rep dockerReport
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil {
		t.Logf("report JSON: %v", err)
	}
	return rep
}

// hasBenchmark reports whether the report has a benchmark whose name starts
// with name and that matches ok.
func (rep *dockerReport) hasBenchmark(name string, ok func(pkg, unit, status string) bool) bool {
	for _, b := range rep.Benchmarks {
		if strings.HasPrefix(b.Name, name) && ok(b.Package, b.Unit, b.Status) {
			return true
		}
	}
	return false
}

func (d *dockerTest) countRequests(method string) int {
	n := 0
	for _, r := range d.fake.Requests() {
		if r.Method == method {
			n++
		}
	}
	return n
}

func (d *dockerTest) run1(t *testing.T) {
	inputs := d.userInputs()
	inputs["args"] += " --measure time,instructions"
	r := d.runAction(t, 1, "pull_request", "pr", d.merge, fmt.Sprintf("refs/pull/%d/merge", dockerPR), inputs)
	summary := r.summaryText()
	d.check(t, r.rc == 1, "run 1: exit status 1 (regression), got %d", r.rc)
	d.check(t, mixRow.MatchString(summary), "run 1: the job summary has a Markdown table with the slowed benchmark (Mix, sec/op)")
	d.check(t, regexp.MustCompile(`(?im)^\|.*\|\s*benchmark\s*\|`).MatchString(summary), "run 1: the job summary has the table header")
	mixLine := 0
	for i, line := range strings.Split(string(txtarFile(t, dockerModule, "mix_test.go")), "\n") {
		if strings.HasPrefix(line, "func BenchmarkMix(") {
			mixLine = i + 1
		}
	}
	d.check(t, regexp.MustCompile(fmt.Sprintf(`(?m)^::error file=mix_test.go,line=%d[,:]`, mixLine)).MatchString(r.stdout),
		"run 1: an ::error annotation points at BenchmarkMix (mix_test.go line %d)", mixLine)
	verdict, _ := r.output("verdict")
	regressions, _ := r.output("regressions")
	reportPath, _ := r.output("report-json")
	d.check(t, verdict == "fail", "run 1: output verdict=fail (got %q)", verdict)
	nreg, err := strconv.Atoi(regressions)
	d.check(t, err == nil && nreg >= 2, "run 1: output regressions >= 2 (time of Mix, allocs of Join; got %q)", regressions)
	host, ok := d.hostPath(reportPath)
	d.check(t, ok, "run 1: output report-json (%q) is under a mount, readable from the host", reportPath)
	if rel, err := filepath.Rel(d.ws, host); ok && err == nil && filepath.IsLocal(rel) {
		d.reportInWS = rel
	}
	d.check(t, d.reportInWS == "benchgate-report.json", "run 1: report-json is the documented workspace file benchgate-report.json (got %q)", reportPath)
	fi, err := os.Stat(host)
	d.check(t, ok && err == nil && fi.Mode().IsRegular() && fi.ModTime().After(r.start), "run 1: report-json is a file written by this run")

	rep := readReport(t, host)
	d.check(t, rep.Verdict == "fail", "run 1: report JSON: verdict fail (got %q)", rep.Verdict)
	d.check(t, rep.Head.SHA == d.merge, "run 1: report JSON: head is the merge commit (GITHUB_SHA)")
	d.check(t, rep.Base.SHA == d.mainTip, "run 1: report JSON: base is the merge commit's first parent, fetched into the shallow clone (not the stale base.sha); got %s", rep.Base.SHA)
	d.check(t, rep.Count == 10 && rep.Benchtime == "20ms", "run 1: report JSON: count 10 and benchtime 20ms from the inputs (got %d, %q)", rep.Count, rep.Benchtime)
	d.check(t, rep.Policy.Threshold == 0.05 && rep.Policy.Alpha == 0.01, "run 1: report JSON: default threshold 5%% and alpha 0.01 (got %v, %v)", rep.Policy.Threshold, rep.Policy.Alpha)
	failOn := slices.Sorted(slices.Values(rep.Policy.FailOn))
	d.check(t, slices.Equal(failOn, []string{"allocs", "bytes", "instructions", "metrics", "time"}) && rep.Policy.FailOnFailure,
		"run 1: report JSON: default fail-on time,allocs,bytes,metrics,failure, and instructions since that lane is measured (got %q, failure %v)", failOn, rep.Policy.FailOnFailure)
	d.check(t, rep.hasBenchmark("Sum", func(pkg, _, _ string) bool { return pkg == "example.com/e2ebench/stable" }),
		"run 1: report JSON: default packages ./... include the sub-package")
	d.check(t, rep.hasBenchmark("Mix", func(_, unit, status string) bool { return unit == "sec/op" && status == "regression" }),
		"run 1: report JSON: Mix sec/op is a regression")
	d.check(t, rep.hasBenchmark("Join", func(_, unit, status string) bool { return unit == "allocs/op" && status == "regression" }),
		"run 1: report JSON: Join allocs/op is a regression (+1)")
	d.check(t, rep.hasBenchmark("Mix", func(_, unit, status string) bool { return unit == "instructions/op" && status == "regression" }),
		"run 1: report JSON: the instruction lane's Mix instructions/op is a regression (4x the work)")
	d.check(t, rep.hasBenchmark("Sum", func(pkg, unit, status string) bool {
		return pkg == "example.com/e2ebench/stable" && unit == "instructions/op" && status == "same-binary"
	}), "run 1: report JSON: the stable package, which the pull request does not change, is not measured: its instructions/op row is same-binary:%s", rep.rows("Sum", "instructions/op"))
	d.check(t, regexp.MustCompile("(?m)^\\|.*\\|\\s*`Mix`\\s*\\|\\s*`?instructions/op`?\\s*\\|").MatchString(summary),
		"run 1: the job summary has Mix's instructions/op row")

	comments := d.fake.AllComments()
	d.check(t, len(comments) == 1, "run 1: the fake API has exactly one comment (got %d)", len(comments))
	var c githubtest.Comment
	if len(comments) > 0 {
		c = comments[0]
	}
	marker := "<!-- benchgate:" + dockerKey + " -->"
	d.check(t, strings.Contains(c.Body, marker), "run 1: the comment carries the marker %s", marker)
	d.check(t, mixRow.MatchString(c.Body), "run 1: the comment has the slowed benchmark's row")
	d.check(t, c.Owner+"/"+c.Repo == dockerRepo && c.Issue == dockerPR, "run 1: the comment is on PR #%d of %s (got %s/%s#%d)", dockerPR, dockerRepo, c.Owner, c.Repo, c.Issue)
	// The explanation (--explain, the default): Join's new allocation is in
	// the standard library (strings.Clone), called from the PR's line of
	// mix.go, which the comment's why and a notice annotation name.
	cloneLine := 0
	for i, line := range strings.Split(dockerHeadFile(t, "mix.go"), "\n") {
		if strings.Contains(line, "strings.Clone(") {
			cloneLine = i + 1
		}
	}
	d.check(t, regexp.MustCompile(fmt.Sprintf(`<details><summary>Why <code>Join(-[0-9]+)?</code> allocs/op: \+1 at <code>mix\.go:%d</code> \(<code>e2ebench\.Join</code>, in <code>[a-z/]+\.Clone</code>\)</summary>`, cloneLine)).MatchString(c.Body),
		"run 1: the comment explains Join's allocs/op regression: +1 at mix.go:%d (e2ebench.Join, in the standard library's Clone)", cloneLine)
	d.check(t, regexp.MustCompile(fmt.Sprintf(`(?m)^::notice file=mix\.go,line=%d,title=benchgate%%3A Join(-[0-9]+)? \+1 allocs/op here::`, cloneLine)).MatchString(r.stdout),
		"run 1: a ::notice annotation points at the new allocation (mix.go line %d)", cloneLine)
	// The instruction lane's row is explained from its own counts: Mix's
	// 4x work is in Mix (or in the benchmark it is inlined into).
	d.check(t, regexp.MustCompile(`<details><summary>Why <code>Mix</code> <code>instructions/op</code>: <code>e2ebench\.(BenchmarkMix|Mix)</code> \+[0-9]+ instructions/op flat \(<code>mix(_test)?\.go:[0-9]+</code>\)</summary>`).MatchString(c.Body),
		"run 1: the comment explains Mix's instructions/op regression from the lane's per-function counts")
	bad := 0
	for _, req := range d.fake.Requests() {
		if req.Authorization != "Bearer "+d.token {
			bad++
		}
	}
	d.check(t, bad == 0, "run 1: every API request carried the token input (INPUT_TOKEN) as a Bearer token (%d did not)", bad)
	d.finish(t, r)
}

func (d *dockerTest) run2(t *testing.T) {
	before := d.fake.AllComments()
	patches, posts := d.countRequests("PATCH"), d.countRequests("POST")
	inputs := d.runnerInputs()
	r := d.runAction(t, 2, "pull_request", "pr", d.merge, fmt.Sprintf("refs/pull/%d/merge", dockerPR), inputs)
	action, _ := os.ReadFile(filepath.Join(d.root, "action.yml"))
	_, hasToken := inputs["token"]
	d.check(t, len(inputs) >= 10 && len(inputs) <= 15 && hasToken && regexp.MustCompile(`default: "?\$\{\{ github.token \}\}"?`).Match(action),
		"run 2: the runner's inputs are every input the program reads (%d in config.Inputs), token from action.yml's ${{ github.token }}", len(inputs))
	d.check(t, r.rc == 1, "run 2: exit status 1 (regression), got %d", r.rc)
	d.check(t, mixRow.MatchString(r.summaryText()), "run 2: the job summary has the slowed benchmark's row")
	after := d.fake.AllComments()
	var was, now githubtest.Comment
	if len(before) > 0 {
		was = before[0]
	}
	if len(after) > 0 {
		now = after[0]
	}
	d.check(t, len(after) == 1, "run 2: still exactly one comment (got %d)", len(after))
	d.check(t, now.ID == was.ID && was.ID != 0, "run 2: the comment's id is unchanged (%d -> %d)", was.ID, now.ID)
	d.check(t, now.Body != was.Body, "run 2: the comment's body was updated")
	d.check(t, strings.Contains(now.Body, "<!-- benchgate:"+dockerKey+" -->"), "run 2: the comment still carries the marker")
	path := fmt.Sprintf("%s/repos/%s/issues/comments/%d", d.fake.Prefix(), dockerRepo, was.ID)
	patched := 0
	for _, req := range d.fake.Requests() {
		if req.Method == "PATCH" && req.Path == path {
			patched++
		}
	}
	d.check(t, d.countRequests("PATCH") > patches && patched >= 1, "run 2: a PATCH of comment %d happened (PATCH requests: %d -> %d)", was.ID, patches, d.countRequests("PATCH"))
	d.check(t, d.countRequests("POST") == posts, "run 2: no comment was created (POST requests: %d -> %d)", posts, d.countRequests("POST"))
	d.finish(t, r)
}

func (d *dockerTest) run3(t *testing.T) {
	before := d.fake.AllComments()
	d.fake.SetReadOnly(true)
	r := d.runAction(t, 3, "pull_request", "fork", d.merge, fmt.Sprintf("refs/pull/%d/merge", dockerPR), d.userInputs())
	d.fake.SetReadOnly(false)
	summary := r.summaryText()
	d.check(t, r.rc == 1, "run 3: exit status 1 (the gate's verdict, not the comment's 403), got %d", r.rc)
	d.check(t, mixRow.MatchString(summary), "run 3: the job summary has the slowed benchmark's row")
	why := regexp.MustCompile(`(?i)fork|403|read-only|permission|not accessible|forbidden|could not|skipped`)
	note := false
	for _, line := range strings.Split(summary, "\n") {
		if strings.Contains(strings.ToLower(line), "comment") && why.MatchString(line) {
			note = true
		}
	}
	d.check(t, note, "run 3: the job summary has a note about the comment (fork, 403)")
	d.check(t, regexp.MustCompile(`(?m)^::warning( [^:\n]*)?::.*[Cc]omment`).MatchString(r.stdout+"\n"+r.stderr), "run 3: a ::warning line about the comment was printed")
	verdict, _ := r.output("verdict")
	d.check(t, verdict == "fail", "run 3: output verdict=fail (got %q)", verdict)
	after := d.fake.AllComments()
	d.check(t, len(after) == 1, "run 3: still exactly one comment (got %d)", len(after))
	d.check(t, len(after) == 1 && len(before) == 1 && after[0].Body == before[0].Body, "run 3: the comment was left as run 2 wrote it")
	d.finish(t, r)
}

func (d *dockerTest) run4(t *testing.T) {
	writes := d.countRequests("POST") + d.countRequests("PATCH")
	r := d.runAction(t, 4, "pull_request_target", "pr", d.mainTip, "refs/heads/main", d.userInputs())
	log := r.stderr + r.stdout
	d.check(t, r.rc == 2, "run 4: exit status 2 (refused), got %d", r.rc)
	d.check(t, strings.Contains(log, "pull_request_target"), "run 4: the error names pull_request_target")
	d.check(t, strings.Contains(log, "allow-privileged-events"), "run 4: the error names the allow-privileged-events input")
	d.check(t, d.countRequests("POST")+d.countRequests("PATCH") == writes, "run 4: nothing was written to GitHub")
	d.finish(t, r)
}

func (d *dockerTest) run5(t *testing.T) {
	// The hostile pull request: the spy package of action_hostile.txtar,
	// on top of the slower branch, and its own test merge commit.
	d.notStopped(t, 5)
	o := d.origin
	d.git(t, o, "checkout", "-q", "-b", "hostile", d.prHead)
	data, err := os.ReadFile(filepath.Join("testdata", "action_hostile.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for from, to := range hostileFiles {
		dockerWriteFile(t, filepath.Join(o, to), txtarFile(t, string(data), from))
	}
	dockerWriteFile(t, filepath.Join(o, "stable", "lane_spy_test.go"), []byte(laneSpy))
	// What the spy tries to write to (it runs in its package's directory).
	dockerWriteFile(t, filepath.Join(o, "spy", "targets.txt"), []byte("/github/file_commands/*\n/github/workspace/.git/config\n/github/workflow/event.json\n"))
	// Where the walking spy sends what it found (the network is open).
	d.attacker = newAttacker()
	t.Cleanup(d.attacker.Close)
	dockerWriteFile(t, filepath.Join(o, "spy", "attacker.txt"), []byte(d.attacker.URL+"\n"))
	d.git(t, o, "add", "-A")
	d.git(t, o, "commit", "-q", "-m", "benchmarks that try to steal the token")
	d.merge = d.mergePR(t, "hostile", d.git(t, o, "rev-parse", "hostile")) // checkWorkspace compares HEAD with it
	d.checkout(t)
	d.chown(t, d.ws, runnerUID)

	extra := []string{
		"-e", "GITHUB_TOKEN=" + dockerSecrets[0], "-e", "ACTIONS_RUNTIME_TOKEN=" + dockerSecrets[1],
		"-e", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=" + dockerSecrets[2], "-e", "ACTIONS_ID_TOKEN_REQUEST_URL=https://token.example/x",
		"-e", "ACTIONS_RESULTS_URL=https://results.example/", "-e", "ACTIONS_CACHE_URL=https://cache.example/",
	}
	if fi, err := os.Stat("/var/run/docker.sock"); err == nil && fi.Mode()&fs.ModeSocket != 0 {
		extra = append(extra, "-v", "/var/run/docker.sock:/var/run/docker.sock") // as the runner does
	}
	// The instruction lane too: the stable package's spy (laneSpy) runs
	// under valgrind as well, as the sandbox's user like every other
	// benchmark process. (The spy package is new in the pull request: the
	// lane counts only benchmarks on both sides.)
	inputs := d.userInputs()
	inputs["args"] += " --measure time,instructions"
	r := d.runAction(t, 5, "pull_request", "pr", d.merge, fmt.Sprintf("refs/pull/%d/merge", dockerPR), inputs, extra...)
	summary, outputs := r.summaryText(), r.outputsText()
	d.check(t, r.rc == 1, "run 5: exit status 1 (Mix's real regression), got %d", r.rc)
	verdict, _ := r.output("verdict")
	d.check(t, verdict == "fail", "run 5: output verdict=fail (got %q)", verdict)
	d.check(t, !strings.Contains(outputs, "verdict=pass"), "run 5: the outputs file has no line the benchmarks wrote")
	d.check(t, !strings.Contains(summary, "verdict=pass"), "run 5: the summary has no line the benchmarks wrote")
	d.check(t, strings.Contains(summary, "Loud"), "run 5: the Loud benchmark's failure is reported")
	rep := readReport(t, filepath.Join(d.ws, "benchgate-report.json"))
	d.check(t, rep.hasBenchmark("Spy", func(_, _, status string) bool { return status != "failed" }),
		"run 5: the Spy benchmark ran and found nothing to steal (a row, not a failure)")
	d.check(t, rep.hasBenchmark("Sum", func(pkg, unit, status string) bool {
		return pkg == "example.com/e2ebench/stable" && unit == "instructions/op" && status != "unavailable" && status != "failed"
	}), "run 5: the stable package's spy found nothing to steal under valgrind either (Sum's instructions/op row is counted):%s", rep.rows("Sum", "instructions/op"))

	secret := `LEAK|` + regexp.QuoteMeta(d.token)
	for _, s := range dockerSecrets {
		secret += "|" + regexp.QuoteMeta(s)
	}
	texts := []string{r.stdout, r.stderr, summary, outputs}
	for _, c := range d.fake.AllComments() {
		texts = append(texts, c.Body)
	}
	for _, req := range d.fake.Requests() {
		texts = append(texts, req.Body)
	}
	leaks := linesMatching(regexp.MustCompile(secret), texts...)
	d.check(t, len(leaks) == 0, "run 5: no secret and no LEAK line in the log, summary, outputs or API request bodies %q", firstLines(leaks, 10))

	var forged []string
	own := false
	for _, c := range githubtest.RunnerCommands(r.stdout) {
		switch {
		case !c.Resumed && c.Name != "stop-commands", // benchgate resumes before each of its commands
			c.Name == "set-output",
			c.Name == "add-mask" && strings.Contains(c.Line, "regress"),
			c.Name == "stop-commands" && strings.Contains(c.Line, "zzz"):
			forged = append(forged, c.Line)
		case c.Name == "error" && strings.HasPrefix(c.Line, "::error file=mix_test.go"):
			own = true
		}
	}
	d.check(t, len(forged) == 0, "run 5: the runner would run no forged command %q", firstLines(forged, 10))
	d.check(t, own, "run 5: the runner would still run benchgate's own annotation")
	d.check(t, strings.Contains(r.stdout, "::set-output name=verdict::pass"), "run 5: the forgeries are in the log, inert")
	onStderr := githubtest.RunnerCommands(r.stderr)
	d.check(t, len(onStderr) == 0, "run 5: nothing on stderr holds a command %q", onStderr)
	sandboxed := ownedBy(d.home, sandboxUID)
	d.check(t, len(sandboxed) == 0, "run 5: the sandbox's home is given back to the runner user %q", sandboxed)
	d.checkWalk(t)
	d.finish(t, r)
}

// attacker is the server the walking spy of run 5 (docker_walk_test.go
// of action_hostile.txtar) sends its record to, over the network the
// sandbox leaves open: POST /walk stores the first record, GET /walk
// returns it to the spy's later processes (404 before).
type attacker struct {
	*httptest.Server
	mu     sync.Mutex
	record []byte
	bodies [][]byte // every request body received
}

func newAttacker() *attacker {
	a := &attacker{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		a.mu.Lock()
		defer a.mu.Unlock()
		a.bodies = append(a.bodies, body)
		switch {
		case r.URL.Path != "/walk":
			http.NotFound(w, r)
		case r.Method == http.MethodPost && a.record == nil:
			a.record = body
		case r.Method == http.MethodGet && a.record != nil:
			w.Write(a.record)
		case r.Method == http.MethodGet:
			http.NotFound(w, r)
		}
	}))
	return a
}

// received returns the record and every body the attacker received.
func (a *attacker) received() ([]byte, [][]byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.record, slices.Clone(a.bodies)
}

// checkWalk checks the walking spy's record of run 5: it read the
// container's files, its own home, the pull request's worktree and /proc,
// and found no secret; and nothing the attacker received holds one.
func (d *dockerTest) checkWalk(t *testing.T) {
	t.Helper()
	record, bodies := d.attacker.received()
	if !d.check(t, record != nil, "run 5: the walking spy sent its record to the attacker's server (%d requests)", len(bodies)) {
		return
	}
	w := parseWalk(string(record))
	t.Logf("run 5: the walking spy's record:\n%s", w.summary())
	header := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + d.token))
	secret := regexp.QuoteMeta(d.token) + "|" + regexp.QuoteMeta(header)
	for _, s := range dockerSecrets {
		secret += "|" + regexp.QuoteMeta(s)
	}
	var texts []string
	for _, b := range bodies {
		texts = append(texts, string(b))
	}
	stolen := linesMatching(regexp.MustCompile(secret), texts...)
	d.check(t, len(stolen) == 0, "run 5: the attacker's server received no secret %q", firstLines(stolen, 5))
	d.check(t, len(w.leaks) == 0, "run 5: the walking spy found no secret in the files it could read, /proc/*/environ or /proc/*/cmdline %q", w.leaks)
	d.check(t, w.n["read"] >= 10000 && w.areas["/usr"] > 0 && w.areas["/etc"] > 0,
		"run 5: the walk read the container's files: %d, in /usr %d, in /etc %d", w.n["read"], w.areas["/usr"], w.areas["/etc"])
	d.check(t, w.n["home"] >= 10 && strings.HasPrefix(w.paths["home"], "/github/home/"),
		"run 5: the walk read its home, the sandbox's part of /github/home (%s): %d files", w.paths["home"], w.n["home"])
	files := len(strings.Fields(d.git(t, d.ws, "ls-tree", "-r", "--name-only", d.merge)))
	d.check(t, w.n["tree"] >= files, "run 5: the walk read the pull request's worktree (%s): %d files, of the commit's %d", w.paths["tree"], w.n["tree"], files)
	d.check(t, w.n["environ"] >= 1 && w.n["cmdline"] >= 2 && strings.Contains(w.paths["pid1"], "benchgate"),
		"run 5: the walk read /proc: %d environ, %d cmdline files, PID 1's (%q) among them", w.n["environ"], w.n["cmdline"], w.paths["pid1"])
}

// walkRecord is the walking spy's record: counts, paths, the areas of the
// file system it read (/github/X or a top-level directory), the
// directories it could not list, and the LEAK lines.
type walkRecord struct {
	n             map[string]int
	paths         map[string]string
	areas         map[string]int
	closed, leaks []string
	lines         []string
}

// parseWalk reads a record, a fact per line: "read N bytes N large N
// denied N capped B took D", "home N PATH", "tree N PATH", "proc environ N
// cmdline N", "pid1 CMDLINE", "area N PATH", "closed PATH", "open PATH"
// (a readable file under /github outside its home), "LEAK ...".
func parseWalk(text string) walkRecord {
	w := walkRecord{n: map[string]int{}, paths: map[string]string{}, areas: map[string]int{}}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		w.lines = append(w.lines, line)
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "LEAK":
			w.leaks = append(w.leaks, line)
		case "closed":
			w.closed = append(w.closed, f[1])
		case "pid1":
			w.paths["pid1"] = strings.TrimPrefix(line, "pid1 ")
		case "area", "home", "tree":
			n, _ := strconv.Atoi(f[1])
			if f[0] == "area" && len(f) > 2 {
				w.areas[f[2]] = n
			} else {
				w.n[f[0]] = n
				w.paths[f[0]] = strings.Join(f[2:], " ")
			}
		case "read", "proc": // name-value pairs, after "proc"
			pairs := f
			if f[0] == "proc" {
				pairs = f[1:]
			}
			for i := 0; i+1 < len(pairs); i += 2 {
				w.n[pairs[i]], _ = strconv.Atoi(pairs[i+1])
			}
		}
	}
	return w
}

// summary is the record without its long lists, for the log.
func (w walkRecord) summary() string {
	var keep []string
	for _, l := range w.lines {
		if !strings.HasPrefix(l, "closed ") && !strings.HasPrefix(l, "area ") {
			keep = append(keep, "  "+l)
		}
	}
	return strings.Join(keep, "\n") + fmt.Sprintf("\n  areas %v\n  closed %q", w.areas, w.closed)
}

// run6 is a pull request whose head commit, made by its author under a
// maintainer's name, says Benchgate-Accept: . at the action's default
// inputs: the regressions stay regressions.
func (d *dockerTest) run6(t *testing.T) {
	d.notStopped(t, 6)
	o := d.origin
	d.git(t, o, "checkout", "-q", "-b", "forged", d.prHead)
	d.git(t, o, "commit", "-q", "--allow-empty", "--author=Trusted Maintainer <maintainer@example.org>",
		"-m", "Accept the slowdown\n\nBenchgate-Accept: .")
	head := d.git(t, o, "rev-parse", "forged")
	author := d.git(t, o, "log", "-1", "--format=%an <%ae>", head)
	if author != "Trusted Maintainer <maintainer@example.org>" {
		t.Fatalf("the forged commit's author is %q", author)
	}
	d.merge = d.mergePR(t, "forged", head)
	d.checkout(t)
	d.chown(t, d.ws, runnerUID)
	d.events["forged"] = d.prEvent(t, "owner", false, head)

	inputs := d.runnerInputs()
	r := d.runAction(t, 6, "pull_request", "forged", d.merge, fmt.Sprintf("refs/pull/%d/merge", dockerPR), inputs)
	d.check(t, r.rc == 1, "run 6: exit status 1: the head commit's Benchgate-Accept trailer, under a maintainer's forged name, accepts nothing at the action's default inputs (accept-trailers %q); got %d", inputs["accept-trailers"], r.rc)
	verdict, _ := r.output("verdict")
	d.check(t, verdict == "fail", "run 6: output verdict=fail (got %q)", verdict)
	rep := readReport(t, filepath.Join(d.ws, "benchgate-report.json"))
	d.check(t, rep.hasBenchmark("Mix", func(_, unit, status string) bool { return unit == "sec/op" && status == "regression" }),
		"run 6: report JSON: Mix sec/op is a regression:%s", rep.rows("Mix", "sec/op"))
	d.check(t, rep.hasBenchmark("Join", func(_, unit, status string) bool { return unit == "allocs/op" && status == "regression" }),
		"run 6: report JSON: Join allocs/op is a regression:%s", rep.rows("Join", "allocs/op"))
	var accepted []string
	for _, b := range rep.Benchmarks {
		if b.Accepted {
			accepted = append(accepted, b.Name+" "+b.Unit)
		}
	}
	d.check(t, len(accepted) == 0, "run 6: report JSON: no regression is accepted %q", accepted)
	d.finish(t, r)
}

// linesMatching returns the lines of texts that re matches, but for the
// ::add-mask:: commands the runner consumes.
func linesMatching(re *regexp.Regexp, texts ...string) []string {
	var out []string
	for _, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			if re.MatchString(line) && !strings.HasPrefix(line, "::add-mask::") {
				out = append(out, line)
			}
		}
	}
	return out
}

// txtarFile is the named file of a txtar archive.
func txtarFile(t *testing.T, archive, name string) []byte {
	t.Helper()
	for _, f := range txtar.Parse([]byte(archive)).Files {
		if f.Name == name {
			return f.Data
		}
	}
	t.Fatalf("no file %s in the archive", name)
	return nil
}

func dockerWriteFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func dockerReadText(path string) string {
	data, _ := os.ReadFile(path)
	return string(data)
}

func dockerRandomHex(t *testing.T, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func firstLines(s []string, n int) []string { return s[:min(n, len(s))] }
