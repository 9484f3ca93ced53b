// Package shard splits the benchmark units of one benchgate run over the n
// jobs of a workflow matrix (--shard i/n), and checks, when the shards'
// results are merged (benchgate merge), that together they measured every
// unit exactly once.
//
// Each shard builds both sides, discovers and calibrates every unit (the
// runner's pilot), computes the partition of all units on its own, and
// measures only its part, base and head interleaved on its own machine.
// Every shard's comparisons are therefore valid by themselves, and merging
// is putting their rows together, provided the shards agree on the
// partition. The shards cannot talk to each other: they agree because the
// partition is a function of things they all see alike.
//
// # Use
//
//	spec, err := shard.Parse(flagValue) // "2/4"; errors name --shard
//	var all []string
//	opts.Select = func(units []runner.Unit) []runner.Unit {
//		for _, u := range units {
//			all = append(all, u.ID())
//		}
//		return shard.Assign(units, spec)
//	}
//	... run, then
//	m := shard.Manifest{Shard: spec, All: all, Assigned: ids(res.Units), Complete: err == nil && !res.Partial, ...}
//	err = m.Write(outDir) // outDir/shard.json, next to base.txt and head.txt
//
// and in the merge job:
//
//	for _, dir := range dirs { m, err := shard.Read(dir); ... }
//	missing, problems := shard.CheckCoverage(manifests) // both empty, or the merged verdict fails
//
// # The partition
//
// Units are balanced by measured cost (runner.Unit.Cost, the pilot's
// estimate of one run), not by their number. Costs differ from machine to
// machine, so the partition sees them only through coarse classes, relative
// to the median cost of the run:
//
//  1. Costs in [median/2, 2×median) are the central class, weight 1. Above
//     and below it the classes are √2 wide ([2, 2.83)×median, [2.83, 4), …;
//     [0.35, 0.5), …), each weighing its geometric centre (2.38, 3.36, …;
//     0.42, …). A zero (unknown) cost is central. Classes are computed with
//     exact integer arithmetic and weights are integers, so the same costs
//     give the same partition on every machine and architecture.
//  2. The central units are placed first, in ID order, each on the least
//     loaded shard (the lowest number on ties): round-robin. Then the other
//     units, heaviest class first and in ID order within a class, each on
//     the least loaded shard.
//
// Consequences:
//
//   - Neither the order of the units nor a common factor on all costs (a
//     uniformly faster machine) changes the partition.
//   - At a --benchtime duration the pilot aims each run at about 1.2 ×
//     benchtime on any machine, so nearly every unit is central and placed
//     by its ID alone: however noisy the costs, the partition does not
//     change. Only "slow" units, whose single operation outlasts
//     --benchtime, and all units under a fixed --benchtime Nx, fall in other
//     classes, and a change of class of any of them can change the
//     partition; central units are placed first so that such a change
//     moves few units.
//   - Balance: the costliest shard's weight is at most the average plus the
//     largest unit's weight (greedy least-loaded placement). On the
//     measured costs (TestPartitionBalance, 300 trials each) the costliest
//     shard is on average 1.008× the average shard with 300 calibrated
//     units on 4 shards, 1.032× with 10% slow units, 1.024× with costs
//     spread over four decades (1.089× on 16 shards); it stays within the
//     average plus the largest unit in 100% of the trials except with 300
//     equal calibrated units (95.7%, differences that are pilot noise).
//   - Units of one top-level benchmark function are not kept together:
//     every run is its own process, so nothing is saved by running siblings
//     on one machine, a large function would become one indivisible item,
//     and a group's class changes as easily as a unit's.
//   - Zero costs give a partition by count, round-robin by ID, which never
//     changes: a caller that prefers certain agreement to balance can zero
//     the costs before calling Assign.
//
// # Stability, measured
//
// How often another machine's pilot costs give exactly the same partition
// (TestPartitionStability, 500 trials each, fixed seeds; "each ±20%": every
// cost independently up to 20% higher or lower; "machine ±20%": the slow
// units 20% slower or faster together, and every cost ±5%):
//
//	suite, perturbation                        units  shards  unchanged  units moved
//	calibrated (100-130 ms), each ±20%    30/300/3000   4/4/8     100%        0%
//	2% slow (0.3-6 s), each ±20%                   30       4     98.6%     0.1%
//	2% slow, each ±20%                            300       4     44.4%     0.6%
//	2% slow, machine ±20%                          30       4     98.6%     0.1%
//	2% slow, machine ±20%                         300       4     56.8%     0.5%
//	10% slow, each ±20%                            30       4     84.8%     1.3%
//	10% slow, each ±5%                             30       4     95.4%     0.4%
//	10% slow, machine ±20%                        300       4      1.6%     7.0%
//	log-uniform 100 µs to 1 s, each ±20%           30       4      0.4%    63.2%
//	log-uniform 100 µs to 1 s, each ±5%            30       4     18.8%    37.8%
//
// So the partition is stable in the vast majority of runs for suites that
// are calibrated (the default) with a handful of slow benchmarks, and it is
// not for suites with dozens of slow benchmarks or a fixed --benchtime Nx.
// That is inherent to computing a cost-balanced partition independently on
// each machine: a slow unit's class changes with probability about
// E|Δ ln cost| / ln √2 (0.29 at ±20%, 0.07 at ±5%), every change alters the
// loads, and a partition that balances by cost must follow its loads.
// Coarser classes (2× wide) raise the rates only a little (44% to 55%,
// 1.6% to 9.6% above) at a visible cost in balance. Shards that disagree
// never go unnoticed: CheckCoverage reports the units measured twice or
// never, and the merge fails. Shards of a run should therefore run on one
// machine type, with an explicit --cpu (unit IDs carry the GOMAXPROCS
// suffix, which otherwise follows each machine's core count).
//
// # Merging
//
// Each shard writes a Manifest (shard.json) next to its raw files: which
// shard it was, every unit it discovered, the units it measured, whether it
// completed, and the commits and tool. CheckCoverage takes the manifests of
// the shards found and returns the units no shard measured and every
// problem: missing or duplicate shard numbers, incomplete shards, shards of
// different commits, n, tool or settings, shards that discovered different
// units, and units measured twice. A missing or failed shard is always
// reported; the merged verdict must fail when either list is non-empty.
package shard
