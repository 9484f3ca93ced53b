package cli

import (
	"io"

	"github.com/benchgate/benchgate/internal/historypage"
	"github.com/benchgate/benchgate/internal/ledger"
)

// The history page of `benchgate history --format html`
// (internal/historypage). The command line knows no repository URL: its
// page has no commit links (the action's page has them).
func init() {
	historyPage = func(w io.Writer, h ledger.History) error {
		return historypage.Write(w, h, historypage.Options{})
	}
}
