package github

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// A file on a branch, through the contents API (GET and PUT
// /repos/{owner}/{repo}/contents/{path}?ref=BRANCH, with the blob SHA that
// makes a write conditional) and the git data API for what it cannot do:
// files over 1 MB (GET /git/blobs/{sha}) and a branch that does not exist
// yet (a root commit holding the file: POST /git/trees, /git/commits,
// /git/refs). The branch is a data branch: it shares no history with the
// code.

// ErrNoBranch matches (errors.Is) a read of a branch that does not exist.
var ErrNoBranch = errors.New("no such branch")

// conflictAttempts is how many times AppendFile and PutFile read the file
// again after a concurrent write moved it.
const conflictAttempts = 8

// ReadFile returns the file at path on branch and its blob SHA; a missing
// file is empty with SHA "", a missing branch ErrNoBranch.
func (c *Commenter) ReadFile(ctx context.Context, owner, repo, branch, path string) ([]byte, string, error) {
	if err := checkFile(owner, repo, branch, path); err != nil {
		return nil, "", err
	}
	where := fmt.Sprintf("%s/%s:%s on branch %s", owner, repo, path, branch)
	var file *gh.RepositoryContent
	err := c.do(ctx, "read "+where, func(int) (*gh.Response, error) {
		var (
			resp *gh.Response
			err  error
		)
		file, _, resp, err = c.client().Repositories.GetContents(ctx, owner, repo, path, &gh.RepositoryContentGetOptions{Ref: branch})
		return resp, err
	})
	if isStatus(err, http.StatusNotFound) {
		if ok, err := c.branchExists(ctx, owner, repo, branch); err != nil || !ok {
			return nil, "", errors.Join(err, branchMissing(err, owner, repo, branch))
		}
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	if file == nil || file.GetType() != "file" {
		return nil, "", fmt.Errorf("read %s: not a file", where)
	}
	if file.GetEncoding() == "base64" {
		data, err := file.GetContent() // decoded
		if err != nil {
			return nil, "", fmt.Errorf("read %s: %w", where, err)
		}
		return []byte(data), file.GetSHA(), nil
	}
	// Over 1 MB the contents API leaves the content out (encoding
	// "none"): the blob holds it, by the SHA just read.
	data, err := c.blob(ctx, owner, repo, file.GetSHA(), where)
	return data, file.GetSHA(), err
}

func branchMissing(err error, owner, repo, branch string) error {
	if err != nil {
		return nil
	}
	return fmt.Errorf("%s/%s branch %s: %w", owner, repo, branch, ErrNoBranch)
}

// blob reads a blob by its SHA.
func (c *Commenter) blob(ctx context.Context, owner, repo, sha, where string) ([]byte, error) {
	var b *gh.Blob
	err := c.do(ctx, "read the blob of "+where, func(int) (*gh.Response, error) {
		var (
			resp *gh.Response
			err  error
		)
		b, resp, err = c.client().Git.GetBlob(ctx, owner, repo, sha)
		return resp, err
	})
	if err != nil {
		return nil, err
	}
	if b.GetEncoding() != "base64" {
		return []byte(b.GetContent()), nil
	}
	return base64.StdEncoding.DecodeString(b.GetContent())
}

// branchExists reads the branch's ref.
func (c *Commenter) branchExists(ctx context.Context, owner, repo, branch string) (bool, error) {
	err := c.do(ctx, fmt.Sprintf("read branch %s of %s/%s", branch, owner, repo), func(int) (*gh.Response, error) {
		_, resp, err := c.client().Git.GetRef(ctx, owner, repo, "heads/"+branch)
		return resp, err
	})
	if isStatus(err, http.StatusNotFound) {
		return false, nil
	}
	return err == nil, err
}

// AppendFile appends lines to the file at path on branch in one commit with
// message, creating the file, and the branch (a root commit holding only
// the file), when absent. A concurrent write between the read and the
// write (409, or 422 for a file or branch created meanwhile) makes it read
// the file again and append again: no line of either writer is lost, and
// lines already there (a write whose answer was lost) are not added twice.
func (c *Commenter) AppendFile(ctx context.Context, owner, repo, branch, path string, lines []byte, message string) error {
	return c.writeFile(ctx, owner, repo, branch, path, message, func(old []byte) ([]byte, bool) {
		if len(lines) == 0 || bytes.Contains(old, lines) {
			return nil, false
		}
		out := bytes.Clone(old)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return append(out, lines...), true
	})
}

// PutFile makes content the file at path on branch (creating the branch
// as AppendFile does); the last writer wins.
func (c *Commenter) PutFile(ctx context.Context, owner, repo, branch, path string, content []byte, message string) error {
	return c.writeFile(ctx, owner, repo, branch, path, message, func(old []byte) ([]byte, bool) {
		return content, !bytes.Equal(old, content)
	})
}

// writeFile reads the file, lets change make the new content (false: no
// write needed) and writes it conditionally on the SHA read.
func (c *Commenter) writeFile(ctx context.Context, owner, repo, branch, path, message string, change func([]byte) ([]byte, bool)) error {
	if err := checkFile(owner, repo, branch, path); err != nil {
		return err
	}
	where := fmt.Sprintf("%s/%s:%s on branch %s", owner, repo, path, branch)
	var last error
	for attempt := 1; attempt <= conflictAttempts; attempt++ {
		if attempt > 1 {
			c.logf("%s moved while benchgate wrote it (%v); reading it again (attempt %d of %d)", where, last, attempt, conflictAttempts)
			// A random wait, longer after each conflict, parts writers
			// that keep meeting.
			if err := c.sleep(ctx, time.Duration(rand.Int64N(int64(attempt)*int64(500*time.Millisecond)))); err != nil {
				return err
			}
		}
		old, sha, err := c.ReadFile(ctx, owner, repo, branch, path)
		noBranch := errors.Is(err, ErrNoBranch)
		if err != nil && !noBranch {
			return err
		}
		content, write := change(old)
		if !write {
			return nil
		}
		if noBranch {
			err = c.createBranch(ctx, owner, repo, branch, path, content, message)
		} else {
			err = c.put(ctx, owner, repo, branch, path, sha, content, message, where)
		}
		if !isConflict(err) {
			return err
		}
		last = err
	}
	return fmt.Errorf("write %s: still moving after %d attempts: %w", where, conflictAttempts, last)
}

// isConflict reports a write refused because the file or branch changed
// since it was read: 409 (the SHA does not match), 422 (no SHA for a file
// that now exists, or a branch that now exists).
func isConflict(err error) bool {
	var e *APIError
	if !errors.As(err, &e) {
		return false
	}
	return e.Status == http.StatusConflict || e.Status == http.StatusUnprocessableEntity &&
		(strings.Contains(e.Message, "sha") || strings.Contains(e.Message, "already exists"))
}

func (c *Commenter) put(ctx context.Context, owner, repo, branch, path, sha string, content []byte, message, where string) error {
	opts := &gh.RepositoryContentFileOptions{Message: gh.String(message), Content: content, Branch: gh.String(branch)}
	if sha != "" {
		opts.SHA = gh.String(sha)
	}
	return c.do(ctx, "write "+where, func(int) (*gh.Response, error) {
		_, resp, err := c.client().Repositories.UpdateFile(ctx, owner, repo, path, opts)
		return resp, err
	})
}

// createBranch makes branch a root commit whose tree holds only the file.
func (c *Commenter) createBranch(ctx context.Context, owner, repo, branch, path string, content []byte, message string) error {
	where := fmt.Sprintf("branch %s of %s/%s", branch, owner, repo)
	var tree *gh.Tree
	err := c.do(ctx, "create the tree of "+where, func(int) (*gh.Response, error) {
		var (
			resp *gh.Response
			err  error
		)
		tree, resp, err = c.client().Git.CreateTree(ctx, owner, repo, "", []*gh.TreeEntry{{
			Path: gh.String(path), Mode: gh.String("100644"), Type: gh.String("blob"), Content: gh.String(string(content)),
		}})
		return resp, err
	})
	if err != nil {
		return err
	}
	var commit *gh.Commit
	err = c.do(ctx, "create the first commit of "+where, func(int) (*gh.Response, error) {
		var (
			resp *gh.Response
			err  error
		)
		commit, resp, err = c.client().Git.CreateCommit(ctx, owner, repo, &gh.Commit{Message: gh.String(message), Tree: &gh.Tree{SHA: tree.SHA}}, nil)
		return resp, err
	})
	if err != nil {
		return err
	}
	return c.do(ctx, "create "+where, func(int) (*gh.Response, error) {
		_, resp, err := c.client().Git.CreateRef(ctx, owner, repo, &gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: commit.SHA}})
		return resp, err
	})
}

// checkFile checks the names that go into a request's path.
func checkFile(owner, repo, branch, path string) error {
	if err := checkTarget(owner, repo, 1); err != nil {
		return err
	}
	if branch == "" || strings.HasPrefix(branch, "-") || strings.Contains(branch, "..") || strings.ContainsAny(branch, " ~^:?*[\\") || strings.IndexFunc(branch, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return fmt.Errorf("branch %q: not a valid branch name", branch)
	}
	for _, part := range strings.Split(path, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("file path %q: want a relative path without . or .. parts", path)
		}
	}
	return nil
}
