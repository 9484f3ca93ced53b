// Package e2e runs benchgate's end-to-end scripts (testdata/*.txtar): the
// real binary on real git repositories built by each script, measuring real
// Go modules with go test. The scripts that measure take seconds each, so
// they start with `[!e2e] skip` and run only when BENCHGATE_E2E=1 (as .ci/run
// does); the cheap ones (usage, compare) run under plain `go test ./...`.
//
// Scripts call `benchgate ARGS` and `benchgate-exit N ARGS`, which runs
// benchgate and fails unless its exit status is N. Update the golden parts
// with `BENCHGATE_E2E=1 go test ./e2e -update`.
package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/benchgate/benchgate/internal/cli"
	"github.com/benchgate/benchgate/internal/github/githubtest"
	"github.com/benchgate/benchgate/internal/gitlab/gitlabtest"
	"github.com/benchgate/benchgate/internal/policy"
	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the scripts' golden files")

func runCLI(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return cli.Run(ctx, args, cli.Env{Getenv: os.Getenv, Environ: os.Environ(), Stdout: os.Stdout, Stderr: os.Stderr})
}

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"benchgate": func() { os.Exit(runCLI(os.Args[1:])) },
		"benchgate-exit": func() {
			want, err := strconv.Atoi(os.Args[1])
			if err != nil {
				fmt.Fprintln(os.Stderr, "usage: benchgate-exit N ARGS...")
				os.Exit(100)
			}
			if got := runCLI(os.Args[2:]); got != want {
				fmt.Fprintf(os.Stderr, "benchgate exited with status %d, want %d\n", got, want)
				os.Exit(101)
			}
			os.Exit(0)
		},
	})
}

func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

func TestScripts(t *testing.T) {
	gocache, gomodcache, gopath := goEnv(t, "GOCACHE"), goEnv(t, "GOMODCACHE"), goEnv(t, "GOPATH")
	// Run as root (as in CI), benchgate action runs the benchmarks as its
	// sandbox user, which must reach the worktrees under TMPDIR and its own
	// home: both live in a directory every user can search (testscript's
	// $WORK is root's alone). Each script has a home of its own: benchgate
	// seals it (root's, read-only) while a run's benchmarks run, which
	// would stop another script's builds.
	open, err := os.MkdirTemp("", "benchgate-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(open) })
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata",
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			tmp, err := os.MkdirTemp(open, "tmp-")
			if err != nil {
				return err
			}
			if err := os.Chmod(tmp, 0o755); err != nil {
				return err
			}
			sandboxHome, err := os.MkdirTemp(open, "sandbox-home-")
			if err != nil {
				return err
			}
			for k, v := range map[string]string{
				"HOME": home, "TMPDIR": tmp, "BENCHGATE_SANDBOX_HOME": sandboxHome, "GOCACHE": gocache, "GOMODCACHE": gomodcache, "GOPATH": gopath,
				"GOPROXY": "off", "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local",
				"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
				"GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
				"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, ".gitconfig"),
			} {
				e.Setenv(k, v)
			}
			// Every JSON report a script leaves has a line of counts that
			// adds up.
			e.Defer(func() { checkCounts(e.T().(testing.TB), e.WorkDir) })
			// A fake GitHub API per script, on loopback.
			srv := githubtest.NewServer(githubtest.Config{Token: "s3cret-t0ken"})
			e.Defer(srv.Close)
			e.Values[fakeKey{}] = srv
			e.Setenv("GITHUB_API_URL", srv.APIURL())
			// And a fake GitLab API, with merge request !7 of project 42.
			gl := gitlabtest.NewServer(gitlabtest.Config{Token: gitlabToken})
			e.Defer(gl.Close)
			gl.AddMergeRequest("42", 7)
			e.Values[gitlabKey{}] = gl
			e.Setenv("CI_API_V4_URL", gl.APIURL())
			return os.MkdirAll(home, 0o755)
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root":
				return os.Geteuid() == 0, nil
			case "e2e": // the scripts that measure: seconds each
				return os.Getenv("BENCHGATE_E2E") == "1", nil
			case "creep": // creep_time: a creep recorded in time needs a quiet machine
				return os.Getenv("BENCHGATE_E2E_CREEP") == "1", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// runner-commands FILE: the workflow commands the Actions
			// runner would run for a step that printed FILE, one per line
			// as "name: line"; "UNGUARDED name: line" for one that did not
			// come right after a resume of command processing (benchgate's
			// own always do), stop-commands aside.
			"runner-commands": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: runner-commands FILE")
				}
				for _, c := range githubtest.RunnerCommands(ts.ReadFile(args[0])) {
					if !c.Resumed && c.Name != "stop-commands" {
						fmt.Fprint(ts.Stdout(), "UNGUARDED ")
					}
					fmt.Fprintf(ts.Stdout(), "%s: %s\n", c.Name, c.Line)
				}
			},
			// keep-report FILE|comment NAME: copy FILE (a report in
			// Markdown), or the fake's last comment on owner/repo#7, to
			// $BENCHGATE_E2E_REPORTS/NAME.md when that is set, for the
			// browser test (.ci/run); otherwise nothing.
			"keep-report": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: keep-report FILE NAME")
				}
				dir := os.Getenv("BENCHGATE_E2E_REPORTS")
				if dir == "" {
					return
				}
				data := ""
				if args[0] == "comment" {
					// The last comment on owner/repo#7 in the fake.
					cs := ts.Value(fakeKey{}).(*githubtest.Server).Comments("owner", "repo", 7)
					if len(cs) == 0 {
						ts.Fatalf("keep-report: no comment")
					}
					data = cs[len(cs)-1].Body
				} else {
					data = ts.ReadFile(args[0])
				}
				if err := os.WriteFile(filepath.Join(dir, args[1]+".md"), []byte(data), 0o644); err != nil {
					ts.Fatalf("keep-report: %v", err)
				}
			},
			// same-verdict A.json B.json: two JSON reports give the same
			// verdict, and every row the same status, test, p-values,
			// interval and confirmation.
			"same-verdict": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: same-verdict A.json B.json")
				}
				a, b := verdictOf(ts, args[0]), verdictOf(ts, args[1])
				if diff := cmp.Diff(a, b); diff != "" {
					ts.Fatalf("%s and %s differ (-%s +%s):\n%s", args[0], args[1], args[0], args[1], diff)
				}
			},
			// rows REPORT.json: prints the report's verdict, then one line
			// per benchmark row, "NAME UNIT STATUS DIRECTION gated|-", the
			// name without its -GOMAXPROCS suffix, for cmp.
			"rows": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: rows REPORT.json")
				}
				var rep struct {
					Verdict    string `json:"verdict"`
					Benchmarks []struct {
						Name, Unit, Status, Direction string
						Gated                         bool
					} `json:"benchmarks"`
				}
				if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &rep); err != nil {
					ts.Fatalf("%s: %v", args[0], err)
				}
				fmt.Fprintf(ts.Stdout(), "verdict %s\n", rep.Verdict)
				for _, b := range rep.Benchmarks {
					gated := "-"
					if b.Gated {
						gated = "gated"
					}
					fmt.Fprintf(ts.Stdout(), "%s %s %s %s %s\n", policy.StripProcs(b.Name), b.Unit, b.Status, b.Direction, gated)
				}
			},
			// fake-bodies-lack REGEXP: no request the fake received has a
			// body matching REGEXP.
			"fake-bodies-lack": func(ts *testscript.TestScript, neg bool, args []string) {
				srv := ts.Value(fakeKey{}).(*githubtest.Server)
				re := regexp.MustCompile(args[0])
				for _, r := range srv.Requests() {
					if m := re.FindString(r.Body); m != "" {
						ts.Fatalf("%s %s sent %q", r.Method, r.Path, m)
					}
				}
			},
			// envfile VAR FILE: set VAR to the trimmed contents of FILE.
			"envfile": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: envfile VAR FILE")
				}
				ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile(args[1])))
			},
			// fake-comments N [REGEXP]: the fake holds N comments on
			// owner/repo#7, and the last one matches REGEXP.
			"fake-comments": func(ts *testscript.TestScript, neg bool, args []string) {
				srv := ts.Value(fakeKey{}).(*githubtest.Server)
				cs := srv.Comments("owner", "repo", 7)
				n := atoi(ts, args[0])
				if len(cs) != n {
					ts.Fatalf("%d comments, want %d", len(cs), n)
				}
				if len(args) > 1 && !regexp.MustCompile(args[1]).MatchString(cs[len(cs)-1].Body) {
					ts.Fatalf("comment does not match %q:\n%s", args[1], cs[len(cs)-1].Body)
				}
			},
			// fake-comment-lacks REGEXP: no stored comment matches REGEXP.
			"fake-comment-lacks": func(ts *testscript.TestScript, neg bool, args []string) {
				srv := ts.Value(fakeKey{}).(*githubtest.Server)
				re := regexp.MustCompile(args[0])
				for _, c := range srv.Comments("owner", "repo", 7) {
					if m := re.FindString(c.Body); m != "" {
						ts.Fatalf("comment %d contains %q", c.ID, m)
					}
				}
			},
			// fake-requests METHOD N: the fake received N requests with METHOD.
			"fake-requests": func(ts *testscript.TestScript, neg bool, args []string) {
				srv := ts.Value(fakeKey{}).(*githubtest.Server)
				n := 0
				for _, r := range srv.Requests() {
					if r.Method == args[0] {
						n++
					}
				}
				if want := atoi(ts, args[1]); n != want {
					ts.Fatalf("%d %s requests, want %s", n, args[0], args[1])
				}
			},
			// fake-pull OWNER/REPO N HEAD_SHA HEAD_REPO: GitHub has pull
			// request N with that head commit in HEAD_REPO ("-": deleted).
			"fake-pull": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 4 {
					ts.Fatalf("usage: fake-pull OWNER/REPO N HEAD_SHA HEAD_REPO")
				}
				owner, repo, _ := strings.Cut(args[0], "/")
				n, err := strconv.Atoi(args[1])
				if err != nil {
					ts.Fatalf("fake-pull: %v", err)
				}
				ts.Value(fakeKey{}).(*githubtest.Server).AddPullRequest(githubtest.PullRequest{
					Owner: owner, Repo: repo, Number: n, HeadSHA: args[2], HeadRepo: args[3],
				})
			},
			// fake-timeline EVENT ACTOR LABEL: the timeline of
			// owner/repo#7 gains an event ("labeled", "unlabeled").
			"fake-timeline": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 3 {
					ts.Fatalf("usage: fake-timeline EVENT ACTOR LABEL")
				}
				ts.Value(fakeKey{}).(*githubtest.Server).AddTimelineEvent(githubtest.TimelineEvent{
					Owner: "owner", Repo: "repo", Issue: 7, Event: args[0], Actor: args[1], Label: args[2],
				})
			},
			// fake-collaborator LOGIN ROLE: LOGIN has ROLE (admin,
			// maintain, write, triage, read) on owner/repo.
			"fake-collaborator": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: fake-collaborator LOGIN ROLE")
				}
				ts.Value(fakeKey{}).(*githubtest.Server).AddCollaborator("owner", "repo", args[0], args[1])
			},
			// fake-file BRANCH PATH [REGEXP [N]]: owner/repo's BRANCH holds
			// PATH, its content matches REGEXP, N times; with !, it
			// does not hold PATH.
			"fake-file": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 {
					ts.Fatalf("usage: fake-file BRANCH PATH [REGEXP [N]]")
				}
				data, ok := ts.Value(fakeKey{}).(*githubtest.Server).File("owner", "repo", args[0], args[1])
				if neg {
					if ok {
						ts.Fatalf("branch %s holds %s", args[0], args[1])
					}
					return
				}
				if !ok {
					ts.Fatalf("branch %s does not hold %s", args[0], args[1])
				}
				if len(args) > 2 {
					n := len(regexp.MustCompile(args[2]).FindAll(data, -1))
					if len(args) > 3 && n != atoi(ts, args[3]) || n == 0 {
						ts.Fatalf("%s:%s matches %q %d times:\n%.2000s", args[0], args[1], args[2], n, data)
					}
				}
			},
			// gitlab-notes N [REGEXP]: the fake GitLab holds N notes on
			// !7 of project 42, and the last one matches REGEXP.
			"gitlab-notes": func(ts *testscript.TestScript, neg bool, args []string) {
				notes := ts.Value(gitlabKey{}).(*gitlabtest.Server).Notes("42", 7)
				if n := atoi(ts, args[0]); len(notes) != n {
					ts.Fatalf("%d notes, want %d", len(notes), n)
				}
				if len(args) > 1 && !regexp.MustCompile(args[1]).MatchString(notes[len(notes)-1].Body) {
					ts.Fatalf("note does not match %q:\n%s", args[1], notes[len(notes)-1].Body)
				}
			},
			// gitlab-requests METHOD N: the fake GitLab received N
			// requests with METHOD; none carried a token but the note's,
			// none a body with a line GitLab would run as a quick action.
			"gitlab-requests": func(ts *testscript.TestScript, neg bool, args []string) {
				srv := ts.Value(gitlabKey{}).(*gitlabtest.Server)
				n := 0
				for _, r := range srv.Requests() {
					if r.Method == args[0] {
						n++
					}
				}
				if want := atoi(ts, args[1]); n != want {
					ts.Fatalf("%d %s requests to GitLab, want %d", n, args[0], want)
				}
				if qa := srv.QuickActions(); len(qa) > 0 {
					ts.Fatalf("GitLab would run the quick actions %q", qa)
				}
			},
			// gitlab-bodies-lack REGEXP: no request to the fake GitLab
			// has a body matching REGEXP.
			"gitlab-bodies-lack": func(ts *testscript.TestScript, neg bool, args []string) {
				re := regexp.MustCompile(args[0])
				for _, r := range ts.Value(gitlabKey{}).(*gitlabtest.Server).Requests() {
					if m := re.FindString(r.Body); m != "" {
						ts.Fatalf("%s %s sent %q", r.Method, r.Path, m)
					}
				}
			},
			// gitlab-readonly on|off: writes answer 403.
			"gitlab-readonly": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Value(gitlabKey{}).(*gitlabtest.Server).SetReadOnly(args[0] == "on")
			},
			// junit FILE: FILE is a valid JUnit report (the format GitLab
			// reads); prints its totals, then a line per case that did
			// not pass: "failed|skipped CLASS NAME: MESSAGE".
			"junit": func(ts *testscript.TestScript, neg bool, args []string) {
				doc, err := gitlabtest.ValidateJUnit([]byte(ts.ReadFile(args[0])))
				if err != nil {
					ts.Fatalf("%s: %v", args[0], err)
				}
				fmt.Fprintf(ts.Stdout(), "tests %d failures %d skipped %d\n", doc.Tests, doc.Failures, doc.Skipped)
				for _, s := range doc.Suites {
					for _, c := range s.Cases {
						switch {
						case c.Failure != nil:
							fmt.Fprintf(ts.Stdout(), "failed %s %s %s: %s\n", c.Class, c.Name, c.File, c.Failure.Message)
						case c.Skipped != nil:
							fmt.Fprintf(ts.Stdout(), "skipped %s %s: %s\n", c.Class, c.Name, c.Skipped.Message)
						}
					}
				}
			},
			// codequality FILE: FILE is a valid Code Quality report (the
			// fields and types GitLab documents); prints a line per
			// issue: "SEVERITY CHECK PATH:LINE DESCRIPTION".
			"codequality": func(ts *testscript.TestScript, neg bool, args []string) {
				issues, err := gitlabtest.ValidateCodeQuality([]byte(ts.ReadFile(args[0])))
				if err != nil {
					ts.Fatalf("%s: %v", args[0], err)
				}
				fmt.Fprintf(ts.Stdout(), "issues %d\n", len(issues))
				for _, is := range issues {
					loc := is["location"].(map[string]any)
					fmt.Fprintf(ts.Stdout(), "%s %s %s:%v %s\n", is["severity"], is["check_name"], loc["path"], loc["lines"].(map[string]any)["begin"], is["description"])
				}
			},
			// fake-readonly on|off: writes answer 403 as for a fork's token.
			"fake-readonly": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Value(fakeKey{}).(*githubtest.Server).SetReadOnly(args[0] == "on")
			},
		},
	})
}

type fakeKey struct{}

type gitlabKey struct{}

// gitlabToken is the note's token the fake GitLab accepts.
const gitlabToken = "glpat-s3cret-t0ken"

// atoi parses a script's count: a typo fails the script instead of asserting
// zero.
func atoi(ts *testscript.TestScript, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		ts.Fatalf("%q is not a count", s)
	}
	return n
}

// verdictOf reads what decides a JSON report: its verdict and, per row,
// the status, test, p-values, interval and confirmation.
func verdictOf(ts *testscript.TestScript, path string) any {
	var rep struct {
		Verdict    string `json:"verdict"`
		Benchmarks []struct {
			Package   string          `json:"package"`
			Name      string          `json:"name"`
			Unit      string          `json:"unit"`
			Status    string          `json:"status"`
			Test      *string         `json:"test"`
			P         *float64        `json:"p"`
			PAdjusted *float64        `json:"p_adjusted"`
			Interval  json.RawMessage `json:"interval"`
			Confirmed *bool           `json:"confirmed"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal([]byte(ts.ReadFile(path)), &rep); err != nil {
		ts.Fatalf("%s: %v", path, err)
	}
	return rep
}

// countsLine is a report's line of counts (its JSON "counts"): "17
// benchmarks: 1 removed, …, 14 compared in 43 rows: 5 regressions, …", or
// "5 benchmarks compared in 15 rows: …".
var countsLine = regexp.MustCompile(`^(\d+) benchmarks?(?:: (.*?))?(?:,? ?(\d+ )?compared in (\d+) rows?: (.*))?$`)

// checkCounts checks every JSON report under dir: its line of counts adds
// up (the benchmarks' parts to its benchmarks, the rows' parts to its
// rows), and counts what the report lists: each benchmark once (a
// failure's, one whose rows share a status that is not a judgement of
// compared rows, or a compared one), each row of the compared ones once.
func checkCounts(t testing.TB, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		var rep struct {
			Verdict    string  `json:"verdict"`
			Counts     *string `json:"counts"`
			Benchmarks []struct {
				Package, Name, Status string
			} `json:"benchmarks"`
			Failures []json.RawMessage `json:"failures"`
		}
		if json.Unmarshal(data, &rep) != nil || rep.Counts == nil || rep.Verdict == "" {
			return nil // not a report
		}
		if err := countsAddUp(*rep.Counts, len(rep.Failures), func(yield func(pkg, name, status string) bool) {
			for _, b := range rep.Benchmarks {
				if !yield(b.Package, b.Name, b.Status) {
					return
				}
			}
		}); err != nil {
			rel, _ := filepath.Rel(dir, p)
			t.Errorf("%s: %v", rel, err)
		}
		return nil
	})
}

// countsAddUp checks a line of counts against the rows and the number of
// failures it counts.
func countsAddUp(line string, failures int, rows func(func(pkg, name, status string) bool)) error {
	if line == "no benchmark results" {
		return nil
	}
	m := countsLine.FindStringSubmatch(line)
	if m == nil {
		return fmt.Errorf("not a line of counts: %q", line)
	}
	sum := func(list string) (int, error) {
		n := 0
		for _, part := range strings.Split(list, ", ") {
			if part == "" {
				continue
			}
			k, err := strconv.Atoi(strings.Fields(part)[0])
			if err != nil {
				return 0, fmt.Errorf("%q: %q is not a count", line, part)
			}
			n += k
		}
		return n, nil
	}
	benchmarks, _ := strconv.Atoi(m[1])
	parts, err := sum(m[2])
	if err != nil {
		return err
	}
	compared, rowsCounted, rowParts := 0, 0, 0
	if m[4] != "" {
		compared = benchmarks
		if m[3] != "" {
			compared, _ = strconv.Atoi(strings.TrimSpace(m[3]))
		}
		rowsCounted, _ = strconv.Atoi(m[4])
		if rowParts, err = sum(m[5]); err != nil {
			return err
		}
	}
	if parts+compared != benchmarks || rowParts != rowsCounted {
		return fmt.Errorf("%q: the benchmarks' parts add up to %d of %d, the rows' to %d of %d", line, parts+compared, benchmarks, rowParts, rowsCounted)
	}
	type group struct {
		statuses map[string]bool
		rows     int
	}
	groups := map[string]*group{}
	rows(func(pkg, name, status string) bool {
		k := pkg + " " + name
		if groups[k] == nil {
			groups[k] = &group{statuses: map[string]bool{}}
		}
		groups[k].statuses[status] = true
		groups[k].rows++
		return true
	})
	wantBenchmarks, wantRows := failures, 0
	for _, g := range groups {
		judged := false
		for s := range g.statuses {
			switch s {
			case "regression", "improvement", "unchanged", "unstable", "inconclusive", "unavailable":
				judged = true
			}
		}
		switch {
		case len(g.statuses) == 1 && g.statuses["failed"]:
			// its failure's
		case len(g.statuses) == 1 && !judged:
			wantBenchmarks++
		default:
			wantBenchmarks++
			wantRows += g.rows
		}
	}
	if benchmarks != wantBenchmarks || rowsCounted != wantRows {
		return fmt.Errorf("%q counts %d benchmarks and %d rows; the report lists %d and %d", line, benchmarks, rowsCounted, wantBenchmarks, wantRows)
	}
	return nil
}
