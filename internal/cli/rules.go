package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/safefile"
)

// rules is the per-benchmark policy of a judgement (docs/policy.md): the
// policy file in force (base's), what head's copy would change, and the
// regressions accepted on purpose.
type rules struct {
	file    *policy.Policy // nil: no policy file
	source  string         // where file was read, for the report
	head    *policy.Policy // head's copy, when it differs from base's
	headErr string         // head's copy does not parse: its errors
	changed bool           // head's copy differs from base's (or only one side has one)
	accepts []policy.Accept
	ignored []gate.Bench // benchmarks not run because a rule ignores them
	notes   []string     // what could not be read, for the report

	// fileData is file's text, kept with the raw files (judge.json).
	fileData []byte
}

// maxPolicySize bounds what is read of a policy file.
const maxPolicySize = 1 << 20

// readPolicy parses the policy file rel below root (a worktree; "" for a
// path of the user's own, not checked), named name in errors. A missing
// file is (nil, nil); a link, in the file's name or in a directory below
// root, or anything but a regular file is an error, so that a checkout
// cannot point benchgate at another file whose contents the errors would
// quote.
func readPolicy(root, rel, name string) (*policy.Policy, []byte, error) {
	path := filepath.Join(root, rel)
	if root != "" {
		realRoot, err := filepath.EvalSymlinks(root)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", name, err)
		}
		dir := filepath.Dir(path)
		real, err := filepath.EvalSymlinks(dir)
		if err == nil && real != filepath.Join(realRoot, filepath.Dir(rel)) {
			return nil, nil, fmt.Errorf("%s: a symbolic link in its directories: not read", name)
		}
	}
	f, err := safefile.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", name, errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPolicySize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(data) > maxPolicySize {
		return nil, nil, fmt.Errorf("%s: larger than %d bytes", name, maxPolicySize)
	}
	p, err := policy.Parse(name, data)
	return p, data, err
}

// readCommitPolicy parses the policy file at file (slash-separated, from
// the repository's top level) in commit sha, named name in errors, as
// readPolicy does a worktree's: a missing file is (nil, nil), a link is
// refused and not read.
func readCommitPolicy(ctx context.Context, repo *gitrev.Repo, sha, file, name string) (*policy.Policy, []byte, error) {
	data, err := repo.ReadFile(ctx, sha, file, maxPolicySize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case errors.Is(err, gitrev.ErrNotRegular):
		return nil, nil, fmt.Errorf("%s: not a regular file (a symbolic link, a directory or a submodule): not read", name)
	case err != nil:
		return nil, nil, fmt.Errorf("%s: %v", name, oneLine(err))
	}
	p, err := policy.Parse(name, data)
	return p, data, err
}

// policyPath checks --policy: a path inside the module's directory.
func (a *app) policyPath() (string, error) {
	p := a.cfg.Policy
	if filepath.IsAbs(p) || !filepath.IsLocal(p) {
		return "", fmt.Errorf("--policy %s: want a path inside the module's directory (run reads it from the base commit)", p)
	}
	return p, nil
}

// runRules reads the policy file from base's and head's worktrees (base's
// is in force; head's is compared with it), --accept and what j.accept
// accepts: Benchgate-Accept trailers and, in the action, the accept
// label. Errors are the user's input: exit status 2.
func (a *app) runRules(ctx context.Context, repo *gitrev.Repo, trees [2]*gitrev.Worktree, j job) (*rules, error) {
	r := &rules{}
	if a.cfg.Policy != "none" {
		rel, err := a.policyPath()
		if err != nil {
			return nil, err
		}
		name := filepath.ToSlash(rel)
		var base *policy.Policy
		var baseData []byte
		if at := j.policyAt; at.SHA != "" {
			// A stacked pull request: its base branch is another pull
			// request's, whose author could loosen the policy there.
			base, baseData, err = readCommitPolicy(ctx, repo, at.SHA, path.Join(filepath.ToSlash(repo.Subdir()), name), name)
			if err != nil {
				return nil, fmt.Errorf("policy file of commit %s, %s:\n%v", gitrev.Short(at.SHA), at.Label, err)
			}
			if base == nil && a.cfg.Given["policy"] {
				return nil, fmt.Errorf("--policy %s: no such file in commit %s, %s", a.cfg.Policy, gitrev.Short(at.SHA), at.Label)
			}
			r.source = fmt.Sprintf("%s of %s, %s", name, gitrev.Short(at.SHA), at.Label)
			if base == nil {
				r.notes = append(r.notes, fmt.Sprintf("no policy file: %s has no %s (%s)", gitrev.Short(at.SHA), name, at.Label))
			}
		} else {
			base, baseData, err = readPolicy(trees[0].Path(), filepath.Join(subdir(trees[0]), rel), name)
			if err != nil {
				return nil, fmt.Errorf("policy file of the base commit %s:\n%v", gitrev.Short(j.base.SHA), err)
			}
			if base == nil && a.cfg.Given["policy"] {
				return nil, fmt.Errorf("--policy %s: no such file in the base commit %s", a.cfg.Policy, gitrev.Short(j.base.SHA))
			}
			r.source = fmt.Sprintf("%s of the base commit %s", name, gitrev.Short(j.base.SHA))
		}
		r.file, r.fileData = base, baseData
		head, headData, err := readPolicy(trees[1].Path(), filepath.Join(subdir(trees[1]), rel), name)
		r.changed = !bytes.Equal(baseData, headData)
		switch {
		case err != nil:
			r.headErr = err.Error()
		case r.changed:
			r.head = head
		}
	}
	accepts, err := a.flagAccepts()
	if err != nil {
		return nil, err
	}
	r.accepts = accepts
	trailers, err := trailerAccepts(ctx, repo, j.accept, &r.notes)
	if err != nil {
		return nil, err
	}
	r.accepts = append(r.accepts, trailers...)
	if acc := j.accept; acc.label != "" {
		a, err := policy.NewAccept(".", acc.labelBy, fmt.Sprintf("label %s, added at %s", acc.label, gitrev.Short(acc.labelAt)))
		if err != nil {
			return nil, err
		}
		r.accepts = append(r.accepts, a)
	}
	r.notes = append(r.notes, j.accept.notes...)
	return r, nil
}

// subdir is the module's directory within a worktree.
func subdir(w *gitrev.Worktree) string {
	rel, err := filepath.Rel(w.Path(), w.Dir())
	if err != nil {
		return "."
	}
	return rel
}

// fileRules reads the policy file and --accept for compare and merge: the
// file from the file system, relative to the current directory (-C).
func (a *app) fileRules() (*rules, error) {
	r := &rules{}
	if a.cfg.Policy != "none" {
		path := a.resolve(a.cfg.Policy)
		p, data, err := readPolicy("", path, a.cfg.Policy)
		if err != nil {
			return nil, err
		}
		if p == nil && a.cfg.Given["policy"] {
			return nil, fmt.Errorf("--policy %s: no such file", a.cfg.Policy)
		}
		r.file, r.fileData, r.source = p, data, a.cfg.Policy
	}
	accepts, err := a.flagAccepts()
	if err != nil {
		return nil, err
	}
	r.accepts = accepts
	return r, nil
}

// trailerAccepts reads the Benchgate-Accept trailers of acc.trailersOf and
// credits them to acc.trailersBy, never to the commit's author field: that
// is free text. Unapplied trailers and an unreadable message become notes.
func trailerAccepts(ctx context.Context, repo *gitrev.Repo, acc acceptance, notes *[]string) ([]policy.Accept, error) {
	if acc.trailersOf == "" {
		return nil, nil
	}
	sha := gitrev.Short(acc.trailersOf)
	_, msg, err := repo.Commit(ctx, acc.trailersOf)
	if err != nil && acc.trailersOff != "" {
		// Read only for a note: none.
		return nil, nil
	}
	if err != nil {
		// Not the user's input: say so, and gate without trailers.
		*notes = append(*notes, fmt.Sprintf("the message of commit %s could not be read, so its Benchgate-Accept trailers were not: %v", sha, oneLine(err)))
		return nil, nil
	}
	trailers, err := policy.ParseAcceptTrailers(msg)
	switch {
	case acc.trailersOff != "":
		if len(trailers) > 0 || err != nil {
			*notes = append(*notes, fmt.Sprintf("the Benchgate-Accept trailers of commit %s were not applied: %s", sha, acc.trailersOff))
		}
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("commit %s: %v", sha, err)
	}
	how := "commit " + sha + ", author unverified"
	if acc.trailersBy != "" {
		how = "commit " + sha
	}
	for i := range trailers {
		trailers[i].By = acc.trailersBy
		trailers[i].Trailer += " (" + how + ")"
	}
	return trailers, nil
}

// localAcceptance is what run accepts besides --accept: with
// --accept-trailers, the trailers of head, whose author nobody verified.
func localAcceptance(on bool, head string) acceptance {
	acc := acceptance{trailersOf: head}
	if !on {
		acc.trailersOff = "--accept-trailers is off (the commit's author writes them, and its author field is unverified); pass --accept-trailers to apply them"
	}
	return acc
}

func (a *app) flagAccepts() ([]policy.Accept, error) {
	var out []policy.Accept
	for _, s := range a.cfg.Accepts {
		acc, err := policy.NewAccept(s, "", "--accept "+s)
		if err != nil {
			return nil, fmt.Errorf("--accept: %v", err)
		}
		out = append(out, acc)
	}
	return out, nil
}

// ignore is the runner's Options.Ignore: the benchmarks a rule of the
// policy in force ignores.
func (r *rules) ignore() func(pkg, name string) bool {
	if r == nil || r.file == nil {
		return nil
	}
	return func(pkg, name string) bool { return r.file.For(pkg, name).Ignore }
}

// withIgnored returns r with the benchmarks the runner did not run.
func (r *rules) withIgnored(list []runner.Ignored) *rules {
	if r == nil || len(list) == 0 {
		return r
	}
	c := *r
	c.ignored = nil
	for _, ig := range list {
		c.ignored = append(c.ignored, gate.Bench{Package: ig.Package, Name: strings.TrimPrefix(ig.Name, "Benchmark")})
	}
	return &c
}

// apply puts the rules into p: the file's top level where no flag or
// input was given explicitly, the file itself for the rows, the accepted
// regressions and the ignored benchmarks.
func (a *app) apply(p *gate.Policy, r *rules) {
	if r == nil {
		return
	}
	p.Accepts, p.Ignored, p.HeadPolicyError = r.accepts, r.ignored, r.headErr
	f := r.file
	if f == nil {
		return
	}
	p.File = f
	p.Threshold = f.Threshold.Resolve(p.Threshold, a.cfg.Given["threshold"])
	p.Alpha = f.Alpha.Resolve(p.Alpha, a.cfg.Given["alpha"])
	p.InstructionThreshold = f.Instructions.Resolve(p.InstructionThreshold, a.cfg.Given["instructions-threshold"])
	if f.FailOn.Set && !a.cfg.Given["fail-on"] {
		p.SetFailOn(f.FailOn.Value)
	}
	p.AllocsLimit, p.BytesLimit = f.Allocs.Value, f.Bytes.Value
}

// failOnWords are the --fail-on kinds as words.
func failOnWords(kinds []config.FailKind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}

// policyMeta says, for the report, which policy file was in force and
// what head's copy would change for the benchmarks of v.
func policyMeta(r *rules, v gate.Verdict) *report.PolicyInfo {
	if r == nil || (r.file == nil && !r.changed && r.headErr == "") {
		return nil
	}
	info := &report.PolicyInfo{Source: r.source, HeadError: r.headErr}
	if r.file == nil {
		info.Source = ""
	}
	if r.changed && r.headErr == "" {
		for _, c := range policy.Diff(r.file, r.head) {
			info.HeadChanges = append(info.HeadChanges, c.String())
		}
		var benches []policy.Bench
		seen := map[policy.Bench]bool{}
		for _, row := range v.Results {
			b := policy.Bench{Package: row.Package, Name: row.Name}
			if !seen[b] {
				seen[b] = true
				benches = append(benches, b)
			}
		}
		for _, bc := range policy.DiffFor(r.file, r.head, benches) {
			info.HeadAffected = append(info.HeadAffected, policy.Key(bc.Bench.Package, policy.StripProcs(bc.Bench.Name)))
		}
		slices.Sort(info.HeadAffected)
		info.HeadAffected = slices.Compact(info.HeadAffected)
	}
	return info
}
