package shard

import (
	"cmp"
	"math/big"
	"slices"
	"time"

	"github.com/benchgate/benchgate/internal/runner"
)

// Item is one unit of work to place: a benchmark unit's ID and its
// measured cost.
type Item struct {
	ID   string
	Cost time.Duration
}

// Assign returns the units that shard spec measures, in their given order.
// The zero Spec (no sharding) returns units unchanged. Every shard of the
// same n computes the same partition from the same IDs and similar costs
// (see the package documentation), and the shards' selections partition
// units exactly.
func Assign(units []runner.Unit, spec Spec) []runner.Unit {
	if spec.IsZero() {
		return units
	}
	items := make([]Item, len(units))
	for i, u := range units {
		items[i] = Item{ID: u.ID(), Cost: u.Cost}
	}
	var mine []runner.Unit
	for i, s := range Partition(items, spec.Count) {
		if s == spec.Index {
			mine = append(mine, units[i])
		}
	}
	return mine
}

// Partition places every item on one of n shards and returns the shard
// number (1 to n) of each item, in the items' order; n < 1 counts as 1. The
// result depends only on the IDs and the cost classes (see the package
// documentation), never on the order of items.
func Partition(items []Item, n int) []int {
	n = max(n, 1)
	w := weights(items)
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	// The central class first, in ID order (dealt round-robin, untouched
	// by the others' costs); then the others, heaviest class first.
	slices.SortStableFunc(order, func(a, b int) int {
		ca, cb := w[a] == unit, w[b] == unit
		switch {
		case ca != cb:
			if ca {
				return -1
			}
			return 1
		case w[a] != w[b]:
			return cmp.Compare(w[b], w[a])
		}
		return cmp.Compare(items[a].ID, items[b].ID)
	})
	load := make([]int64, n)
	shard := make([]int, len(items))
	for _, i := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		load[best] += w[i]
		shard[i] = best + 1
	}
	return shard
}

// unit is the weight of the central cost class, [median/2, 2×median).
const unit = 1 << 16

// quarter holds unit × 2^(j/4) for j = 0..3, rounded: weights are integers,
// so that every machine computes exactly the same loads.
var quarter = [4]int64{65536, 77936, 92682, 110218}

// weights returns each item's quantized cost, in units of 1/65536 of the
// median cost (the median of the positive costs, the lower one for an even
// count).
//
// The central class [median/2, 2×median) weighs unit. Above it the classes
// are √2 wide: class k ≥ 1 is [2·√2^(k-1), 2·√2^k) × median. Below it
// likewise: class -k is [1/(2·√2^k), 1/(2·√2^(k-1))) × median. Each weighs
// its geometric centre. A cost of zero (unknown) weighs unit. Classes are
// found with exact integer arithmetic, so the same costs give the same
// classes on every machine.
func weights(items []Item) []int64 {
	var pos []int64
	for _, it := range items {
		if it.Cost > 0 {
			pos = append(pos, int64(it.Cost))
		}
	}
	w := make([]int64, len(items))
	if len(pos) == 0 {
		for i := range w {
			w[i] = unit
		}
		return w
	}
	slices.Sort(pos)
	med := pos[(len(pos)-1)/2]
	for i, it := range items {
		w[i] = classWeight(costClass(int64(it.Cost), med))
	}
	return w
}

// maxClass bounds the classes: 2^20 times the median or 1/2^20 of it.
const maxClass = 40

// costClass returns the class of cost c relative to the median m > 0.
func costClass(c, m int64) int {
	if c <= 0 || (2*c >= m && c < 2*m) {
		return 0
	}
	c2 := new(big.Int).Mul(big.NewInt(c), big.NewInt(c))
	m2 := new(big.Int).Mul(big.NewInt(m), big.NewInt(m))
	bound := new(big.Int)
	if c >= 2*m {
		// The largest k with c² ≥ 4m²·2^(k-1).
		k := 1
		for k < maxClass && c2.Cmp(bound.Lsh(m2, uint(2+k))) >= 0 {
			k++
		}
		return k
	}
	// The smallest k with 4c²·2^k ≥ m².
	k := 1
	for k < maxClass && bound.Lsh(c2, uint(2+k)).Cmp(m2) < 0 {
		k++
	}
	return -k
}

// classWeight is the geometric centre of class k in units: 2^((2k+3)/4)
// above the central class, 2^(-(2|k|+3)/4) below it, never less than 1.
func classWeight(k int) int64 {
	var e int
	switch {
	case k == 0:
		return unit
	case k > 0:
		e = 2*k + 3
	default:
		e = 2*k - 3
	}
	q, sh := quarter[e&3], e>>2
	if sh >= 0 {
		return q << sh
	}
	return max(q>>-sh, 1)
}
