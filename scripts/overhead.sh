#!/usr/bin/env bash
# overhead.sh [ROUNDS] [BENCHTIME]
#
# What benchgate's way of measuring costs, on a real run: an A/A pair of a
# small module with three benchmarks, measured
#   1. by benchgate run (pilot, warm-up, interleaved rounds, one process per
#      run); its report says how its wall time splits into building, the
#      benchmark processes' own run times (the physical floor) and itself;
#   2. the plain way: go test -c both sides, then each side's binary with
#      -test.count ROUNDS at the same benchtime, one after the other.
# Prints the three ratios quoted in docs/dev/evidence-log.md ("Overhead").
set -euo pipefail
rounds=${1:-10}
bt=${2:-100ms}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d -t benchgate-overhead.XXXX)
trap 'rm -rf "$work"' EXIT
(cd "$here" && go build -o "$work/benchgate" .)
repo=$work/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
printf 'module example.com/ov\n\ngo 1.26\n' > go.mod
cat > ov_test.go <<'GO'
package ov

import (
	"crypto/sha256"
	"slices"
	"strings"
	"testing"
)

var (
	text = strings.Repeat("the quick brown fox jumps over the lazy dog ", 400)
	sink int
	sum  [32]byte
)

func BenchmarkCount(b *testing.B) {
	for b.Loop() {
		sink += strings.Count(text, "fox")
	}
}

func BenchmarkSHA256(b *testing.B) {
	data := []byte(text)
	for b.Loop() {
		sum = sha256.Sum256(data)
	}
}

func BenchmarkSort(b *testing.B) {
	src := make([]int, 2048)
	for i := range src {
		src[i] = (i * 7919) % 2048
	}
	buf := make([]int, len(src))
	for b.Loop() {
		copy(buf, src)
		slices.Sort(buf)
	}
}
GO
echo a > README && git add -A && git -c user.name=x -c user.email=x@x commit -qm base
echo b > README && git -c user.name=x -c user.email=x@x commit -qam docs
export GOCACHE=$work/gocache   # both start from a cold build cache

now() { date +%s.%N; }
t0=$(now)
"$work/benchgate" run --base HEAD~1 --count "$rounds" --benchtime "$bt" --quiet --json "$work/r.json" > /dev/null || true
t1=$(now)
note=$(jq -r '.notes[] | select(startswith("time:"))' "$work/r.json")

rm -rf "$GOCACHE"
git worktree add -q "$work/base" HEAD~1
t2=$(now)
(cd "$work/base" && go test -c -o "$work/base.test" .)
(cd "$repo" && go test -c -o "$work/head.test" .)
(cd "$work/base" && "$work/base.test" -test.run '^$' -test.bench . -test.benchmem -test.count "$rounds" -test.benchtime "$bt" > /dev/null)
(cd "$repo" && "$work/head.test" -test.run '^$' -test.bench . -test.benchmem -test.count "$rounds" -test.benchtime "$bt" > /dev/null)
t3=$(now)
git worktree remove --force "$work/base"

python3 - "$t0" "$t1" "$t2" "$t3" "$note" <<'PY'
import re, sys
t0, t1, t2, t3 = map(float, sys.argv[1:5]); note = sys.argv[5]
bg, seq = t1 - t0, t3 - t2
def secs(label):
    m = re.search(label + r" ([0-9.]+)(ms|s)", note)
    v = float(m.group(1)); return v / 1000 if m.group(2) == "ms" else v
build, procs = secs("building"), secs(r"benchmark processes")
counted = secs(r"counted runs")
floor = build + procs
print(f"benchgate report: {note}")
print(f"benchgate run, wall time:                 {bg:7.2f} s")
print(f"  floor (builds + benchmark processes):   {floor:7.2f} s   benchgate/floor = {bg/floor:.3f}")
print(f"  of which counted interleaved runs:      {counted:7.2f} s")
print(f"sequential go test -c + -count {sys.argv[0] and ''}N, both sides: {seq:7.2f} s   benchgate/sequential = {bg/seq:.3f}")
PY
