package ledger

import (
	"math"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/stats"
)

// Run is what a recorded run knows besides its verdict.
type Run struct {
	Recorded   time.Time
	Base, Head Commit
	// Go is the toolchain's version; Machine the computer the run
	// measured on.
	Go      string
	Machine machine.Info
}

// FromVerdict returns the entries of a verdict: one per row with a
// measured change on both sides (not new, removed, failed, ignored or
// inconclusive rows without figures, nor rows whose base or head median
// is not positive, which have no log ratio), and a zero change for every
// row not measured because its test binaries were the same on both sides
// (test "same-binary": nothing it runs changed). Confidence is the level
// of each entry's interval (0.95).
func FromVerdict(v gate.Verdict, run Run, confidence float64) []Entry {
	names := Names(v.Results)
	var out []Entry
	for i, r := range v.Results {
		e, ok := entry(r, confidence)
		if !ok {
			continue
		}
		e.V, e.Recorded, e.Base, e.Head = Version, run.Recorded.UTC(), run.Base, run.Head
		e.Go, e.Machine = run.Go, run.Machine
		e.Package, e.Name, e.Unit = r.Package, names[i], r.Unit
		e.Status = string(r.Status)
		out = append(out, e)
	}
	return out
}

// Names are the rows' names as the ledger records them: "Benchmark" and
// the -GOMAXPROCS suffix stripped, the suffix kept where the rows have the
// same benchmark and unit at several GOMAXPROCS values.
func Names(rows []gate.Result) []string {
	type group struct{ pkg, base, unit string }
	full := map[group]map[string]bool{}
	out := make([]string, len(rows))
	for i, r := range rows {
		name := strings.TrimPrefix(r.Name, "Benchmark")
		g := group{r.Package, StripProcs(name), r.Unit}
		if full[g] == nil {
			full[g] = map[string]bool{}
		}
		full[g][name] = true
		out[i] = name
	}
	for i, r := range rows {
		g := group{r.Package, StripProcs(out[i]), r.Unit}
		if len(full[g]) == 1 {
			out[i] = g.base
		}
	}
	return out
}

// StripProcs drops a "-GOMAXPROCS" suffix ("Encode/1k-8" → "Encode/1k").
func StripProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return name
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:i]
}

// z is the standard normal quantile of (1+confidence)/2.
func z(confidence float64) float64 {
	return math.Sqrt2 * math.Erfinv(confidence)
}

// entry fills the change, interval and test of one row.
func entry(r gate.Result, confidence float64) (Entry, bool) {
	if r.Status == gate.SameBinary {
		// The same binary: a change of exactly zero, known without a
		// sample (no medians, an interval of one point).
		return Entry{Direction: r.Direction(), Confidence: confidence, Test: "same-binary"}, true
	}
	if r.Base == nil || r.Head == nil || !(r.Base.Center > 0) || !(r.Head.Center > 0) {
		return Entry{}, false
	}
	e := Entry{Direction: r.Direction(), BaseMedian: r.Base.Center, HeadMedian: r.Head.Center, Confidence: confidence}
	if r.P != nil {
		p := *r.P
		e.P = &p
	}
	var ok bool
	switch {
	case r.Paired != nil && r.Paired.N >= 2:
		// The rounds' pairs measure the change best, whichever test
		// judged the row.
		p := r.Paired.P
		e.P = &p
		ok = pairedChange(&e, r.Paired, confidence)
	case r.Kind == gate.Allocs || r.Kind == gate.Bytes || r.Kind == gate.Instructions:
		// Counted, not timed (instructions nearly so: docs/instructions.md):
		// a handful of samples per side, too few for a median's interval.
		e.Test, e.N = "exact", min(r.Base.N, r.Head.N)
		e.P = nil
		ok = exactChange(&e, r.Base, r.Head, confidence)
	default:
		e.Test, e.N = "utest", min(r.Base.N, r.Head.N)
		ok = mediansChange(&e, r.Base, r.Head, confidence)
	}
	if !ok {
		return Entry{}, false
	}
	return e, true
}

// validShape checks what Validate checks of the figures alone.
func validShape(e Entry) bool {
	return finite(e.LogRatio) && finite(e.Low) && finite(e.High) && finite(e.SE) && e.SE >= 0 &&
		e.Low <= e.LogRatio && e.LogRatio <= e.High
}

// pairedChange: the Hodges–Lehmann log ratio and its interval at
// confidence; the standard error from the interval's width (or, when the
// rounds are too few for a bounded interval, from the rounds' robust
// spread: σ·√(π/3n), the Hodges–Lehmann estimator's under normal noise).
func pairedChange(e *Entry, p *stats.Paired, confidence float64) bool {
	if p.N < 2 || !(p.Ratio > 0) {
		return false
	}
	e.Test, e.N = "paired", p.N
	e.LogRatio = math.Log(p.Ratio)
	lo, hi, ach := p.Interval(confidence)
	if lo > 0 && finite(hi) && ach < 1 {
		e.Low, e.High = math.Log(lo), math.Log(hi)
		e.SE = (e.High - e.Low) / (2 * z(ach))
		e.Confidence = ach
	} else {
		e.SE = p.Noise * math.Sqrt(math.Pi/(3*float64(p.N)))
		e.Low, e.High = e.LogRatio-z(confidence)*e.SE, e.LogRatio+z(confidence)*e.SE
	}
	e.Change = math.Expm1(e.LogRatio)
	return validShape(*e)
}

// mediansChange: the log ratio of the medians; its standard error from the
// two medians' intervals, as independent.
func mediansChange(e *Entry, b, h *stats.Summary, confidence float64) bool {
	e.LogRatio = math.Log(h.Center / b.Center)
	e.Change = h.Center/b.Center - 1
	sb, okb := medianSE(b)
	sh, okh := medianSE(h)
	if !okb || !okh {
		return false
	}
	e.SE = math.Hypot(sb, sh)
	e.Low, e.High = e.LogRatio-z(confidence)*e.SE, e.LogRatio+z(confidence)*e.SE
	return validShape(*e)
}

// medianSE is the standard error of log(median) from its interval.
func medianSE(s *stats.Summary) (float64, bool) {
	if s.Constant {
		return 0, true
	}
	if !(s.Low > 0) || !finite(s.High) || !(s.Confidence > 0 && s.Confidence < 1) {
		return 0, false
	}
	return (math.Log(s.High) - math.Log(s.Low)) / (2 * z(s.Confidence)), true
}

// exactChange: allocations, bytes and instructions are counted, not timed. Constant
// sides make an exact change (se 0); otherwise the medians' intervals, as
// for other units, and failing those a quarter of the log of the sides'
// ranges.
func exactChange(e *Entry, b, h *stats.Summary, confidence float64) bool {
	if mediansChange(e, b, h, confidence) {
		return true
	}
	spread := func(s *stats.Summary) float64 {
		if !(s.Min > 0) {
			return math.Inf(1)
		}
		return math.Log(s.Max/s.Min) / 4
	}
	e.SE = math.Hypot(spread(b), spread(h))
	e.Low, e.High = e.LogRatio-z(confidence)*e.SE, e.LogRatio+z(confidence)*e.SE
	return validShape(*e)
}
