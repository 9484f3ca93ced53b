package explained

import (
	"strings"
	"testing"
)

type record struct {
	n    int
	next *record
}

var (
	sink []byte
	keep *record
	text string
	sum  uint32
)

func BenchmarkEncode(b *testing.B) {
	table := make([]byte, 4096) // setup, outside the loop
	sink = table
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sink = Encode(i)
		keep = &record{n: i}
		text = strings.Repeat("ab", 16)
	}
}

func BenchmarkChecksum(b *testing.B) {
	data := make([]byte, 256)
	for i := range data {
		data[i] = byte(i)
	}
	for b.Loop() {
		sum += Checksum(data)
		sum += Mix(data)
	}
}
