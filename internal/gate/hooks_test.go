package gate_test

import (
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/report"
)

func init() {
	gate.SetWordHooks(report.ReasonText, report.Warnings, report.WarningText, report.ScalingText, report.SuspicionText)
}
