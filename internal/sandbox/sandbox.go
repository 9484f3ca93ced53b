// Package sandbox keeps the code of the change under test apart from
// benchgate. Every process that compiles or runs that code (go list, go test
// -c, the test binaries) gets an allow-listed environment ([Env]) and, when
// benchgate runs as root (the action's container), another user: its own uid
// and gid, its own home, Go caches and temporary directory, and nothing else
// it can write. It then cannot read benchgate's environment or memory
// (/proc/1/environ, ptrace), write the runner's file-command files, or open
// the Docker socket. [Close] takes from that user every mount the runner or
// the job put in the container (from the mount table, [ParseMountinfo]) but
// the way to what it needs, and [Sandbox.Seal] makes its home read-only once
// the builds are done, so that the code, which runs only in the test
// binaries, leaves nothing a later build reads. [Command] runs such a
// process in a process group of its own, killed whole on cancellation.
// git is benchgate's own tool and keeps the variables it needs ([GitEnv])
// but loses the credentials all the same.
package sandbox

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// allowed are the variables that go and the test binaries keep, besides
// CGO_* and LC_* (see Allowed).
var allowed = map[string]bool{
	"PATH": true, "HOME": true, "TMPDIR": true, "LANG": true, "LANGUAGE": true, "TZ": true,
	// C toolchain settings that go env reads for cgo.
	"CC": true, "CXX": true, "AR": true, "PKG_CONFIG": true,
	// Reaching the module proxy.
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true,
	"http_proxy": true, "https_proxy": true, "no_proxy": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
}

// goVars are the go command's and the Go runtime's variables (go help
// environment, the runtime package's documentation), by name: a CI's
// secrets cannot be told apart by their values (GitLab exports every
// CI/CD variable, masked or not, to the job), so a prefix would let
// GOOGLE_APPLICATION_CREDENTIALS or GORELEASER_KEY through.
var goVars = map[string]bool{
	"GCCGO": true, "GCCGOTOOLDIR": true, "GO111MODULE": true, "GO386": true, "GOAMD64": true, "GOARCH": true,
	"GOARM": true, "GOARM64": true, "GOAUTH": true, "GOBIN": true, "GOCACHE": true, "GOCACHEPROG": true,
	"GOCOVERDIR": true, "GODEBUG": true, "GOENV": true, "GOEXE": true, "GOEXPERIMENT": true, "GOFIPS140": true,
	"GOFLAGS": true, "GOGCCFLAGS": true, "GOHOSTARCH": true, "GOHOSTOS": true, "GOINSECURE": true,
	"GOLOONG64": true, "GOMIPS": true, "GOMIPS64": true, "GOMOD": true, "GOMODCACHE": true, "GONOPROXY": true,
	"GONOSUMDB": true, "GOOS": true, "GOPATH": true, "GOPPC64": true, "GOPRIVATE": true, "GOPROXY": true,
	"GORISCV64": true, "GOROOT": true, "GOSUMDB": true, "GOTELEMETRY": true, "GOTELEMETRYDIR": true,
	"GOTMPDIR": true, "GOTOOLCHAIN": true, "GOTOOLDIR": true, "GOVCS": true, "GOVERSION": true, "GOWASM": true,
	"GOWORK": true, "GO_EXTLINK_ENABLED": true,
	// The runtime's.
	"GOGC": true, "GOMEMLIMIT": true, "GOMAXPROCS": true, "GOTRACEBACK": true, "GORACE": true,
}

// Allowed reports whether the variable name is passed to the processes that
// run the change's code without being asked for: PATH, HOME, TMPDIR, the
// locale (LANG, LANGUAGE, LC_*), TZ, the Go and cgo build settings (Go's
// own variables by name, CGO_*, CC, CXX, AR, PKG_CONFIG), proxies and TLS
// roots. Nothing of GitHub's (GITHUB_*, ACTIONS_*, INPUT_*, RUNNER_*) or
// GitLab's (CI_*, GITLAB_*, FF_*, and every CI/CD variable) is.
func Allowed(name string) bool {
	switch {
	case allowed[name], goVars[name]:
		return true
	case strings.HasPrefix(name, "CGO_"), strings.HasPrefix(name, "LC_"):
		return true
	}
	return false
}

// Env returns the environment of the processes that run the change's code:
// the Allowed variables of environ, then each of pass, a name (its value is
// taken from environ; absent names are left out) or NAME=VALUE. Later entries
// win, as with exec.
func Env(environ, pass []string) []string {
	var env []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if Allowed(k) {
			env = append(env, kv)
		}
	}
	return append(env, passed(environ, pass)...)
}

// GitEnv returns the environment of git: the Allowed variables, git's own
// (GIT_*, but the caller still removes the repository-location ones), the
// ssh agent and the user's pass list. Tokens in GITHUB_TOKEN or INPUT_TOKEN
// are not needed: git reads credentials from its configuration.
func GitEnv(environ, pass []string) []string {
	var env []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if Allowed(k) || strings.HasPrefix(k, "GIT_") || strings.HasPrefix(k, "SSH_") || k == "USER" || k == "XDG_CONFIG_HOME" {
			env = append(env, kv)
		}
	}
	return append(env, passed(environ, pass)...)
}

func passed(environ, pass []string) []string {
	var env []string
	for _, p := range pass {
		if strings.Contains(p, "=") {
			env = append(env, p)
			continue
		}
		for i := len(environ) - 1; i >= 0; i-- {
			if k, _, _ := strings.Cut(environ[i], "="); k == p {
				env = append(env, environ[i])
				break
			}
		}
	}
	return env
}

// CheckName reports whether s is a valid --env argument: NAME or NAME=VALUE
// with NAME a shell variable name.
func CheckName(s string) error {
	name, _, _ := strings.Cut(s, "=")
	if name == "" {
		return fmt.Errorf("%q: want NAME or NAME=VALUE", s)
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return fmt.Errorf("%q: a variable name is letters, digits and '_', not starting with a digit", name)
		}
	}
	return nil
}

// DefaultUser is the account the action's image makes for the change's code;
// FallbackID its uid and gid when the account does not exist.
const (
	DefaultUser = "benchgate-sandbox"
	FallbackID  = 65532
)

// User is the uid and gid the change's code runs as.
type User struct{ UID, GID int }

// LookupUser finds name ("benchgate-sandbox", or "UID:GID"). A missing
// DefaultUser is FallbackID:FallbackID.
func LookupUser(name string) (User, error) {
	if u, g, ok := strings.Cut(name, ":"); ok {
		uid, err1 := strconv.Atoi(u)
		gid, err2 := strconv.Atoi(g)
		if err1 != nil || err2 != nil || uid <= 0 || gid <= 0 {
			return User{}, fmt.Errorf("%q: want a user name or UID:GID other than root", name)
		}
		return User{uid, gid}, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		if name == DefaultUser {
			return User{FallbackID, FallbackID}, nil
		}
		return User{}, err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if uid == 0 {
		return User{}, fmt.Errorf("user %s is root", name)
	}
	return User{uid, gid}, nil
}

// A Sandbox is the environment and user of the change's processes.
type Sandbox struct {
	env  []string
	user *User
	home string
}

// Options configure New.
type Options struct {
	Environ []string // benchgate's environment
	Pass    []string // --env: names (or NAME=VALUE) passed on as well
	// User, if set, runs the processes as this user, with their own home,
	// Go caches and temporary directory under Home, which New makes (or
	// takes over: a cache restored from an earlier run) and gives to User.
	User *User
	Home string
}

// New prepares a sandbox. Without a User it only filters the environment.
func New(o Options) (*Sandbox, error) {
	s := &Sandbox{env: Env(o.Environ, o.Pass), user: o.User}
	if o.User == nil {
		return s, nil
	}
	if o.Home == "" {
		return nil, fmt.Errorf("sandbox: a user needs a home directory")
	}
	home, err := filepath.Abs(o.Home)
	if err != nil {
		return nil, err
	}
	s.home = home
	if err := Reachable(filepath.Dir(home), *o.User); err != nil {
		return nil, fmt.Errorf("sandbox home %s: %w", home, err)
	}
	dirs := map[string]string{
		"HOME":       home,
		"GOPATH":     filepath.Join(home, "go"),
		"GOMODCACHE": filepath.Join(home, "go", "pkg", "mod"),
		"GOCACHE":    filepath.Join(home, ".cache", "go-build"),
		"TMPDIR":     filepath.Join(home, "tmp"),
		"GOTMPDIR":   "",
		// No go env file: one in the home would be the change's code's
		// to write (GOFLAGS=-toolexec=...) and a later build's to obey.
		// GOFLAGS and the rest come from benchgate's environment alone.
		"GOENV": "off",
	}
	// TMPDIR starts empty: what an earlier run's code left there is gone.
	if err := os.RemoveAll(dirs["TMPDIR"]); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(dirs)) {
		if d := dirs[k]; d != "" && k != "GOENV" {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, fmt.Errorf("sandbox: %w", err)
			}
		}
	}
	if err := os.Chmod(home, 0o700); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	// Everything under home becomes the user's, a cache restored by another
	// user included; nothing is followed out of it.
	if err := Chown(home, o.User.UID, o.User.GID); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	env := s.env[:0:0]
	for _, kv := range s.env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := dirs[k]; !ours {
			env = append(env, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(dirs)) {
		if dirs[k] != "" {
			env = append(env, k+"="+dirs[k])
		}
	}
	s.env = env
	// What the user's processes leave behind stays in benchgate's tree of
	// processes, where KillAll finds it.
	if err := becomeSubreaper(); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return s, nil
}

// Reachable checks that u can search dir and every directory above it (the
// ones that exist: New makes the rest, searchable).
func Reachable(dir string, u User) error {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			st, ok := fi.Sys().(*syscall.Stat_t)
			mode := fi.Mode().Perm()
			owner := ok && int(st.Uid) == u.UID && mode&0o100 != 0
			group := ok && int(st.Gid) == u.GID && mode&0o010 != 0
			if !owner && !group && mode&0o001 == 0 {
				return fmt.Errorf("%s (mode %v) is not searchable by uid %d", d, mode, u.UID)
			}
		}
		if p := filepath.Dir(d); p == d {
			return nil
		}
	}
}

// Seal makes the home read-only for the sandbox user once the builds are
// done, before any test binary runs: everything in it but TMPDIR (the Go
// build and module caches, downloaded toolchains, configuration files)
// becomes benchgate's user's, without write permission for anyone else,
// and the home itself searchable only. The change's code, which runs only
// in the test binaries (go list and go test -c run none of it; cgo's flags
// are allow-listed by the go command), can then plant nothing there that a
// later build reads: not in this run, not in a later step of the job that
// uses the same home, not in a cache saved from it. New gives the home
// back to the user. Processes of the user still running (none should be
// after a build) are killed first, so that none keeps a file open for
// writing. Each directory is taken before it is listed ([SealTree]).
// Without a user Seal does nothing.
func (s *Sandbox) Seal() error {
	if s.User() == nil {
		return nil
	}
	if _, err := s.KillAll(); err != nil {
		return err
	}
	err := SealTree(s.home, filepath.Join(s.home, "tmp"), func(p string, mode fs.FileMode) fs.FileMode {
		if p == s.home {
			return 0o711 // the way to TMPDIR
		}
		return mode
	})
	if err != nil {
		return fmt.Errorf("sandbox: sealing the home: %w", err)
	}
	return nil
}

// Env returns the processes' environment.
func (s *Sandbox) Env() []string { return slices.Clone(s.env) }

// Credential returns the processes' user, or nil to run them as benchgate's.
func (s *Sandbox) Credential() *syscall.Credential {
	if s == nil || s.user == nil {
		return nil
	}
	return &syscall.Credential{Uid: uint32(s.user.UID), Gid: uint32(s.user.GID), Groups: []uint32{}}
}

// User returns the sandbox user, or nil.
func (s *Sandbox) User() *User {
	if s == nil {
		return nil
	}
	return s.user
}

// Home returns the sandbox user's home ("" without a user).
func (s *Sandbox) Home() string { return s.home }

// Chown gives dir and everything under it to uid:gid without following
// symbolic links.
func Chown(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// Readable makes dir and everything under it readable (and directories
// searchable) by every user, without following symbolic links: the source
// trees the sandbox user builds but may not write.
func Readable(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		mode := fi.Mode().Perm() | 0o444
		if d.IsDir() || fi.Mode()&0o100 != 0 {
			mode |= 0o111
		}
		mode &^= 0o022
		if mode != fi.Mode().Perm() {
			return os.Chmod(p, mode)
		}
		return nil
	})
}
