package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// KillAll kills every process of the sandbox user: what the change's code
// left running in the background (a daemon that escaped its process group)
// must not outlive the measurement. It returns how many it killed.
func (s *Sandbox) KillAll() int {
	if s == nil || s.user == nil {
		return 0
	}
	n := 0
	// A process may start another while we look: look until none is left.
	for pass := 0; pass < 10; pass++ {
		found := 0
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			pid, err := strconv.Atoi(filepath.Base(d))
			if err != nil || pid == os.Getpid() {
				continue
			}
			if uid, zombie, ok := procUID(d); ok && !zombie && uid == s.user.UID {
				if syscall.Kill(pid, syscall.SIGKILL) == nil {
					found++
				}
			}
		}
		n += found
		if found == 0 {
			break
		}
	}
	return n
}

// procUID reads the real uid of a /proc/PID directory and whether the
// process is a zombie (dead, waiting to be reaped: nothing to kill).
func procUID(dir string) (uid int, zombie, ok bool) {
	f, err := os.Open(filepath.Join(dir, "status"))
	if err != nil {
		return 0, false, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, found := strings.CutPrefix(line, "State:"); found {
			zombie = strings.HasPrefix(strings.TrimSpace(rest), "Z")
		}
		if rest, found := strings.CutPrefix(line, "Uid:"); found {
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				return 0, false, false
			}
			uid, err := strconv.Atoi(fields[0])
			return uid, zombie, err == nil
		}
	}
	return 0, false, false
}
