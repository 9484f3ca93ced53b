package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
)

// efficacyRun is one suite of efficacyCell: the fresh rounds its changed
// rows ran, how many of them were found, and whether a null row was
// called a change.
type efficacyRun struct {
	fresh, found int
	falseChange  bool
}

// efficacySuite runs one suite of m rows, the first changed of them by
// effect, at noise per round (normal, no drift), through the staged
// confirmation with efficacy stopping at share of α (0: none).
func efficacySuite(seed uint64, i, m, changed int, effect, noise, threshold, share float64, corr Correction) efficacyRun {
	saved := efficacyShare
	efficacyShare = share
	defer func() { efficacyShare = saved }()
	mc := machine{fixedPerRound: noise}
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	bs := mc.benches(rng, m, changed, effect)
	p := DefaultPolicy()
	p.Threshold, p.Correction = threshold, corr
	set := &stats.Set{Base: map[stats.Key][]stats.Obs{}, Head: map[stats.Key][]stats.Obs{}, Estimator: stats.Median}
	for j, b := range bs {
		k := stats.Key{Package: "sim", Name: fmt.Sprintf("B%03d", j), Unit: "sec/op"}
		set.Keys = append(set.Keys, k)
		set.Base[k], set.Head[k] = mc.rounds(rng, b, 1, 10)
	}
	sp := p
	sp.ConfirmRounds = ConfirmRounds(10, m, p)
	screen := Judge(stats.CompareAlpha(set, 0.95, p.Alpha), nil, sp)
	v, ran := stagedConfirmBy(screen, 10, func(k stats.Key, first, count int) (base, head []stats.Obs) {
		var j int
		fmt.Sscanf(k.Name, "B%03d", &j)
		return mc.rounds(rng, bs[j], first, count)
	})
	var out efficacyRun
	for j, r := range v.Results {
		if j < changed {
			out.fresh += ran[r.Key]
			if r.Status == Regression {
				out.found++
			}
		} else if r.Status == Regression || r.Status == Improvement {
			out.falseChange = true
		}
	}
	return out
}

// TestConfirmEfficacy: a clear change stops after the confirmation's first
// stage. Suites of 20 rows, 6 of them +12 % at 4 % and at 7 % noise per
// round, --threshold 5% (the xxhash measurement's planted regressions):
// the fresh rounds the changed rows run drop with efficacy stopping (α/4
// after the first stage) against none; at 7 % noise α/4 runs fewer than
// α/20 did (the paired test's floor: at α/20 a row of 20 stopped only
// when its 17 rounds all agreed); every change is still found as often,
// and no null row is called a change more than α of the suites; under
// --correction bh nothing changes. Not parallel: it sets efficacyShare,
// which the parallel simulations read.
//
//	BENCHGATE_SIM=1 go test -run 'TestConfirmEfficacy' -v ./internal/gate/
func TestConfirmEfficacy(t *testing.T) {
	const m, changed = 20, 6
	reps := simReps(t, 30)
	seed := uint64(0xeff1)
	for _, noise := range []float64{0.04, 0.07} {
		var runs [3]efficacyRun
		var falses [3]int
		shares := [3]float64{0, 1.0 / 20, efficacyShare}
		for i := range reps {
			for v, share := range shares {
				o := efficacySuite(seed, i, m, changed, 0.12, noise, 0.05, share, Holm)
				runs[v].fresh += o.fresh
				runs[v].found += o.found
				if o.falseChange {
					falses[v]++
				}
			}
		}
		n := float64(reps * changed)
		var fresh, found [3]float64
		for v := range shares {
			fresh[v], found[v] = float64(runs[v].fresh)/n, float64(runs[v].found)/n
		}
		t.Logf("6 × +12 %% among 20, %.0f %% noise per round, threshold 5 %%, %d suites: fresh rounds per changed row %.2f (none) / %.2f (α/20) / %.2f (α/4); found %.4f / %.4f / %.4f; suites with a false change %d / %d / %d",
			100*noise, reps, fresh[0], fresh[1], fresh[2], found[0], found[1], found[2], falses[0], falses[1], falses[2])
		if !(fresh[2] < 0.75*fresh[0]) {
			t.Errorf("%.0f %% noise: fresh rounds per changed row %.2f with efficacy stopping, %.2f without: want at most three quarters", 100*noise, fresh[2], fresh[0])
		}
		if noise > 0.05 && !(fresh[2] < 0.85*fresh[1]) {
			t.Errorf("%.0f %% noise: fresh rounds per changed row %.2f at α/4, %.2f at α/20: want at most 0.85", 100*noise, fresh[2], fresh[1])
		}
		if tol := binomTol(found[0], int(n)); found[2] < found[0]-tol {
			t.Errorf("%.0f %% noise: found %.4f with efficacy stopping, %.4f without (−%.4f)", 100*noise, found[2], found[0], tol)
		}
		checkFPR(t, "efficacy stopping: any false change", falses[2], reps, 0.01)
		simOut.add("| efficacy stop after the first stage (α/4; α/20 before): 20 benchmarks, threshold 5%% | σ %.0f%% per round | 6 × +12%% | %d / %d / %d (suites with any false change: none / α/20 / α/4) | fresh rounds per changed row %.2f / %.2f / %.2f, found %.4f / %.4f / %.4f | %d |",
			100*noise, falses[0], falses[1], falses[2], fresh[0], fresh[1], fresh[2], found[0], found[1], found[2], reps)
	}
	// Under BH there is no efficacy stop: the same suites run the same
	// rounds with it as without.
	for i := range 20 {
		b := efficacySuite(seed, i, m, changed, 0.12, 0.04, 0.05, 0, BH)
		a := efficacySuite(seed, i, m, changed, 0.12, 0.04, 0.05, efficacyShare, BH)
		if a != b {
			t.Errorf("--correction bh, suite %d: %+v with efficacy stopping, %+v without; want the same", i, a, b)
		}
	}
}

// efficacyRows returns m rows of n rounds from round first: row 0 slower by
// the given factor in every round, the others unchanged; each round's
// values wobble by ±0.5 % (deterministic).
func efficacyRows(m, n, first int, factor float64) []stats.Comparison {
	var out []stats.Comparison
	for j := range m {
		var base, head []float64
		for i := range n {
			w := 1 + 0.005*math.Sin(float64(7*i+13*j+first))
			b, h := 1e-3*w, 1e-3/w
			if j == 0 {
				h *= factor
			}
			base, head = append(base, b), append(head, h)
		}
		out = append(out, roundsOf(fmt.Sprintf("B%02d", j), base, head, first, 0.01))
	}
	return out
}

// TestEfficacyStop: a row planned for more fresh rounds than the first
// stage's that ran only the first stage is a regression when its pooled
// p-value passes the first look (α/4 with Holm over the family): no
// Continuing for it, Confirm decides it from the rounds alone at α₁.
// The same rounds without the efficacy stop leave it unchanged (a
// futility stop), and under BH too.
func TestEfficacyStop(t *testing.T) {
	p := DefaultPolicy()
	p.ConfirmRounds = ConfirmRounds(10, 20, p)
	screen := Judge(efficacyRows(20, 10, 1, 1.12), nil, p)
	k := screen.Results[0].Key
	plan, first := FreshRounds(screen), FirstFresh(screen)
	if plan[k] <= first {
		t.Fatalf("row planned for %d fresh rounds, first stage %d: want more", plan[k], first)
	}
	fresh := Judge(efficacyRows(20, first, 11, 1.12), nil, p)
	if c := Continuing(screen, fresh); len(c) != 0 {
		t.Errorf("Continuing = %v, want none (the change is decided)", c)
	}
	v := Confirm(screen, fresh)
	r := v.Results[0]
	if r.Status != Regression || r.Confirmed == nil || !*r.Confirmed || r.Reason.Alpha != p.Alpha*efficacyShare {
		t.Errorf("first-stage row: %v (confirmed %v, α %v), want a confirmed regression at α·%v", r.Status, r.Confirmed, r.Reason.Alpha, efficacyShare)
	}
	if v.Pass {
		t.Error("verdict passes with a regression")
	}
	for _, c := range []struct {
		name  string
		share float64
		corr  Correction
	}{{"no efficacy stop", 0, Holm}, {"bh", efficacyShare, BH}} {
		saved := efficacyShare
		efficacyShare = c.share
		q := p
		q.Correction = c.corr
		s := Judge(efficacyRows(20, 10, 1, 1.12), nil, q)
		f := Judge(efficacyRows(20, first, 11, 1.12), nil, q)
		got := Confirm(s, f).Results[0].Status
		cont := Continuing(s, f)
		efficacyShare = saved
		if got != Unchanged || len(cont) != 1 {
			t.Errorf("%s: %v, continuing %v; want unchanged after the first stage, and continuing", c.name, got, cont)
		}
	}
}
