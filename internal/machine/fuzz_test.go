package machine

import (
	"strings"
	"testing"
)

// FuzzRead: the machine lines of any raw file read without a panic, each
// value on one line, the cores a count, and what Read found of the fields
// Config writes is what Config writes back.
func FuzzRead(f *testing.F) {
	f.Add([]byte("goos: linux\ncpu: AMD EPYC 7763\nmachine-cores: 4\nmachine-kernel: linux 6.8\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		i, ok := Read(raw)
		for _, v := range []string{i.CPU, i.Kernel, i.Arch, i.Level, i.Go} {
			if strings.ContainsAny(v, "\n\r") {
				t.Fatalf("a value with a line break: %q", v)
			}
		}
		if i.Cores < 0 || i.Cores > 1<<24 {
			t.Fatalf("cores %d", i.Cores)
		}
		if !ok {
			return
		}
		want := Info{CPU: i.CPU, Cores: i.Cores, Kernel: i.Kernel, Level: i.Level}
		if back, ok2 := Read([]byte(i.Config())); !ok2 || back != want {
			t.Fatalf("Read(Config()) = %+v, %v; want %+v", back, ok2, want)
		}
	})
}
