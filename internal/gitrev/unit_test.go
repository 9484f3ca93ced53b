package gitrev

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGitEnv(t *testing.T) {
	safe := []string{"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*"}
	tests := []struct {
		name string
		base []string
		want []string
	}{
		{
			name: "empty",
			base: nil,
			want: safe,
		},
		{
			name: "keeps the rest of the environment in order",
			base: []string{"PATH=/bin", "HOME=/github/home", "GIT_SSH_COMMAND=ssh -i key", "EMPTY="},
			want: append([]string{"PATH=/bin", "HOME=/github/home", "GIT_SSH_COMMAND=ssh -i key", "EMPTY="}, safe...),
		},
		{
			name: "appends after existing command-scope entries",
			base: []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=http.extraheader", "GIT_CONFIG_VALUE_0=AUTHORIZATION: basic xyz",
				"GIT_CONFIG_KEY_1=user.name", "GIT_CONFIG_VALUE_1=someone"},
			want: []string{"GIT_CONFIG_KEY_0=http.extraheader", "GIT_CONFIG_VALUE_0=AUTHORIZATION: basic xyz",
				"GIT_CONFIG_KEY_1=user.name", "GIT_CONFIG_VALUE_1=someone",
				"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_COUNT=3", "GIT_CONFIG_KEY_2=safe.directory", "GIT_CONFIG_VALUE_2=*"},
		},
		{
			name: "the last GIT_CONFIG_COUNT counts, as for exec; stale entries at our index are replaced",
			base: []string{"GIT_CONFIG_COUNT=5", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=c",
				"GIT_CONFIG_KEY_1=stale.key", "GIT_CONFIG_VALUE_1=stale"},
			want: []string{"GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=c",
				"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_1=safe.directory", "GIT_CONFIG_VALUE_1=*"},
		},
		{
			name: "empty GIT_CONFIG_COUNT is zero",
			base: []string{"GIT_CONFIG_COUNT="},
			want: safe,
		},
		{
			name: "GIT_TERMINAL_PROMPT is overridden",
			base: []string{"GIT_TERMINAL_PROMPT=1"},
			want: safe,
		},
		{
			name: "repository-location variables are dropped, others kept",
			base: []string{"GIT_DIR=/elsewhere/.git", "GIT_WORK_TREE=/elsewhere", "GIT_INDEX_FILE=/elsewhere/.git/index",
				"GIT_OBJECT_DIRECTORY=/o", "GIT_COMMON_DIR=/c", "GIT_PREFIX=sub/", "GIT_CONFIG_PARAMETERS='a.b'='c'", "GIT_ASKPASS=/bin/false"},
			want: append([]string{"GIT_CONFIG_PARAMETERS='a.b'='c'", "GIT_ASKPASS=/bin/false"}, safe...),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gitEnv(tt.base)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("gitEnv(%q) mismatch (-want +got):\n%s", tt.base, diff)
			}
		})
	}
}

func TestGitEnvBadCount(t *testing.T) {
	for _, count := range []string{"x", "-1", "1.5"} {
		_, err := gitEnv([]string{"GIT_CONFIG_COUNT=" + count})
		want := fmt.Sprintf("environment variable GIT_CONFIG_COUNT=%q is not a count", count)
		if err == nil || err.Error() != want {
			t.Errorf("GIT_CONFIG_COUNT=%s: got error %v, want %q", count, err, want)
		}
	}
}

func TestCommandError(t *testing.T) {
	exit := errors.New("exit status 128")
	tests := []struct {
		name string
		err  *CommandError
		want string
	}{
		{
			name: "plain arguments unquoted, others quoted",
			err:  &CommandError{Args: []string{"rev-parse", "--verify", "nope^{commit}"}, Stderr: "fatal: Needed a single revision", Err: exit},
			want: `git rev-parse --verify "nope^{commit}": fatal: Needed a single revision`,
		},
		{
			name: "empty and spaced arguments",
			err:  &CommandError{Args: []string{"fetch", "--refmap=", "", "a b"}, Stderr: "fatal: x", Err: exit},
			want: `git fetch --refmap= "" "a b": fatal: x`,
		},
		{
			name: "multi-line stderr on one line without hints",
			err: &CommandError{Args: []string{"status"}, Err: exit,
				Stderr: "warning: w\nhint: do this\nhint: or that\n\nfatal: f\n\tindented"},
			want: `git status: warning: w; fatal: f; indented`,
		},
		{
			name: "no stderr: the runner's error",
			err:  &CommandError{Args: []string{"version"}, Err: exec.ErrNotFound},
			want: `git version: executable file not found in $PATH`,
		},
		{
			name: "cancelled: says so first",
			err:  &CommandError{Args: []string{"fetch", "origin"}, Stderr: "error: interrupted", Err: context.Canceled},
			want: `git fetch origin: context canceled (error: interrupted)`,
		},
		{
			name: "credentials in URLs are redacted",
			err: &CommandError{Args: []string{"fetch", "https://x-access-token:ghs_secret@github.com/o/r"}, Err: exit,
				Stderr: "fatal: unable to access 'https://x-access-token:ghs_secret@github.com/o/r/': 403"},
			want: `git fetch https://***@github.com/o/r: fatal: unable to access 'https://***@github.com/o/r/': 403`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestRefNotFoundError(t *testing.T) {
	fetchErr := &CommandError{Args: []string{"fetch", "origin", "refs/heads/nope"}, Stderr: "fatal: couldn't find remote ref refs/heads/nope", Err: errors.New("exit status 128")}
	tests := []struct {
		err  *RefNotFoundError
		want string
	}{
		{&RefNotFoundError{Ref: "nope", Remote: "origin"}, `ref "nope" not found (not a commit in this repository)`},
		{&RefNotFoundError{Ref: "nope", Remote: "origin", FetchErr: fetchErr},
			`ref "nope" not found (not a commit in this repository, and fetching from origin failed: git fetch origin refs/heads/nope: fatal: couldn't find remote ref refs/heads/nope)`},
		{&RefNotFoundError{Ref: "abc1", Remote: "upstream", Note: "a note"}, `ref "abc1" not found (not a commit in this repository; a note)`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
	if err := error(tests[1].err); !errors.Is(err, fetchErr) {
		t.Errorf("errors.Is(%v, fetch error) = false", err)
	}
}

func TestRevClassification(t *testing.T) {
	tests := []struct {
		rev               string
		refName, hex, sha bool
	}{
		{"main", true, false, false},
		{"feature/x-1.2", true, false, false},
		{"origin/main", true, false, false},
		{"refs/pull/7/merge", true, false, false},
		{"v1.2.3", true, false, false},
		{"cafe", true, true, false},
		{"abc", true, false, false}, // too short to be taken for a SHA
		{"deadbeef1234", true, true, false},
		{"0123456789abcdef0123456789abcdef01234567", true, true, true},
		{"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", true, true, true},
		{"0123456789abcdef0123456789abcdef0123456", true, true, false}, // 39
		{"HEAD", false, false, false},
		{"HEAD~1", false, false, false},
		{"main^2", false, false, false},
		{"main@{1}", false, false, false},
		{"a..b", false, false, false},
		{"has space", false, false, false},
		{"main:file", false, false, false},
		{"x.lock", false, false, false},
		{"/abs", false, false, false},
	}
	for _, tt := range tests {
		if got := isRefName(tt.rev); got != tt.refName {
			t.Errorf("isRefName(%q) = %v, want %v", tt.rev, got, tt.refName)
		}
		if got := isHex(tt.rev); got != tt.hex {
			t.Errorf("isHex(%q) = %v, want %v", tt.rev, got, tt.hex)
		}
		if got := isFullSHA(tt.rev); got != tt.sha {
			t.Errorf("isFullSHA(%q) = %v, want %v", tt.rev, got, tt.sha)
		}
	}
}

func TestCheckRev(t *testing.T) {
	for rev, want := range map[string]string{
		"":          "empty ref",
		"--upload":  `invalid ref "--upload": must not start with "-"`,
		"a\nb":      `invalid ref "a\nb": contains a control character`,
		"main":      "",
		"HEAD~1":    "",
		"v1^{tree}": "",
	} {
		err := checkRev(rev)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("checkRev(%q) = %q, want %q", rev, got, want)
		}
	}
}

func TestParseParents(t *testing.T) {
	commit := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
		"parent 1111111111111111111111111111111111111111\n" +
		"parent 2222222222222222222222222222222222222222\n" +
		"author a <a@x> 1 +0000\ncommitter a <a@x> 1 +0000\n\nmessage\nparent 3333333333333333333333333333333333333333\n"
	want := []string{"1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"}
	if diff := cmp.Diff(want, parseParents(commit)); diff != "" {
		t.Errorf("parseParents mismatch (-want +got):\n%s", diff)
	}
	if got := parseParents("tree x\nauthor a\n\nroot commit\n"); len(got) != 0 {
		t.Errorf("parseParents(root commit) = %q, want none", got)
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		path, dir string
		want      bool
	}{
		{"/w", "/w", true},
		{"/w/sub", "/w", true},
		{"/w2", "/w", false},
		{"/tmp", "/w", false},
		{"/", "/w", false},
		{"/w/..x", "/w", true},
	}
	for _, tt := range tests {
		if got := within(tt.path, tt.dir); got != tt.want {
			t.Errorf("within(%q, %q) = %v, want %v", tt.path, tt.dir, got, tt.want)
		}
	}
}

// fakeRunner answers each command from a table keyed by its arguments.
type fakeRunner map[string]struct {
	stdout, stderr string
	err            error
}

func (f fakeRunner) run(ctx context.Context, c Command) ([]byte, []byte, error) {
	key := strings.Join(c.Args, " ")
	a, ok := f[key]
	if !ok {
		return nil, []byte("fatal: unexpected command"), fmt.Errorf("fake: no answer for git %s", key)
	}
	return []byte(a.stdout), []byte(a.stderr), a.err
}

func TestOpenErrors(t *testing.T) {
	const cmd = "rev-parse --path-format=absolute --show-toplevel --git-common-dir --show-prefix"
	dir := t.TempDir()
	exit := errors.New("exit status 128")
	tests := []struct {
		name    string
		fake    fakeRunner
		want    string
		notRepo bool
	}{
		{
			name:    "not a repository",
			fake:    fakeRunner{cmd: {stderr: "fatal: not a git repository (or any of the parent directories): .git\n", err: exit}},
			want:    dir + ": not a git repository (git " + cmd + ": fatal: not a git repository (or any of the parent directories): .git)",
			notRepo: true,
		},
		{
			name: "git missing",
			fake: fakeRunner{cmd: {err: &exec.Error{Name: "git", Err: exec.ErrNotFound}}},
			want: `git ` + cmd + `: exec: "git": executable file not found in $PATH`,
		},
		{
			name: "odd output",
			fake: fakeRunner{cmd: {stdout: "/top\n"}},
			want: dir + `: unexpected output from git rev-parse: "/top\n"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(context.Background(), dir, WithRunner(tt.fake.run), WithEnv(nil))
			if err == nil || err.Error() != tt.want {
				t.Errorf("Open error:\n got %v\nwant %s", err, tt.want)
			}
			if errors.Is(err, ErrNotRepository) != tt.notRepo {
				t.Errorf("errors.Is(err, ErrNotRepository) = %v, want %v", !tt.notRepo, tt.notRepo)
			}
		})
	}

	if _, err := Open(context.Background(), dir, WithEnv([]string{"GIT_CONFIG_COUNT=two"})); err == nil ||
		!strings.Contains(err.Error(), "GIT_CONFIG_COUNT") {
		t.Errorf("Open with a bad GIT_CONFIG_COUNT = %v, want an error naming it", err)
	}
}

func TestResolveCancelled(t *testing.T) {
	fake := fakeRunner{
		"rev-parse --path-format=absolute --show-toplevel --git-common-dir --show-prefix": {stdout: "/top\n/top/.git\n\n"},
	}
	r, err := Open(context.Background(), t.TempDir(), WithRunner(fake.run), WithEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = r.Resolve(ctx, "main")
	var nf *RefNotFoundError
	if !errors.Is(err, context.Canceled) || errors.As(err, &nf) {
		t.Errorf("Resolve(cancelled) = %v; want a cancellation, not a missing ref", err)
	}
}

func TestShortRef(t *testing.T) {
	for _, tt := range []struct{ rev, want string }{
		{"3d1f4a0c9b2e8f7a6d5c4b3a29180716f5e4d3c2", "3d1f4a0c9b2e"},
		{strings.Repeat("ab", 32), "abababababab"},
		{"main", "main"},
		{"HEAD~1", "HEAD~1"},
		{"3d1f4a0c9b2e8f7a6d", "3d1f4a0c9b2e8f7a6d"}, // abbreviated: kept as given
	} {
		if got := ShortRef(tt.rev); got != tt.want {
			t.Errorf("ShortRef(%q) = %q, want %q", tt.rev, got, tt.want)
		}
	}
}
