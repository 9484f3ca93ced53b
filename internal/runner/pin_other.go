//go:build !linux

package runner

import (
	"errors"
	"os/exec"
)

func allowedCPUs() ([]int, error) {
	return nil, errors.New("CPU pinning needs Linux")
}

func startPinned(cmd *exec.Cmd, cpus []int) error { return cmd.Start() }
