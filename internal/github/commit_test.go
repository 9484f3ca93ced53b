package github

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/github/githubtest"
	"github.com/google/go-cmp/cmp"
)

// record is a recorder's change for CommitFiles: the ledger with lines
// appended, and the page made from the ledger (its line count).
func record(lines string) func(map[string][]byte) (map[string][]byte, bool, error) {
	return func(old map[string][]byte) (map[string][]byte, bool, error) {
		l, ok := Append(old["ledger.jsonl"], []byte(lines))
		page := fmt.Appendf(nil, "page of %d lines\n", bytes.Count(l, []byte("\n")))
		if !ok && bytes.Equal(old["index.html"], page) {
			return nil, false, nil
		}
		return map[string][]byte{"ledger.jsonl": l, "index.html": page}, true, nil
	}
}

// TestCommitFiles: the first write creates the branch (a root commit with
// both files), the next is one commit on it, and a change that writes
// nothing makes no commit.
func TestCommitFiles(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	ctx := context.Background()
	paths := []string{"ledger.jsonl", "index.html"}
	for _, l := range []string{"1\n", "2\n3\n", "2\n3\n"} {
		if err := h.c.CommitFiles(ctx, "o", "r", dataBranch, "record "+strings.TrimSpace(l), paths, record(l)); err != nil {
			t.Fatal(err)
		}
	}
	ledger, _ := h.srv.File("o", "r", dataBranch, "ledger.jsonl")
	page, _ := h.srv.File("o", "r", dataBranch, "index.html")
	if string(ledger) != "1\n2\n3\n" || string(page) != "page of 3 lines\n" {
		t.Errorf("ledger %q, page %q", ledger, page)
	}
	if d := cmp.Diff([]string{"record 2\n3", "record 1"}, h.srv.Commits("o", "r", dataBranch)); d != "" {
		t.Errorf("commits (-want +got):\n%s", d)
	}
}

// TestCommitFilesRace: another recorder commits between this one's read
// and its move of the branch; the move is refused (not a fast-forward),
// and the retry commits on top: both writers' lines are there and the page
// is the one drawn from the ledger beside it (round 3's L8: a page made
// from the older ledger could win).
func TestCommitFilesRace(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	ctx := context.Background()
	paths := []string{"ledger.jsonl", "index.html"}
	if err := h.c.CommitFiles(ctx, "o", "r", dataBranch, "record 0", paths, record("0\n")); err != nil {
		t.Fatal(err)
	}
	other := h.c
	var once sync.Once
	rt := &hook{base: h.srv.Client().Transport, before: func(r *http.Request) {
		if r.Method == http.MethodPatch {
			once.Do(func() {
				if err := other.CommitFiles(ctx, "o", "r", dataBranch, "record B", paths, record("B\n")); err != nil {
					t.Errorf("the other recorder: %v", err)
				}
			})
		}
	}}
	c, err := NewCommenter(Options{APIURL: h.srv.APIURL(), Token: token, HTTPClient: &http.Client{Transport: rt}, Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CommitFiles(ctx, "o", "r", dataBranch, "record A", paths, record("A\n")); err != nil {
		t.Fatal(err)
	}
	ledger, _ := h.srv.File("o", "r", dataBranch, "ledger.jsonl")
	page, _ := h.srv.File("o", "r", dataBranch, "index.html")
	if string(ledger) != "0\nB\nA\n" || string(page) != "page of 3 lines\n" {
		t.Errorf("ledger %q, page %q; want 0, B, A and the page of those 3", ledger, page)
	}
	if d := cmp.Diff([]string{"record A", "record B", "record 0"}, h.srv.Commits("o", "r", dataBranch)); d != "" {
		t.Errorf("commits (-want +got):\n%s", d)
	}
	patches := 0
	for _, s := range h.calls() {
		if strings.HasPrefix(s, "PATCH ") {
			patches++
		}
	}
	if patches != 3 { // B's, A's refused, A's again
		t.Errorf("%d PATCHes, want 3 (one refused)", patches)
	}
}

// TestCommitFilesConcurrent: two recorders write at once, many times: no
// line lost or doubled, and the page always matches the ledger it is
// committed with.
func TestCommitFilesConcurrent(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	ctx := context.Background()
	paths := []string{"ledger.jsonl", "index.html"}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for w := range 2 {
		c, err := NewCommenter(Options{APIURL: h.srv.APIURL(), Token: token, HTTPClient: h.srv.Client(),
			Sleep: func(ctx context.Context, d time.Duration) error { time.Sleep(d / 100); return ctx.Err() }})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				errs <- c.CommitFiles(ctx, "o", "r", dataBranch, "record", paths, record(fmt.Sprintf("w%d-%d\n", w, i)))
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
	ledger, _ := h.srv.File("o", "r", dataBranch, "ledger.jsonl")
	page, _ := h.srv.File("o", "r", dataBranch, "index.html")
	if n := strings.Count(string(ledger), "\n"); n != 20 || string(page) != "page of 20 lines\n" {
		t.Errorf("%d lines, page %q; want 20 and its page:\n%s", n, page, ledger)
	}
}

// TestCommitFilesBytes: files are committed byte for byte (blobs in
// base64), whatever they hold.
func TestCommitFilesBytes(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	data := []byte("a\r\n\xff\x00\xfe é\n")
	err := h.c.CommitFiles(context.Background(), "o", "r", dataBranch, "bytes", []string{"x.bin"}, func(map[string][]byte) (map[string][]byte, bool, error) {
		return map[string][]byte{"x.bin": data}, true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := h.srv.File("o", "r", dataBranch, "x.bin"); !bytes.Equal(got, data) {
		t.Errorf("committed %q, want %q", got, data)
	}
}
