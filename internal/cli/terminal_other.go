//go:build !unix

package cli

import "os"

// termWidth is the width of the terminal f, 0 if unknown.
func termWidth(*os.File) int { return 0 }
