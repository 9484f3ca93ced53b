package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/runner"
	"github.com/benchgate/benchgate/internal/safefile"
)

// Rules are the per-benchmark policy of a judgement (docs/policy.md): the
// policy file in force (base's), what head's copy would change, and the
// regressions accepted on purpose. nil is no rules.
type Rules struct {
	file    *policy.Policy // nil: no policy file
	source  string         // where file was read, for the report
	head    *policy.Policy // head's copy, when it differs from base's
	headErr string         // head's copy does not parse: its errors
	changed bool           // head's copy differs from base's (or only one side has one)
	accepts []policy.Accept
	ignored []gate.Bench  // benchmarks not run because a rule ignores them
	notes   []policy.Note // what did not apply, for the report

	// fileData is file's text, kept with the raw files (judge.json).
	fileData []byte
}

// Notes are what could not be read or applied, for the report.
func (r *Rules) Notes() []policy.Note {
	if r == nil {
		return nil
	}
	return r.notes
}

// maxPolicySize bounds what is read of a policy file.
const maxPolicySize = 1 << 20

// ReadPolicy parses the policy file rel below root (a worktree; "" for a
// path of the user's own, not checked), named name in errors. A missing
// file is (nil, nil); a link, in the file's name or in a directory below
// root, or anything but a regular file is an error, so that a checkout
// cannot point benchgate at another file whose contents the errors would
// quote.
func ReadPolicy(root, rel, name string) (*policy.Policy, []byte, error) {
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

// ReadCommitPolicy parses the policy file at file (slash-separated, from
// the repository's top level) in commit sha, named name in errors, as
// ReadPolicy does a worktree's: a missing file is (nil, nil), a link is
// refused and not read.
func ReadCommitPolicy(ctx context.Context, repo *gitrev.Repo, sha, file, name string) (*policy.Policy, []byte, error) {
	data, err := repo.ReadFile(ctx, sha, file, maxPolicySize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case errors.Is(err, gitrev.ErrNotRegular):
		return nil, nil, fmt.Errorf("%s: not a regular file (a symbolic link, a directory or a submodule): not read", name)
	case err != nil:
		return nil, nil, fmt.Errorf("%s: %v", name, OneLine(err))
	}
	p, err := policy.Parse(name, data)
	return p, data, err
}

// policyError says where the policy file was read, then its errors: on
// the same line when there is one, else one line each (FILE:LINE: …).
func policyError(where string, err error) error {
	var l policy.ErrorList
	if errors.As(err, &l) && len(l) == 1 {
		return fmt.Errorf("%s: %v", where, l[0])
	}
	if !errors.As(err, &l) {
		return fmt.Errorf("%s: %v", where, OneLine(err))
	}
	return fmt.Errorf("%s:\n%v", where, err)
}

// readRules reads the policy file from base's and head's worktrees (base's
// is in force; head's is compared with it), or from the commit src.At,
// and what accepts regressions: --accept, Benchgate-Accept trailers and,
// in the action, the accept label. Errors are the user's input.
func readRules(ctx context.Context, repo *gitrev.Repo, trees [2]*gitrev.Worktree, base Rev, src PolicySource) (*Rules, error) {
	r := &Rules{}
	if src.File != "" {
		rel := src.File
		name := filepath.ToSlash(rel)
		var bp *policy.Policy
		var baseData []byte
		var err error
		if at := src.At; at.SHA != "" {
			// A stacked pull request: its base branch is another pull
			// request's, whose author could loosen the policy there.
			bp, baseData, err = ReadCommitPolicy(ctx, repo, at.SHA, path.Join(filepath.ToSlash(repo.Subdir()), name), name)
			if err != nil {
				return nil, policyError(fmt.Sprintf("policy file of commit %s, %s", gitrev.Short(at.SHA), at.Label), err)
			}
			if bp == nil && src.Given {
				return nil, fmt.Errorf("--policy %s: no such file in commit %s, %s", rel, gitrev.Short(at.SHA), at.Label)
			}
			r.source = fmt.Sprintf("%s of %s, %s", name, gitrev.Short(at.SHA), at.Label)
			if bp == nil {
				r.notes = append(r.notes, policy.Note{Code: policy.NoPolicyFile, Commit: gitrev.Short(at.SHA), File: name, Label: at.Label})
			}
		} else {
			bp, baseData, err = ReadPolicy(trees[0].Path(), filepath.Join(subdir(trees[0]), rel), name)
			if err != nil {
				return nil, policyError("policy file of the base commit "+gitrev.Short(base.SHA), err)
			}
			if bp == nil && src.Given {
				return nil, fmt.Errorf("--policy %s: no such file in the base commit %s", rel, gitrev.Short(base.SHA))
			}
			r.source = fmt.Sprintf("%s of the base commit %s", name, gitrev.Short(base.SHA))
		}
		r.file, r.fileData = bp, baseData
		head, headData, err := ReadPolicy(trees[1].Path(), filepath.Join(subdir(trees[1]), rel), name)
		r.changed = !bytes.Equal(baseData, headData)
		switch {
		case err != nil:
			r.headErr = err.Error()
		case r.changed:
			r.head = head
		}
	}
	r.accepts = slices.Clone(src.Accepts)
	trailers, err := TrailerAccepts(ctx, repo, src.Acceptance, &r.notes)
	if err != nil {
		return nil, err
	}
	r.accepts = append(r.accepts, trailers...)
	if acc := src.Acceptance; acc.Label != "" {
		a, err := policy.NewAccept(".", acc.LabelBy, fmt.Sprintf("label %s, added at %s", acc.Label, gitrev.Short(acc.LabelAt)))
		if err != nil {
			return nil, err
		}
		r.accepts = append(r.accepts, a)
	}
	r.notes = append(r.notes, src.Acceptance.Notes...)
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

// FileRules are the rules of compare and merge: the policy file p read
// from the file system (ReadPolicy; nil for none) at source, and the
// --accept patterns.
func FileRules(p *policy.Policy, data []byte, source string, accepts []policy.Accept) *Rules {
	r := &Rules{accepts: accepts}
	if p != nil || data != nil {
		r.file, r.fileData, r.source = p, data, source
	}
	return r
}

// TrailerAccepts reads the Benchgate-Accept trailers of acc.TrailersOf and
// credits them to acc.TrailersBy, never to the commit's author field: that
// is free text. Unapplied trailers and an unreadable message become notes.
func TrailerAccepts(ctx context.Context, repo *gitrev.Repo, acc Acceptance, notes *[]policy.Note) ([]policy.Accept, error) {
	if acc.TrailersOf == "" {
		return nil, nil
	}
	sha := gitrev.Short(acc.TrailersOf)
	_, msg, err := repo.Commit(ctx, acc.TrailersOf)
	if err != nil && acc.TrailersOff != "" {
		// Read only for a note: none.
		return nil, nil
	}
	if err != nil {
		// Not the user's input: say so, and gate without trailers.
		*notes = append(*notes, policy.Note{Code: policy.TrailersUnread, Commit: sha, Err: OneLine(err)})
		return nil, nil
	}
	trailers, err := policy.ParseAcceptTrailers(msg)
	switch {
	case acc.TrailersOff != "":
		if len(trailers) > 0 || err != nil {
			*notes = append(*notes, policy.Note{Code: policy.TrailersNotApplied, Commit: sha, Off: acc.TrailersOff, Label: acc.AcceptLabel})
		}
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("commit %s: %v", sha, err)
	}
	how := "commit " + sha + ", author unverified"
	if acc.TrailersBy != "" {
		how = "commit " + sha
	}
	for i := range trailers {
		trailers[i].By = acc.TrailersBy
		trailers[i].Trailer += " (" + how + ")"
	}
	return trailers, nil
}

// ignore is the runner's Options.Ignore: the benchmarks a rule of the
// policy in force ignores.
func (r *Rules) ignore() func(pkg, name string) bool {
	if r == nil || r.file == nil {
		return nil
	}
	return func(pkg, name string) bool { return r.file.For(pkg, name).Ignore }
}

// withIgnored returns r with the benchmarks the runner did not run.
func (r *Rules) withIgnored(list []runner.Ignored) *Rules {
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

// Judge is how raw files are judged under the rules r (nil: none): the
// flags' policy, then the file's top level where no flag was given
// explicitly, the file itself for the rows, the accepted regressions and
// the ignored benchmarks, resolved once.
func (f Flags) Judge(r *Rules) Judge {
	p := f.Policy
	p.FailOn = maps.Clone(p.FailOn)
	if r != nil {
		p.Accepts, p.Ignored, p.HeadPolicyError = r.accepts, r.ignored, r.headErr
		if fl := r.file; fl != nil {
			p.File = fl
			p.Threshold = fl.Threshold.Resolve(p.Threshold, f.ThresholdGiven)
			p.Alpha = fl.Alpha.Resolve(p.Alpha, f.AlphaGiven)
			p.InstructionThreshold = fl.Instructions.Resolve(p.InstructionThreshold, f.InstructionsGiven)
			if fl.FailOn.Set && !f.FailOnGiven {
				p.SetFailOn(fl.FailOn.Value)
			}
			p.AllocsLimit, p.BytesLimit = fl.Allocs.Value, fl.Bytes.Value
		}
	}
	return Judge{
		Policy:                   p,
		Estimator:                f.Estimator,
		GateMeasuredInstructions: !f.FailOnGiven && (r == nil || r.file == nil || !r.file.FailOn.Set),
	}
}

// Info says, for the report, which policy file was in force and what
// head's copy would change for the benchmarks of v.
func (r *Rules) Info(v gate.Verdict) *PolicyInfo {
	if r == nil || (r.file == nil && !r.changed && r.headErr == "") {
		return nil
	}
	info := &PolicyInfo{Source: r.source, HeadError: r.headErr}
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

// OneLine keeps an error message to one line, as documented: its first
// line, and up to three more in parentheses.
func OneLine(err error) string {
	s := strings.TrimSpace(err.Error())
	lines := strings.Split(s, "\n")
	if len(lines) <= 1 {
		return s
	}
	return lines[0] + " (" + strings.Join(lines[1:min(len(lines), 4)], "; ") + ")"
}
