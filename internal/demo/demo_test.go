package demo

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	if err := Write(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if n := strings.Count(git("log", "--oneline"), "\n"); n != 2 {
		t.Errorf("%d commits, want 2", n)
	}
	if st := git("status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean:\n%s", st)
	}
	base := git("show", "HEAD~1:shop_test.go")
	head := git("show", "HEAD:shop_test.go")
	for _, e := range Expectations {
		inBase := strings.Contains(base, "func Benchmark"+e.Name+"(")
		inHead := strings.Contains(head, "func Benchmark"+e.Name+"(")
		want := [2]bool{e.Status != "new", e.Status != "removed"}
		if [2]bool{inBase, inHead} != want {
			t.Errorf("Benchmark%s: in base %v, in head %v; want %v for %s", e.Name, inBase, inHead, want, e.Status)
		}
	}
	if !strings.Contains(git("show", "HEAD:shop.go"), "slices.Clone") {
		t.Errorf("head lacks the planted extra allocation")
	}
}
