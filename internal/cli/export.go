package cli

import (
	"fmt"
	"math"

	"github.com/benchgate/benchgate/internal/export"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/machine"
)

// exports writes head's figures to the --export files, for the history
// services that keep them (Bencher, github-action-benchmark), each with
// its direction and the machine (mi, nil when unknown). Rows without
// head's figures (removed, failed, ignored) are left out.
func (a *app) exports(v gate.Verdict, mi *machine.Info) []error {
	if len(a.cfg.Exports) == 0 {
		return nil
	}
	mach := ""
	if mi != nil {
		mach = mi.String()
	}
	var metrics []export.Metric
	for _, r := range v.Results {
		h := r.Head
		if h == nil || math.IsNaN(h.Center) {
			continue
		}
		m := export.Metric{
			Package: r.Package, Name: r.Name, Unit: r.Unit, Value: h.Center, Higher: r.Direction() == "higher",
			Low: h.Low, High: h.High, Confidence: h.Confidence, Samples: h.N, Machine: mach,
		}
		m.HasInterval = !math.IsInf(h.Low, 0) && !math.IsInf(h.High, 0) && h.Low <= h.Center && h.Center <= h.High
		metrics = append(metrics, m)
	}
	var errs []error
	for _, t := range a.cfg.Exports {
		b, err := export.Encode(t.Format, metrics)
		if err != nil {
			errs = append(errs, fmt.Errorf("--export %s=%s: %v", t.Format, t.Path, err))
			continue
		}
		if err := a.writeOutput("--export", t.Path, b); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
