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
// confirmed, the screen again knowing that its promising rows got fresh
// rounds (gate.ConfirmRounds), then the promising rows on the screen's and
// the fresh rounds pooled (gate.Confirm).
func (j Judge) Raw(in Raw) (*gate.Verdict, error) {
	var v *gate.Verdict
	screen := j
	screen.Policy.SameBinary = in.Same
	if !hasResults(in.Screen[0].Data) && !hasResults(in.Screen[1].Data) {
		g := gate.Judge(nil, in.Failures, screen.Policy)
		v = &g
	} else {
		var err error
		if v, err = screen.Verdict(inputs(in.Screen), in.Failures); err != nil {
			return nil, err
		}
	}
	if !in.Confirmed {
		return v, nil
	}
	first := ConfirmScreen(*v, in.Screened)
	if !hasResults(in.Confirm[0].Data) && !hasResults(in.Confirm[1].Data) {
		return &first, nil
	}
	second, err := j.Verdict(inputs(in.Confirm), in.ConfirmFailures)
	if err != nil {
		return nil, err
	}
	c := gate.Confirm(first, *second)
	return &c, nil
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

// ConfirmScreen judges the screen v again knowing that its promising time
// rows get fresh rounds: as many as gate.ConfirmRounds gives for a screen
// of screened rounds (the pooled size decides which test each row gets).
func ConfirmScreen(v gate.Verdict, screened int) gate.Verdict {
	p := v.Policy
	p.ConfirmRounds = gate.ConfirmRounds(screened, v.Family, p)
	cmps := make([]stats.Comparison, len(v.Results))
	for i, r := range v.Results {
		cmps[i] = r.Comparison
	}
	screen := gate.Judge(cmps, v.Failures, p)
	for _, w := range v.Warnings {
		if w.Code == gate.WarnInput {
			screen.Warnings = append(screen.Warnings, w)
		}
	}
	return screen
}
