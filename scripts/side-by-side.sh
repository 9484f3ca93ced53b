#!/usr/bin/env bash
# side-by-side.sh [PAIRS]
#
# benchgate at its defaults against what a user would otherwise run, on a
# real library, timed side by side:
#   A  benchgate run --base base --head head (defaults: 10 interleaved
#      rounds, the confirmation and the explanation on)
#   B  go test -run '^$' -bench . -benchmem -count 10 -benchtime BENCHTIME on
#      base, then on head, then benchstat base.txt head.txt
# at the same --benchtime (BENCHTIME, default 100ms), PAIRS times (default 2)
# in the order A B B A A B B A … (so that neither always runs first on a
# machine that drifts). It prints each run's wall time, the ratio A / B per
# pair and overall (sum of A over sum of B), and what each found: benchgate's
# time/op regressions and improvements (its JSON report), benchstat's
# significant sec/op changes (its rows with a change and a p-value, not "~").
#
# The library is a module from the module proxy, made into a git
# repository with two commits: base, the module as published, and head, the
# same with a planted change (PLANT: a sed script applied to PLANT_FILE).
# LIBRARY picks one of two, with its plant:
#   xxhash (the default): github.com/cespare/xxhash/v2@v2.3.0, 20
#     benchmarks in 4 functions whose set-up (a 10 MB input filled byte by
#     byte, for every size) runs in every process, about 50 ms; the plant
#     adds two multiply-rotate rounds, stored to a package variable, to
#     Digest.Sum64: a few nanoseconds per Digest benchmark, large for
#     4-byte inputs, nothing at 10 MB; Sum64 and Sum64String are untouched.
#   uuid: github.com/google/uuid@v1.6.0, 15 benchmarks with no set-up to
#     speak of; the plant folds the first 4 bytes into a package variable
#     in encodeHex (String, URN and MarshalJSON; Parse* and New untouched).
# MODULE, PLANT_FILE and PLANT override the library's. PLANT=none gives an
# A/A pair (head an empty commit).
#
# BENCHGATE is the benchgate binary (default: built from this checkout);
# BENCHSTAT the benchstat binary (default: installed from the module proxy,
# golang.org/x/perf/cmd/benchstat@latest). OUT keeps every run's files
# (default: a temporary directory, removed).
set -euo pipefail
pairs=${1:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
benchtime=${BENCHTIME:-100ms}
case ${LIBRARY:-xxhash} in
xxhash)
	defModule=github.com/cespare/xxhash/v2@v2.3.0
	defFile=xxhash.go
	defPlant='/^func (d \*Digest) Sum64() uint64 {$/,/^}$/ s/^\treturn h$/\tx := h\n\tx = rol31(x*prime2) * prime1\n\tx = rol31(x*prime2) * prime1\n\tplantSink = x\n\treturn h/
$ a\
\
var plantSink uint64'
	;;
uuid)
	defModule=github.com/google/uuid@v1.6.0
	defFile=uuid.go
	defPlant='/^func encodeHex(dst \[\]byte, uuid UUID) {$/ a\	for _, c := range uuid[:4] {\n\t\tplantSink = plantSink*31 + uint64(c)\n\t}
$ a\
\
var plantSink uint64'
	;;
*)
	echo "side-by-side: LIBRARY=$LIBRARY: want xxhash or uuid" >&2
	exit 2
	;;
esac
module=${MODULE:-$defModule}
plantFile=${PLANT_FILE:-$defFile}
plant=${PLANT:-$defPlant}
work=$(mktemp -d -t side-by-side.XXXX)
out=${OUT:-}
cleanup() {
	chmod -R u+w "$work" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
[ -n "$out" ] || out=$work/out
mkdir -p "$out"

bin=$work/bin
mkdir -p "$bin"
benchgate=${BENCHGATE:-}
if [ -z "$benchgate" ]; then
	(cd "$here" && go build -o "$bin/benchgate" .)
	benchgate=$bin/benchgate
fi
benchstat=${BENCHSTAT:-}
if [ -z "$benchstat" ]; then
	GOBIN=$bin go install golang.org/x/perf/cmd/benchstat@latest
	benchstat=$bin/benchstat
fi

# The repository: base as published, head with the planted change.
zip=$(go mod download -json "$module" | sed -n 's/^\t"Zip": "\(.*\)",$/\1/p')
repo=$work/repo
mkdir -p "$work/unzip" "$repo"
(cd "$work/unzip" && unzip -q "$zip")
cp -R "$work/unzip/${module%@*}@${module#*@}/." "$repo/"
chmod -R u+w "$repo"
cd "$repo"
git init -q -b main
git -c user.name=side-by-side -c user.email=side@by.side add -A
git -c user.name=side-by-side -c user.email=side@by.side commit -qm base
git tag base
if [ "${PLANT:-}" = none ]; then
	git -c user.name=side-by-side -c user.email=side@by.side commit -q --allow-empty -m head
else
	sed -i "$plant" "$plantFile"
	if git diff --quiet; then
		echo "side-by-side: the plant changed nothing in $plantFile" >&2
		exit 3
	fi
	git diff --stat
	git -c user.name=side-by-side -c user.email=side@by.side commit -qam head
fi
git tag head
# Both sides' packages built once, so that neither contender pays the
# first compilation.
go test -count=1 -run '^$' ./... >/dev/null

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# runA N: benchgate at the defaults.
runA() {
	local d=$out/benchgate-$1 t0 t1 rc=0
	mkdir -p "$d"
	t0=$(now)
	"$benchgate" run --base base --head head --quiet --json "$d/report.json" --out "$d/raw" >"$d/report.txt" 2>"$d/stderr.txt" || rc=$?
	t1=$(now)
	if [ "$rc" -gt 1 ]; then
		echo "side-by-side: benchgate exited $rc:" >&2
		cat "$d/stderr.txt" >&2
		exit 3
	fi
	local found
	found=$(python3 - "$d/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
rows = [b for b in r["benchmarks"] if b["unit"] == "sec/op" and b["status"] in ("regression", "improvement")]
print("%d regression(s), %d improvement(s): %s" % (
    sum(b["status"] == "regression" for b in rows), sum(b["status"] == "improvement" for b in rows),
    ", ".join("%s %+.1f%%" % (b["name"], 100 * b["delta"]) for b in rows) or "-"))
EOF
)
	echo "A benchgate $1: $(secs "$t0" "$t1") s; $found" | tee -a "$out/summary.txt"
	echo "$(secs "$t0" "$t1")" >"$d/seconds"
}

# runB N: go test on base, then on head, then benchstat.
runB() {
	local d=$out/gotest-$1 t0 t1
	mkdir -p "$d"
	t0=$(now)
	for side in base head; do
		git checkout -q "$side"
		go test -run '^$' -bench . -benchmem -count 10 -benchtime "$benchtime" ./... >"$d/$side.txt"
	done
	"$benchstat" "$d/base.txt" "$d/head.txt" >"$d/benchstat.txt"
	t1=$(now)
	git checkout -q main
	local found
	found=$(awk '
		/sec\/op/ { on = 1; next }
		/^$/ || /B\/op|allocs\/op|B\/s/ { on = 0 }
		on && /geomean/ { next }
		on && /\(p=/ && $0 !~ / ~ / { n++; split($0, f, /[ \t]+/); for (i = 1; i <= length(f); i++) if (f[i] ~ /^[+-][0-9.]+%$/) d = f[i]; list = list (list ? ", " : "") f[1] " " d }
		END { printf "%d significant sec/op change(s): %s\n", n, (list ? list : "-") }' "$d/benchstat.txt")
	echo "B go test + benchstat $1: $(secs "$t0" "$t1") s; $found" | tee -a "$out/summary.txt"
	echo "$(secs "$t0" "$t1")" >"$d/seconds"
}

echo "module $module, benchtime $benchtime, $pairs pair(s), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/summary.txt"
for i in $(seq 1 "$pairs"); do
	if [ $((i % 2)) = 1 ]; then
		runA "$i"
		runB "$i"
	else
		runB "$i"
		runA "$i"
	fi
done
sumA=0 sumB=0
for i in $(seq 1 "$pairs"); do
	a=$(cat "$out/benchgate-$i/seconds") b=$(cat "$out/gotest-$i/seconds")
	echo "pair $i: benchgate / (go test + benchstat) = $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')" | tee -a "$out/summary.txt"
	sumA=$(awk -v s="$sumA" -v a="$a" 'BEGIN { print s + a }')
	sumB=$(awk -v s="$sumB" -v b="$b" 'BEGIN { print s + b }')
done
echo "all pairs: $sumA s / $sumB s = $(awk -v a="$sumA" -v b="$sumB" 'BEGIN { printf "%.2f", a / b }')" | tee -a "$out/summary.txt"
