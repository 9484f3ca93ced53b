package codec

import (
	"fmt"
	"testing"
)

var sink []byte

func encode(dst, src []byte) []byte {
	for _, c := range src {
		dst = append(dst, c^0x5a)
	}
	return dst
}

func BenchmarkEncode(b *testing.B) {
	src := make([]byte, 4096)
	dst := make([]byte, 0, 8192)
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		dst = encode(dst[:0], src)
	}
	sink = dst
	b.ReportMetric(float64(len(dst)), "bytes-out/op")
	b.ReportMetric(float64(b.N)*64/b.Elapsed().Seconds(), "items/s")
	fmt.Println("noise from the benchmark")
}

func TestX(t *testing.T) {}
