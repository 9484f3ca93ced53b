package cli

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/event"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/github"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/ledger"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/safefile"
)

// reportJSON is where the action writes its JSON report, relative to the
// workspace (the report-json output), so that later steps can upload it.
const reportJSON = "benchgate-report.json"

// action runs benchgate as a GitHub Action: resolve (the inputs, the
// GitHub context, the event's commits), then its mode (gate, calibrate or
// merge), then publish (the job summary, the step outputs, annotations
// and one sticky pull request comment, on the GitHub platform).
// Publishing problems are warnings; the exit status is the mode's.
func (a *app) action(ctx context.Context) int {
	// Nothing the pull request controls may become a workflow command:
	// everything but benchgate's own commands is printed with command
	// processing stopped, on one stream so that the runner sees it in order.
	log := github.NewLog(a.env.Stdout)
	defer log.Close()
	a.env.Stdout, a.env.Stderr = log.Text(), log.Text()
	a.commands = log.Commands()
	gh := config.GitHubContext(a.env.Getenv)
	a.gh = &gh
	acts := github.NewActions(log.Commands(), a.env.Getenv)
	if gh.Token != "" {
		// Masked before anything else is printed.
		_ = acts.Mask(gh.Token)
	}
	cfg, act, err := config.FromInputs(a.env.Getenv)
	if err != nil {
		_ = acts.Annotate(github.Error, "", 0, "benchgate", err.Error())
		return a.errorf(ExitUsage, "%v", err)
	}
	a.cfg = cfg
	if msg := report.DeprecatedText(act.Deprecated); msg != "" {
		// Also in the job summary (githubPlatform.summary).
		_ = acts.Annotate(github.Warning, "", 0, "benchgate", msg)
		fmt.Fprintf(a.env.Stderr, "benchgate: warning: %s\n", msg)
	}
	r, err := a.resolveAction(act)
	if err != nil {
		code := ExitUsage
		var ce codedError
		if errors.As(err, &ce) {
			code = ce.code
		}
		_ = acts.Annotate(github.Error, "", 0, "benchgate", err.Error())
		return a.errorf(code, "%v", err)
	}
	defer r.chownExports()
	defer func() { r.history.close() }()
	pl := &githubPlatform{app: a, actions: acts, run: r}
	var o outcome
	switch r.act.Mode {
	case "merge":
		o = a.mergeDirs(r.mergeDirs, dest{json: r.jsonPath, request: requestOf(r.target)}, r.trust)
	case "calibrate":
		o = a.measure(ctx, r.repo, r.job)
	default:
		o = a.actionGate(ctx, r, pl)
	}
	chownLike(r.jsonPath, filepath.Dir(r.jsonPath))
	switch {
	case o.verdict == nil:
		_ = acts.Annotate(github.Error, "", 0, "benchgate", "benchgate could not finish; see the log above")
		if o.summary != "" {
			pl.markdown(o.summary)
		}
	case o.calibration != nil:
		pl.markdown(report.CalibrationMarkdown(*o.calibration, o.meta))
		pl.outputs(map[string]string{"verdict": "pass", "regressions": "0", "blind": "0", "report-json": reportJSON})
	default:
		a.publish(ctx, pl, o, r.comments())
	}
	if r.history != nil && o.verdict != nil {
		a.publishHistory(ctx, pl, r.history, r.job.head.SHA)
	}
	return o.code
}

// actionRun is the action as resolveAction found it: the inputs (a.cfg
// and act), the event's commits and what the action trusts of them, the
// module's directory and repository, the job (the commits to measure),
// the shards' directories of mode merge, and the one GitHub API client
// (nil without a token or repository).
type actionRun struct {
	act       *config.Action
	target    event.Target
	trust     trust
	dir       string
	repo      *gitrev.Repo
	job       job
	mergeDirs []string
	jsonPath  string
	shardDir  string // a shard's raw results, relative to the workspace
	shards    int    // the shards of the suite (--shard's n)
	exports   []string
	history   *dataBranch
	client    *github.Commenter
	clientErr error
}

// newClient is the action's one GitHub API client, of the context's
// token (nil without one).
func (a *app) newClient(act *config.Action) (*github.Commenter, error) {
	if a.gh.Token == "" {
		return nil, nil
	}
	return github.NewCommenter(github.Options{
		APIURL: a.gh.APIURL, Token: a.gh.Token, Author: act.CommentAuthor,
		Logf: func(format string, args ...any) { fmt.Fprintf(a.env.Stderr, "benchgate: "+format+"\n", args...) },
	})
}

// codedError is an error of resolveAction with the exit status it
// gives.
type codedError struct {
	code int
	err  error
}

func (e codedError) Error() string { return e.err.Error() }

// resolveAction reads the event, finds the module in the workspace and
// the commits to measure (or the shards to merge) of the inputs (a.cfg,
// act), before anything long starts: every error names the input (exit
// status 2).
func (a *app) resolveAction(act *config.Action) (*actionRun, error) {
	ctx := context.Background()
	gh, cfg := a.gh, a.cfg
	ws := firstNonEmpty(gh.Workspace, a.env.Dir)
	r := &actionRun{act: act, jsonPath: filepath.Join(ws, reportJSON), dir: filepath.Join(ws, act.WorkingDirectory)}
	if rel, err := filepath.Rel(ws, r.dir); err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("input working-directory: %q is outside the workspace", act.WorkingDirectory)
	}
	if fi, err := os.Stat(r.dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("input working-directory: %q is not a directory of the workspace", act.WorkingDirectory)
	}
	r.client, r.clientErr = a.newClient(act)
	var payload []byte
	var err error
	if gh.EventPath != "" {
		if payload, err = event.ReadPayload(gh.EventPath, os.ReadFile); err != nil {
			return nil, err
		}
	}
	r.target, err = event.Parse(event.Input{
		EventName: gh.EventName, EventPath: gh.EventPath, Payload: payload, SHA: gh.SHA,
		Base: cfg.Base, Head: cfg.Head, AllowPrivileged: act.AllowPrivilegedEvents, MergeOnly: act.Mode == "merge",
	})
	switch {
	case err != nil && act.Mode == "merge":
		// The merge needs no commits; without a pull request there is
		// just no comment.
		fmt.Fprintf(a.env.Stderr, "benchgate: %v: no pull request to comment on\n", pipeline.OneLine(err))
		r.target = event.Target{}
	case err != nil && act.Mode == "calibrate" && errors.Is(err, event.ErrNoBase):
		// Calibration measures one commit: no base needed.
		r.target = event.Target{Head: firstNonEmpty(cfg.Head, gh.SHA, "HEAD")}
	case err != nil:
		return nil, errors.New(pipeline.OneLine(err))
	default:
		fmt.Fprintf(a.env.Stderr, "benchgate: %s\n", r.target.Description)
	}
	r.trust = trust{event: gh.EventName, run: r.target.WorkflowRun, prHead: r.target.HeadSHA}
	if act.PRNumber > 0 {
		// A workflow_run job posting the report of a pull request's run.
		// There the number comes from the run's artifact: comment checks
		// it against the event before writing (trust.go).
		r.target.PRNumber = act.PRNumber
	}
	// The export files go into the workspace, through no symbolic link the
	// checkout may hold, and are given to its owner afterwards.
	for _, t := range cfg.Exports {
		p := a.path(t.Path)
		if rel, err := filepath.Rel(ws, p); err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("input export: %s is outside the workspace", t.Path)
		}
		if err := safefile.MkdirAll(ws, filepath.Dir(p), 0o755); err != nil {
			return nil, fmt.Errorf("input export: %s: %v", t.Path, err)
		}
		r.exports = append(r.exports, p)
	}
	if act.Mode == "merge" {
		for _, pat := range cfg.MergeDirs {
			matches, err := filepath.Glob(filepath.Join(ws, pat))
			if err != nil || len(matches) == 0 {
				return nil, fmt.Errorf("input merge: %q matches nothing in the workspace", pat)
			}
			r.mergeDirs = append(r.mergeDirs, matches...)
		}
		if len(r.mergeDirs) == 0 {
			return nil, errors.New("input merge: with mode merge, name the shards' directories (e.g. shards/*)")
		}
		return r, nil
	}
	return r, a.resolveCommits(ctx, r)
}

// resolveCommits finds, in the module's repository, the commits the
// event names (calibrate: one), the policy's commit of a stacked pull
// request, the acceptances, a shard's directory and the history.
func (a *app) resolveCommits(ctx context.Context, r *actionRun) error {
	cfg, act, target := a.cfg, r.act, r.target
	repo, shas, err := a.openRepo(ctx, r.dir, "input working-directory", flagRef{"head", target.Head})
	if err != nil {
		return err
	}
	r.repo = repo
	headSHA := shas[0]
	if act.Mode == "calibrate" {
		h := pipeline.Rev{SHA: headSHA, Label: gitrev.ShortRef(headSHA)}
		r.job = job{base: h, head: h, dir: r.dir, dest: dest{json: r.jsonPath, calibrate: true}}
		return nil
	}
	var baseSHA string
	if target.BaseFromMergeParent {
		baseSHA, err = repo.ParentOf(ctx, target.MergeCommit, 1)
	} else {
		baseSHA, err = repo.Resolve(ctx, target.Base)
	}
	if err != nil {
		return fmt.Errorf("base %s: %v", target.Base, pipeline.OneLine(err))
	}
	if baseSHA == headSHA {
		return fmt.Errorf("base and head are the same commit %s: nothing to compare (set the base input)", gitrev.Short(baseSHA))
	}
	j := job{
		base: pipeline.Rev{SHA: baseSHA, Label: gitrev.ShortRef(target.Base)}, head: pipeline.Rev{SHA: headSHA, Label: gitrev.ShortRef(target.Head)},
		dir: r.dir, confirm: cfg.Confirm, prHead: target.HeadSHA, dest: dest{json: r.jsonPath, request: requestOf(target)},
		accept: actionAcceptance(a.gh.EventName, target, act.AcceptLabel, cfg.AcceptTrailers, headSHA),
	}
	a.checkLabeler(ctx, r, func() []string { return a.trustedBots(ctx, repo, cmp.Or(j.policyAt.SHA, baseSHA)) }, &j.accept)
	if n := len(j.accept.Notes); n > 0 && j.accept.Notes[n-1].Sender == "" {
		a.labelHistory(ctx, r, &j.accept)
	}
	if target.BaseFromMergeParent {
		j.base.Label = gitrev.Short(target.MergeCommit) + "^1"
	}
	if at, err := stackedPolicy(ctx, repo, target, baseSHA); err != nil {
		return codedError{ExitTool, errors.New(pipeline.OneLine(err))}
	} else if at.SHA != "" {
		j.policyAt = at
		fmt.Fprintf(a.env.Stderr, "benchgate: the policy file is read from %s, %s\n", gitrev.Short(at.SHA), at.Label)
	}
	r.shards = cfg.Shard.Count
	if act.History {
		if err := checkHistoryBranch(act.HistoryBranch, target); err != nil {
			return err
		}
	}
	if !cfg.Shard.IsZero() {
		// The shard's raw results, for an artifact and the merge job.
		r.shardDir = fmt.Sprintf("benchgate-shard-%d-of-%d", cfg.Shard.Index, cfg.Shard.Count)
		j.out = filepath.Join(firstNonEmpty(a.gh.Workspace, a.env.Dir), r.shardDir)
		j.confirm = cfg.Confirm && cfg.Shard.Count == 1
		// The checkout may hold a symbolic link by that name: every
		// component below the workspace is checked, none followed.
		if err := safefile.MkdirAll(firstNonEmpty(a.gh.Workspace, a.env.Dir), j.out, 0o755); err != nil {
			return fmt.Errorf("shard directory: %v", err)
		}
	}
	r.job = j
	return nil
}

// chownExports gives the export files to the workspace's owner.
func (r *actionRun) chownExports() {
	for _, p := range r.exports {
		chownLike(p, filepath.Dir(r.jsonPath))
	}
}

// comments reports whether the run comments on a pull request: not in
// mode calibrate, nor as one shard of several (the merge job comments),
// nor with comment: never.
func (r *actionRun) comments() bool {
	return r.target.PRNumber > 0 && r.act.Comment != "never" && r.act.Mode != "calibrate" && r.shards <= 1
}

// actionGate is mode gate: the history read first (its report shows the
// trends, and a push records into the copy), then the run.
func (a *app) actionGate(ctx context.Context, r *actionRun, pl *githubPlatform) outcome {
	if r.act.History {
		hist, err := a.openDataBranch(ctx, a.cfg, r)
		if err != nil {
			pl.warn("%s", pipeline.OneLine(err))
		}
		r.history = hist
		recordRounds(a.cfg, hist, a.env.Stderr)
	}
	o := a.measure(ctx, r.repo, r.job)
	if r.shardDir != "" {
		ws := filepath.Dir(r.jsonPath)
		chownTree(filepath.Join(ws, r.shardDir), ws)
		pl.outputs(map[string]string{"shard-dir": r.shardDir})
	}
	return o
}

// publishHistory appends what a push recorded to the data branch and
// rewrites the history page; a failure is a warning (the gate stands).
func (a *app) publishHistory(ctx context.Context, pl *githubPlatform, hist *dataBranch, headSHA string) {
	o := ledger.DefaultOptions()
	o.Threshold, o.Alpha = a.cfg.Threshold, a.cfg.Alpha
	n, err := hist.publish(ctx, headSHA, a.gh.RepoURL(), o)
	if err != nil {
		msg := "history: " + pipeline.OneLine(err)
		if errors.Is(err, github.ErrForbidden) {
			msg += " (the job's token needs contents: write to record; see docs/action.md#history)"
		}
		pl.warn("%s", msg)
		return
	}
	if n > 0 {
		fmt.Fprintf(a.env.Stderr, "benchgate: history: recorded %d changes on branch %s\n", n, hist.branch)
	}
}

// requestOf is what the reports call the change an event judges: "PR"
// for a pull request's, "" (this change) for a push's.
func requestOf(target event.Target) string {
	if target.PRNumber > 0 {
		return "PR"
	}
	return ""
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
func actionAcceptance(eventName string, target event.Target, label string, trailersOn bool, headSHA string) pipeline.Acceptance {
	acc := pipeline.Acceptance{TrailersOf: cmp.Or(target.HeadSHA, headSHA)}
	switch {
	case eventName == "merge_group":
		acc.TrailersOff = policy.OffMergeQueue
	case eventName != "pull_request":
		acc.TrailersOff = policy.OffEvent
	case !trailersOn:
		acc.TrailersOff, acc.AcceptLabel = policy.OffInput, label
	case target.Author == "":
		acc.TrailersOff = policy.OffNoAuthor
	default:
		acc.TrailersBy = "@" + target.Author + ", the pull request's author"
	}
	if label == "" || eventName != "pull_request" {
		return acc
	}
	switch {
	case target.Action == "labeled" && strings.EqualFold(target.LabelAdded, label) && target.Sender != "":
		acc.Label, acc.LabelBy, acc.LabelAt = label, "@"+target.Sender, target.HeadSHA
	case !slices.ContainsFunc(target.Labels, func(l string) bool { return strings.EqualFold(l, label) }):
	case target.Action == "synchronize":
		acc.Notes = append(acc.Notes, policy.Note{Code: policy.LabelOlder, Label: label, Commit: gitrev.Short(target.HeadSHA)})
	default:
		acc.Notes = append(acc.Notes, policy.Note{Code: policy.LabelUnknown, Label: label, Action: target.Action, Commit: gitrev.Short(target.HeadSHA)})
	}
	return acc
}

// stackedPolicy returns, for a stacked pull request (its base branch is
// not the repository's default branch, but another pull request's), the
// commit to read the policy file from: the merge base of base and the
// default branch, which only maintainers wrote (fetched in a shallow
// clone). The base branch's author could otherwise loosen the policy of
// every pull request stacked on it. It is the zero rev for any other run.
func stackedPolicy(ctx context.Context, repo *gitrev.Repo, target event.Target, baseSHA string) (pipeline.Rev, error) {
	if target.PRNumber == 0 || target.BaseRef == "" || target.DefaultBranch == "" || target.BaseRef == target.DefaultBranch {
		return pipeline.Rev{}, nil
	}
	def, err := repo.Resolve(ctx, "origin/"+target.DefaultBranch)
	if err != nil {
		return pipeline.Rev{}, fmt.Errorf("stacked pull request (base %s is not the default branch %s): the default branch, whose merge base with %s holds the policy file: %v",
			target.BaseRef, target.DefaultBranch, target.BaseRef, err)
	}
	mb, err := repo.MergeBase(ctx, baseSHA, def)
	if err != nil {
		return pipeline.Rev{}, fmt.Errorf("stacked pull request (base %s is not the default branch %s): the policy file is read from their merge base: %v",
			target.BaseRef, target.DefaultBranch, err)
	}
	return pipeline.Rev{SHA: mb, Label: fmt.Sprintf("the merge base of %s and %s (a stacked pull request: %s is not the default branch)",
		target.BaseRef, target.DefaultBranch, target.BaseRef)}, nil
}

// labelHistory adds to the note about an accept label that accepts
// nothing who added it and when, from the pull request's timeline. It
// helps the reader find the maintainer; it decides nothing, and without a
// token or an answer the note stays as it is.
func (a *app) labelHistory(ctx context.Context, r *actionRun, acc *pipeline.Acceptance) {
	owner, repo, ok := a.gh.OwnerRepo()
	if r.client == nil || !ok || r.target.PRNumber == 0 {
		return
	}
	ev, ok, err := r.client.LastLabeled(ctx, owner, repo, r.target.PRNumber, r.act.AcceptLabel)
	if err == nil && ok {
		n := &acc.Notes[len(acc.Notes)-1]
		n.By, n.At = ev.Actor, ev.At.UTC().Format(time.RFC3339)
	}
	if err != nil {
		fmt.Fprintf(a.env.Stderr, "benchgate: who added the label %s could not be read: %v\n", r.act.AcceptLabel, pipeline.OneLine(err))
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
