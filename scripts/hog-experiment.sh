#!/usr/bin/env bash
# hog-experiment.sh [ROUNDS]
#
# What interleaving is for, measured: an A/A pair (head changes only a README)
# is benchmarked twice on this machine, each time with a CPU hog that starts
# halfway through the measurement:
#   1. sequentially, as benchstat's docs suggest: go test -count N on base,
#      then on head (the hog starts when head starts), then benchstat;
#   2. with benchgate run (base and head interleaved round by round; the hog
#      starts halfway through the rounds).
# An honest tool reports no change in both. Prints both reports. Takes a few
# minutes; run it on an otherwise idle machine.
set -euo pipefail
rounds=${1:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d -t benchgate-hog.XXXX)
hog_pids=()
cleanup() { for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

(cd "$here" && go build -o "$work/benchgate" .)
perfver=$(cd "$here" && go list -m -f '{{.Version}}' golang.org/x/perf)
(cd "$work" && GOFLAGS= GOBIN="$work" go install "golang.org/x/perf/cmd/benchstat@$perfver")

repo=$work/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
cat > go.mod <<'MOD'
module example.com/hog

go 1.26
MOD
cat > hog_test.go <<'GO'
package hog

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
echo a > README
git add -A && git -c user.name=x -c user.email=x@x commit -qm base
echo b > README
git -c user.name=x -c user.email=x@x commit -qam 'docs only'

hog() { # start one busy loop per core after $1 seconds
  local delay=$1
  for _ in $(seq "$(nproc)"); do
    (sleep "$delay"; exec timeout 600 sh -c 'while :; do :; done') &
    hog_pids+=($!)
  done
}
stop_hogs() { for p in "${hog_pids[@]}"; do pkill -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done; hog_pids=(); }

bt=100ms
echo "== 1. sequential: go test -count $rounds on base, then on head; the hog starts with head"
git worktree add -q "$work/base" HEAD~1
(cd "$work/base" && go test -c -o "$work/base.test" .)
(cd "$repo" && go test -c -o "$work/head.test" .)
(cd "$work/base" && "$work/base.test" -test.run '^$' -test.bench . -test.benchmem -test.count "$rounds" -test.benchtime "$bt") > "$work/seq-base.txt"
hog 0
(cd "$repo" && "$work/head.test" -test.run '^$' -test.bench . -test.benchmem -test.count "$rounds" -test.benchtime "$bt") > "$work/seq-head.txt"
stop_hogs
"$work/benchstat" "$work/seq-base.txt" "$work/seq-head.txt" || true
git worktree remove --force "$work/base"

echo
echo "== 2. benchgate run --count $rounds (interleaved); the hog starts halfway"
# estimate: time of one unloaded benchgate run, measured first without a hog
start=$(date +%s)
"$work/benchgate" run --base HEAD~1 --count "$rounds" --benchtime "$bt" --quiet > /dev/null || true
half=$(( ($(date +%s) - start) / 2 ))
echo "(one unloaded run took $((half * 2)) s; the hog starts after ${half} s)"
hog "$half"
set +e
"$work/benchgate" run --base HEAD~1 --count "$rounds" --benchtime "$bt" --quiet --out "$work/bg"
code=$?
set -e
stop_hogs
echo "benchgate exit status: $code (0 = pass: no regression reported)"
echo
echo "== 2b. benchstat on benchgate's raw files (U test, same interleaved samples)"
"$work/benchstat" -ignore round "$work/bg/base.txt" "$work/bg/head.txt" || true
