package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/github/githubtest"

	"github.com/google/go-cmp/cmp"
)

const dataBranch = "benchgate-data"

// TestAppendFileCreatesBranch: the first append makes the data branch, a
// root commit with only the file; the next one is a commit on it; reads
// see both, and a missing branch reads as ErrNoBranch.
func TestAppendFileCreatesBranch(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	ctx := context.Background()
	if _, _, err := h.c.ReadFile(ctx, "o", "r", dataBranch, "ledger.jsonl"); !errors.Is(err, ErrNoBranch) {
		t.Fatalf("read before: %v, want ErrNoBranch", err)
	}
	if err := h.c.AppendFile(ctx, "o", "r", dataBranch, "ledger.jsonl", []byte("1\n"), "record 1"); err != nil {
		t.Fatal(err)
	}
	if err := h.c.AppendFile(ctx, "o", "r", dataBranch, "ledger.jsonl", []byte("2\n3\n"), "record 2"); err != nil {
		t.Fatal(err)
	}
	got, sha, err := h.c.ReadFile(ctx, "o", "r", dataBranch, "ledger.jsonl")
	if err != nil || string(got) != "1\n2\n3\n" || sha == "" {
		t.Fatalf("read: %q %q %v", got, sha, err)
	}
	if d := cmp.Diff([]string{"record 2", "record 1"}, h.srv.Commits("o", "r", dataBranch)); d != "" {
		t.Errorf("commits (-want +got):\n%s", d)
	}
	// An existing branch without the file: empty, no error.
	if got, sha, err := h.c.ReadFile(ctx, "o", "r", dataBranch, "other.txt"); err != nil || got != nil || sha != "" {
		t.Errorf("missing file: %q %q %v", got, sha, err)
	}
}

// TestAppendFileRetriesAConflict: another recorder writes between this
// one's read and write; the stale write gets 409, and the retry keeps
// both writers' lines.
func TestAppendFileRetriesAConflict(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	ctx := context.Background()
	h.srv.SetFile("o", "r", dataBranch, "ledger.jsonl", []byte("0\n"))
	other := h.c
	var once sync.Once
	rt := &hook{base: h.srv.Client().Transport, before: func(r *http.Request) {
		if r.Method == http.MethodPut {
			once.Do(func() {
				if err := other.AppendFile(ctx, "o", "r", dataBranch, "ledger.jsonl", []byte("B\n"), "record B"); err != nil {
					t.Errorf("the other recorder: %v", err)
				}
			})
		}
	}}
	c, err := NewCommenter(Options{APIURL: h.srv.APIURL(), Token: token, HTTPClient: &http.Client{Transport: rt}, Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AppendFile(ctx, "o", "r", dataBranch, "ledger.jsonl", []byte("A\n"), "record A"); err != nil {
		t.Fatal(err)
	}
	got, _ := h.srv.File("o", "r", dataBranch, "ledger.jsonl")
	if string(got) != "0\nB\nA\n" {
		t.Errorf("ledger %q, want 0, B, A", got)
	}
	var conflicts int
	for _, s := range h.calls() {
		if strings.HasPrefix(s, "PUT ") {
			conflicts++
		}
	}
	if conflicts != 3 { // B's, A's refused, A's again
		t.Errorf("%d PUTs, want 3 (one refused)", conflicts)
	}
}

// TestAppendFileConcurrent: two recorders append at once, many times; no
// line is lost or doubled.
func TestAppendFileConcurrent(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for w := range 2 {
		// Each recorder waits as benchgate does, a hundred times faster.
		c, err := NewCommenter(Options{APIURL: h.srv.APIURL(), Token: token, HTTPClient: h.srv.Client(),
			Sleep: func(ctx context.Context, d time.Duration) error { time.Sleep(d / 100); return ctx.Err() }})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				errs <- c.AppendFile(ctx, "o", "r", dataBranch, "ledger.jsonl", fmt.Appendf(nil, "w%d-%d\n", w, i), "record")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, _ := h.srv.File("o", "r", dataBranch, "ledger.jsonl")
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) != 20 {
		t.Fatalf("%d lines, want 20:\n%s", len(lines), got)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l] = true
	}
	for w := range 2 {
		for i := range 10 {
			if !seen[fmt.Sprintf("w%d-%d", w, i)] {
				t.Errorf("line w%d-%d lost", w, i)
			}
		}
	}
}

// TestAppendFileLostAnswer: a write GitHub stored but whose answer was lost
// (502) is not appended twice.
func TestAppendFileLostAnswer(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	ctx := context.Background()
	h.srv.SetFile("o", "r", dataBranch, "ledger.jsonl", []byte("0\n"))
	h.srv.AddFault(githubtest.Fault{Method: "PUT", Path: "/repos/o/r/contents/ledger.jsonl", Apply: true, Status: 502, Body: githubtest.BodyBadGateway})
	if err := h.c.AppendFile(ctx, "o", "r", dataBranch, "ledger.jsonl", []byte("A\n"), "record A"); err != nil {
		t.Fatal(err)
	}
	got, _ := h.srv.File("o", "r", dataBranch, "ledger.jsonl")
	if string(got) != "0\nA\n" {
		t.Errorf("ledger %q, want one A", got)
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

// TestPutFileReadOnly: a read-only token (a fork's pull request) cannot
// write: ErrForbidden, nothing stored.
func TestPutFileReadOnly(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	h.srv.SetFile("o", "r", dataBranch, "index.html", []byte("old"))
	h.srv.SetReadOnly(true)
	err := h.c.PutFile(context.Background(), "o", "r", dataBranch, "index.html", []byte("new"), "page")
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
		if err := h.c.AppendFile(context.Background(), "o", "r", tc[0], tc[1], []byte("x\n"), "m"); err == nil {
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
