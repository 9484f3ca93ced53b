package pipeline

import (
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/policy"
)

// TestFlagsJudge resolves the policy once: the file's top level where no
// flag was given explicitly, the flags' values where they were; the
// file's fail-on list replaces the flags' (and the lane default) unless
// --fail-on was given; the rules' acceptances reach the gate; the
// Flags' own policy is left as it was.
func TestFlagsJudge(t *testing.T) {
	file, err := policy.Parse(".benchgate.yml", []byte("threshold: 7%\nfail-on: [allocs]\n"))
	if err != nil {
		t.Fatal(err)
	}
	acc, err := policy.NewAccept(".", "@m", "--accept .")
	if err != nil {
		t.Fatal(err)
	}
	rules := FileRules(file, []byte("threshold: 7%\nfail-on: [allocs]\n"), ".benchgate.yml", []policy.Accept{acc})
	flags := func(given bool) Flags {
		p := gate.DefaultPolicy()
		p.Threshold = 0.03
		p.SetFailOn([]string{"time", "allocs"})
		p.FailOn[gate.Instructions] = true // the lane default
		return Flags{Policy: p, ThresholdGiven: given, FailOnGiven: given}
	}

	f := flags(false)
	jd := f.Judge(rules)
	if jd.Policy.Threshold != 0.07 || jd.Policy.FailOn[gate.Time] || jd.Policy.FailOn[gate.Instructions] || !jd.Policy.FailOn[gate.Allocs] {
		t.Errorf("no flag given: threshold %v, fail-on %v; want the file's 0.07, [allocs]", jd.Policy.Threshold, jd.Policy.FailOn)
	}
	if jd.GateMeasuredInstructions {
		t.Errorf("the file's fail-on list leaves instruction rows ungated, but GateMeasuredInstructions is set")
	}
	if len(jd.Policy.Accepts) != 1 || jd.Policy.File != file {
		t.Errorf("accepts %v, file %v: want the rules'", jd.Policy.Accepts, jd.Policy.File)
	}
	if !f.Policy.FailOn[gate.Instructions] || f.Policy.Threshold != 0.03 {
		t.Errorf("Judge changed the flags' own policy: %v, %v", f.Policy.FailOn, f.Policy.Threshold)
	}

	jd = flags(true).Judge(rules)
	if jd.Policy.Threshold != 0.03 || !jd.Policy.FailOn[gate.Time] || !jd.Policy.FailOn[gate.Instructions] {
		t.Errorf("flags given: threshold %v, fail-on %v; want the flags' 0.03, [time allocs instructions]", jd.Policy.Threshold, jd.Policy.FailOn)
	}

	jd = flags(false).Judge(nil)
	if jd.Policy.Threshold != 0.03 || !jd.GateMeasuredInstructions || jd.Policy.File != nil {
		t.Errorf("no rules: threshold %v, GateMeasuredInstructions %v, file %v", jd.Policy.Threshold, jd.GateMeasuredInstructions, jd.Policy.File)
	}
}
