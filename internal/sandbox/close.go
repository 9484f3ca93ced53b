package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// A Mount is one line of the mount table (/proc/self/mountinfo).
type Mount struct {
	Point    string // where it is mounted, unescaped
	FSType   string
	ReadOnly bool // mounted read-only (the mount's or the file system's options)
}

// ParseMountinfo reads a mount table in the format of /proc/PID/mountinfo
// (proc(5)): "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE
// SOURCE SUPEROPTIONS", with space, tab, newline and backslash in paths
// written as octal escapes (\040).
func ParseMountinfo(b []byte) ([]Mount, error) {
	var mounts []Mount
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		f := strings.Fields(string(line))
		sep := slices.Index(f, "-")
		if len(f) < 6 || sep < 6 || len(f) < sep+3 {
			return nil, fmt.Errorf("mountinfo line %d: %q: want ID PARENT DEV ROOT POINT OPTIONS ... - TYPE SOURCE OPTIONS", i+1, line)
		}
		ro := slices.Contains(strings.Split(f[5], ","), "ro")
		if len(f) > sep+3 && slices.Contains(strings.Split(f[sep+3], ","), "ro") {
			ro = true
		}
		mounts = append(mounts, Mount{Point: unescapeMount(f[4]), FSType: f[sep+1], ReadOnly: ro})
	}
	return mounts, nil
}

// unescapeMount undoes the kernel's octal escapes (\NNN) of a mount table
// field.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// systemMounts are the mount points a container gets from its runtime, not
// from whoever started it: the root, the kernel's file systems and the
// files Docker writes for the network. Everything under /proc, /sys and
// /dev is the system's too.
var systemMounts = []string{"/", "/etc/hosts", "/etc/hostname", "/etc/resolv.conf"}

// System reports whether the mount point p is the system's: the root, /proc,
// /sys, /dev and what is below them, and Docker's /etc/hosts,
// /etc/hostname and /etc/resolv.conf. Any other mount (the runner's
// /github/..., the Docker socket, a self-hosted runner's volumes, a tmpfs
// someone asked for) was put there by the runner or the job.
func System(p string) bool {
	p = filepath.Clean(p)
	if slices.Contains(systemMounts, p) {
		return true
	}
	for _, d := range []string{"/proc", "/sys", "/dev"} {
		if within(p, d) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or below it (both clean and absolute).
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// A Target is a path the sandbox user must not read while the change's code
// runs: a mount point that is not the system's, or a path the runner's
// variables name (the workspace, RUNNER_TEMP, the file commands'
// directory).
type Target struct {
	Path     string
	ReadOnly bool // on a read-only mount: it cannot be closed
}

// Targets returns the mount points of mounts that are not the system's,
// then extra (absolute paths; the system's and duplicates left out), in
// order.
func Targets(mounts []Mount, extra []string) []Target {
	var ts []Target
	seen := map[string]bool{}
	add := func(p string, ro bool) {
		p = filepath.Clean(p)
		if !filepath.IsAbs(p) || System(p) || seen[p] {
			return
		}
		seen[p] = true
		ts = append(ts, Target{Path: p, ReadOnly: ro})
	}
	for _, m := range mounts {
		add(m.Point, m.ReadOnly)
	}
	for _, p := range extra {
		if p != "" {
			add(p, readOnlyAt(mounts, p))
		}
	}
	return ts
}

// readOnlyAt reports whether p is on a read-only mount: the innermost mount
// whose point holds it.
func readOnlyAt(mounts []Mount, p string) bool {
	best, ro := "", false
	for _, m := range mounts {
		if pt := filepath.Clean(m.Point); within(p, pt) && len(pt) >= len(best) {
			best, ro = pt, m.ReadOnly
		}
	}
	return ro
}

// A step is what Close does with one target: close it whole, or, when
// paths the sandbox needs lie below it (keep, relative to it), keep the way
// to them searchable and close everything beside that way. A target that
// is one of the needed paths or below one is the sandbox's: no step.
type step struct {
	Target
	keep []string
}

// plan decides the steps for targets given the paths the sandbox needs
// (absolute, clean).
func plan(targets []Target, needed []string) []step {
	var steps []step
	for _, t := range targets {
		s := step{Target: t}
		inside := false
		for _, n := range needed {
			switch {
			case within(t.Path, n):
				inside = true
			case within(n, t.Path):
				rel, _ := filepath.Rel(t.Path, n)
				s.keep = append(s.keep, rel)
			}
		}
		if !inside {
			steps = append(steps, s)
		}
	}
	return steps
}

// Open is a path Close could not close: the sandbox user can read it.
type Open struct {
	Path   string
	Reason string
}

func (o Open) String() string { return o.Path + " (" + o.Reason + ")" }

// Closed is what Close changed, to be undone by Reopen, and what it could
// not close.
type Closed struct {
	Open    []Open
	changes []change
}

type change struct {
	path string
	mode uint32 // the permission bits before, setuid, setgid and sticky included
}

// Close takes from u every access to the targets while the change's code
// runs, and returns what to restore afterwards. Closing a path removes the
// permission bits that give u access: the other users' and, when the path's
// group is u's, the group's; a path whose access u does not have is left
// as it is (a bind-mounted Docker socket is the host's: it is not touched
// without need). A target above a needed path (the sandbox home, the
// temporary directory, GOROOT) stays searchable but loses its read and write
// bits along the way to it, and every entry beside the way is closed.
// A target below a directory u cannot search is left as it is. What
// cannot be closed (owned by u, on a read-only mount, chmod refused) is
// listed in Closed.Open. Nothing of u may run while Close works: the
// paths are the runner's, which u could not replace anyway.
func Close(targets []Target, needed []string, u User) *Closed {
	c := &Closed{}
	steps := plan(targets, needed)
	// A target below a directory u cannot search is out of its reach
	// already (Docker's own mounts under /var/lib/docker, 0710): left as it
	// is, like a path whose access u does not have. Judged before anything
	// is closed.
	var reachable []bool
	for _, s := range steps {
		reachable = append(reachable, Reachable(filepath.Dir(s.Path), u) == nil)
	}
	for i, s := range steps {
		if !reachable[i] {
			continue
		}
		if len(s.keep) == 0 {
			c.close(s.Path, s.ReadOnly, u)
			continue
		}
		c.openWay(s.Path, s.keep, s.ReadOnly, u)
	}
	return c
}

// openWay keeps dir searchable, not listable, on the way to keep (paths
// relative to dir; "." is dir itself, which is needed whole) and closes
// every other entry.
func (c *Closed) openWay(dir string, keep []string, ro bool, u User) {
	next := map[string][]string{}
	for _, k := range keep {
		if k == "." {
			return
		}
		first, rest, _ := strings.Cut(k, string(filepath.Separator))
		if rest == "" {
			rest = "."
		}
		next[first] = append(next[first], rest)
	}
	c.restrict(dir, 0o006, ro, u)
	entries, err := os.ReadDir(dir)
	if err != nil {
		c.Open = append(c.Open, Open{dir, "cannot list it: " + err.Error()})
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if rests, ok := next[e.Name()]; ok {
			c.openWay(p, rests, ro, u)
			continue
		}
		c.close(p, ro, u)
	}
}

// close removes every access of u to p.
func (c *Closed) close(p string, ro bool, u User) { c.restrict(p, 0o007, ro, u) }

// restrict removes bits (of the other users' permission bits; the group's
// too when p's group is u's) from p's mode. A symbolic link has no mode of
// its own: where it points is closed or the system's.
func (c *Closed) restrict(p string, bits uint32, ro bool, u User) {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		if !os.IsNotExist(err) {
			c.Open = append(c.Open, Open{p, err.Error()})
		}
		return
	}
	if uint32(st.Mode)&syscall.S_IFMT == syscall.S_IFLNK {
		return
	}
	mode := uint32(st.Mode) & 0o7777 // uint16 on some systems
	if int(st.Uid) == u.UID {
		// Its owner may chmod it back.
		c.Open = append(c.Open, Open{p, fmt.Sprintf("owned by the sandbox user %d", u.UID)})
		return
	}
	mask := bits
	if int(st.Gid) == u.GID {
		mask |= bits << 3
	}
	if mode&mask == 0 {
		return // u has no such access
	}
	if ro {
		c.Open = append(c.Open, Open{p, "on a read-only mount"})
		return
	}
	if err := syscall.Chmod(p, mode&^mask); err != nil {
		c.Open = append(c.Open, Open{p, "chmod: " + err.Error()})
		return
	}
	c.changes = append(c.changes, change{p, mode})
}

// Reopen gives every path Close changed its mode back, in reverse order
// (a path changed twice gets its first mode). Call it only once nothing
// of the sandbox user runs (KillAll).
func (c *Closed) Reopen() error {
	var errs []error
	for i := len(c.changes) - 1; i >= 0; i-- {
		ch := c.changes[i]
		if err := syscall.Chmod(ch.path, ch.mode); err != nil {
			errs = append(errs, fmt.Errorf("sandbox: reopening %s: %w", ch.path, err))
		}
	}
	c.changes = nil
	return errors.Join(errs...)
}
