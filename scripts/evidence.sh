#!/usr/bin/env bash
# evidence.sh [RUNS]
#
# The sensitivity evidence of docs/dev/evidence-log.md ("Sensitivity: planted
# changes under a switching hog"): a synthetic module whose head does exactly 3 %, 5 % and 10 %
# more work in three benchmarks (Planted03, Planted05, Planted10: the same
# loop, 10000 → 10300, 10500, 11000 iterations), 5 % less in one
# (PlantedM05: 10000 → 9500; found when called an improvement), counts held
# in variables so both binaries have the same code, and the same work in
# SAME others (Same01 …), measured RUNS times (default 10) per design and setting while
# one CPU hog switches on and off every second on one core (taskset -c 1):
#
#   designs   new  benchgate run at its defaults (plus the setting's flags)
#             old  the same with --runs 1 --estimator mean (the design before
#                  short runs: one long run per side per round, averaged)
#             prev benchgate run at its defaults, built from an earlier commit
#                  (BENCHGATE_PREV, a binary): a change to the design measured
#                  side by side with the one before it
#             seq  sequential go test -count N on base, then on head, then
#                  benchstat (found: significant at benchstat's p<0.05 and
#                  ≥ the threshold; a false alarm: an unchanged benchmark so)
#   settings  t5     the defaults (--threshold 5%, --count 10)
#             t2     --threshold 2%
#             t1c20  --threshold 1% --count 20
#
# Every run's unchanged benchmarks (SAME of them, in a Holm family with the
# planted three) are an A/A check: any of them called a change is a false
# alarm. Runs go design after design within a run index, so slow drifts of
# the machine's load hit every design alike.
#
# Environment: EXTRA_FLAGS (more flags for every benchgate run, e.g.
# --explain=false: the profiles after the verdict are another matter than
# the wall time of deciding), RAW (where raw benchmark files are kept; default: a temporary
# directory, removed), DESIGNS ("new old seq"), SETTINGS ("t5 t2 t1c20"), SAME (20),
# BENCHTIME (--benchtime of every design, and seq's -test.benchtime; 50ms),
# BENCHGATE (a benchgate binary; default: built from this checkout), OUT (the
# directory for results.tsv, raw files and logs; default
# docs/dev/evidence/sensitivity). Appends to OUT/results.tsv; prints the table
# of all rows in it at the end (scripts/evidence-table.sh OUT/results.tsv
# prints it again).
set -euo pipefail
runs=${1:-10}
designs=${DESIGNS:-new old seq}
settings=${SETTINGS:-t5 t2 t1c20}
same=${SAME:-20}
EXTRA_FLAGS=${EXTRA_FLAGS:-}
bt=${BENCHTIME:-50ms}
here=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$here/docs/dev/evidence/sensitivity}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d -t benchgate-evidence.XXXX)
raw=${RAW:-$work/raw}
mkdir -p "$raw"
raw=$(cd "$raw" && pwd)
hog_pid=""
cleanup() {
  if [[ -n $hog_pid ]]; then kill -- "-$hog_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

bg=${BENCHGATE:-}
if [[ -z $bg ]]; then
  (cd "$here" && go build -o "$work/benchgate" .)
  bg=$work/benchgate
fi
perfver=$(cd "$here" && go list -m -f '{{.Version}}' golang.org/x/perf)
(cd "$work" && GOFLAGS= GOBIN="$work" go install "golang.org/x/perf/cmd/benchstat@$perfver")

repo=$work/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
printf 'module example.com/evidence\n\ngo 1.26\n' > go.mod
gen() { # gen N3 N5 N10 NM5: the iteration counts of the planted benchmarks
  {
    echo 'package evidence'
    echo
    echo '// Iteration counts: variables, so that base and head binaries have the same code.'
    echo 'var ('
    echo "	n03 = $1"
    echo "	n05 = $2"
    echo "	n10 = $3"
    echo "	nM05 = $4"
    echo '	nSame = 10000'
    echo ')'
    cat <<'GO'

// work runs a fixed integer mix n times: exactly n iterations, no memory.
func work(n int, seed uint64) uint64 {
	x, t := seed, uint64(0)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		t ^= x >> 29
	}
	return t
}
GO
  } > work.go
}
gen 10000 10000 10000 10000
{
  echo 'package evidence'
  echo
  echo 'import "testing"'
  echo
  echo 'var sink uint64'
  echo
  for p in 03 05 10; do
    printf 'func BenchmarkPlanted%s(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink += work(n%s, %d)\n\t}\n}\n\n' "$p" "$p" "$((10#$p))"
  done
  printf 'func BenchmarkPlantedM05(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink += work(nM05, 95)\n\t}\n}\n\n'
  for i in $(seq -w 1 "$same"); do
    printf 'func BenchmarkSame%s(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink += work(nSame, %d)\n\t}\n}\n\n' "$i" "$((10#$i + 100))"
  done
} > work_test.go
gofmt -w work.go work_test.go
git add -A && git -c user.name=x -c user.email=x@x commit -qm base
gen 10300 10500 11000 9500
git -c user.name=x -c user.email=x@x commit -qam 'head: +3 %, +5 %, +10 %, -5 % work'
git worktree add -q "$work/base" HEAD~1
(cd "$work/base" && go test -c -o "$work/base.test" .)
go test -c -o "$work/head.test" .

# The hog: one busy loop on CPU 1, on for a second, off for a second.
setsid bash -c 'while :; do timeout 1 taskset -c 1 sh -c "while :; do :; done"; sleep 1; done' &
hog_pid=$!

flags() { # flags SETTING: benchgate's flags of a setting
  case $1 in
    t5) echo "--threshold 5% --count 10" ;;
    t2) echo "--threshold 2% --count 10" ;;
    t1c20) echo "--threshold 1% --count 20" ;;
    *) echo "unknown setting $1" >&2; exit 2 ;;
  esac
}
threshold() { case $1 in t5) echo 0.05 ;; t2) echo 0.02 ;; t1c20) echo 0.01 ;; esac; }
count() { case $1 in t1c20) echo 20 ;; *) echo 10 ;; esac; }

results=$out/results.tsv
[[ -s $results ]] || printf 'date\tdesign\tsetting\trun\tp03\tp05\tp10\tfalse\twall\tverdict\tm05\n' > "$results"
echo "benchgate: $("$bg" version 2>/dev/null || echo '?'), $(nproc) cores, benchtime $bt, $same unchanged benchmarks; results in ${results#"$here"/}"

# status NAME JSON: the status of a sec/op row (name without -GOMAXPROCS).
status() { jq -r --arg n "$1" '[.benchmarks[] | select(.unit == "sec/op" and (.name | sub("-[0-9]+$"; "")) == $n) | .status][0] // "missing"' "$2"; }

for r in $(seq "$runs"); do
  for s in $settings; do
    for d in $designs; do
      id=$d-$s-$(date +%s)
      t0=$(date +%s.%N)
      case $d in
        new | old | prev)
          extra=""
          [[ $d == old ]] && extra="--runs 1 --estimator mean"
          bin=$bg
          [[ $d == prev ]] && bin=${BENCHGATE_PREV:?prev needs BENCHGATE_PREV, a benchgate binary of an earlier commit}
          set +e
          # shellcheck disable=SC2046
          "$bin" run --base HEAD~1 --head HEAD --benchtime "$bt" $(flags "$s") $extra --quiet $EXTRA_FLAGS \
            --json "$raw/$id.json" --out "$raw/$id" > "$raw/$id.txt" 2> "$raw/$id.err"
          code=$?
          set -e
          t1=$(date +%s.%N)
          # What the table rests on, per run: the time rows' figures and the notes.
          jq '{verdict, runs, estimator, count, notes, time: [.benchmarks[] | select(.unit == "sec/op") |
            {name, status, test, delta, p, p_adjusted, noise, mde, interval, rounds: .paired.n, confirmed, why: .reason.text}]}' \
            "$raw/$id.json" > "$out/$id.json" 2> /dev/null || cp "$raw/$id.err" "$out/$id.err"
          verdict=pass
          [[ $code == 1 ]] && verdict=fail
          [[ $code -gt 1 ]] && verdict="error$code"
          st() { [[ $(status "$1" "$raw/$id.json" 2>/dev/null) == "${2:-regression}" ]] && echo 1 || echo 0; }
          f03=$(st Planted03); f05=$(st Planted05); f10=$(st Planted10); fm05=$(st PlantedM05 improvement)
          fa=$(jq '[.benchmarks[] | select(.unit == "sec/op" and (.name | startswith("Same")) and (.status == "regression" or .status == "improvement"))] | length' "$raw/$id.json" 2>/dev/null || echo "?")
          ;;
        seq)
          # One measurement per run index and count: the settings with the
          # same count (t5, t2) judge the same samples at their thresholds.
          n=$(count "$s")
          key=seq-$r-c$n
          if [[ ! -s $raw/$key-head.txt ]]; then
            (cd "$work/base" && "$work/base.test" -test.run '^$' -test.bench . -test.benchmem -test.count "$n" -test.benchtime "$bt") > "$raw/$key-base.txt"
            ("$work/head.test" -test.run '^$' -test.bench . -test.benchmem -test.count "$n" -test.benchtime "$bt") > "$raw/$key-head.txt"
            t1=$(date +%s.%N)
            echo "$t1 - $t0" | bc > "$raw/$key-wall"
          else
            t1=$(echo "$t0 + $(cat "$raw/$key-wall")" | bc)
          fi
          cp "$raw/$key-base.txt" "$work/$id-base.txt"
          cp "$raw/$key-head.txt" "$work/$id-head.txt"
          "$work/benchstat" "$work/$id-base.txt" "$work/$id-head.txt" > "$out/$id.txt" 2>&1 || true
          "$work/benchstat" -format csv "$work/$id-base.txt" "$work/$id-head.txt" > "$work/$id.csv" 2> /dev/null || true
          th=$(threshold "$s")
          # CSV rows of the sec/op table: name,base,CI,head,CI,vs base,P
          read -r f03 f05 f10 fm05 fa < <(awk -F, -v th="$th" '
            /sec\/op/ { t = 1; next }
            /B\/op|allocs\/op/ { t = 0 }
            t && $6 ~ /%$/ {
              name = $1; sub(/-[0-9]+$/, "", name)
              d = $6; sub(/%$/, "", d); d = d / 100
              sig = 1 # benchstat prints a change only when p < 0.05, else "~"
              if (name == "Planted03") a = sig && d >= th - 1e-9
              if (name == "Planted05") b = sig && d >= th - 1e-9
              if (name == "Planted10") c = sig && d >= th - 1e-9
              if (name == "PlantedM05") e = sig && d <= 1 / (1 + th) - 1 + 1e-9
              if (name ~ /^Same/ && sig && (d >= th - 1e-9 || d <= -th + 1e-9)) f++
            }
            END { printf "%d %d %d %d %d\n", a, b, c, e, f }' "$work/$id.csv")
          verdict=pass
          [[ $((f03 + f05 + f10 + fa)) -gt 0 ]] && verdict=fail
          ;;
      esac
      wall=$(echo "$t1 - $t0" | bc)
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t%s\n' "$(date -u +%FT%TZ)" "$d" "$s" "$r" "$f03" "$f05" "$f10" "$fa" "$wall" "$verdict" "$fm05" | tee -a "$results"
    done
  done
done
bash "$here/scripts/evidence-table.sh" "$results"
