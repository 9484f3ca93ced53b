#!/usr/bin/env bash
# instructions-evidence.sh [RUNS]
#
# The instruction lane's evidence (docs/instructions.md): a
# synthetic module whose head does exactly 1 %, 2 % and 5 % more and 5 %
# less work in four benchmarks (Plus01, Plus02, Plus05, Minus05: the same
# loop, 20000 → 20200, 20400, 21000 and 19000 iterations, counts held in
# variables so that both binaries have the same code) and the same work in
# an allocating one (Same: a map of 64 entries and a joined string per op),
# judged RUNS times (default 10) by
#
#   benchgate run --measure instructions       (the lane's defaults: 3 runs
#                                               per side, threshold 1 %)
#   benchgate compare --instructions-threshold 0.5%   (the same raw files)
#
# first on the machine as it is ("quiet"), then with a CPU hog on every
# core for the whole run ("hog"). A planted change is "called" when its
# row is a regression (improvement for Minus05); Same called is a false
# alarm. Then one run of each lane alone and both together at their
# defaults, for the lane's cost beside the time lane's. Every run has
# --explain=false: the profiling pass after the verdict is not a lane's
# cost.
#
# Needs valgrind (apt-get install valgrind), git, go, jq, bc and GNU time.
# Each run costs about 33 s of CPU time; on an idle 2-core machine the whole
# script takes about 20 minutes (the hog runs are 2-3 times slower), on a
# shared one longer (40 minutes here). KEEP=1 keeps the raw files.
# docs/dev/evidence/instructions-gate.txt holds a run's output. COST_ONLY=1
# runs the cost part alone (about 3 minutes; its output is
# docs/dev/evidence/instructions-cost.txt).
set -euo pipefail
runs=${1:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d -t benchgate-instr.XXXX)
hog_pids=()
stop_hogs() {
  for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  hog_pids=()
}
cleanup() {
  stop_hogs
  if [[ -n ${KEEP:-} ]]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
hog() { # one busy loop per core
  for _ in $(seq "$(nproc)"); do
    timeout 3600 sh -c 'while :; do :; done' &
    hog_pids+=($!)
  done
}

(cd "$here" && go build -o "$work/benchgate" .)
bg=$work/benchgate
repo=$work/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
cat > go.mod <<'MOD'
module example.com/planted

go 1.26
MOD
cat > work.go <<'GO'
package planted

import (
	"strconv"
	"strings"
)

// The iteration counts of the planted benchmarks; head changes only these.
var (
	n01 = 20000
	n02 = 20000
	n05 = 20000
	m05 = 20000
)

// Work mixes n values (FNV-1a-like): a fixed number of instructions per
// iteration.
func Work(n int) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < n; i++ {
		h ^= uint64(i)
		h *= 1099511628211
	}
	return h
}

// Same allocates: a map of 64 entries and a joined string.
func Same() int {
	m := make(map[string]int)
	parts := make([]string, 0, 8)
	for i := 0; i < 64; i++ {
		k := "k" + strconv.Itoa(i)
		m[k] = i
		if i%8 == 0 {
			parts = append(parts, k)
		}
	}
	return len(m) + len(strings.Join(parts, ","))
}
GO
cat > work_test.go <<'GO'
package planted

import "testing"

var sink uint64

func BenchmarkPlus01(b *testing.B) {
	for b.Loop() {
		sink += Work(n01)
	}
}

func BenchmarkPlus02(b *testing.B) {
	for b.Loop() {
		sink += Work(n02)
	}
}

func BenchmarkPlus05(b *testing.B) {
	for b.Loop() {
		sink += Work(n05)
	}
}

func BenchmarkMinus05(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += Work(m05)
	}
}

func BenchmarkSame(b *testing.B) {
	for b.Loop() {
		sink += uint64(Same())
	}
}
GO
git add -A && git -c user.name=x -c user.email=x@x commit -qm base
sed -i -e 's/n01 = 20000/n01 = 20200/' -e 's/n02 = 20000/n02 = 20400/' -e 's/n05 = 20000/n05 = 21000/' -e 's/m05 = 20000/m05 = 19000/' work.go
git -c user.name=x -c user.email=x@x commit -qam 'head: planted changes'

echo "# command: ${COST_ONLY:+COST_ONLY=1 }scripts/instructions-evidence.sh $*"
echo "# $(go version | cut -d' ' -f3), $(valgrind --version), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(date -u +%Y-%m-%d)"
echo "# load average (1, 5, 15 min) at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# planted: Plus01 +1%, Plus02 +2%, Plus05 +5%, Minus05 -5% iterations of one loop; Same unchanged (allocates)"
start=$(date +%s)
if [[ -z ${COST_ONLY:-} ]]; then
for cond in quiet hog; do
  for i in $(seq "$runs"); do
    [[ $cond == hog ]] && hog
    code=0
    /usr/bin/time -f '%e %U %S' -o "$work/time" "$bg" run --base HEAD~1 --measure instructions --explain=false --quiet --out "$work/$cond-$i" --json "$work/$cond-$i.json" > /dev/null || code=$?
    read -r wall user sys < <(tail -1 "$work/time")
    stop_hogs
    "$bg" compare "$work/$cond-$i/base.txt" "$work/$cond-$i/head.txt" --instructions-threshold 0.5% --json "$work/$cond-$i-0.5.json" > /dev/null || true
    jq -r --arg c "$cond" --arg i "$i" --arg code "$code" --arg secs "$wall" --arg cpu "$(echo "$user + $sys" | bc)" \
      '.benchmarks[] | select(.unit == "instructions/op") | [$c, $i, $code, $secs, .name, .status, (.delta // "null"), .base.min, .base.max, .head.min, .head.max, $cpu] | @tsv' \
      "$work/$cond-$i.json" >> "$work/t1.tsv"
    jq -r --arg c "$cond" --arg i "$i" '.benchmarks[] | select(.unit == "instructions/op") | [$c, $i, .name, .status] | @tsv' \
      "$work/$cond-$i-0.5.json" >> "$work/t05.tsv"
    jq -r '.notes[] | select(startswith("instruction lane"))' "$work/$cond-$i.json" >> "$work/notes-$cond.txt"
  done
done

# isort sorts a[1..n] (mawk has no asort).
isort='function isort(a, n,   i, j, v) { for (i = 2; i <= n; i++) { v = a[i]; for (j = i - 1; j > 0 && a[j] > v; j--) a[j+1] = a[j]; a[j+1] = v } } '
echo
echo "# Each row: $runs runs of benchgate run --measure instructions. called: the planted direction"
echo "# (regression; improvement for Minus05); for Same any regression or improvement is a false alarm."
echo "# change: the row's change of the medians over the runs (min, median, max); spread: the largest"
echo "# (max − min) / min of a side's 3 repeats over the runs."
echo
printf '%-6s %-8s %8s  %-28s %9s  %11s %13s %10s\n' condition benchmark planted "change (min / median / max)" spread "called at 1%" "called at 0.5%" "exit 1"
for cond in quiet hog; do
  for b in Plus01 Plus02 Plus05 Minus05 Same; do
    planted=$(case $b in Plus01) echo +1%;; Plus02) echo +2%;; Plus05) echo +5%;; Minus05) echo -5%;; Same) echo 0;; esac)
    want=$(case $b in Minus05) echo improvement;; Same) echo change;; *) echo regression;; esac)
    stats=$(awk -F'\t' -v c="$cond" -v b="$b" -v want="$want" "$isort"'
      $1 == c && $5 == b {
        n++; d[n] = $7 + 0
        if ((want == "change" && ($6 == "regression" || $6 == "improvement")) || $6 == want) k++
        sb = ($9 - $8) / $8; sh = ($11 - $10) / $10
        if (sb > s) s = sb; if (sh > s) s = sh
      }
      END {
        isort(d, n)
        printf "%+.2f%% / %+.2f%% / %+.2f%%\t%.2f%%\t%d/%d", 100*d[1], 100*d[int((n+1)/2)], 100*d[n], 100*s, k, n
      }' "$work/t1.tsv")
    called05=$(awk -F'\t' -v c="$cond" -v b="$b" -v want="$want" '
      $1 == c && $3 == b { n++; if ((want == "change" && ($4 == "regression" || $4 == "improvement")) || $4 == want) k++ }
      END { printf "%d/%d", k, n }' "$work/t05.tsv")
    exits=$(awk -F'\t' -v c="$cond" '$1 == c && $5 == "Plus01" && $3 == 1 { k++ } $1 == c && $5 == "Plus01" { n++ } END { printf "%d/%d", k, n }' "$work/t1.tsv")
    IFS=$'\t' read -r change spread called <<< "$stats"
    printf '%-9s %-8s %8s  %-28s %9s  %11s %13s %10s\n' "$cond" "$b" "$planted" "$change" "$spread" "$called" "$called05" "$exits"
  done
done
echo
for cond in quiet hog; do
  awk -F'\t' -v c="$cond" "$isort"'$1 == c && $5 == "Plus01" { n++; t[n] = $4; u[n] = $12 } END { isort(t, n); isort(u, n); printf "# %s: a run (build, calibration, lane): wall time min %.0f s, median %.0f s, max %.0f s; CPU time (user + system, all processes) median %.0f s\n", c, t[1], t[int((n+1)/2)], t[n], u[int((n+1)/2)] }' "$work/t1.tsv"
  echo "#   its note, first run: $(head -1 "$work/notes-$cond.txt")"
done
fi

echo
echo "# Cost without the hog, each lane at its defaults on the same 5 benchmarks: wall time and CPU time"
echo "# (user + system, all processes) of benchgate run (build, calibration, rounds or lane, the time"
echo "# lane's confirmation), and each divided by 5:"
for m in time instructions time,instructions; do
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$bg" run --base HEAD~1 --measure "$m" --explain=false --quiet --json "$work/cost-$m.json" > /dev/null || true
  read -r wall user sys < <(tail -1 "$work/time")
  cpu=$(echo "$user + $sys" | bc)
  printf '#   --measure %-18s wall %4.0f s (%4.1f s per benchmark), CPU %4.0f s (%4.1f s per benchmark)' "$m" "$wall" "$(echo "$wall / 5" | bc -l)" "$cpu" "$(echo "$cpu / 5" | bc -l)"
  note=$(jq -r '.notes[] | select(startswith("instruction lane"))' "$work/cost-$m.json")
  [[ -n $note ]] && printf '   (%s)' "$note"
  echo
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); the whole script: $(( ($(date +%s) - start) / 60 )) min"
