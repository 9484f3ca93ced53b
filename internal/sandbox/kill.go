package sandbox

import (
	"errors"
	"fmt"
	"maps"
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
// saved or file-system uid is the user's) that descends from benchgate,
// found in /proc, and returns how many it killed. The process group kill
// that ends each benchmark misses what left the group (setsid, then a
// fork): such a daemon would outlive the measurement and see the workspace
// reopened. New made benchgate their subreaper, so they stay its
// descendants (in the action's container benchgate is PID 1: every process
// there is); processes of the same user that other programs started (other
// jobs on the machine) are left alone. A process may fork while the others
// are killed, so the search is repeated until it finds none; an error says
// some were still there after killRounds. Zombies are left alone: they run
// nothing. Without a user, KillAll does nothing: the processes are
// benchgate's own user's.
func (s *Sandbox) KillAll() (int, error) {
	u := s.User()
	if u == nil || u.UID == 0 {
		return 0, nil
	}
	self := os.Getpid()
	killed := map[int]bool{}
	for round := 1; round <= killRounds; round++ {
		pids, err := descendants(u.UID, self)
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
	pids, _ := descendants(u.UID, self)
	if len(pids) == 0 {
		return len(killed), nil
	}
	return len(killed), fmt.Errorf("sandbox: %d processes of uid %d still running after %d rounds of SIGKILL (%v)", len(pids), u.UID, killRounds, pids)
}

// descendants lists the live processes of uid that descend from root.
func descendants(uid, root int) ([]int, error) {
	procs, err := processes()
	if err != nil {
		return nil, err
	}
	return selectKill(procs, uid, root), nil
}

// proc is what KillAll needs of a process.
type proc struct {
	ppid int
	uids []int // real, effective, saved, file-system
	dead bool  // a zombie (its thread group ended) or dead
}

// selectKill picks the processes of procs (by pid) that are alive, have
// uid among their uids and descend from root (a parent chain that reaches
// it), in pid order.
func selectKill(procs map[int]proc, uid, root int) []int {
	var pids []int
	for _, pid := range slices.Sorted(maps.Keys(procs)) {
		p := procs[pid]
		if p.dead || !slices.Contains(p.uids, uid) || pid == root {
			continue
		}
		// The chain is at most as long as the table (a loop, which /proc
		// read while processes end could show, ends it too).
		for q, n := p.ppid, 0; q > 0 && n <= len(procs); q, n = procs[q].ppid, n+1 {
			if q == root {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// processes reads /proc: every process's parent, uids and whether it is
// dead. Zombies are dead, but not a thread group whose leader alone has
// exited (State Z, other threads running). A process that ends while it is
// read is left out.
func processes() (map[int]proc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	procs := map[int]proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		status, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue // ended
		}
		var p proc
		var state string
		threads := 0
		for _, line := range strings.Split(string(status), "\n") {
			k, v, _ := strings.Cut(line, ":")
			switch k {
			case "State": // "S (sleeping)", "Z (zombie)", "X (dead)"
				state, _, _ = strings.Cut(strings.TrimSpace(v), " ")
			case "Threads":
				threads, _ = strconv.Atoi(strings.TrimSpace(v))
			case "PPid":
				p.ppid, _ = strconv.Atoi(strings.TrimSpace(v))
			case "Uid":
				for _, f := range strings.Fields(v) {
					if id, err := strconv.Atoi(f); err == nil {
						p.uids = append(p.uids, id)
					}
				}
			}
		}
		p.dead = state == "X" || state == "Z" && threads <= 1
		procs[pid] = p
	}
	return procs, nil
}
