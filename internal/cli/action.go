package cli

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/event"
	"github.com/benchgate/benchgate/internal/explain"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/github"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/ledger"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/safefile"
)

// ReportJSON is where the action writes its JSON report, relative to the
// workspace (the report-json output), so that later steps can upload it.
const ReportJSON = "benchgate-report.json"

// action runs benchgate as a GitHub Action: inputs from INPUT_*, the
// commits from the event, and the results published as the job summary, step
// outputs, annotations and one sticky pull request comment. Publishing
// problems are warnings; the exit status is the gate's.
func (a *app) action(ctx context.Context) int {
	getenv := a.env.Getenv
	// Nothing the pull request controls may become a workflow command:
	// everything but benchgate's own commands is printed with command
	// processing stopped, on one stream so that the runner sees it in order.
	log := github.NewLog(a.env.Stdout)
	defer log.Close()
	a.env.Stdout, a.env.Stderr = log.Text(), log.Text()
	gh := github.NewActions(log.Commands(), getenv)
	if token := getenv(config.InputEnv("token")); token != "" {
		// Masked before anything else is printed; read again only to
		// publish.
		_ = gh.Mask(token)
	}
	fail := func(code int, format string, args ...any) int {
		msg := fmt.Sprintf(format, args...)
		_ = gh.Annotate(github.Error, "", 0, "benchgate", msg)
		return a.errorf(code, "%s", msg)
	}
	cfg, act, err := config.FromInputs(getenv)
	if err != nil {
		return fail(ExitUsage, "%v", err)
	}
	a.cfg = cfg
	ws := getenv("GITHUB_WORKSPACE")
	if ws == "" {
		ws = a.env.Dir
	}
	dir := filepath.Join(ws, act.WorkingDirectory)
	if rel, err := filepath.Rel(ws, dir); err != nil || strings.HasPrefix(rel, "..") {
		return fail(ExitUsage, "input working-directory: %q is outside the workspace", act.WorkingDirectory)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fail(ExitUsage, "input working-directory: %q is not a directory of the workspace", act.WorkingDirectory)
	}

	name, path := getenv("GITHUB_EVENT_NAME"), getenv("GITHUB_EVENT_PATH")
	var payload []byte
	if path != "" {
		if payload, err = event.ReadPayload(path, os.ReadFile); err != nil {
			return fail(ExitUsage, "%v", err)
		}
	}
	target, err := event.Parse(event.Input{
		EventName: name, EventPath: path, Payload: payload, SHA: getenv("GITHUB_SHA"),
		Base: cfg.Base, Head: cfg.Head, AllowPrivileged: act.AllowPrivilegedEvents, MergeOnly: act.Mode == "merge",
	})
	switch {
	case err != nil && act.Mode == "merge":
		// The merge needs no commits; without a pull request there is
		// just no comment.
		fmt.Fprintf(a.env.Stderr, "benchgate: %v: no pull request to comment on\n", pipeline.OneLine(err))
		target = event.Target{}
	case err != nil && act.Mode == "calibrate" && errors.Is(err, event.ErrNoBase):
		// Calibration measures one commit: no base needed.
		target = event.Target{Head: firstNonEmpty(cfg.Head, getenv("GITHUB_SHA"), "HEAD")}
	case err != nil:
		return fail(ExitUsage, "%v", pipeline.OneLine(err))
	default:
		fmt.Fprintf(a.env.Stderr, "benchgate: %s\n", target.Description)
	}
	tr := trust{event: name, run: target.WorkflowRun, prHead: target.HeadSHA}
	if act.PRNumber > 0 {
		// A workflow_run job posting the report of a pull request's run.
		// There the number comes from the run's artifact: comment checks
		// it against the event before writing (trust.go).
		target.PRNumber = act.PRNumber
	}
	jsonPath := filepath.Join(ws, ReportJSON)
	// The export files go into the workspace, through no symbolic link the
	// checkout may hold, and are given to its owner afterwards.
	for _, t := range cfg.Exports {
		p := a.path(t.Path)
		if rel, err := filepath.Rel(ws, p); err != nil || strings.HasPrefix(rel, "..") {
			return fail(ExitUsage, "input export: %s is outside the workspace", t.Path)
		}
		if err := safefile.MkdirAll(ws, filepath.Dir(p), 0o755); err != nil {
			return fail(ExitUsage, "input export: %s: %v", t.Path, err)
		}
		defer chownLike(p, ws)
	}
	if act.Mode == "merge" {
		return a.actionMerge(ctx, gh, ws, jsonPath, target, act, tr)
	}
	var hist *dataBranch
	if act.History && act.Mode == "gate" {
		// Before the run: its report shows the trends, and a push
		// records into the copy.
		if hist, err = a.openDataBranch(ctx, cfg, act, name, target); err != nil {
			_ = gh.Annotate(github.Warning, "", 0, "benchgate", pipeline.OneLine(err))
			fmt.Fprintf(a.env.Stderr, "benchgate: warning: %v\n", pipeline.OneLine(err))
		}
		defer hist.close()
	}
	repo, shas, err := a.openRepo(ctx, dir, "input working-directory", flagRef{"head", target.Head})
	if err != nil {
		return fail(ExitUsage, "%v", err)
	}
	headSHA := shas[0]
	if act.Mode == "calibrate" {
		r := rev{headSHA, gitrev.ShortRef(headSHA)}
		o := a.measure(ctx, repo, job{base: r, head: r, dir: dir, dest: dest{json: jsonPath, calibrate: true}})
		code := o.code
		chownLike(jsonPath, ws)
		a.failureSummary(gh, o)
		if o.calibration != nil {
			md := report.CalibrationMarkdown(*o.calibration, o.meta)
			if err := gh.StepSummary(md); err != nil && !errors.Is(err, github.ErrNotInActions) {
				fmt.Fprintf(a.env.Stderr, "benchgate: warning: job summary: %v\n", err)
			}
			_ = gh.SetOutputs(map[string]string{"verdict": "pass", "regressions": "0", "report-json": ReportJSON})
		}
		return code
	}
	var baseSHA string
	if target.BaseFromMergeParent {
		baseSHA, err = repo.ParentOf(ctx, target.MergeCommit, 1)
	} else {
		baseSHA, err = repo.Resolve(ctx, target.Base)
	}
	if err != nil {
		return fail(ExitUsage, "base %s: %v", target.Base, pipeline.OneLine(err))
	}
	if baseSHA == headSHA {
		return fail(ExitUsage, "base and head are the same commit %s: nothing to compare (set the base input)", gitrev.Short(baseSHA))
	}
	j := job{
		base: rev{baseSHA, gitrev.ShortRef(target.Base)}, head: rev{headSHA, gitrev.ShortRef(target.Head)},
		dir: dir, confirm: cfg.Confirm, prHead: target.HeadSHA, dest: dest{json: jsonPath},
		accept: actionAcceptance(name, target, act.AcceptLabel, cfg.AcceptTrailers, headSHA),
	}
	if len(j.accept.notes) > 0 {
		a.labelHistory(ctx, target, act, &j.accept)
	}
	if target.BaseFromMergeParent {
		j.base.Label = gitrev.Short(target.MergeCommit) + "^1"
	}
	if at, err := stackedPolicy(ctx, repo, target, baseSHA); err != nil {
		return fail(ExitTool, "%v", pipeline.OneLine(err))
	} else if at.SHA != "" {
		j.policyAt = at
		fmt.Fprintf(a.env.Stderr, "benchgate: the policy file is read from %s, %s\n", gitrev.Short(at.SHA), at.Label)
	}
	shardDir := ""
	if !cfg.Shard.IsZero() {
		// The shard's raw results, for an artifact and the merge job.
		shardDir = fmt.Sprintf("benchgate-shard-%d-of-%d", cfg.Shard.Index, cfg.Shard.Count)
		j.out = filepath.Join(ws, shardDir)
		j.confirm = cfg.Confirm && cfg.Shard.Count == 1
		// The checkout may hold a symbolic link by that name: every
		// component below the workspace is checked, none followed.
		if err := safefile.MkdirAll(ws, j.out, 0o755); err != nil {
			return fail(ExitUsage, "shard directory: %v", err)
		}
	}
	o := a.measure(ctx, repo, j)
	code := o.code
	chownLike(jsonPath, ws)
	if shardDir != "" {
		chownTree(filepath.Join(ws, shardDir), ws)
		_ = gh.SetOutputs(map[string]string{"shard-dir": shardDir})
		if cfg.Shard.Count > 1 {
			// One comment, from the merge job.
			act.Comment = "never"
		}
	}
	if o.verdict == nil {
		_ = gh.Annotate(github.Error, "", 0, "benchgate", "benchgate could not finish; see the log above")
		a.failureSummary(gh, o)
		return code
	}
	a.publish(ctx, gh, o, target, act, tr)
	if hist != nil {
		a.publishHistory(ctx, gh, hist, headSHA)
	}
	return code
}

// publishHistory appends what a push recorded to the data branch and
// rewrites the history page; a failure is a warning (the gate stands).
func (a *app) publishHistory(ctx context.Context, gh *github.Actions, hist *dataBranch, headSHA string) {
	getenv := a.env.Getenv
	repoURL := ""
	if srv, repo := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"); srv != "" && repo != "" {
		repoURL = strings.TrimRight(srv, "/") + "/" + repo
	}
	o := ledger.DefaultOptions()
	o.Threshold, o.Alpha = a.cfg.Threshold, a.cfg.Alpha
	n, err := hist.publish(ctx, headSHA, repoURL, o)
	if err != nil {
		msg := "history: " + pipeline.OneLine(err)
		if errors.Is(err, github.ErrForbidden) {
			msg += " (the job's token needs contents: write to record; see docs/action.md#history)"
		}
		_ = gh.Annotate(github.Warning, "", 0, "benchgate", msg)
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: %s\n", msg)
		return
	}
	if n > 0 {
		fmt.Fprintf(a.env.Stderr, "benchgate: history: recorded %d changes on branch %s\n", n, hist.branch)
	}
}

// failureSummary writes the job summary of a run that has no verdict but
// says why (outcome.summary).
func (a *app) failureSummary(gh *github.Actions, o outcome) {
	if o.summary == "" {
		return
	}
	if err := gh.StepSummary(o.summary); err != nil && !errors.Is(err, github.ErrNotInActions) {
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: job summary: %v\n", err)
	}
}

// actionMerge is mode merge: the shards' directories (globs relative to the
// workspace) combined into one verdict, published like a gate run.
func (a *app) actionMerge(ctx context.Context, gh *github.Actions, ws, jsonPath string, target event.Target, act *config.Action, tr trust) int {
	var dirs []string
	for _, pat := range a.cfg.MergeDirs {
		matches, err := filepath.Glob(filepath.Join(ws, pat))
		if err != nil || len(matches) == 0 {
			_ = gh.Annotate(github.Error, "", 0, "benchgate", fmt.Sprintf("input merge: %q matches nothing in the workspace", pat))
			return a.errorf(ExitUsage, "input merge: %q matches nothing in the workspace", pat)
		}
		dirs = append(dirs, matches...)
	}
	if len(dirs) == 0 {
		return a.errorf(ExitUsage, "input merge: with mode merge, name the shards' directories (e.g. shards/*)")
	}
	o := a.mergeDirs(dirs, dest{json: jsonPath}, tr)
	chownLike(jsonPath, ws)
	if o.verdict == nil {
		return o.code
	}
	a.publish(ctx, gh, o, target, act, tr)
	return o.code
}

// actionAcceptance decides what accepts regressions in the action, from
// facts GitHub states, never from a name or a time the pull request's
// author can type:
//
//   - Benchgate-Accept trailers only with accept-trailers: true, only on
//     pull_request events, read from the pull request's head commit (not
//     GitHub's test merge commit) and credited to the pull request's
//     author; never on merge_group, whose commit may carry a pull
//     request's description and whose diff holds the whole group;
//   - the accept label only in the run of its own "labeled" event, credited
//     to that event's sender and for the head commit of that payload. Any
//     later run of the pull request (a push: "synchronize"; or an edit, a
//     reopening, another label) finds the label older than its commit, or
//     cannot tell, and gates with a note: the label accepts again when
//     someone adds it again.
func actionAcceptance(eventName string, target event.Target, label string, trailersOn bool, headSHA string) acceptance {
	acc := acceptance{trailersOf: cmp.Or(target.HeadSHA, headSHA)}
	switch {
	case eventName == "merge_group":
		acc.trailersOff = policy.OffMergeQueue
	case eventName != "pull_request":
		acc.trailersOff = policy.OffEvent
	case !trailersOn:
		acc.trailersOff, acc.acceptLabel = policy.OffInput, label
	case target.Author == "":
		acc.trailersOff = policy.OffNoAuthor
	default:
		acc.trailersBy = "@" + target.Author + ", the pull request's author"
	}
	if label == "" || eventName != "pull_request" {
		return acc
	}
	switch {
	case target.Action == "labeled" && strings.EqualFold(target.LabelAdded, label) && target.Sender != "":
		acc.label, acc.labelBy, acc.labelAt = label, "@"+target.Sender, target.HeadSHA
	case !slices.ContainsFunc(target.Labels, func(l string) bool { return strings.EqualFold(l, label) }):
	case target.Action == "synchronize":
		acc.notes = append(acc.notes, policy.Note{Code: policy.LabelOlder, Label: label, Commit: gitrev.Short(target.HeadSHA)})
	default:
		acc.notes = append(acc.notes, policy.Note{Code: policy.LabelUnknown, Label: label, Action: target.Action, Commit: gitrev.Short(target.HeadSHA)})
	}
	return acc
}

// stackedPolicy returns, for a stacked pull request (its base branch is
// not the repository's default branch, but another pull request's), the
// commit to read the policy file from: the merge base of base and the
// default branch, which only maintainers wrote (fetched in a shallow
// clone). The base branch's author could otherwise loosen the policy of
// every pull request stacked on it. It is the zero rev for any other run.
func stackedPolicy(ctx context.Context, repo *gitrev.Repo, target event.Target, baseSHA string) (rev, error) {
	if target.PRNumber == 0 || target.BaseRef == "" || target.DefaultBranch == "" || target.BaseRef == target.DefaultBranch {
		return rev{}, nil
	}
	def, err := repo.Resolve(ctx, "origin/"+target.DefaultBranch)
	if err != nil {
		return rev{}, fmt.Errorf("stacked pull request (base %s is not the default branch %s): the default branch, whose merge base with %s holds the policy file: %v",
			target.BaseRef, target.DefaultBranch, target.BaseRef, err)
	}
	mb, err := repo.MergeBase(ctx, baseSHA, def)
	if err != nil {
		return rev{}, fmt.Errorf("stacked pull request (base %s is not the default branch %s): the policy file is read from their merge base: %v",
			target.BaseRef, target.DefaultBranch, err)
	}
	return rev{SHA: mb, Label: fmt.Sprintf("the merge base of %s and %s (a stacked pull request: %s is not the default branch)",
		target.BaseRef, target.DefaultBranch, target.BaseRef)}, nil
}

// labelHistory adds to the note about an accept label that accepts
// nothing who added it and when, from the pull request's timeline. It
// helps the reader find the maintainer; it decides nothing, and without a
// token or an answer the note stays as it is.
func (a *app) labelHistory(ctx context.Context, target event.Target, act *config.Action, acc *acceptance) {
	getenv := a.env.Getenv
	token := strings.TrimSpace(getenv(config.InputEnv("token")))
	owner, repo, ok := strings.Cut(getenv("GITHUB_REPOSITORY"), "/")
	if token == "" || !ok || target.PRNumber == 0 {
		return
	}
	c, err := github.NewCommenter(github.Options{APIURL: getenv("GITHUB_API_URL"), Token: token})
	if err == nil {
		var ev github.LabelEvent
		if ev, ok, err = c.LastLabeled(ctx, owner, repo, target.PRNumber, act.AcceptLabel); err == nil && ok {
			n := &acc.notes[len(acc.notes)-1]
			n.By, n.At = ev.Actor, ev.At.UTC().Format(time.RFC3339)
		}
	}
	if err != nil {
		fmt.Fprintf(a.env.Stderr, "benchgate: who added the label %s could not be read: %v\n", act.AcceptLabel, pipeline.OneLine(err))
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// chownTree gives every file under dir the owner of ref (see chownLike).
func chownTree(dir, ref string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			chownLike(p, ref)
		}
		return nil
	})
}

// publish writes the comment, the summary, the outputs and the annotations.
// None of it changes the exit status.
func (a *app) publish(ctx context.Context, gh *github.Actions, o outcome, target event.Target, act *config.Action, tr trust) {
	v := *o.verdict
	getenv := a.env.Getenv
	warn := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if err := gh.Annotate(github.Warning, "", 0, "benchgate", msg); err != nil {
			fmt.Fprintf(a.env.Stderr, "benchgate: warning: %s\n", msg)
		}
	}
	runURL := ""
	if srv, repo, id := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID"); srv != "" && repo != "" && id != "" {
		runURL = strings.TrimRight(srv, "/") + "/" + repo + "/actions/runs/" + id
	}
	meta := o.meta
	if target.PRNumber > 0 && act.Comment != "never" {
		if note := a.comment(ctx, v, o.meta, target, act, runURL, tr); note != nil {
			meta.Notes = append(meta.Notes, *note)
			warn("%s", report.NoteText(*note))
		}
	}
	summary := report.Markdown(v, meta, report.Options{MaxChars: github.MaxStepSummary - 4096})
	if err := gh.StepSummary(summary); err != nil && !errors.Is(err, github.ErrNotInActions) {
		warn("job summary: %v", err)
	}
	if err := gh.SetOutputs(map[string]string{
		"verdict":     map[bool]string{true: "pass", false: "fail"}[v.Pass],
		"regressions": strconv.Itoa(len(v.Regressions())),
		"report-json": ReportJSON,
	}); err != nil && !errors.Is(err, github.ErrNotInActions) {
		warn("step outputs: %v", err)
	}
	var anns []github.Annotation
	// The module's directory in the workspace (a.cfg.Dir is not set in
	// the action: the working-directory input is).
	moduleDir := filepath.Join(firstNonEmpty(getenv("GITHUB_WORKSPACE"), a.env.Dir), act.WorkingDirectory)
	for _, r := range v.Regressions() {
		file, line := findBenchmark(getenv("GITHUB_WORKSPACE"), moduleDir, r.Package, r.Name)
		sev := 1.0
		if r.Delta != nil && !math.IsInf(*r.Delta, 0) {
			sev = math.Abs(*r.Delta)
		}
		level, what := github.Error, "regressed"
		if r.Accepted != nil {
			// Reported, not gated: no error on a passing check.
			level, what = github.Notice, "regressed (accepted on purpose)"
		}
		anns = append(anns, github.Annotation{
			Level: level, File: file, Line: line, Severity: sev,
			// Names and units are the change's text: invisible characters
			// are shown, as in the reports.
			Title:   fmt.Sprintf("benchgate: %s %s %s", report.Visible(r.Name), report.Visible(r.Unit), what),
			Message: report.Visible(fmt.Sprintf("%s.%s %s: %s", r.Package, r.Name, r.Unit, report.ReasonText(r))),
		})
	}
	if len(o.meta.Explain) > 0 {
		// Where each regression comes from: its top site or function.
		ws := firstNonEmpty(getenv("GITHUB_WORKSPACE"), a.env.Dir)
		if mod, err := explain.ModuleRoot(filepath.Join(ws, act.WorkingDirectory)); err == nil {
			anns = append(anns, whyAnnotations(ws, mod, v, o.meta)...)
		}
	}
	for _, f := range v.HeadFailures() {
		anns = append(anns, github.Annotation{Level: github.Error, Severity: math.Inf(1), Title: "benchgate: " + report.Visible(f.Name) + " failed on head", Message: report.Visible(f.Message)})
	}
	if dropped, err := gh.AnnotateWorst(anns); err != nil && !errors.Is(err, github.ErrNotInActions) {
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: annotations: %v\n", err)
	} else if dropped > 0 {
		fmt.Fprintf(a.env.Stderr, "benchgate: %d more regressions are in the summary (GitHub shows 10 annotations per type)\n", dropped)
	}
}

// comment upserts the sticky comment and returns a note for the summary when
// it could not.
func (a *app) comment(ctx context.Context, v gate.Verdict, meta report.Meta, target event.Target, act *config.Action, runURL string, tr trust) *report.Note {
	getenv := a.env.Getenv
	if readOnlyFork(getenv("GITHUB_EVENT_NAME"), target) {
		return &report.Note{Code: report.NoteFork}
	}
	// The token is read here, to publish, and nowhere else.
	token := strings.TrimSpace(getenv(config.InputEnv("token")))
	if token == "" {
		return &report.Note{Code: report.NoteNoToken}
	}
	owner, repo, ok := strings.Cut(getenv("GITHUB_REPOSITORY"), "/")
	if !ok {
		return &report.Note{Code: report.NoteNoRepository}
	}
	c, err := github.NewCommenter(github.Options{
		APIURL: getenv("GITHUB_API_URL"), Token: token, Author: act.CommentAuthor,
		Logf: func(format string, args ...any) { fmt.Fprintf(a.env.Stderr, "benchgate: "+format+"\n", args...) },
	})
	if err != nil {
		return commentNote(err)
	}
	if err := tr.checkPullRequest(ctx, c, owner, repo, target.PRNumber); err != nil {
		return &report.Note{Code: report.NoteNotThisPR, Err: err.Error()}
	}
	if act.Comment == "on-change" && !changed(v) {
		exists, err := c.Exists(ctx, owner, repo, target.PRNumber, act.CommentKey)
		if err != nil {
			return commentNote(err)
		}
		if !exists {
			fmt.Fprintf(a.env.Stderr, "benchgate: nothing changed; no comment (comment: on-change)\n")
			return nil
		}
		// An earlier comment exists: bring it up to date rather than
		// leave a stale regression on the pull request.
	}
	opts := report.Options{DetailsURL: runURL}
	body := report.Markdown(v, meta, opts)
	res, err := c.Upsert(ctx, owner, repo, target.PRNumber, act.CommentKey, body, func(max int) string {
		o := opts
		o.MaxChars = max
		return report.Markdown(v, meta, o)
	})
	if err != nil {
		return commentNote(err)
	}
	fmt.Fprintf(a.env.Stderr, "benchgate: pull request comment %s: %s\n", res.Action, res.URL)
	return nil
}

func commentNote(err error) *report.Note {
	if errors.Is(err, github.ErrForbidden) {
		return &report.Note{Code: report.NoteReadOnly}
	}
	return &report.Note{Code: report.NoteCommentFailed, Err: pipeline.OneLine(err)}
}

// changed reports whether the verdict has anything worth a comment.
func changed(v gate.Verdict) bool {
	if len(v.Failures) > 0 {
		return true
	}
	for _, r := range v.Results {
		switch r.Status {
		case gate.Regression, gate.Improvement, gate.New, gate.Removed, gate.Failed:
			return true
		}
	}
	return false
}

// findBenchmark finds the file and line of the benchmark function behind a
// result name, for annotations. It searches the module directory dir (in the
// checked-out head) and returns the path relative to the workspace ws.
func findBenchmark(ws, dir, pkg, name string) (string, int) {
	top := "Benchmark" + baseName(name)
	if i := strings.IndexByte(top, '/'); i >= 0 {
		top = top[:i]
	}
	needle := "func " + top + "("
	var best string
	var bestLine, bestScore int
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if n := d.Name(); p != dir && (n == "vendor" || n == "testdata" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") || !d.Type().IsRegular() {
			// Not a link (to /proc/self/fd/1, say) or a FIFO: reading
			// one could block or leave the checkout.
			return nil
		}
		line := grepLine(p, needle)
		if line == 0 {
			return nil
		}
		// Prefer the directory that matches the import path's tail.
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		score := 1
		if rel != "." && strings.HasSuffix(pkg, "/"+filepath.ToSlash(rel)) {
			score = 2 + strings.Count(rel, "/")
		}
		if score > bestScore {
			best, bestLine, bestScore = p, line, score
		}
		return nil
	})
	if best == "" || ws == "" {
		return "", 0
	}
	rel, err := filepath.Rel(ws, best)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", 0
	}
	return filepath.ToSlash(rel), bestLine
}

// grepLine returns the number of the first line of the regular file path
// that starts with needle, 0 if none. It opens nothing else (no link, FIFO
// or device: safefile.OpenRegular), so it never blocks.
func grepLine(path, needle string) int {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), needle) {
			return n
		}
	}
	return 0
}

// chownLike gives path the owner of ref (the workspace), so that files the
// container creates as root do not trouble the runner's later steps. It
// never follows a link (Lchown), and leaves alone a file with other hard
// links: that inode may be a file outside the workspace (the path may not
// be one benchgate wrote, if the run stopped early).
func chownLike(path, ref string) {
	fi, err := os.Stat(ref)
	if err != nil {
		return
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() != 0 || st.Uid == 0 {
		return
	}
	if pi, err := os.Lstat(path); err != nil {
		return
	} else if ps, ok := pi.Sys().(*syscall.Stat_t); !ok || (!pi.IsDir() && ps.Nlink > 1) {
		return
	}
	_ = os.Lchown(path, int(st.Uid), int(st.Gid))
}
