package pipeline

import (
	"maps"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// Judge is how raw files are judged: the gate's policy resolved once (the
// flags, the policy file, the acceptances, the ignored benchmarks), the
// reduction of each round's runs, and the lane default.
type Judge struct {
	Policy    gate.Policy
	Estimator stats.Estimator
	// GateMeasuredInstructions puts instructions into the gated kinds
	// when the results hold instruction rows: --fail-on was given
	// neither as a flag nor in the policy file.
	GateMeasuredInstructions bool
}

// Verdict runs statistics and the gate on two benchfmt inputs.
func (j Judge) Verdict(in [2]stats.Input, failures []gate.Failure) (*gate.Verdict, error) {
	set, err := stats.Load(in[0], in[1])
	if err != nil {
		return nil, err
	}
	set.Estimator = j.Estimator
	p := j.Policy
	p.Looks = set.Looks
	cmps := stats.CompareAlpha(set, 0.95, p.Alpha)
	j.laneDefault(&p, cmps)
	v := gate.Judge(cmps, failures, p)
	for _, w := range set.Warnings {
		v.Warnings = append(v.Warnings, gate.Warning{Code: gate.WarnInput, Detail: w})
	}
	return &v, nil
}

// laneDefault gates instructions when cmps hold their rows and no
// --fail-on list says otherwise.
func (j Judge) laneDefault(p *gate.Policy, cmps []stats.Comparison) {
	if !j.GateMeasuredInstructions {
		return
	}
	for _, c := range cmps {
		if c.Unit == gate.InstructionsUnit {
			p.FailOn = maps.Clone(p.FailOn)
			p.FailOn[gate.Instructions] = true
			return
		}
	}
}

// Raw judges raw files: the screen (gate.Judge), and when the run
// confirmed, the screen knowing that its promising rows got fresh rounds
// (gate.Policy.Screened), then the promising rows on the screen's and the
// fresh rounds pooled (gate.Confirm).
func (j Judge) Raw(in Raw) (*gate.Verdict, error) {
	screened := 0
	if in.Confirmed {
		screened = in.Screened
		j.Policy.Family = max(j.Policy.Family, in.Family)
	}
	v, err := j.Screen(in, screened)
	if err != nil || !in.Confirmed {
		return v, err
	}
	second, err := j.fresh(in.Confirm, in.ConfirmFailures)
	if err != nil {
		return nil, err
	}
	c := gate.Confirm(*v, second)
	return &c, nil
}

// Screen judges the screen's raw files of in, with the rows of the
// benchmarks not measured for their identical binaries (in.Same); with
// screened > 0 knowing that a confirmation of a screen of that many rounds
// follows (gate.Policy.Screened), as the confirmation needs it.
func (j Judge) Screen(in Raw, screened int) (*gate.Verdict, error) {
	j.Policy.Screened = screened
	j.Policy.SameBinary = in.Same
	if !hasResults(in.Screen[0].Data) && !hasResults(in.Screen[1].Data) {
		v := gate.Judge(nil, in.Failures, j.Policy)
		return &v, nil
	}
	return j.Verdict(inputs(in.Screen), in.Failures)
}

// fresh judges a confirmation's raw files: a verdict of no results when
// they hold none (no row was re-run).
func (j Judge) fresh(files [2]File, failures []gate.Failure) (gate.Verdict, error) {
	if !hasResults(files[0].Data) && !hasResults(files[1].Data) {
		return gate.Verdict{Policy: j.Policy, Failures: failures}, nil
	}
	v, err := j.Verdict(inputs(files), failures)
	if err != nil {
		return gate.Verdict{}, err
	}
	return *v, nil
}

// Look is the interim analysis of an adaptive run on the raw files so
// far: the decided time benchmarks by unit ID (package + "." + name).
func (j Judge) Look(in [2]stats.Input) (map[string]gate.Decision, error) {
	set, err := stats.Load(in[0], in[1])
	if err != nil {
		return nil, err
	}
	set.Estimator = j.Estimator
	p := j.Policy
	p.Looks = set.Looks
	out := map[string]gate.Decision{}
	for k, d := range gate.Look(stats.CompareAlpha(set, 0.95, p.Alpha), p) {
		out[k.Package+"."+k.Name] = d
	}
	return out, nil
}
