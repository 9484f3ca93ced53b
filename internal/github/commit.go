package github

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// CommitFiles writes files on branch in one commit with message. change
// gets the files at paths as the branch's head commit holds them (a
// missing file is not in the map) and returns the files to write (false:
// nothing to write). The commit's parent is that head, and the branch moves
// to it only as a fast-forward (PATCH git/refs with force false), so a
// writer never overwrites another's commit, and files made from each other
// (a ledger and the page drawn from it) are committed together: when the
// branch moved meanwhile (422), the files are read again at its new head
// and change runs again, up to conflictAttempts times. A missing branch is
// created, a root commit holding only the files.
func (c *Commenter) CommitFiles(ctx context.Context, owner, repo, branch, message string, paths []string, change func(map[string][]byte) (map[string][]byte, bool, error)) error {
	for _, p := range paths {
		if err := checkFile(owner, repo, branch, p); err != nil {
			return err
		}
	}
	where := fmt.Sprintf("branch %s of %s/%s", branch, owner, repo)
	var last error
	for attempt := 1; attempt <= conflictAttempts; attempt++ {
		if attempt > 1 {
			c.logf("%s moved while benchgate wrote it (%v); reading it again (attempt %d of %d)", where, last, attempt, conflictAttempts)
			if err := c.sleep(ctx, time.Duration(rand.Int64N(int64(attempt)*int64(500*time.Millisecond)))); err != nil {
				return err
			}
		}
		head, tree, err := c.head(ctx, owner, repo, branch, where)
		if err != nil {
			return err
		}
		old := map[string][]byte{}
		for _, p := range paths {
			if head == "" {
				break
			}
			data, sha, err := c.readFile(ctx, owner, repo, head, p, false)
			if err != nil {
				return err
			}
			if sha != "" {
				old[p] = data
			}
		}
		files, write, err := change(old)
		if err != nil || !write {
			return err
		}
		err = c.commit(ctx, owner, repo, branch, head, tree, message, files, where)
		if !moved(err) {
			return err
		}
		last = err
	}
	return fmt.Errorf("write %s: still moving after %d attempts: %w", where, conflictAttempts, last)
}

// head returns branch's commit and tree; "" for a missing branch.
func (c *Commenter) head(ctx context.Context, owner, repo, branch, where string) (commit, tree string, err error) {
	var ref *gh.Reference
	err = c.do(ctx, "read "+where, func(int) (*gh.Response, error) {
		var resp *gh.Response
		ref, resp, err = c.client().Git.GetRef(ctx, owner, repo, "heads/"+branch)
		return resp, err
	})
	if isStatus(err, http.StatusNotFound) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	commit = ref.GetObject().GetSHA()
	var cm *gh.Commit
	err = c.do(ctx, "read the head commit of "+where, func(int) (*gh.Response, error) {
		var resp *gh.Response
		cm, resp, err = c.client().Git.GetCommit(ctx, owner, repo, commit)
		return resp, err
	})
	if err != nil {
		return "", "", err
	}
	return commit, cm.GetTree().GetSHA(), nil
}

// commit makes the commit of files on parent (with its tree; "" for a new
// branch) and moves branch to it.
func (c *Commenter) commit(ctx context.Context, owner, repo, branch, parent, baseTree, message string, files map[string][]byte, where string) error {
	// Each file a blob of its bytes (base64: byte for byte, and fit for
	// files of many megabytes), then a tree on the parent's.
	var entries []*gh.TreeEntry
	for _, p := range slices.Sorted(maps.Keys(files)) {
		var blob *gh.Blob
		err := c.do(ctx, fmt.Sprintf("write %s to %s", p, where), func(int) (*gh.Response, error) {
			var (
				resp *gh.Response
				err  error
			)
			blob, resp, err = c.client().Git.CreateBlob(ctx, owner, repo, &gh.Blob{Content: gh.String(base64.StdEncoding.EncodeToString(files[p])), Encoding: gh.String("base64")})
			return resp, err
		})
		if err != nil {
			return err
		}
		entries = append(entries, &gh.TreeEntry{Path: gh.String(p), Mode: gh.String("100644"), Type: gh.String("blob"), SHA: blob.SHA})
	}
	var tree *gh.Tree
	err := c.do(ctx, "create a tree of "+where, func(int) (*gh.Response, error) {
		var (
			resp *gh.Response
			err  error
		)
		tree, resp, err = c.client().Git.CreateTree(ctx, owner, repo, baseTree, entries)
		return resp, err
	})
	if err != nil {
		return err
	}
	cm := &gh.Commit{Message: gh.String(message), Tree: &gh.Tree{SHA: tree.SHA}}
	if parent != "" {
		cm.Parents = []*gh.Commit{{SHA: gh.String(parent)}}
	}
	var made *gh.Commit
	err = c.do(ctx, "create a commit of "+where, func(int) (*gh.Response, error) {
		var (
			resp *gh.Response
			err  error
		)
		made, resp, err = c.client().Git.CreateCommit(ctx, owner, repo, cm, nil)
		return resp, err
	})
	if err != nil {
		return err
	}
	ref := &gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: made.SHA}}
	if parent == "" {
		return c.do(ctx, "create "+where, func(int) (*gh.Response, error) {
			_, resp, err := c.client().Git.CreateRef(ctx, owner, repo, ref)
			return resp, err
		})
	}
	return c.do(ctx, "move "+where, func(int) (*gh.Response, error) {
		_, resp, err := c.client().Git.UpdateRef(ctx, owner, repo, ref, false)
		return resp, err
	})
}

// moved reports a commit refused because the branch moved since it was
// read: 422 "Update is not a fast forward", or "Reference already exists"
// for a branch created meanwhile.
func moved(err error) bool {
	var e *APIError
	if !errors.As(err, &e) || e.Status != http.StatusUnprocessableEntity {
		return false
	}
	m := strings.ToLower(e.Message)
	return strings.Contains(m, "fast forward") || strings.Contains(m, "already exists")
}

// Append is what CommitFiles's change makes of a file that lines are
// appended to: old with a newline mended and lines after it; false when
// old holds lines already (a write whose answer was lost).
func Append(old, lines []byte) ([]byte, bool) {
	if len(lines) == 0 || bytes.Contains(old, lines) {
		return old, false
	}
	out := bytes.Clone(old)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, lines...), true
}
