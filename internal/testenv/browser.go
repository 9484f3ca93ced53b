package testenv

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Chromium returns the headless browser of the browser tests:
// BENCHGATE_CHROMIUM, else chromium, chromium-browser or google-chrome in
// PATH. Without one the test is skipped, or fails with
// BENCHGATE_BROWSER=1 (.ci/run installs chromium and sets it).
func Chromium(t testing.TB) string {
	t.Helper()
	chrome := os.Getenv("BENCHGATE_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if chrome != "" {
			break
		}
		if p, err := exec.LookPath(name); err == nil {
			chrome = p
		}
	}
	if chrome == "" {
		BrowserMissing(t, "no chromium in PATH (BENCHGATE_CHROMIUM names one)")
	}
	return chrome
}

// BrowserMissing skips the test for what a browser test lacks, or fails
// it with BENCHGATE_BROWSER=1.
func BrowserMissing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("BENCHGATE_BROWSER") == "1" {
		t.Fatalf("BENCHGATE_BROWSER=1 but %s", what)
	}
	t.Skipf("skipped: %s (.ci/run installs it)", what)
}

// RunChromium runs chrome on args, killed after 2 minutes, and returns
// what it wrote on stdout and stderr; a failure fails the test.
func RunChromium(t testing.TB, chrome string, args ...string) (stdout, stderr []byte) {
	t.Helper()
	cmd := exec.Command(chrome, args...)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not finish in 2 minutes: %s", chrome, errBuf.String())
	}
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", chrome, strings.Join(args, " "), err, errBuf.String())
	}
	return out, errBuf.Bytes()
}
