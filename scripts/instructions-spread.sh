#!/usr/bin/env bash
# instructions-spread.sh [ROUNDS] [TARGET]
#
# How much instruction counts under Valgrind (the instruction lane,
# internal/callgrind) and wall time vary from process to process, for
# benchmarks of this project's test modules (allocating and not), measured
# on this machine at the same time: each of ROUNDS rounds (default 10) runs
# every benchmark once natively (sec/op) and once under callgrind
# (instructions/op, at N and 2N). TARGET (default 300ms) is the valgrind
# time one loop aims at. Needs valgrind (apt-get install valgrind).
#
# docs/dev/evidence/instructions-spread.txt holds a run's output.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "# command: scripts/instructions-spread.sh $*"
exec go run ./scripts/instructions-spread -rounds "${1:-10}" -target "${2:-300ms}"
