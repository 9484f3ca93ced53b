//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// githubMountinfo is the mount table of a Docker action's container on a
// GitHub-hosted runner (docker run -v ... for /github/*, the Docker socket),
// with a self-hosted runner's volume whose name has a space and a read-only
// secret.
const githubMountinfo = `585 478 0:52 / / rw,relatime master:220 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/X,upperdir=/var/lib/docker/overlay2/u/diff,workdir=/var/lib/docker/overlay2/u/work
586 585 0:55 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
587 585 0:56 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755,inode64
588 587 0:57 / /dev/pts rw,nosuid,noexec,relatime - devpts devpts rw,gid=5,mode=620,ptmxmode=666
589 585 0:58 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro
590 589 0:28 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw,nsdelegate,memory_recursiveprot
591 587 0:54 / /dev/mqueue rw,nosuid,nodev,noexec,relatime - mqueue mqueue rw
592 587 0:59 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k,inode64
593 585 8:1 /run/docker.sock /run/docker.sock rw,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,size=3283396k,mode=755,inode64
594 585 8:1 /home/runner/work/_temp/_github_home /github/home rw,relatime - ext4 /dev/root rw,discard,errors=remount-ro
595 585 8:1 /home/runner/work/_temp/_github_workflow /github/workflow rw,relatime - ext4 /dev/root rw,discard,errors=remount-ro
596 585 8:1 /home/runner/work/_temp/_runner_file_commands /github/file_commands rw,relatime - ext4 /dev/root rw,discard,errors=remount-ro
597 585 8:1 /home/runner/work/repo/repo /github/workspace rw,relatime - ext4 /dev/root rw,discard,errors=remount-ro
598 585 8:1 /home/runner/work/_temp /github/runner_temp rw,relatime - ext4 /dev/root rw,discard,errors=remount-ro
599 585 8:1 /var/lib/docker/containers/c/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/root rw,discard,errors=remount-ro
600 585 8:1 /var/lib/docker/containers/c/hostname /etc/hostname rw,relatime - ext4 /dev/root rw,discard,errors=remount-ro
601 585 8:1 /var/lib/docker/containers/c/hosts /etc/hosts rw,relatime - ext4 /dev/root rw,discard,errors=remount-ro
602 585 8:2 /cache /mnt/build\040cache rw,relatime - ext4 /dev/sdb rw
603 585 0:60 / /run/secrets/deploy ro,relatime - tmpfs tmpfs rw
479 586 0:55 /bus /proc/bus ro,nosuid,nodev,noexec,relatime - proc proc rw
480 586 0:61 / /proc/acpi ro,relatime - tmpfs tmpfs ro,inode64
`

func TestParseMountinfo(t *testing.T) {
	mounts, err := ParseMountinfo([]byte(githubMountinfo))
	if err != nil {
		t.Fatal(err)
	}
	if len(mounts) != 21 {
		t.Fatalf("%d mounts, want 21", len(mounts))
	}
	for i, want := range map[int]Mount{
		0:  {Point: "/", FSType: "overlay"},
		4:  {Point: "/sys", FSType: "sysfs", ReadOnly: true},
		8:  {Point: "/run/docker.sock", FSType: "tmpfs"},
		9:  {Point: "/github/home", FSType: "ext4"},
		17: {Point: "/mnt/build cache", FSType: "ext4"},
		18: {Point: "/run/secrets/deploy", FSType: "tmpfs", ReadOnly: true},
		20: {Point: "/proc/acpi", FSType: "tmpfs", ReadOnly: true},
	} {
		if diff := cmp.Diff(want, mounts[i]); diff != "" {
			t.Errorf("mount %d (-want +got):\n%s", i, diff)
		}
	}
	for _, bad := range []string{"1 2 3:4 / /x rw\n", "1 2 3:4 / /x rw - ext4\n", "1 2 - / /x rw - ext4 src rw\n"} {
		if _, err := ParseMountinfo([]byte(bad)); err == nil {
			t.Errorf("ParseMountinfo(%q): no error", bad)
		}
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`/a\040b`:         "/a b",
		`/tab\011nl\012`:  "/tab\tnl\n",
		`/back\134slash`:  `/back\slash`,
		`/not\08`:         `/not\08`,
		`/short\04`:       `/short\04`,
		`/plain`:          "/plain",
		`/two\040\040end`: "/two  end",
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every mount of the runner and the job is a target; the system's are not.
// The variables' paths come after, once each.
func TestTargets(t *testing.T) {
	mounts, err := ParseMountinfo([]byte(githubMountinfo))
	if err != nil {
		t.Fatal(err)
	}
	got := Targets(mounts, []string{"/github/workspace", "/github/file_commands", "/home/runner/work/_temp", "", "relative", "/proc/self", "/run/secrets/deploy/x"})
	want := []Target{
		{Path: "/run/docker.sock"},
		{Path: "/github/home"},
		{Path: "/github/workflow"},
		{Path: "/github/file_commands"},
		{Path: "/github/workspace"},
		{Path: "/github/runner_temp"},
		{Path: "/mnt/build cache"},
		{Path: "/run/secrets/deploy", ReadOnly: true},
		{Path: "/home/runner/work/_temp"},
		{Path: "/run/secrets/deploy/x", ReadOnly: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Targets (-want +got):\n%s", diff)
	}
}

func TestSystem(t *testing.T) {
	for p, want := range map[string]bool{
		"/": true, "/proc": true, "/proc/sys/kernel": true, "/sys/fs/cgroup": true, "/dev/shm": true,
		"/etc/hosts": true, "/etc/resolv.conf": true, "/etc/hostname": true,
		"/procs": false, "/github/home": false, "/var/run/docker.sock": false, "/etc/passwd": false,
		"/tmp": false, "/opt/hostedtoolcache": false, "/__w": false,
	} {
		if got := System(p); got != want {
			t.Errorf("System(%q) = %v, want %v", p, got, want)
		}
	}
}

// plan closes a target whole, keeps the way to the needed paths below one,
// and leaves alone a target that is needed or inside a needed path.
func TestPlan(t *testing.T) {
	targets := []Target{
		{Path: "/github/workspace"},
		{Path: "/github/home"},
		{Path: "/github/home/.cache/benchgate-sandbox/go"}, // inside the sandbox home
		{Path: "/tmp/benchgate-1"},                         // the temporary directory itself
		{Path: "/opt"},
		{Path: "/github/homework"}, // beside /github/home, not above it
	}
	needed := []string{"/github/home/.cache/benchgate-sandbox", "/tmp/benchgate-1", "/opt/go"}
	got := plan(targets, needed)
	want := []step{
		{Target: Target{Path: "/github/workspace"}},
		{Target: Target{Path: "/github/home"}, keep: []string{".cache/benchgate-sandbox"}},
		{Target: Target{Path: "/opt"}, keep: []string{"go"}},
		{Target: Target{Path: "/github/homework"}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(step{})); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
}

// runnerLayout makes, under an open directory, what the runner mounts into
// a Docker action (workspace, runner_temp with checkout's credentials
// file, file_commands, workflow, home) and returns the directory.
func runnerLayout(t *testing.T) string {
	t.Helper()
	root := openDir(t)
	for name, mode := range map[string]os.FileMode{
		"workspace/.git/config":                           0o644,
		"runner_temp/git-credentials-1b4e28ba.config":     0o644,
		"file_commands/step_summary_1":                    0o644,
		"workflow/event.json":                             0o644,
		"home/.docker/config.json":                        0o644,
		"home/.gitconfig":                                 0o644,
		"home/.cache/other-tool/token":                    0o644,
		"home/.cache/benchgate-sandbox/mine":              0o644,
		"home/.cache/benchgate-sandbox/go/pkg/mod/dep.go": 0o644,
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("secret "+name), mode); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// modes records the mode and change time of every path under root.
func modes(t *testing.T, root string) map[string][2]int64 {
	t.Helper()
	m := map[string][2]int64{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		m[p] = [2]int64{int64(st.Mode), st.Ctim.Nano()}
		return nil
	})
	return m
}

// Close takes every access of the sandbox user to the runner's paths but
// the way to its home and temporary directory; a real process of that user
// tries to read them. Reopen restores every mode exactly. What is already
// closed to the user is not touched (a bind-mounted socket is the host's);
// what the user owns or a read-only mount holds is reported.
func TestCloseReopen(t *testing.T) {
	needRoot(t)
	u := User{FallbackID + 10, FallbackID + 10}
	root := runnerLayout(t)
	// A socket-like file of another group, already closed to the user.
	sock := filepath.Join(root, "docker.sock")
	if err := os.WriteFile(sock, nil, 0o660); err != nil {
		t.Fatal(err)
	}
	os.Chown(sock, 0, 999)
	// A directory the user owns, and a read-only mount.
	owned := filepath.Join(root, "owned")
	os.Mkdir(owned, 0o755)
	os.Chown(owned, u.UID, u.GID)
	roDir := filepath.Join(root, "ro")
	os.Mkdir(roDir, 0o755)
	// The group's bits count when the group is the user's; sticky bits
	// survive.
	shared := filepath.Join(root, "shared")
	os.Mkdir(shared, 0o1770)
	os.Chmod(shared, os.ModeSticky|0o770)
	os.Chown(shared, 0, u.GID)
	// A mount below a directory the user cannot search (Docker's
	// overlays under /var/lib/docker, 0710): out of reach, not touched.
	private := filepath.Join(root, "private")
	os.Mkdir(private, 0o710)
	merged := filepath.Join(private, "merged")
	os.Mkdir(merged, 0o755)
	tmp := filepath.Join(root, "home", "tmp-benchgate")
	os.Mkdir(tmp, 0o711)

	// The home is the user's, as New makes it.
	home := filepath.Join(root, "home", ".cache", "benchgate-sandbox")
	os.Chown(home, u.UID, u.GID)
	os.Chown(filepath.Join(home, "mine"), u.UID, u.GID)
	before := modes(t, root)
	var targets []Target
	for _, n := range []string{"workspace", "runner_temp", "file_commands", "workflow", "home", "docker.sock", "owned", "shared"} {
		targets = append(targets, Target{Path: filepath.Join(root, n)})
	}
	targets = append(targets, Target{Path: roDir, ReadOnly: true}, Target{Path: merged})
	c := Close(targets, []string{home, tmp}, u)

	wantOpen := []Open{{owned, "owned by the sandbox user 65542"}, {roDir, "on a read-only mount"}}
	if diff := cmp.Diff(wantOpen, c.Open); diff != "" {
		t.Errorf("Open (-want +got):\n%s", diff)
	}
	after := modes(t, root)
	if after[merged] != before[merged] {
		t.Errorf("a mount out of the user's reach was changed: %o, ctime changed %v", after[merged][0], after[merged][1] != before[merged][1])
	}
	if after[sock] != before[sock] {
		t.Errorf("the socket closed to the user anyway was changed: %o, ctime changed %v", after[sock][0], after[sock][1] != before[sock][1])
	}
	for p, want := range map[string]uint32{
		filepath.Join(root, "home"):           0o751, // the way: searchable, not listable
		filepath.Join(root, "home", ".cache"): 0o751,
		filepath.Join(root, "workspace"):      0o750,
		shared:                                0o1700,
	} {
		var st syscall.Stat_t
		syscall.Lstat(p, &st)
		if st.Mode&0o7777 != want {
			t.Errorf("%s: mode %o, want %o", p, st.Mode&0o7777, want)
		}
	}

	sb := &Sandbox{env: []string{"PATH=/usr/bin:/bin"}, user: &u, home: home}
	cmd := sandboxed(t, sb, `
for f in "$@"; do cat "$f" >/dev/null 2>&1 && echo "LEAK $f"; done
ls "$ROOT/home" >/dev/null 2>&1 && echo "LEAK listing home"
ls "$ROOT/home/.cache" >/dev/null 2>&1 && echo "LEAK listing .cache"
cat "$ROOT/home/.cache/benchgate-sandbox/mine" >/dev/null && echo ok-home
ls "$ROOT/home/tmp-benchgate" >/dev/null 2>&1 || echo ok-tmp-reachable
cd "$ROOT/home/tmp-benchgate" && echo ok-tmp
`)
	cmd.Dir = "/"
	cmd.Env = append(cmd.Env, "ROOT="+root)
	for _, f := range []string{"workspace/.git/config", "runner_temp/git-credentials-1b4e28ba.config", "file_commands/step_summary_1",
		"workflow/event.json", "home/.docker/config.json", "home/.gitconfig", "home/.cache/other-tool/token", "shared"} {
		cmd.Args = append(cmd.Args, filepath.Join(root, f))
	}
	cmd.Args = append(cmd.Args[:3], append([]string{"sh"}, cmd.Args[3:]...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(string(out), "LEAK") || !strings.Contains(string(out), "ok-home") || !strings.Contains(string(out), "ok-tmp") {
		t.Errorf("as the sandbox user:\n%s", out)
	}

	if err := c.Reopen(); err != nil {
		t.Fatal(err)
	}
	for p, m := range modes(t, root) {
		if m[0] != before[p][0] {
			t.Errorf("%s: mode %o after Reopen, want %o", p, m[0]&0o7777, before[p][0]&0o7777)
		}
	}
}
