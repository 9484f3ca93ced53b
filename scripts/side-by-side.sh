#!/usr/bin/env bash
# side-by-side.sh [RUNS]
#
# What benchgate costs at its defaults against what a user would otherwise
# run, on a real library, timed side by side:
#   A  benchgate run --base base --head head (the defaults: 10 interleaved
#      rounds, the confirmation and the explanation on)
#   B  go test -run '^$' -bench . -benchmem -count 10 -benchtime BENCHTIME on
#      base, then on head, then benchstat base.txt head.txt
#   P  (with BENCHGATE_PREV, a benchgate binary of an earlier commit) the
#      same as A with that binary: the design before, in the same turns
# at the same --benchtime (BENCHTIME, default 100ms), RUNS times (default
# 2) per pair, in the order A B P, then P B A, … (so that no contender
# always runs first on a machine that drifts). Both sides are built once
# before each pair, for both contenders (go test's and benchgate's
# -trimpath builds), so that neither pays the first compilation.
#
# The pairs (PAIRS, default "offpath offcode real docs"):
#   offpath  no code changes: one comment line added at the top of the
#            library's main file (the test binaries differ in their line
#            tables only: benchgate sees the same code and measures
#            nothing); nothing measured should move
#   offcode  code that no benchmark runs changes: an error message of a
#            function no benchmark calls (the test binaries differ in code
#            and data, so everything is measured); nothing should move
#   real     a real commit: cespare/xxhash e0ea1e3 -> a7909af ("Allow
#            Sum64String and (*Digest).WriteString to be inlined", its
#            message: Sum64String/4B -25 %, DigestString/4B -15 %, /100B
#            -10 %); needs the library's history (REPO, below)
#   docs     one README line changes: the test binaries are the same
#   plant    a planted slowdown (LIBRARY's, below)
#   aa       head an empty commit
# LIBRARY picks the library of every pair but real (a module from the
# module proxy, made into a git repository, base as published):
#   xxhash (the default): github.com/cespare/xxhash/v2@v2.3.0, 20
#     benchmarks in 4 functions whose set-up (a 10 MB input filled byte by
#     byte, for every size) runs whenever the function does; the plant
#     adds two multiply-rotate rounds, stored to a package variable, to
#     Digest.Sum64: a few nanoseconds per Digest benchmark, large for
#     4-byte inputs; Sum64 and Sum64String are untouched.
#   uuid: github.com/google/uuid@v1.6.0, 15 benchmarks with no set-up to
#     speak of; the plant folds the first 4 bytes into a package variable
#     in encodeHex (String, URN and MarshalJSON; Parse* and New untouched).
# MODULE, MAIN_FILE (the offpath and offcode pairs' file), OFFCODE (its sed), PLANT_FILE and PLANT
# override the library's.
#
# REPO is a git repository (or bare git directory) with xxhash's history,
# for the real pair: clone it first (git clone
# https://github.com/cespare/xxhash /tmp/xxhash) and give REPO=/tmp/xxhash;
# without it the real pair is skipped with a line that says so. REAL_BASE and REAL_HEAD pick another pair of its commits.
#
# It prints each run's wall time and what each contender found —
# benchgate's time/op regressions and improvements and its rows not
# measured for an identical test binary (its JSON report), benchstat's
# significant sec/op changes (its rows with a p-value, not "~") — then a
# table per pair: the median wall times, the ratio (sum of A over sum of B,
# and of P over B), and benchgate's stages (its JSON run.timing).
#
# BENCHGATE is the benchgate binary (default: built from this checkout);
# BENCHSTAT the benchstat binary (default: installed from the module
# proxy, at this module's golang.org/x/perf version). OUT keeps every
# run's files (default: a temporary directory, removed). EXTRA_FLAGS are
# added to every benchgate run (both binaries).
set -euo pipefail
runs=${1:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
benchtime=${BENCHTIME:-100ms}
pairs=${PAIRS:-offpath offcode real docs}
extra=${EXTRA_FLAGS:-}
case ${LIBRARY:-xxhash} in
xxhash)
	defModule=github.com/cespare/xxhash/v2@v2.3.0
	defMain=xxhash.go
	defFile=xxhash.go
	defOffcode='s/xxhash: invalid hash state identifier/xxhash: the hash state has a wrong identifier/'
	defPlant='/^func (d \*Digest) Sum64() uint64 {$/,/^}$/ s/^\treturn h$/\tx := h\n\tx = rol31(x*prime2) * prime1\n\tx = rol31(x*prime2) * prime1\n\tplantSink = x\n\treturn h/
$ a\
\
var plantSink uint64'
	;;
uuid)
	defModule=github.com/google/uuid@v1.6.0
	defMain=uuid.go
	defFile=uuid.go
	defOffcode='s/invalid urn prefix: %q/the urn prefix is not valid: %q/'
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
for p in $pairs; do
	case $p in
	offpath | offcode | real | docs | plant | aa) ;;
	*)
		echo "side-by-side: PAIRS: unknown pair $p: want offpath, offcode, real, docs, plant or aa" >&2
		exit 2
		;;
	esac
done
module=${MODULE:-$defModule}
mainFile=${MAIN_FILE:-$defMain}
plantFile=${PLANT_FILE:-$defFile}
plant=${PLANT:-$defPlant}
offcode=${OFFCODE:-$defOffcode}
repoSrc=${REPO:-}
realBase=${REAL_BASE:-e0ea1e3}
realHead=${REAL_HEAD:-a7909af}
work=$(mktemp -d -t side-by-side.XXXX)
out=${OUT:-}
cleanup() {
	chmod -R u+w "$work" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
[ -n "$out" ] || out=$work/out
mkdir -p "$out"
out=$(cd "$out" && pwd)

bin=$work/bin
mkdir -p "$bin"
benchgate=${BENCHGATE:-}
if [ -z "$benchgate" ]; then
	(cd "$here" && go build -o "$bin/benchgate" .)
	benchgate=$bin/benchgate
fi
prev=${BENCHGATE_PREV:-}
benchstat=${BENCHSTAT:-}
if [ -z "$benchstat" ]; then
	perfver=$(cd "$here" && go list -m -f '{{.Version}}' golang.org/x/perf)
	(cd "$work" && GOFLAGS= GOBIN=$bin go install "golang.org/x/perf/cmd/benchstat@$perfver")
	benchstat=$bin/benchstat
fi
git() { command git -c user.name=side-by-side -c user.email=side@by.side -c advice.detachedHead=false "$@"; }

# setup PAIR: the repository of a pair in $work/PAIR, tags base and head.
setup() {
	local pair=$1 repo=$work/$1
	if [ "$pair" = real ]; then
		git clone -q "$repoSrc" "$repo"
		cd "$repo"
		git tag base "$realBase"
		git tag head "$realHead"
		git checkout -q head
		return
	fi
	local zip
	zip=$(go mod download -json "$module" | sed -n 's/^\t"Zip": "\(.*\)",$/\1/p')
	mkdir -p "$work/unzip-$pair" "$repo"
	(cd "$work/unzip-$pair" && unzip -q "$zip")
	cp -R "$work/unzip-$pair/${module%@*}@${module#*@}/." "$repo/"
	chmod -R u+w "$repo"
	cd "$repo"
	git init -q -b main
	git add -A
	git commit -qm base
	git tag base
	case $pair in
	aa) git commit -q --allow-empty -m head ;;
	offpath)
		sed -i '1i // A comment line: no code changes, the line tables do.' "$mainFile"
		git commit -qam 'head: a comment line'
		;;
	offcode)
		sed -i "$offcode" "$mainFile"
		if git diff --quiet; then
			echo "side-by-side: OFFCODE changed nothing in $mainFile" >&2
			exit 3
		fi
		git commit -qam 'head: an error message no benchmark reaches'
		;;
	docs)
		echo 'One more line of documentation.' >>README.md
		git commit -qam 'head: docs'
		;;
	plant)
		sed -i "$plant" "$plantFile"
		if git diff --quiet; then
			echo "side-by-side: the plant changed nothing in $plantFile" >&2
			exit 3
		fi
		git commit -qam 'head: planted change'
		;;
	esac
	git tag head
}

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# runA PAIR N NAME BIN: a benchgate binary at its defaults.
runA() {
	local d=$out/$1/$3-$2 t0 t1 rc=0
	mkdir -p "$d"
	t0=$(now)
	# shellcheck disable=SC2086
	"$4" run --base base --head head --quiet $extra --json "$d/report.json" --out "$d/raw" >"$d/report.txt" 2>"$d/stderr.txt" || rc=$?
	t1=$(now)
	if [ "$rc" -gt 1 ]; then
		echo "side-by-side: $3 exited $rc:" >&2
		cat "$d/stderr.txt" >&2
		exit 3
	fi
	local found
	found=$(python3 - "$d/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
rows = [b for b in r["benchmarks"] if b["unit"] == "sec/op" and b["status"] in ("regression", "improvement")]
same = sum(b["unit"] == "sec/op" and b["status"] == "same-binary" for b in r["benchmarks"])
t = (r.get("run") or {}).get("timing") or {}
stages = "build %.1f, calibrate %.1f, warm-up %.1f, screen %.1f, confirmation %.1f, explain %.1f s; %d processes" % tuple(
    [t.get(k, 0) for k in ("build", "calibrate", "warmup", "screen", "confirmation", "explain")] + [t.get("process_count", 0)])
print("%d regression(s), %d improvement(s)%s: %s [%s]" % (
    sum(b["status"] == "regression" for b in rows), sum(b["status"] == "improvement" for b in rows),
    ", %d not measured (same code)" % same if same else "",
    ", ".join("%s %+.1f%%" % (b["name"], 100 * b["delta"]) for b in rows) or "-", stages))
EOF
)
	echo "$1 $3 $2: $(secs "$t0" "$t1") s; $found" | tee -a "$out/summary.txt"
	secs "$t0" "$t1" >"$d/seconds"
}

# runB PAIR N: go test on base, then on head, then benchstat.
runB() {
	local d=$out/$1/gotest-$2 t0 t1
	mkdir -p "$d"
	t0=$(now)
	for side in base head; do
		git checkout -q "$side"
		go test -run '^$' -bench . -benchmem -count 10 -benchtime "$benchtime" ./... >"$d/$side.txt"
	done
	"$benchstat" "$d/base.txt" "$d/head.txt" >"$d/benchstat.txt"
	t1=$(now)
	git checkout -q head
	local found
	found=$(awk '
		/sec\/op/ { on = 1; next }
		/^$/ || /B\/op|allocs\/op|B\/s/ { on = 0 }
		on && /geomean/ { next }
		on && /\(p=/ && $0 !~ / ~ / { n++; split($0, f, /[ \t]+/); for (i = 1; i <= length(f); i++) if (f[i] ~ /^[+-][0-9.]+%$/) d = f[i]; list = list (list ? ", " : "") f[1] " " d }
		END { printf "%d significant sec/op change(s): %s\n", n, (list ? list : "-") }' "$d/benchstat.txt")
	echo "$1 go-test+benchstat $2: $(secs "$t0" "$t1") s; $found" | tee -a "$out/summary.txt"
	secs "$t0" "$t1" >"$d/seconds"
}

echo "side by side: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), benchtime $benchtime, $runs run(s) per pair, pairs: $pairs${prev:+, previous benchgate $prev}" | tee "$out/summary.txt"
done_pairs=""
for pair in $pairs; do
	if [ "$pair" = real ] && [ -z "$repoSrc" ]; then
		echo "side-by-side: pair real skipped: it needs cespare/xxhash's history; clone it (git clone https://github.com/cespare/xxhash /tmp/xxhash) and give REPO=/tmp/xxhash" | tee -a "$out/summary.txt" >&2
		continue
	fi
	(setup "$pair")
	cd "$work/$pair"
	echo "$pair: $(git log -1 --format='%h %s' base) -> $(git log -1 --format='%h %s' head); load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/summary.txt"
	for side in base head; do
		git checkout -q "$side"
		go test -count=1 -run '^$' ./... >/dev/null
		go test -trimpath -count=1 -run '^$' ./... >/dev/null
	done
	git checkout -q head
	for i in $(seq 1 "$runs"); do
		if [ $((i % 2)) = 1 ]; then
			runA "$pair" "$i" benchgate "$benchgate"
			runB "$pair" "$i"
			[ -z "$prev" ] || runA "$pair" "$i" prev "$prev"
		else
			[ -z "$prev" ] || runA "$pair" "$i" prev "$prev"
			runB "$pair" "$i"
			runA "$pair" "$i" benchgate "$benchgate"
		fi
	done
	done_pairs="$done_pairs $pair"
	cd "$work"
done

# The table: per pair, the median wall times and the ratio of the sums.
echo
echo "| pair | runs | benchgate (median) | go test + benchstat (median) | benchgate / go test |${prev:+ previous benchgate (median) | previous / go test |}"
echo "|:--|--:|--:|--:|--:|${prev:+--:|--:|}"
for pair in $done_pairs; do
	python3 - "$out/$pair" "$runs" "${prev:+1}" <<'EOF'
import os, statistics, sys
d, n, prev = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
def times(name):
    return [float(open(os.path.join(d, "%s-%d" % (name, i), "seconds")).read()) for i in range(1, n + 1)]
a, b = times("benchgate"), times("gotest")
row = "| %s | %d | %.1f s | %.1f s | %.2f |" % (os.path.basename(d), n, statistics.median(a), statistics.median(b), sum(a) / sum(b))
if prev:
    p = times("prev")
    row += " %.1f s | %.2f |" % (statistics.median(p), sum(p) / sum(b))
print(row)
EOF
done | tee -a "$out/summary.txt"
echo "every run's files: $out"
