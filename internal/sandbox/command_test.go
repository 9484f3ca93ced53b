package sandbox

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCommandKillsGroup: cancelling the context kills the command's
// children too, not only the command.
func TestCommandKillsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := Command(ctx, nil, "sh", "-c", "sleep 60 & echo $!; wait")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(10 * time.Second); child == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		child, _ = strconv.Atoi(strings.TrimSpace(out.String()))
	}
	if child == 0 {
		t.Fatalf("no child pid printed: %q", out.String())
	}
	cancel()
	cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !running(child) {
			return
		}
	}
	t.Errorf("the command's child %d still runs after the cancellation", child)
}

// running reports whether pid is a process that is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}
