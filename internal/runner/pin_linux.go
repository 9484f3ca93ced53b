package runner

import (
	"fmt"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"
)

type cpuMask [16]uint64 // 1024 CPUs

func (m *cpuMask) list() []int {
	var cpus []int
	for i := range len(m) * 64 {
		if m[i/64]&(1<<(i%64)) != 0 {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

// threadAffinity reads or sets the CPU mask of the calling OS thread.
func threadAffinity(set bool, m *cpuMask) error {
	trap := uintptr(syscall.SYS_SCHED_GETAFFINITY)
	if set {
		trap = syscall.SYS_SCHED_SETAFFINITY
	}
	_, _, e := syscall.RawSyscall(trap, 0, unsafe.Sizeof(*m), uintptr(unsafe.Pointer(m)))
	if e != 0 {
		return e
	}
	return nil
}

// allowedCPUs lists the CPUs this process may run on.
func allowedCPUs() ([]int, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var m cpuMask
	if err := threadAffinity(false, &m); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	return m.list(), nil
}

// startPinned starts cmd so that it (and every thread it makes) may run only
// on cpus. The fork happens on this goroutine's OS thread, locked and given
// that affinity for the moment of the fork, so the child inherits it before
// its first instruction.
func startPinned(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old, pinned cpuMask
	if err := threadAffinity(false, &old); err != nil {
		return fmt.Errorf("sched_getaffinity: %w", err)
	}
	for _, c := range cpus {
		pinned[c/64] |= 1 << (c % 64)
	}
	if err := threadAffinity(true, &pinned); err != nil {
		return fmt.Errorf("sched_setaffinity %v: %w", cpus, err)
	}
	err := cmd.Start()
	if rerr := threadAffinity(true, &old); rerr != nil && err == nil {
		err = fmt.Errorf("restoring affinity: %w", rerr)
	}
	return err
}
