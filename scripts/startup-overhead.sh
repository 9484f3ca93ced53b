#!/usr/bin/env bash
# startup-overhead.sh [PROCESSES]
#
# What one benchmark process costs beyond its timed work on this machine:
# the fixed price of each process a round runs (one per benchmark and side,
# docs/measuring.md step 6). A throw-away module in a temporary directory
# with two test binaries (`go test -c`):
#   small  a package importing only strings and crypto/sha256;
#   big    the same benchmarks in a package that also links net/http,
#          encoding/json, text/template and crypto/tls (a larger binary with
#          more package initialisation, closer to a real project's);
# each benchmark run one run per process (-test.run='^$' -test.bench=^X$
# -test.benchtime=Nx -test.count=1 -test.benchmem -test.cpu=C), PROCESSES
# times (default 40), in an interleaved order. For each process:
#   wall      its wall time seen by the parent (fork/exec to wait),
#   timed     N × the ns/op it printed (the timed work),
#   overhead  wall − timed.
# Prints the median, 10th and 90th percentile of each, per binary and N.
#
# Then the same through benchgate's own runner (exec with its process group,
# environment, pinning off): `benchgate run` of the small package (a pair
# whose head adds a comment line to the test file, so that the binaries
# differ and it is measured) at --runs 1 and at --runs 5, same --count and
# --benchtime, so the same timed work in the same number of processes (a
# round's runs of a benchmark are -test.count runs of one process): the
# counted processes' wall time beyond their timed work, per process, and
# what the 4 more runs inside each process add (each run after the first
# runs the benchmark once at N=1 and collects garbage twice before it is
# timed). BENCHGATE=0 skips this part; ROUNDS (default 5) and BENCHTIME
# (default 100ms) set it.
#
# HOG=1 keeps one core busy (a shell loop) during both parts, as the
# evidence campaigns' hog does when on.
set -euo pipefail
procs=${1:-40}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d -t benchgate-startup.XXXX)
hog=
cleanup() {
	if [ -n "$hog" ]; then kill "$hog" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
if [ "${HOG:-0}" = 1 ]; then
	sh -c 'while :; do :; done' &
	hog=$!
	echo "hog: pid $hog"
fi
cd "$work"
printf 'module example.com/startup\n\ngo 1.26\n' > go.mod
mkdir small big
bench='
var (
	text = strings.Repeat("the quick brown fox jumps over the lazy dog ", 100)
	sum  [32]byte
	sink int
)

// BenchmarkTiny: a few ns/op, b.Loop.
func BenchmarkTiny(b *testing.B) {
	for b.Loop() {
		sink += len(text) >> 3
	}
}

// BenchmarkHash: about 2–10 µs/op, b.Loop.
func BenchmarkHash(b *testing.B) {
	data := []byte(text)
	for b.Loop() {
		sum = sha256.Sum256(data)
	}
}

// BenchmarkHashN: the same in the b.N style (the function is called twice:
// once with N=1, once with N).
func BenchmarkHashN(b *testing.B) {
	data := []byte(text)
	for i := 0; i < b.N; i++ {
		sum = sha256.Sum256(data)
	}
}
'
cat > small/s_test.go <<GO
package small

import (
	"crypto/sha256"
	"strings"
	"testing"
)
$bench
GO
cat > big/b_test.go <<GO
package big

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"text/template"
)

var (
	_ = http.NewServeMux()
	_ = json.Marshal
	_ = template.Must(template.New("x").Parse("{{.}}"))
	_ = tls.Config{}
)
$bench
GO
(cd small && go test -c -o "$work/small.test" .)
(cd big && go test -c -o "$work/big.test" .)
ls -l "$work"/*.test | awk '{printf "%s %.1f MB\n", $NF, $5/1e6}'
nproc=$(nproc)
echo "go: $(go version); cpus: $nproc; load: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$work" "$procs" "$nproc" <<'PY'
import random, re, statistics, subprocess, sys, time
work, procs, ncpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def run(binary, name, n, cpu):
    args = [f"{work}/{binary}.test", "-test.run=^$", f"-test.bench=^{name}$",
            f"-test.benchtime={n}x", "-test.count=1", "-test.benchmem", f"-test.cpu={cpu}"]
    t0 = time.perf_counter()
    out = subprocess.run(args, cwd=f"{work}/{binary}", capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - t0
    m = re.search(r"\s([0-9.]+) ns/op", out)
    return wall, n * float(m.group(1)) * 1e-9

# Iteration counts: 1x (nothing but the process), and about 10 ms and 20 ms
# of timed work from one calibrating run each.
cases = []
for binary in ("small", "big"):
    for name in ("BenchmarkTiny", "BenchmarkHash", "BenchmarkHashN"):
        _, t = run(binary, name, 100000, ncpu)
        per = t / 100000
        for target in (0, 0.010, 0.020):
            n = 1 if target == 0 else max(1, round(target / per))
            cases.append((binary, name, n, target))
for cpu in (1, ncpu) if ncpu > 1 else (1,):
    samples = {c: [] for c in cases}
    order = [c for c in cases for _ in range(procs)]
    random.seed(1)
    random.shuffle(order)
    for c in order:
        samples[c].append(run(c[0], c[1], c[2], cpu))
    print(f"\n-test.cpu={cpu}, {procs} processes per row (ms: median [p10 p90])")
    print(f"{'binary':6} {'benchmark':15} {'N':>9} {'target':>6} | {'wall':>20} | {'timed':>6} | {'overhead = wall - timed':>24}")
    def q(xs):
        xs = sorted(xs); k = len(xs)
        return xs[k // 2] * 1e3, xs[k // 10] * 1e3, xs[(9 * k) // 10] * 1e3
    for c in cases:
        w = [s[0] for s in samples[c]]; t = [s[1] for s in samples[c]]
        o = [s[0] - s[1] for s in samples[c]]
        wm, wl, wh = q(w); om, ol, oh = q(o)
        print(f"{c[0]:6} {c[1]:15} {c[2]:>9} {int(c[3]*1e3):>4}ms | {wm:6.1f} [{wl:5.1f} {wh:5.1f}] | {statistics.median(t)*1e3:6.1f} | {om:6.1f} [{ol:5.1f} {oh:5.1f}]")
PY

[ "${BENCHGATE:-1}" = 1 ] || exit 0
rounds=${ROUNDS:-5}
bt=${BENCHTIME:-100ms}
(cd "$here" && go build -o "$work/benchgate" .)
repo=$work/repo
mkdir -p "$repo" && cp go.mod "$repo/" && cp -r small "$repo/"
cd "$repo"
git init -q -b main
git add -A && git -c user.name=x -c user.email=x@x commit -qm base
sed -i '1i // A comment line: the binaries differ, the code does not.' small/s_test.go
git -c user.name=x -c user.email=x@x commit -qam 'a comment line'

note() {
	"$work/benchgate" run --base HEAD~1 --count "$rounds" --benchtime "$bt" --runs "$1" \
		--confirm=false --explain=false --quiet --json "$work/r$1.json" --out "$work/o$1" > /dev/null || true
	jq -r '.notes[] | select(startswith("time:"))' "$work/r$1.json"
}
n1=$(note 1)
n5=$(note 5)
echo
echo "benchgate run --count $rounds --benchtime $bt (3 benchmarks, A/A):"
echo "  --runs 1: $n1"
echo "  --runs 5: $n5"
python3 - "$n1" "$n5" "$work" <<'PY'
import glob, re, sys
def parse(note):
    m = re.search(r"(\d+) benchmark processes .*?\(counted runs ([0-9.]+)(ms|s)[,)]", note)
    v = float(m.group(2)); v = v / 1000 if m.group(3) == "ms" else v
    return int(m.group(1)), v
def timed(d):
    # every counted run is one result line: sum of N x ns/op, and their number
    tot, k = 0.0, 0
    for f in (f"{d}/base.txt", f"{d}/head.txt"):
        for line in open(f):
            m = re.match(r"Benchmark\S+\s+(\d+)\s+([0-9.]+) ns/op", line)
            if m:
                tot += int(m.group(1)) * float(m.group(2)) * 1e-9; k += 1
    return tot, k
(p1, c1), (p5, c5) = parse(sys.argv[1]), parse(sys.argv[2])
over = {}
for runs, c in ((1, c1), (5, c5)):
    t, k = timed(f"{sys.argv[3]}/o{runs}")
    procs = k // runs
    over[runs] = (c - t, procs, k)
    print(f"  --runs {runs}: {procs} counted processes of {runs} run(s) each ({k} result lines), wall {c:.2f} s, timed work {t:.2f} s: "
          f"{1e3 * (c - t) / procs:.1f} ms per process beyond its timed work")
(o1, n1, _), (o5, n5, k5) = over[1], over[5]
if n1 == n5 and n5 > 0:
    print(f"  the 4 more runs inside each process: {1e3 * (o5 - o1) / (n5 * 4):.2f} ms each beyond their timed work")
PY
