//go:build !unix

package main

// benchgate builds for unix systems only (Linux, macOS, the BSDs): it runs
// benchmarks in process groups, the change's code as another user, and
// writes files without following symbolic links. Building it elsewhere
// stops here, with the reason in the compiler's message.
func main() {
	benchgate_builds_only_for_unix_systems_such_as_linux_and_darwin()
}
