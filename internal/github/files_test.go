package github

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/github/githubtest"
)

const dataBranch = "benchgate-data"

// TestReadFileMissing: a missing branch reads as ErrNoBranch, a missing
// file on a branch as empty.
func TestReadFileMissing(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	ctx := context.Background()
	if _, _, err := h.c.ReadFile(ctx, "o", "r", dataBranch, "ledger.jsonl"); !errors.Is(err, ErrNoBranch) {
		t.Fatalf("read before: %v, want ErrNoBranch", err)
	}
	h.srv.SetFile("o", "r", dataBranch, "ledger.jsonl", []byte("1\n"))
	if got, sha, err := h.c.ReadFile(ctx, "o", "r", dataBranch, "other.txt"); err != nil || got != nil || sha != "" {
		t.Errorf("missing file: %q %q %v", got, sha, err)
	}
}

// TestCommitFilesLostAnswer: a commit GitHub made but whose answer was
// lost (502) is not made twice.
func TestCommitFilesLostAnswer(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	ctx := context.Background()
	h.srv.SetFile("o", "r", dataBranch, "ledger.jsonl", []byte("0\n"))
	h.srv.AddFault(githubtest.Fault{Method: "PATCH", Path: "/repos/o/r/git/refs/heads/" + dataBranch, Apply: true, Status: 502, Body: githubtest.BodyBadGateway})
	if err := h.c.CommitFiles(ctx, "o", "r", dataBranch, "record A", []string{"ledger.jsonl", "index.html"}, record("A\n")); err != nil {
		t.Fatal(err)
	}
	got, _ := h.srv.File("o", "r", dataBranch, "ledger.jsonl")
	if string(got) != "0\nA\n" || len(h.srv.Commits("o", "r", dataBranch)) != 2 {
		t.Errorf("ledger %q after %d commits, want one A in one commit", got, len(h.srv.Commits("o", "r", dataBranch)))
	}
}

// TestReadFileLarge: over 1 MB the contents API leaves the content out and
// the blob is read by its SHA.
func TestReadFileLarge(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	big := bytes.Repeat([]byte("0123456789abcdef\n"), 70_000)
	h.srv.SetFile("o", "r", dataBranch, "ledger.jsonl", big)
	got, _, err := h.c.ReadFile(context.Background(), "o", "r", dataBranch, "ledger.jsonl")
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(big))
	}
	if calls := strings.Join(h.calls(), "\n"); !strings.Contains(calls, "/git/blobs/") {
		t.Errorf("no blob read:\n%s", calls)
	}
}

// TestCommitFilesReadOnly: a read-only token (a fork's pull request)
// cannot write: ErrForbidden, nothing stored.
func TestCommitFilesReadOnly(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	h.srv.SetFile("o", "r", dataBranch, "index.html", []byte("old"))
	h.srv.SetReadOnly(true)
	err := h.c.CommitFiles(context.Background(), "o", "r", dataBranch, "page", []string{"index.html"}, func(map[string][]byte) (map[string][]byte, bool, error) {
		return map[string][]byte{"index.html": []byte("new")}, true, nil
	})
	if !errors.Is(err, ErrForbidden) {
		t.Errorf("read-only: %v, want ErrForbidden", err)
	}
	if got, _ := h.srv.File("o", "r", dataBranch, "index.html"); string(got) != "old" {
		t.Errorf("page %q after a refused write", got)
	}
}

func TestFileNamesChecked(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	for _, tc := range [][2]string{{"a b", "ledger.jsonl"}, {"-x", "ledger.jsonl"}, {dataBranch, "../x"}, {dataBranch, ""}} {
		if err := h.c.CommitFiles(context.Background(), "o", "r", tc[0], "m", []string{tc[1]}, record("x\n")); err == nil {
			t.Errorf("branch %q path %q: no error", tc[0], tc[1])
		}
	}
	if len(h.srv.Requests()) != 0 {
		t.Errorf("requests sent for refused names")
	}
}

// hook calls before for each request, then sends it.
type hook struct {
	base   http.RoundTripper
	before func(*http.Request)
}

func (h *hook) RoundTrip(r *http.Request) (*http.Response, error) {
	h.before(r)
	return h.base.RoundTrip(r)
}
