//go:build !linux

package callgrind

// physicalMemory is unknown outside Linux (Valgrind runs Go test binaries
// only there).
func physicalMemory() int64 { return 0 }
