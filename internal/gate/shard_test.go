package gate

// Shards confirm too (issue 28): a suite split into shards, each judging
// and confirming its own rows in the suite's family (Policy.Family), and
// the merge deciding on every shard's screen and fresh rounds pooled,
// against the same suite run whole, each benchmark drawing the same
// rounds in both; and against the merge of shards that did not confirm
// (before: the screens alone).
//
//	BENCHGATE_SIM=1 go test -run TestShardedConfirm -v ./internal/gate/

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/benchgate/benchgate/internal/stats"
)

// shardSuite is one suite of m rows (effects for the first ones) on mc,
// n screen rounds, each row with its own random stream: the verdict of
// the whole run, of shards merged, and of shards merged that did not
// confirm.
func shardSuite(mc machine, m int, effects []float64, n, shards int, threshold float64, seed uint64, i int) (whole, merged, screensOnly Verdict) {
	p := DefaultPolicy()
	p.Threshold = threshold
	rngs := make([]*rand.Rand, m)
	bs := make([]*simBench, m)
	for j := range m {
		rngs[j] = rand.New(rand.NewPCG(seed, uint64(i*1000+j)))
		bs[j] = mc.benches(rngs[j], 1, 0, 0)[0]
		if j < len(effects) {
			bs[j].effect = effects[j]
		}
	}
	keyOf := func(j int) stats.Key { return stats.Key{Package: "sim", Name: fmt.Sprintf("B%03d", j), Unit: "sec/op"} }
	// Each row's rounds, drawn once and in order, whoever asks for them.
	type drawn struct{ base, head []stats.Obs }
	rows := make([]drawn, m)
	draw := func(j, first, count int) (base, head []stats.Obs) {
		for len(rows[j].base) < (first-1+count)*max(1, mc.runs) {
			r := len(rows[j].base)/max(1, mc.runs) + 1
			b, h := mc.rounds(rngs[j], bs[j], r, 1)
			rows[j].base, rows[j].head = append(rows[j].base, b...), append(rows[j].head, h...)
		}
		k := max(1, mc.runs)
		return rows[j].base[(first-1)*k : (first-1+count)*k], rows[j].head[(first-1)*k : (first-1+count)*k]
	}
	judgeRows := func(js []int, first, count map[int]int, q Policy) Verdict {
		set := &stats.Set{Base: map[stats.Key][]stats.Obs{}, Head: map[stats.Key][]stats.Obs{}, Estimator: stats.Median}
		for _, j := range js {
			k := keyOf(j)
			set.Keys = append(set.Keys, k)
			set.Base[k], set.Head[k] = draw(j, first[j], count[j])
		}
		return Judge(stats.CompareAlpha(set, 0.95, q.Alpha), nil, q)
	}
	all := make([]int, m)
	screenFirst, screenCount := map[int]int{}, map[int]int{}
	for j := range m {
		all[j] = j
		screenFirst[j], screenCount[j] = 1, n
	}
	sp := p
	sp.Screened, sp.Family = n, m
	// confirm runs the procedure on the rows js and returns each row's
	// fresh rounds asked.
	confirm := func(js []int) map[int]int {
		c := NewConfirmation(judgeRows(js, screenFirst, screenCount, sp))
		ran := map[int]int{}
		for step, ok := c.Next(); ok; step, ok = c.Next() {
			for s, k := range step.Keys {
				var j int
				fmt.Sscanf(k.Name, "B%03d", &j)
				ran[j] += step.Rounds[s]
			}
			var asked []int
			freshFirst := map[int]int{}
			for j := range ran {
				asked = append(asked, j)
				freshFirst[j] = n + 1
			}
			c.Observe(judgeRows(asked, freshFirst, ran, sp))
		}
		return ran
	}
	decide := func(ran map[int]int) Verdict {
		screen := judgeRows(all, screenFirst, screenCount, sp)
		var asked []int
		freshFirst := map[int]int{}
		for j := range ran {
			asked = append(asked, j)
			freshFirst[j] = n + 1
		}
		if len(asked) == 0 {
			return Confirm(screen, Verdict{})
		}
		return Confirm(screen, judgeRows(asked, freshFirst, ran, sp))
	}
	whole = decide(confirm(all))
	pooled := map[int]int{}
	for s := range shards {
		var part []int
		for j := s; j < m; j += shards {
			part = append(part, j)
		}
		for j, r := range confirm(part) {
			pooled[j] = r
		}
	}
	merged = decide(pooled)
	screensOnly = judgeRows(all, screenFirst, screenCount, p)
	return whole, merged, screensOnly
}

// TestShardedConfirm: two shards merged find what the whole run finds, at
// the same false-change rate: the same statuses in nearly every suite
// (a shard's first look sees only its own rows, so it may run a row on
// that the whole run stopped early; the row is then decided at the last
// look, on more rounds), and far more than shards merged on their
// screens alone. The case: 13 benchmarks at --count 10, a +10 %
// row found in 1 of 3 merged tries.
func TestShardedConfirm(t *testing.T) {
	t.Parallel()
	effects := []float64{0.10, 0.05, -0.05}
	for _, c := range []struct {
		name      string
		mc        machine
		threshold float64
	}{
		{"defaults, realistic machine", realistic, 0.05},
		{"--threshold 2%, 5 % noise a round", machine{fixedPerRound: 0.05}, 0.02},
	} {
		reps := simReps(t, 25)
		var found [3][3]int
		var falses [3]int
		same := 0
		for i := range reps {
			w, mg, so := shardSuite(c.mc, 13, effects, 10, 2, c.threshold, 0x5a4d, i)
			agree := true
			for v, verdict := range []Verdict{w, mg, so} {
				falseHere := false
				for j, r := range verdict.Results {
					switch {
					case j < len(effects):
						if e := effects[j]; e > 0 && r.Status == Regression || e < 0 && r.Status == Improvement {
							found[v][j]++
						}
					case r.Status == Regression || r.Status == Improvement:
						falseHere = true
					}
					if v == 1 && r.Status != w.Results[j].Status {
						agree = false
					}
				}
				if falseHere {
					falses[v]++
				}
			}
			if agree {
				same++
			}
		}
		name := "13 benchmarks, 2 shards, " + c.name
		line := ""
		for j, e := range effects {
			line += fmt.Sprintf("%+.0f %%: whole %d, merged %d, screens alone %d; ", 100*e, found[0][j], found[1][j], found[2][j])
			if tol := binomTol(0.9, reps) * float64(reps); float64(found[1][j]) < float64(found[0][j])-tol {
				t.Errorf("%s, %+.0f %%: merged found %d of %d, whole %d", name, 100*e, found[1][j], reps, found[0][j])
			}
		}
		t.Logf("%s, %d suites: %sthe same statuses in %d; suites with a false change %d / %d / %d", name, reps, line, same, falses[0], falses[1], falses[2])
		checkFPR(t, name+", merged: any false change", falses[1], reps, 0.01)
		if same < reps*9/10 {
			t.Errorf("%s: the merged verdict has the whole run's statuses in %d of %d suites, want 9 in 10", name, same, reps)
		}
		if sum(found[1][:]) <= sum(found[2][:]) {
			t.Errorf("%s: the changes found %d times merged with the shards' confirmation, %d on the screens alone", name, sum(found[1][:]), sum(found[2][:]))
		}
		simOut.add("| shards confirm: 13 benchmarks, 2 shards merged, against the whole run and the screens alone (α=0.01, threshold %.0f%%) | %s | %v | %d / %d / %d (suites with any false change: whole / merged / screens alone) | %sthe same statuses as the whole run in %d | %d |",
			100*c.threshold, c.name, effects, falses[0], falses[1], falses[2], line, same, reps)
	}
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
