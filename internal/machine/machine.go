// Package machine describes the computer a measurement ran on: CPU model,
// logical cores, kernel, architecture and its level (GOAMD64 and kin), and
// the Go version. Raw files, reports, ledgers and exports record it, so that
// figures from different machines are never mixed unknowingly.
package machine

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Info is one machine's description. Empty fields are unknown.
type Info struct {
	CPU    string `json:"cpu"`    // model name, e.g. "AMD EPYC 7B13"
	Cores  int    `json:"cores"`  // logical CPUs the process may use
	Kernel string `json:"kernel"` // OS and kernel release, e.g. "linux 6.1.0-18-amd64"
	Arch   string `json:"arch"`   // GOARCH
	Level  string `json:"level"`  // GOAMD64, GOARM64, ... as the build used it, e.g. "v1"
	Go     string `json:"go"`     // Go version of the toolchain that built the benchmarks
}

// Same reports whether a and b are the same kind of machine for timing
// purposes: CPU model, cores and architecture level. Unknown fields match.
func Same(a, b Info) bool {
	eq := func(x, y string) bool { return x == "" || y == "" || x == y }
	return eq(a.CPU, b.CPU) && eq(a.Arch, b.Arch) && eq(a.Level, b.Level) &&
		(a.Cores == 0 || b.Cores == 0 || a.Cores == b.Cores)
}

// String is a one-line description: "AMD EPYC 7B13, 2 cores, linux/amd64 v1".
func (i Info) String() string {
	var parts []string
	if i.CPU != "" {
		parts = append(parts, i.CPU)
	}
	if i.Cores > 0 {
		n := "cores"
		if i.Cores == 1 {
			n = "core"
		}
		parts = append(parts, itoa(i.Cores)+" "+n)
	}
	arch := i.Arch
	if i.Level != "" {
		arch += " " + i.Level
	}
	if k := strings.Fields(i.Kernel); len(k) > 0 {
		arch = k[0] + "/" + arch
	}
	if strings.TrimSpace(arch) != "" {
		parts = append(parts, strings.TrimSpace(arch))
	}
	return strings.Join(parts, ", ")
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for n >= 10 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	i--
	b[i] = byte('0' + n)
	return string(b[i:])
}

// Here describes this machine. goVersion is the toolchain's version (as
// "go env GOVERSION" prints it) and env the environment the benchmarks
// were built with (for the architecture level); either may be empty.
func Here(goVersion string, env []string) Info {
	i := Info{
		CPU:   cpuModel(),
		Cores: runtime.NumCPU(),
		Arch:  runtime.GOARCH,
		Go:    goVersion,
	}
	i.Kernel = kernel()
	i.Level = level(runtime.GOARCH, env)
	return i
}

// cpuModel reads the first "model name" of /proc/cpuinfo (Linux), or
// sysctl's brand string (macOS).
func cpuModel() string {
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "model name", "Model", "cpu model", "Hardware":
				if v = strings.TrimSpace(v); v != "" {
					return strings.Join(strings.Fields(v), " ")
				}
			}
		}
	}
	if runtime.GOOS == "darwin" {
		if out, err := exec.Command("sysctl", "-n", "machdep.cpu.brand_string").Output(); err == nil {
			return strings.TrimSpace(string(out))
		}
	}
	return ""
}

func kernel() string {
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		return runtime.GOOS + " " + strings.TrimSpace(string(b))
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "freebsd" {
		if out, err := exec.Command("uname", "-r").Output(); err == nil {
			return runtime.GOOS + " " + strings.TrimSpace(string(out))
		}
	}
	return runtime.GOOS
}

// level is the GO<ARCH> level variable in env (the last wins, as exec does),
// or the toolchain's default for the architectures that have one.
func level(arch string, env []string) string {
	name := map[string]string{
		"amd64": "GOAMD64", "arm64": "GOARM64", "386": "GO386", "arm": "GOARM",
		"ppc64": "GOPPC64", "ppc64le": "GOPPC64", "riscv64": "GORISCV64",
		"mips": "GOMIPS", "mipsle": "GOMIPS", "mips64": "GOMIPS64", "mips64le": "GOMIPS64",
		"wasm": "GOWASM",
	}[arch]
	if name == "" {
		return ""
	}
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	if v != "" {
		return v
	}
	return map[string]string{
		"GOAMD64": "v1", "GOARM64": "v8.0", "GO386": "sse2", "GOARM": "7",
		"GOPPC64": "power8", "GORISCV64": "rva20u64", "GOMIPS": "hardfloat", "GOMIPS64": "hardfloat",
	}[name]
}

// The raw files' configuration keys (benchfmt "key: value" lines) that
// record the machine; go test prints goarch: itself. The Go version is
// not among them: base and head may be built by different toolchains,
// and a key whose value differs between the files would split
// benchstat's tables.
const (
	KeyCPU    = "machine-cpu"
	KeyCores  = "machine-cores"
	KeyKernel = "machine-kernel"
	KeyLevel  = "machine-level"
)

// Config returns the benchfmt configuration lines that record i, for
// the top of a raw file; empty fields are left out.
func (i Info) Config() string {
	var b strings.Builder
	line := func(k, v string) {
		// A value is one line: a newline would end the config line.
		v = strings.Join(strings.Fields(v), " ")
		if v != "" {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	line(KeyCPU, i.CPU)
	if i.Cores > 0 {
		line(KeyCores, itoa(i.Cores))
	}
	line(KeyKernel, i.Kernel)
	line(KeyLevel, i.Level)
	return b.String()
}

// Read returns the machine a raw file records: its machine-* lines, else
// the "cpu:" line go test prints, and "goarch:"; the first value of each
// key counts. ok is false when the file records no CPU model.
func Read(raw []byte) (i Info, ok bool) {
	seen := map[string]bool{}
	cpu := ""
	for line := range bytes.SplitSeq(raw, []byte("\n")) {
		k, v, found := strings.Cut(string(line), ":")
		if !found || seen[k] || strings.ContainsAny(k, " \t") {
			continue
		}
		// One space between words, as Config writes them.
		v = strings.Join(strings.Fields(v), " ")
		switch k {
		case KeyCPU:
			i.CPU = v
		case KeyCores:
			// A count of CPUs: digits, and not past a million (a longer
			// number would overflow).
			n := 0
			for _, c := range v {
				if c < '0' || c > '9' || n > 1<<20 {
					n = 0
					break
				}
				n = n*10 + int(c-'0')
			}
			i.Cores = n
		case KeyKernel:
			i.Kernel = v
		case KeyLevel:
			i.Level = v
		case "cpu":
			cpu = v
		case "goarch":
			i.Arch = v
		default:
			continue
		}
		seen[k] = true
	}
	if i.CPU == "" {
		i.CPU = cpu
	}
	return i, i.CPU != ""
}
