// Package explained is the test module of package explain, in two
// versions: head allocates one more 64-byte slice per op in
// BenchmarkEncode's loop and makes Checksum three times slower.
package explained

import "strconv"

// Encode returns v in decimal, in a new 24-byte buffer.
func Encode(v int) []byte {
	return strconv.AppendInt(make([]byte, 0, 24), int64(v), 10)
}

// passes is how many times Checksum goes over its data.
const passes = 1

// Checksum is FNV-1a over data, passes times.
//
//go:noinline
func Checksum(data []byte) uint32 {
	h := uint32(2166136261)
	for range passes {
		for _, b := range data {
			h ^= uint32(b)
			h *= 16777619
		}
	}
	return h
}

// Mix does the work of one pass of Checksum, on both sides.
//
//go:noinline
func Mix(data []byte) uint32 {
	h := uint32(2166136261)
	for _, b := range data {
		h ^= uint32(b)
		h *= 16777619
	}
	return h
}
