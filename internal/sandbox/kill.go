package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// killRounds bounds KillAll's rounds: each kills what the last one's
// processes forked before their signal arrived.
const killRounds = 50

// KillAll kills every process of the sandbox user (whose real, effective,
// saved or file-system uid is the user's), found in /proc, and returns how
// many it killed. The process group kill that ends each benchmark misses
// what left the group (setsid, then a fork): such a daemon would outlive
// the measurement and see the workspace reopened. A process may fork while
// the others are killed, so the search is repeated until it finds none; an
// error says some were still there after killRounds. Zombies are left
// alone: they run nothing. Without a user, KillAll does nothing: the
// processes are benchgate's own user's.
func (s *Sandbox) KillAll() (int, error) {
	u := s.User()
	if u == nil || u.UID == 0 {
		return 0, nil
	}
	killed := map[int]bool{}
	for round := 1; round <= killRounds; round++ {
		pids, err := processes(u.UID)
		if err != nil {
			return len(killed), fmt.Errorf("sandbox: killing the processes of uid %d: %w", u.UID, err)
		}
		if len(pids) == 0 {
			return len(killed), nil
		}
		for _, pid := range pids {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				return len(killed), fmt.Errorf("sandbox: killing process %d of uid %d: %w", pid, u.UID, err)
			}
			killed[pid] = true
		}
		// Time to die before the next search finds them again.
		time.Sleep(time.Duration(min(round, 10)) * time.Millisecond)
	}
	pids, _ := processes(u.UID)
	if len(pids) == 0 {
		return len(killed), nil
	}
	return len(killed), fmt.Errorf("sandbox: %d processes of uid %d still running after %d rounds of SIGKILL (%v)", len(pids), u.UID, killRounds, pids)
}

// processes lists the processes of /proc with uid among their real,
// effective, saved and file-system uids. Zombies are left out, but not a
// thread group whose leader alone has exited (State Z, other threads
// running). A process that ends while it is read is left out too.
func processes(uid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	want := strconv.Itoa(uid)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		status, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue // ended
		}
		var state string
		threads := 0
		match := false
		for _, line := range strings.Split(string(status), "\n") {
			k, v, _ := strings.Cut(line, ":")
			switch k {
			case "State": // "S (sleeping)", "Z (zombie)", "X (dead)"
				state, _, _ = strings.Cut(strings.TrimSpace(v), " ")
			case "Threads":
				threads, _ = strconv.Atoi(strings.TrimSpace(v))
			case "Uid": // real, effective, saved and file-system uid
				match = slices.Contains(strings.Fields(v), want)
			}
		}
		dead := state == "X" || state == "Z" && threads <= 1
		if match && !dead {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
