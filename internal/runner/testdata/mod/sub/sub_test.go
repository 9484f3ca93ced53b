package sub

import (
	"os"
	"testing"
)

// BenchmarkReadData reads a file from testdata/, so it must run in the package directory.
func BenchmarkReadData(b *testing.B) {
	for b.Loop() {
		data, err := os.ReadFile("testdata/data.txt")
		if err != nil {
			b.Fatal(err)
		}
		_ = data
	}
}
