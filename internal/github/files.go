package github

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v60/github"
)

// Files on a branch: read through the contents API (GET
// /repos/{owner}/{repo}/contents/{path}?ref=BRANCH, and GET
// /git/blobs/{sha} for files over 1 MB), written through the git data API
// (CommitFiles, commit.go). The branch is a data branch: it shares no
// history with the code.

// ErrNoBranch matches (errors.Is) a read of a branch that does not exist.
var ErrNoBranch = errors.New("no such branch")

// conflictAttempts is how many times CommitFiles reads the files again
// after a concurrent write moved the branch.
const conflictAttempts = 8

// ReadFile returns the file at path on branch and its blob SHA; a missing
// file is empty with SHA "", a missing branch ErrNoBranch.
func (c *Commenter) ReadFile(ctx context.Context, owner, repo, branch, path string) ([]byte, string, error) {
	return c.readFile(ctx, owner, repo, branch, path, true)
}

// readFile reads path at ref: a branch (a missing one is ErrNoBranch), or
// a commit that exists.
func (c *Commenter) readFile(ctx context.Context, owner, repo, ref, path string, isBranch bool) ([]byte, string, error) {
	branch := ref
	if err := checkFile(owner, repo, branch, path); err != nil {
		return nil, "", err
	}
	where := fmt.Sprintf("%s/%s:%s on branch %s", owner, repo, path, branch)
	if !isBranch {
		where = fmt.Sprintf("%s/%s:%s at commit %.12s", owner, repo, path, ref)
	}
	var file *gh.RepositoryContent
	err := c.do(ctx, "read "+where, func(int) (*gh.Response, error) {
		var (
			resp *gh.Response
			err  error
		)
		file, _, resp, err = c.client().Repositories.GetContents(ctx, owner, repo, path, &gh.RepositoryContentGetOptions{Ref: branch})
		return resp, err
	})
	if isStatus(err, http.StatusNotFound) && !isBranch {
		return nil, "", nil
	}
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
