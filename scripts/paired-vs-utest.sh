#!/usr/bin/env bash
# paired-vs-utest.sh [RUNS] [ROUNDS] [HOGS]
#
# A real, small slowdown on a loaded machine: head does 7 % more work in
# one benchmark (Work) and nothing else changes (Same). Each of RUNS
# benchgate runs measures base and head interleaved for ROUNDS rounds while a
# CPU hog switches on and off every second (drift). For every run it prints
# the paired verdict (benchgate's) and benchstat's U test on the same
# samples, then how often each called Work a regression and Same a change.
# HOGS busy loops switch on and off together (default: one per core, so the
# benchmarks' own core is slowed too: real drift).
# benchgate's p is adjusted (Holm over the two benchmarks); benchstat's is not.
set -euo pipefail
runs=${1:-5}
rounds=${2:-10}
hogs=${3:-$(nproc)}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d -t benchgate-paired.XXXX)
hog_pid=""
cleanup() {
  [[ -n $hog_pid ]] && kill "$hog_pid" 2>/dev/null
  pkill -f benchgate-paired-hog 2>/dev/null || true
  pkill -f 'while :; do :; done' 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
(cd "$here" && go build -o "$work/benchgate" .)
repo=$work/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
printf 'module example.com/pv\n\ngo 1.26\n' > go.mod
gen() { # gen N: the benchmarked function with N iterations
cat > pv.go <<GO
package pv

// Work mixes integer work; head does 7 % more of it.
func Work() int {
	t := 0
	for i := 0; i < $1; i++ {
		t += (i * 2654435761) >> 7 ^ i
	}
	return t
}

// Same never changes.
func Same() int {
	t := 0
	for i := 0; i < 3000; i++ {
		t += (i * 40503) >> 5 ^ i
	}
	return t
}
GO
}
gen 3000
cat > pv_test.go <<'GO'
package pv

import "testing"

var sink int

func BenchmarkWork(b *testing.B) {
	for b.Loop() {
		sink += Work()
	}
}

func BenchmarkSame(b *testing.B) {
	for b.Loop() {
		sink += Same()
	}
}
GO
git add -A && git -c user.name=x -c user.email=x@x commit -qm base
gen 3210
git -c user.name=x -c user.email=x@x commit -qam 'head: 7% more work'

# the hogs: HOGS busy loops, on for a second, off for a second
( exec -a benchgate-paired-hog bash -c "while :; do for i in \$(seq $hogs); do timeout 1 sh -c 'while :; do :; done' & done; wait; sleep 1; done" ) &
hog_pid=$!

printf '| run | Work: benchgate (test chosen) | Work: benchstat U test | Same: benchgate | Same: benchstat |\n|--:|:--|:--|:--|:--|\n'
pw=0; uw=0; ps=0; us=0
for r in $(seq "$runs"); do
  "$work/benchgate" run --base HEAD~1 --count "$rounds" --benchtime 20ms --confirm=false --quiet --json "$work/r$r.json" > /dev/null || true
  row() { jq -r --arg n "$1" '.benchmarks[] | select(.unit == "sec/op" and (.name | startswith($n))) |
    "\(.status) \(((.delta // 0) * 1000 | round) / 10)% p=\(.p_adjusted // .p | . * 1000 | round / 1000) (\(.test))|\(.benchstat.delta * 1000 | round / 10)% p=\(.benchstat.p * 1000 | round / 1000)"' "$work/r$r.json"; }
  work_row=$(row Work); same_row=$(row Same)
  printf '| %d | %s | %s | %s | %s |\n' "$r" "${work_row%%|*}" "${work_row#*|}" "${same_row%%|*}" "${same_row#*|}"
  [[ ${work_row%%|*} == regression* ]] && pw=$((pw + 1))
  jq -e '.benchmarks[] | select(.unit == "sec/op" and (.name | startswith("Work"))) | .benchstat.p < 0.01 and .benchstat.delta >= 0.05' "$work/r$r.json" > /dev/null && uw=$((uw + 1))
  [[ ${same_row%%|*} == regression* || ${same_row%%|*} == improvement* ]] && ps=$((ps + 1))
  jq -e '.benchmarks[] | select(.unit == "sec/op" and (.name | startswith("Same"))) | .benchstat.p < 0.01 and (.benchstat.delta | fabs) >= 0.05' "$work/r$r.json" > /dev/null && us=$((us + 1))
done
echo
echo "Work (+7 %) called a regression: benchgate $pw of $runs, benchstat's U test (p<0.01, Δ≥5 %) $uw of $runs"
echo "Same (unchanged) called a change:  benchgate $ps of $runs, benchstat's U test $us of $runs"
