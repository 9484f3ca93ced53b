package cli

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/stats"
)

// calibrate measures one commit against itself (an A/A run: two worktrees
// of --rev, built and run exactly as `run` does) and reports this machine's
// noise floor per benchmark, the false alarms of the A/A verdict (there
// should be none), and the settings that detect the smallest changes at
// the chosen suite-wide false-alarm rate (--alpha, after --correction).
func (a *app) calibrate(ctx context.Context) int {
	dir := a.resolve(a.cfg.Dir)
	repo, shas, err := a.openRepo(ctx, dir, "", flagRef{"--rev", a.cfg.Rev})
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	sha := shas[0]
	r := pipeline.Rev{SHA: sha, Label: a.cfg.Rev}
	return a.measure(ctx, repo, job{
		base: r, head: r, dir: dir, out: a.cfg.Out,
		dest: dest{json: a.cfg.JSON, markdown: a.cfg.Markdown, calibrate: true},
	}).code
}

// recommend derives settings from per-benchmark noise: for each count from
// the smallest feasible one up to 100, the smallest detectable change of
// each benchmark at the per-test level alpha/m (what Holm asks of the most
// significant one); the threshold that covers 90 % of the benchmarks,
// rounded up to half a percent (at least 1 %); and the smallest count whose
// threshold is within the requested --threshold, else the count with the
// best threshold.
func recommend(noise []float64, alpha float64, correction gate.Correction, threshold float64, benchtime string) (report.Recommendation, []float64) {
	m := max(len(noise), 1)
	perTest := alpha / float64(m)
	if correction == "none" {
		perTest = alpha
	}
	type option struct {
		count int
		thr   float64
		mdes  []float64
	}
	var best *option
	var chosen *option
	for n := max(gate.MinRounds(alpha, m, correction), 5); n <= 100; n++ {
		mdes := make([]float64, len(noise))
		for i, s := range noise {
			mdes[i] = math.Exp(mdeLog(n, s, perTest)) - 1
		}
		sorted := slices.Clone(mdes)
		slices.Sort(sorted)
		p90 := 0.0
		if len(sorted) > 0 {
			// The lower 90% quantile: with few benchmarks one outlier
			// (often optimized away) must not set everyone's count.
			p90 = sorted[int(math.Floor(0.9*float64(len(sorted)-1)))]
		}
		thr := math.Max(0.01, math.Ceil(p90*200)/200)
		o := &option{n, thr, mdes}
		if best == nil || thr < best.thr {
			best = o
		}
		if thr <= threshold {
			chosen = o
			break
		}
	}
	r := report.Recommendation{Benchtime: benchtime, Asked: threshold, Reached: chosen != nil}
	if chosen == nil {
		chosen = best
	}
	r.Count, r.Threshold = chosen.count, chosen.thr
	if r.Count > 30 {
		// Longer runs average more iterations: usually less noise per
		// round, so fewer rounds.
		if d, err := time.ParseDuration(benchtime); err == nil {
			r.Benchtime, r.Longer = (2 * d).String(), true
		}
	}
	return r, chosen.mdes
}

// mdeLog is the detectable log-ratio shift: stats.MDE in log space, so it
// can be capped for display.
func mdeLog(n int, noise, alpha float64) float64 {
	v := stats.MDE(n, noise, alpha)
	if math.IsInf(v, 1) {
		return math.Inf(1)
	}
	return math.Log1p(v)
}

// calibrationReport turns the A/A verdict into a Calibration and writes
// it like a verdict's report (stdout in --format, --markdown, --json).
func (a *app) calibrationReport(v gate.Verdict, meta report.Meta, d dest) outcome {
	c := &report.Calibration{Rev: meta.HeadRef, SHA: meta.HeadSHA, Machine: meta.Run.Machine, Rounds: meta.Count, Benchtime: a.cfg.Benchtime, Alpha: a.cfg.Alpha, Correction: a.cfg.Correction}
	var noise []float64
	for _, r := range v.Results {
		if r.Kind == gate.Time && r.Status == gate.Regression || r.Kind == gate.Time && r.Status == gate.Improvement ||
			(r.Kind == gate.Allocs || r.Kind == gate.Bytes) && r.Status == gate.Regression {
			c.Alarms = append(c.Alarms, r)
		}
		if r.Kind != gate.Time || r.Comparison.Paired == nil {
			continue
		}
		b := report.CalibrationBench{Package: r.Package, Name: r.Name, Noise: r.Comparison.Paired.Noise, MDE: r.Comparison.Paired.MDE}
		if r.Base != nil {
			b.Center = r.Base.Center
		}
		c.Benchmarks = append(c.Benchmarks, b)
		noise = append(noise, b.Noise)
	}
	var mdes []float64
	c.Recommend, mdes = recommend(noise, a.cfg.Alpha, a.cfg.Correction, a.cfg.Threshold, a.cfg.Benchtime)
	for i := range c.Benchmarks {
		c.Benchmarks[i].MDERecommended = mdes[i]
		if mdes[i] > c.Recommend.Threshold {
			c.Recommend.TooNoisy = append(c.Recommend.TooNoisy, c.Benchmarks[i].Name)
		}
	}
	o := outcome{verdict: &v, meta: meta, calibration: c}
	if err := a.publishReport(report.BuildCalibration(*c, meta), func() ([]byte, error) { return report.CalibrationJSON(*c) }, d); err != nil {
		o.code = a.errorf(ExitTool, "%v", err)
		return o
	}
	if meta.Partial {
		o.code = ExitTool
	}
	return o
}
