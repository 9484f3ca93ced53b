package cgmod

import (
	"os"
	"testing"
)

var sink int

func BenchmarkWork1000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += Work(1000)
	}
}

// BenchmarkWork1050 does 5 % more loop iterations than BenchmarkWork1000.
func BenchmarkWork1050(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += Work(1050)
	}
}

// BenchmarkSetup does the work of BenchmarkWork1000 after a setup worth
// 300 of its iterations, excluded with ResetTimer.
func BenchmarkSetup(b *testing.B) {
	sink += Work(300_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sink += Work(1000)
	}
}

// BenchmarkSetupNoReset has the same setup inside the timed region.
func BenchmarkSetupNoReset(b *testing.B) {
	sink += Work(300_000)
	for i := 0; i < b.N; i++ {
		sink += Work(1000)
	}
}

// BenchmarkLoop uses b.Loop, which runs its whole loop in testing's first
// (probe) run, after a setup.
func BenchmarkLoop(b *testing.B) {
	sink += Work(300_000)
	for b.Loop() {
		sink += Work(1000)
	}
}

// BenchmarkSub runs its loops in sub-benchmarks (other goroutines).
func BenchmarkSub(b *testing.B) {
	sink += Work(300_000)
	for _, n := range []int{1000, 1050} {
		b.Run("n="+itoa(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink += Work(n)
			}
		})
	}
}

func itoa(n int) string {
	if n == 1000 {
		return "1000"
	}
	return "1050"
}

func BenchmarkAlloc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += Alloc(16)
	}
}

func BenchmarkMap(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += Map(16)
	}
}

// BenchmarkReadFile makes system calls, after which the runtime may move
// the goroutine to another thread.
func BenchmarkReadFile(b *testing.B) {
	for i := 0; i < b.N; i++ {
		data, err := os.ReadFile("work.go")
		if err != nil {
			b.Fatal(err)
		}
		sink += len(data)
	}
}

// BenchmarkStopStart excludes a setup from every iteration.
func BenchmarkStopStart(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		sink += Work(20_000)
		b.StartTimer()
		sink += Work(1000)
	}
}

// BenchmarkPanic panics when CGMOD_PANIC is set.
func BenchmarkPanic(b *testing.B) {
	if os.Getenv("CGMOD_PANIC") != "" {
		panic("cgmod: planted panic")
	}
	for i := 0; i < b.N; i++ {
		sink += Work(10)
	}
}

// BenchmarkChatty prints to standard output each time it is called, which
// splits its result line ("BenchmarkChatty \tchat\n  1000  1.5 ns/op").
func BenchmarkChatty(b *testing.B) {
	os.Stdout.WriteString("chat ::set-output name=x::y\n")
	for b.Loop() {
		sink += Work(1000)
	}
}
