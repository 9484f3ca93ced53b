// Package shard splits the benchmark units of one run over the jobs of a
// workflow matrix (--shard i/n) and checks, when the shards' results are
// merged, that together they measured every unit exactly once.
//
// Every shard computes the same partition on its own: units are balanced by
// their pilot cost seen through coarse classes, so that machines with
// different speeds agree ([Assign]); each writes a [Manifest] (shard.json)
// next to its raw files, and [CheckCoverage] finds units measured twice or
// never. The rules and their measured stability are in docs/sharding.md.
package shard
