package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitrev"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/stats"
)

// calibrate measures one commit against itself (an A/A run: two worktrees
// of --rev, built and run exactly as `run` does) and reports this machine's
// noise floor per benchmark, the false alarms of the A/A verdict (there
// should be none), and the settings that detect the smallest changes at
// the chosen suite-wide false-alarm rate (--alpha, after --correction).
func (a *app) calibrate(ctx context.Context) int {
	dir := a.dir()
	if err := goModule(ctx, dir, a.untrustedEnv()); err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	repo, err := gitrev.Open(ctx, dir, a.gitOptions()...)
	if err != nil {
		return a.errorf(ExitUsage, "%s is not in a git repository: %v", dir, oneLine(err))
	}
	sha, err := repo.Resolve(ctx, a.cfg.Rev)
	if err != nil {
		return a.errorf(ExitUsage, "--rev %s: %v", a.cfg.Rev, oneLine(err))
	}
	a.cfg.Base, a.cfg.Head = a.cfg.Rev, a.cfg.Rev
	a.cfg.Confirm = false
	a.calibrating = true
	code, _ := a.measure(ctx, repo, sha, sha)
	return code
}

// Calibration is the result of `benchgate calibrate` (its JSON report).
type Calibration struct {
	Rev         string             `json:"rev"`
	SHA         string             `json:"sha"`
	Rounds      int                `json:"rounds"`
	Benchtime   string             `json:"benchtime"`
	Alpha       float64            `json:"alpha"`
	Correction  string             `json:"correction"`
	Benchmarks  []CalibrationBench `json:"benchmarks"`
	FalseAlarms int                `json:"false_alarms"`
	// Alarms names them: "Name unit: reason".
	Alarms    []string       `json:"alarms"`
	Recommend Recommendation `json:"recommend"`
}

// CalibrationBench is one benchmark's noise floor.
type CalibrationBench struct {
	Package string  `json:"package"`
	Name    string  `json:"name"`
	Center  float64 `json:"center"` // median sec/op of base
	Noise   float64 `json:"noise"`  // robust SD of the per-round log-ratio
	MDE     float64 `json:"mde"`    // smallest detectable change at Rounds (null: none)
	// MDERecommended is the smallest detectable change at the recommended
	// count, after the suite-wide correction.
	MDERecommended float64 `json:"mde_recommended"`
}

// Recommendation is what calibrate suggests.
type Recommendation struct {
	Count     int     `json:"count"`
	Threshold float64 `json:"threshold"` // fraction
	Benchtime string  `json:"benchtime"`
	Reason    string  `json:"reason"`
	// TooNoisy lists benchmarks whose smallest detectable change stays
	// above the recommended threshold: report them, do not gate them.
	TooNoisy []string `json:"too_noisy"`
}

// recommend derives settings from per-benchmark noise: for each count from
// the smallest feasible one up to 100, the smallest detectable change of
// each benchmark at the per-test level alpha/m (what Holm asks of the most
// significant one); the threshold that covers 90 % of the benchmarks,
// rounded up to half a percent (at least 1 %); and the smallest count whose
// threshold is within the requested --threshold, else the count with the
// best threshold.
func recommend(noise []float64, alpha float64, correction string, threshold float64, benchtime string) (Recommendation, []float64) {
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
	r := Recommendation{Benchtime: benchtime}
	if chosen == nil {
		chosen = best
		r.Reason = fmt.Sprintf("no count up to 100 reaches a %.1f%% threshold at this noise; %d rounds reach %.1f%%: raise --threshold, use a longer --benchtime, or exclude the noisiest benchmarks", 100*threshold, chosen.count, 100*chosen.thr)
	} else {
		r.Reason = fmt.Sprintf("%d rounds detect a %.1f%% change in 90%% of the benchmarks at α=%g over %d benchmarks (%s)", chosen.count, 100*chosen.thr, alpha, m, correction)
	}
	r.Count, r.Threshold = chosen.count, chosen.thr
	if r.Count > 30 {
		// Longer runs average more iterations: usually less noise per
		// round, so fewer rounds.
		if d, err := time.ParseDuration(benchtime); err == nil {
			r.Benchtime = (2 * d).String()
			r.Reason += fmt.Sprintf("; that many rounds is slow: a longer --benchtime (%s) usually lowers the noise, so calibrate again with it", r.Benchtime)
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

// calibrationReport turns the A/A verdict into a Calibration and renders it.
func (a *app) calibrationReport(v gate.Verdict, meta report.Meta) (int, *gate.Verdict) {
	c := &Calibration{Alarms: []string{}, Rev: a.cfg.Rev, SHA: meta.HeadSHA, Rounds: meta.Count, Benchtime: a.cfg.Benchtime, Alpha: a.cfg.Alpha, Correction: a.cfg.Correction}
	var noise []float64
	for _, r := range v.Results {
		if r.Kind == gate.Time && r.Status == gate.Regression || r.Kind == gate.Time && r.Status == gate.Improvement ||
			(r.Kind == gate.Allocs || r.Kind == gate.Bytes) && r.Status == gate.Regression {
			c.FalseAlarms++
			c.Alarms = append(c.Alarms, fmt.Sprintf("%s %s: %s", r.Name, r.Unit, r.Reason))
		}
		if r.Kind != gate.Time || r.Comparison.Paired == nil {
			continue
		}
		b := CalibrationBench{Package: r.Package, Name: r.Name, Noise: r.Comparison.Paired.Noise, MDE: r.Comparison.Paired.MDE}
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
	a.calibration = c
	md := renderCalibration(c, meta)
	fmt.Fprint(a.env.Stdout, md)
	var errs []error
	if a.cfg.Markdown != "" {
		if err := a.writeOutput("--markdown", a.cfg.Markdown, []byte(md)); err != nil {
			errs = append(errs, err)
		}
	}
	if a.cfg.JSON != "" {
		b, _ := json.MarshalIndent(finiteCalibration(*c), "", "  ")
		if err := a.writeOutput("--json", a.cfg.JSON, append(b, '\n')); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return a.errorf(ExitTool, "%v", a.reportLost(errs)), &v
	}
	if meta.Partial {
		return ExitTool, &v
	}
	return ExitPass, &v
}

// finiteCalibration replaces infinities (no detectable change at all) by
// -1 for JSON, which has no infinity.
func finiteCalibration(c Calibration) Calibration {
	c.Benchmarks = slices.Clone(c.Benchmarks)
	for i := range c.Benchmarks {
		b := &c.Benchmarks[i]
		for _, f := range []*float64{&b.MDE, &b.MDERecommended, &b.Noise} {
			if math.IsInf(*f, 0) || math.IsNaN(*f) {
				*f = -1
			}
		}
	}
	return c
}

func pct(f float64) string {
	if math.IsInf(f, 1) {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}

func renderCalibration(c *Calibration, meta report.Meta) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### benchgate calibrate: the noise floor of this machine\n\n")
	fmt.Fprintf(&b, "%s `%s` measured against itself · %d rounds · benchtime %s · α=%g (%s over %d benchmarks)\n\n",
		report.Escape(c.Rev), short(c.SHA), c.Rounds, report.Escape(c.Benchtime), c.Alpha, c.Correction, len(c.Benchmarks))
	fmt.Fprintf(&b, "**Recommended:** `--count %d --threshold %.1f%% --benchtime %s`: %s.\n\n", c.Recommend.Count, 100*c.Recommend.Threshold, c.Recommend.Benchtime, report.Escape(c.Recommend.Reason))
	if c.FalseAlarms > 0 {
		fmt.Fprintf(&b, "⚠️ This A/A run reported %d change(s) between identical commits: false alarms at these settings. Use the recommended settings, or a quieter machine.\n\n", c.FalseAlarms)
		for _, al := range c.Alarms {
			fmt.Fprintf(&b, "- %s\n", report.Escape(al))
		}
		b.WriteString("\n")
	} else {
		fmt.Fprintf(&b, "No false alarm: the A/A verdict passed.\n\n")
	}
	fmt.Fprintf(&b, "| benchmark | time/op | noise per round | detectable at %d rounds | detectable at %d rounds, suite-wide |\n|:--|--:|--:|--:|--:|\n", c.Rounds, c.Recommend.Count)
	for _, x := range c.Benchmarks {
		noisy := ""
		if x.MDERecommended > c.Recommend.Threshold {
			noisy = " ⚠️"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s%s |\n", report.Escape(x.Package+"."+x.Name), fmtSec(x.Center), pct(x.Noise), pct(x.MDE), pct(x.MDERecommended), noisy)
	}
	if len(c.Recommend.TooNoisy) > 0 {
		fmt.Fprintf(&b, "\n⚠️ marks benchmarks too noisy to gate at %.1f%% even with the recommended count; benchgate reports them as too noisy rather than passing them silently.\n", 100*c.Recommend.Threshold)
	}
	fmt.Fprintf(&b, "\n*noise per round* is the robust standard deviation of log(head/base) over the rounds; *detectable* is the smallest change the paired test finds with 80%% power.\n")
	for _, n := range meta.Notes {
		fmt.Fprintf(&b, "\n- %s", report.Escape(n))
	}
	b.WriteString("\n")
	return b.String()
}

func fmtSec(s float64) string {
	switch {
	case s == 0:
		return "—"
	case s < 1e-6:
		return fmt.Sprintf("%.3gns", s*1e9)
	case s < 1e-3:
		return fmt.Sprintf("%.3gµs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.3gms", s*1e3)
	}
	return fmt.Sprintf("%.3gs", s)
}
