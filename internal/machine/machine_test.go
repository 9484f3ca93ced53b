package machine

import (
	"runtime"
	"strings"
	"testing"
)

func TestHere(t *testing.T) {
	i := Here("go1.26.8", []string{"GOAMD64=v3", "GOARM64=v8.2"})
	if i.Cores != runtime.NumCPU() || i.Arch != runtime.GOARCH || i.Go != "go1.26.8" {
		t.Fatalf("Here = %+v", i)
	}
	if runtime.GOOS == "linux" && (i.CPU == "" || !strings.HasPrefix(i.Kernel, "linux ")) {
		t.Errorf("on Linux the CPU model and kernel are known: %+v", i)
	}
	want := map[string]string{"amd64": "v3", "arm64": "v8.2"}[runtime.GOARCH]
	if want != "" && i.Level != want {
		t.Errorf("Level = %q, want %q from the environment", i.Level, want)
	}
}

func TestLevelDefault(t *testing.T) {
	if got := level("amd64", nil); got != "v1" {
		t.Errorf("default GOAMD64 = %q", got)
	}
	if got := level("amd64", []string{"GOAMD64=v2", "GOAMD64=v4"}); got != "v4" {
		t.Errorf("last GOAMD64 wins: %q", got)
	}
	if got := level("s390x", []string{"GOAMD64=v3"}); got != "" {
		t.Errorf("s390x has no level variable: %q", got)
	}
}

func TestSameAndString(t *testing.T) {
	a := Info{CPU: "AMD EPYC 7B13", Cores: 2, Arch: "amd64", Level: "v1", Kernel: "linux 6.1"}
	b := a
	if !Same(a, b) {
		t.Fatal("identical machines differ")
	}
	b.CPU = "Intel Xeon Platinum 8370C"
	if Same(a, b) {
		t.Error("different CPU models are the same")
	}
	if !Same(a, Info{}) {
		t.Error("unknown fields must match")
	}
	if got, want := a.String(), "AMD EPYC 7B13, 2 cores, linux/amd64 v1"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

// What a raw file records is read back; go test's own cpu: line serves
// files without benchgate's lines.
func TestConfigRead(t *testing.T) {
	in := Info{CPU: "AMD EPYC 7B13", Cores: 2, Kernel: "linux 6.1.0-18-amd64", Arch: "amd64", Level: "v3", Go: "go1.26.8"}
	raw := in.Config() + "goos: linux\ngoarch: amd64\npkg: p\ncpu: Other CPU\nBenchmarkX 1 2 ns/op\n"
	got, ok := Read([]byte(raw))
	want := in
	want.Go = "" // not recorded: the sides may differ
	if !ok || got != want {
		t.Errorf("Read = %+v, %v; want %+v", got, ok, want)
	}
	got, ok = Read([]byte("goarch: arm64\ncpu: Apple M2   \nBenchmarkX 1 2 ns/op\n"))
	if !ok || got.CPU != "Apple M2" || got.Arch != "arm64" || got.Cores != 0 {
		t.Errorf("go test's lines: %+v, %v", got, ok)
	}
	if _, ok := Read([]byte("BenchmarkX 1 2 ns/op\n")); ok {
		t.Error("a file without a CPU line records a machine")
	}
	if c := (Info{CPU: "a\nBenchmarkEvil 1 1 ns/op"}).Config(); c != "machine-cpu: a BenchmarkEvil 1 1 ns/op\n" {
		t.Errorf("a newline in a value: %q", c)
	}
}
