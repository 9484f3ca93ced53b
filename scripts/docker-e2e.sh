#!/usr/bin/env bash
# docker-e2e.sh: build benchgate's action image and run it the way the GitHub
# Actions runner runs a Docker container action, against a fake GitHub API.
#
#   bash scripts/docker-e2e.sh        (from anywhere; needs docker, go, git, jq, curl)
#
# Prepare the engine and the base image first (.ci/run does):
#   bash ../shared/tools/docker-golang-image.sh
#
# The scenario is a pull request on a small Go module: the PR makes one
# benchmark about 4x slower and adds one allocation to another; a third, in a
# sub-package, is unchanged. The origin repository has main, the PR branch and
# GitHub's test merge commit (refs/pull/7/merge); the workspace is a depth-1
# checkout of that merge commit, fetched by SHA as actions/checkout does, and
# owned by uid 1001 (the runner user) while the container runs as root.
#
#   run 1  pull_request: exit 1, job summary, step outputs, report JSON, one
#          sticky comment; only the inputs a user would set, the rest default
#   run 2  same event again, with every input of action.yml set as the runner
#          sets them (defaults filled in, ${{ github.token }} for the token):
#          the same comment is edited (PATCH), not duplicated
#   run 3  pull request from a fork, read-only token (403): still exit 1, a note
#          in the summary, a ::warning, the comment untouched
#   run 4  pull_request_target without allow-privileged-events: exit 2
#   run 5  a hostile pull request: its benchmarks read the token variables and
#          /proc/1/environ, write the file-command files, open the Docker
#          socket (mounted, as the runner does), read the checkout's persisted
#          credentials, print forged workflow commands (also in a failing
#          run's message and in sub-benchmark names): nothing leaks, no forged
#          command would run, the verdict is the real one
#
# After every run the workspace must be exactly as checked out: no changed or
# untracked files but benchgate-report.json, no extra worktrees, nothing owned
# by root.
#
# Prints PASS/FAIL lines and ends with "N passed, M failed"; exits 1 if any
# check failed. BENCHGATE_E2E_KEEP=1 keeps the temporary directory.
set -Eeuo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
image=benchgate-e2e
key=e2e-bench
pr=7
repo=owner/repo

passed=0
failed=0
finished=0
tmp=""
fake_pid=""
run_pid=""
containers=()

pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# check DESCRIPTION COMMAND...: PASS if the command succeeds.
check() {
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
log() { echo "--- $*"; }

summary_line() {
  if [[ $finished == 0 ]]; then
    finished=1
    echo "$passed passed, $failed failed"
  fi
}

# as_root CMD ARGS...: run a command as root on the host, directly or, for a
# non-root user, in a container of the image with the temporary directory
# mounted at the same path.
as_root() {
  if [[ $(id -u) == 0 ]]; then
    "$@"
  else
    docker run --rm -v "$tmp:$tmp" --entrypoint "$1" "$image" "${@:2}"
  fi
}

cleanup() {
  local status=$?
  set +e
  trap - ERR
  for c in "${containers[@]}"; do
    docker rm -f "$c" >/dev/null 2>&1
  done
  if [[ -n $run_pid ]]; then
    kill -TERM "$run_pid" 2>/dev/null
    wait "$run_pid" 2>/dev/null
  fi
  if [[ -n $fake_pid ]]; then
    kill -TERM "$fake_pid" 2>/dev/null
    wait "$fake_pid" 2>/dev/null
  fi
  if [[ -n $tmp && -d $tmp ]]; then
    if [[ ${BENCHGATE_E2E_KEEP:-} == 1 ]]; then
      echo "kept $tmp"
    elif [[ $(id -u) == 0 ]]; then
      rm -rf "$tmp"
    else
      # The container leaves root-owned files (build cache) behind.
      local parent
      parent=$(dirname "$tmp")
      docker run --rm -v "$parent:$parent" --entrypoint rm "$image" -rf "$tmp"
      rm -rf "$tmp"
    fi
  fi
  if [[ $status != 0 && $failed == 0 ]]; then
    fail "the script stopped early (status $status)"
  fi
  summary_line
  if [[ $failed != 0 ]]; then exit 1; fi
  exit "$status"
}
trap cleanup EXIT
trap 'fail "line $LINENO: $BASH_COMMAND exited with status $?"' ERR
trap 'trap - ERR; fail "interrupted by a signal"; exit 130' INT TERM

for tool in docker go git jq curl timeout; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    fail "setup: $tool is not installed"
    exit 1
  fi
done

tmp=$(mktemp -d -t benchgate-e2e.XXXXXX)
mkdir -p "$tmp"/{ws,home,workflow,filecmds,runnertemp,logs}

# Isolate the host's git from any user or system configuration.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$tmp/gitconfig"
export GIT_AUTHOR_NAME=Mona GIT_AUTHOR_EMAIL=mona@example.com
export GIT_COMMITTER_NAME=Mona GIT_COMMITTER_EMAIL=mona@example.com
: >"$GIT_CONFIG_GLOBAL"
# The workspace belongs to uid 1001, so the host's checks need
# safe.directory; GIT_OPTIONAL_LOCKS=0 keeps git status from rewriting the
# index (as root) while looking.
hgit() { GIT_OPTIONAL_LOCKS=0 git -c safe.directory='*' -C "$tmp/ws" "$@"; }

# ---------------------------------------------------------------------------
log "building image $image"
start=$SECONDS
old_image=$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
if ! docker build --force-rm -t "$image" "$root" >"$tmp/logs/build.log" 2>&1; then
  tail -n 40 "$tmp/logs/build.log"
  fail "setup: docker build"
  exit 1
fi
new_image=$(docker image inspect -f '{{.Id}}' "$image")
if [[ -n $old_image && $old_image != "$new_image" ]]; then
  docker rmi "$old_image" >/dev/null 2>&1 || true # the previous build, now untagged
fi
log "image built in $((SECONDS - start))s"

log "starting the fake GitHub API"
token="ghs_e2e$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
(cd "$root" && go build -o "$tmp/fakegithub" ./e2e/fakegithub && go build -o "$tmp/runnercmds" ./e2e/runnercmds)
"$tmp/fakegithub" -addr 127.0.0.1:0 -token "$token" -url-file "$tmp/fake.url" >"$tmp/logs/fake.log" 2>&1 &
fake_pid=$!
for _ in $(seq 100); do
  [[ -s $tmp/fake.url ]] && break
  sleep 0.1
done
if [[ ! -s $tmp/fake.url ]]; then
  cat "$tmp/logs/fake.log"
  fail "setup: the fake GitHub API did not start"
  exit 1
fi
api_url=$(cat "$tmp/fake.url") # http://127.0.0.1:PORT/api/v3
fake=${api_url%/api/v3}
log "fake GitHub API at $api_url"

# ---------------------------------------------------------------------------
log "building the origin repository"
origin=$tmp/origin
git init -q -b main "$origin"
# GitHub lets clients fetch any reachable commit by SHA.
git -C "$origin" config uploadpack.allowReachableSHA1InWant true
mkdir -p "$origin/stable"
cat >"$origin/go.mod" <<'EOF'
module example.com/e2ebench

go 1.26
EOF
cat >"$origin/mix.go" <<'EOF'
// Package e2ebench is the module scripts/docker-e2e.sh benchmarks.
package e2ebench

import "strings"

// rounds is how much work Mix does per call.
const rounds = 64

// Mix scrambles x.
func Mix(x uint64) uint64 {
	for i := 0; i < rounds; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// Join joins parts with commas.
func Join(parts []string) string {
	return strings.Join(parts, ",")
}
EOF
cat >"$origin/mix_test.go" <<'EOF'
package e2ebench

import "testing"

var (
	sinkU uint64
	sinkS string
)

func BenchmarkMix(b *testing.B) {
	x := uint64(1)
	for b.Loop() {
		x = Mix(x)
	}
	sinkU = x
}

func BenchmarkJoin(b *testing.B) {
	parts := []string{"alpha", "beta", "gamma"}
	for b.Loop() {
		sinkS = Join(parts)
	}
}
EOF
cat >"$origin/stable/sum.go" <<'EOF'
// Package stable has a benchmark that the pull request does not change.
package stable

// Sum adds xs.
func Sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}
EOF
cat >"$origin/stable/sum_test.go" <<'EOF'
package stable

import "testing"

var sink int

func BenchmarkSum(b *testing.B) {
	xs := make([]int, 256)
	for i := range xs {
		xs[i] = i
	}
	for b.Loop() {
		sink = Sum(xs)
	}
}
EOF
git -C "$origin" add -A
git -C "$origin" commit -q -m "initial module"
pr_base=$(git -C "$origin" rev-parse HEAD) # pull_request.base.sha: main when the PR was opened

git -C "$origin" checkout -q -b slower
sed -i 's/const rounds = 64/const rounds = 256/' "$origin/mix.go"
sed -i 's/return strings.Join(parts, ",")/return strings.Clone(strings.Join(parts, ","))/' "$origin/mix.go"
git -C "$origin" commit -q -am "mix harder, copy the joined string"
pr_head=$(git -C "$origin" rev-parse HEAD)

# main moves on after the PR was opened, so pull_request.base.sha is stale and
# the merge commit's first parent is the current tip of main.
git -C "$origin" checkout -q main
echo "# e2ebench" >"$origin/README.md"
git -C "$origin" add README.md
git -C "$origin" commit -q -m "add a README"
main_tip=$(git -C "$origin" rev-parse HEAD)

git -C "$origin" checkout -q --detach main
git -C "$origin" merge -q --no-ff -m "Merge $pr_head into $main_tip" slower
merge=$(git -C "$origin" rev-parse HEAD)
git -C "$origin" update-ref "refs/pull/$pr/head" "$pr_head"
git -C "$origin" update-ref "refs/pull/$pr/merge" "$merge"
git -C "$origin" checkout -q main
log "main $main_tip, PR head $pr_head, merge $merge"

# The workspace, as actions/checkout leaves it for a pull_request event.
ws=$tmp/ws
git -C "$ws" init -q
git -C "$ws" remote add origin "file://$origin"
git -C "$ws" -c protocol.version=2 fetch -q --no-tags --prune --no-recurse-submodules --depth=1 \
  origin "+$merge:refs/remotes/pull/$pr/merge"
git -C "$ws" checkout -q --force "refs/remotes/pull/$pr/merge"
# actions/checkout's default persist-credentials: the token in .git/config.
git -C "$ws" config --local http.https://github.com/.extraheader \
  "AUTHORIZATION: basic $(printf 'x-access-token:%s' "$token" | base64 -w0)"
as_root chown -R 1001:1001 "$ws"
if [[ $(id -u) != 0 ]]; then
  as_root chown -R 0:0 "$origin" # the container (root) fetches from it
fi

# ---------------------------------------------------------------------------
# Event payloads.
# pr_event FILE HEAD_OWNER FORK
pr_event() {
  local head_repo="$2/repo"
  cat >"$1" <<EOF
{
  "action": "synchronize",
  "number": $pr,
  "before": "$pr_base",
  "after": "$pr_head",
  "pull_request": {
    "url": "https://api.github.com/repos/$repo/pulls/$pr",
    "id": 2100000007,
    "number": $pr,
    "state": "open",
    "locked": false,
    "title": "Mix harder",
    "user": {"login": "$2", "id": 583231, "type": "User"},
    "body": "Makes Mix slower and Join allocate.",
    "merge_commit_sha": "$merge",
    "draft": false,
    "head": {
      "label": "$2:slower",
      "ref": "slower",
      "sha": "$pr_head",
      "user": {"login": "$2", "id": 583231, "type": "User"},
      "repo": {"id": 700000002, "name": "repo", "full_name": "$head_repo", "private": false,
               "owner": {"login": "$2", "id": 583231, "type": "User"}, "fork": $3, "default_branch": "main"}
    },
    "base": {
      "label": "owner:main",
      "ref": "main",
      "sha": "$pr_base",
      "user": {"login": "owner", "id": 9919, "type": "Organization"},
      "repo": {"id": 700000001, "name": "repo", "full_name": "$repo", "private": false,
               "owner": {"login": "owner", "id": 9919, "type": "Organization"}, "fork": false, "default_branch": "main"}
    },
    "author_association": "CONTRIBUTOR",
    "mergeable": null,
    "commits": 1
  },
  "repository": {"id": 700000001, "name": "repo", "full_name": "$repo", "private": false,
                 "owner": {"login": "owner", "id": 9919, "type": "Organization"}, "fork": false, "default_branch": "main"},
  "sender": {"login": "$2", "id": 583231, "type": "User"}
}
EOF
}
pr_event "$tmp/event-pr.json" owner false
pr_event "$tmp/event-fork.json" contributor true

# ---------------------------------------------------------------------------
# run_action N EVENT_NAME EVENT_FILE SHA [docker -e arguments...]
# Runs the image as the runner does, with fresh file-command files. Sets rc,
# out (stdout), err (stderr), summary and outputs (host paths).
run_action() {
  local n=$1 event_name=$2 event_file=$3 sha=$4
  shift 4
  local name="benchgate-e2e-$$-$n"
  cp "$event_file" "$tmp/workflow/event.json"
  summary=$tmp/filecmds/step_summary_$n
  outputs=$tmp/filecmds/set_output_$n
  : >"$summary"
  : >"$outputs"
  : >"$tmp/filecmds/set_env_$n"
  : >"$tmp/filecmds/add_path_$n"
  : >"$tmp/filecmds/save_state_$n"
  out=$tmp/logs/run$n.out
  err=$tmp/logs/run$n.err
  touch "$tmp/logs/run$n.start"
  containers+=("$name")
  local start=$SECONDS
  rc=0
  timeout -k 10 900 docker run --name "$name" --rm --network host \
    --workdir /github/workspace \
    -e HOME=/github/home \
    -e GITHUB_ACTIONS=true -e CI=true \
    -e GITHUB_EVENT_NAME="$event_name" \
    -e GITHUB_EVENT_PATH=/github/workflow/event.json \
    -e GITHUB_SHA="$sha" \
    -e GITHUB_REF="$ref" \
    -e GITHUB_REPOSITORY="$repo" \
    -e GITHUB_REPOSITORY_OWNER=owner \
    -e GITHUB_API_URL="$api_url" \
    -e GITHUB_SERVER_URL=https://github.com \
    -e GITHUB_GRAPHQL_URL="$fake/api/graphql" \
    -e GITHUB_RUN_ID="$((4200 + n))" -e GITHUB_RUN_NUMBER="$n" -e GITHUB_RUN_ATTEMPT=1 \
    -e GITHUB_WORKFLOW=Benchmarks -e GITHUB_JOB=bench -e GITHUB_ACTOR=mona \
    -e GITHUB_ACTION=__benchgate_benchgate -e GITHUB_ACTION_REPOSITORY=benchgate/benchgate \
    -e GITHUB_WORKSPACE=/github/workspace \
    -e GITHUB_STEP_SUMMARY="/github/file_commands/step_summary_$n" \
    -e GITHUB_OUTPUT="/github/file_commands/set_output_$n" \
    -e GITHUB_ENV="/github/file_commands/set_env_$n" \
    -e GITHUB_PATH="/github/file_commands/add_path_$n" \
    -e GITHUB_STATE="/github/file_commands/save_state_$n" \
    -e RUNNER_OS=Linux -e RUNNER_ARCH=X64 -e RUNNER_NAME="GitHub Actions 2" \
    -e RUNNER_ENVIRONMENT=github-hosted \
    -e RUNNER_TEMP=/github/runner_temp \
    -e RUNNER_TOOL_CACHE=/opt/hostedtoolcache \
    "$@" \
    -v "$tmp/ws:/github/workspace" \
    -v "$tmp/home:/github/home" \
    -v "$tmp/workflow:/github/workflow" \
    -v "$tmp/filecmds:/github/file_commands" \
    -v "$tmp/runnertemp:/github/runner_temp" \
    -v "$origin:$origin" \
    "$image" >"$out" 2>"$err" &
  # In the background, so that a signal to this script is handled at once
  # (the trap removes the container) instead of after the run.
  run_pid=$!
  wait "$run_pid" || rc=$?
  run_pid=""
  log "run $n ($event_name) exited with status $rc after $((SECONDS - start))s"
}

# show_run N: the run's output, for a failed check.
show_run() {
  echo "    ----- run $1: stderr (last 40 lines)"
  tail -n 40 "$tmp/logs/run$1.err" | sed 's/^/    /'
  echo "    ----- run $1: stdout (last 20 lines)"
  tail -n 20 "$tmp/logs/run$1.out" | sed 's/^/    /'
}

# output NAME FILE: the value of a step output in a GITHUB_OUTPUT file, in
# either form (name=value or name<<DELIMITER ... DELIMITER); the last one wins.
output() {
  awk -v want="$1" '
    mode == 1 {
      if ($0 == delim) { mode = 0; if (key == want) { val = acc; got = 1 } }
      else { acc = (nl ? acc "\n" : "") $0; nl = 1 }
      next
    }
    /^[^=]+<</ { i = index($0, "<<"); key = substr($0, 1, i - 1); delim = substr($0, i + 2); acc = ""; nl = 0; mode = 1; next }
    /=/ { i = index($0, "="); if (substr($0, 1, i - 1) == want) { val = substr($0, i + 1); got = 1 } }
    END { if (got) print val; else exit 1 }
  ' "$2"
}

# host_path CONTAINER_PATH: where a container path is on the host. A relative
# path is taken relative to the container's working directory, the workspace.
host_path() {
  case $1 in
    "") return 1 ;;
    /github/workspace) echo "$tmp/ws" ;;
    [!/]*) echo "$tmp/ws/$1" ;;
    /github/runner_temp/*) echo "$tmp/runnertemp/${1#/github/runner_temp/}" ;;
    /github/workspace/*) echo "$tmp/ws/${1#/github/workspace/}" ;;
    /github/home/*) echo "$tmp/home/${1#/github/home/}" ;;
    /github/file_commands/*) echo "$tmp/filecmds/${1#/github/file_commands/}" ;;
    *) return 1 ;;
  esac
}

comments() { curl -fsS "$fake/_fake/comments"; }
requests() { curl -fsS "$fake/_fake/requests"; }
count_requests() { requests | jq --arg m "$1" '[.[] | select(.method == $m)] | length'; }

# The workspace must be exactly as actions/checkout left it, but for the one
# documented file benchgate adds: the JSON report named by the report-json
# output (workspace-relative, so that later steps on the host can use it).
report_in_ws=""
check_workspace() {
  local n=$1 status worktrees rootfiles head
  # Ownership first: nothing the host does below may create files.
  rootfiles=$(find "$tmp/ws" -uid 0 | head -n 5)
  check "run $n: no file under the workspace is owned by root" test -z "$rootfiles"
  [[ -z $rootfiles ]] || sed 's/^/    /' <<<"$rootfiles"
  status=$(hgit status --porcelain --ignored --untracked-files=all 2>&1) || status="git status failed: $status"
  if [[ -n $report_in_ws ]]; then
    status=$(grep -v -x -F -e "?? $report_in_ws" -e "!! $report_in_ws" <<<"$status" || true)
  fi
  check "run $n: workspace has no changed, untracked or ignored files" test -z "$status"
  [[ -z $status ]] || head -n 10 <<<"$status" | sed 's/^/    /'
  worktrees=$(hgit worktree list --porcelain | grep -c '^worktree ' || true)
  check "run $n: git worktree list shows only the workspace ($worktrees)" test "$worktrees" = 1
  head=$(hgit rev-parse HEAD)
  check "run $n: workspace HEAD is still the merge commit" test "$head" = "$merge"
}

# The token may only appear in ::add-mask:: commands, which the runner consumes.
check_no_token() {
  local n=$1 leaks
  leaks=$(cat "$out" "$err" "$summary" "$outputs" | grep -F -- "$token" | grep -v '^::add-mask::' || true)
  check "run $n: the token appears in no output, summary or log" test -z "$leaks"
}

has_line() { grep -Eq -- "$1" "$2"; }            # has_line REGEX FILE
has_text() { grep -Fq -- "$1" "$2"; }            # has_text STRING FILE
json_true() { jq -e "$1" "$2" >/dev/null 2>&1; } # json_true FILTER FILE

# action_inputs: "NAME<TAB>DEFAULT" for every input of action.yml.
action_inputs() {
  awk '
    /^inputs:/ { inp = 1; next }
    /^[^ #]/ { inp = 0 }
    inp && /^  [a-z][a-z0-9_-]*:[ \t]*$/ { name = $1; sub(/:$/, "", name); names[++n] = name; def[name] = ""; next }
    inp && name != "" && /^    default:/ {
      v = $0; sub(/^    default:[ \t]*/, "", v); sub(/^["\047]/, "", v); sub(/["\047]$/, "", v); def[name] = v
    }
    END { for (i = 1; i <= n; i++) printf "%s\t%s\n", names[i], def[names[i]] }
  ' "$root/action.yml"
}

# The inputs a user sets in the workflow's with: block. The runner passes
# them as INPUT_<NAME>, upper case, hyphens kept.
user_inputs=(-e "INPUT_TOKEN=$token" -e "INPUT_COMMENT-KEY=$key" -e INPUT_COUNT=10 -e INPUT_BENCHTIME=20ms)

# What the runner really passes: every input of action.yml, the user's value
# or else the default, with expressions evaluated.
runner_inputs=()
while IFS=$'\t' read -r name def; do
  case $name in
    comment-key) value=$key ;;
    count) value=10 ;;
    benchtime) value=20ms ;;
    *) value=${def//'${{ github.token }}'/$token} ;;
  esac
  runner_inputs+=(-e "INPUT_$(tr '[:lower:] ' '[:upper:]_' <<<"$name")=$value")
done < <(action_inputs)

# A Markdown table row of the slowed benchmark: | Mix-2 | sec/op | ...
mix_row='^\|[^|]*Mix[^|]*\|[^|]*sec/op'

# ---------------------------------------------------------------------------
log "run 1: pull_request, first comment"
ref=refs/pull/$pr/merge
run_action 1 pull_request "$tmp/event-pr.json" "$merge" "${user_inputs[@]}"
before=$failed
check "run 1: exit status 1 (regression), got $rc" test "$rc" = 1
check "run 1: the job summary has a Markdown table with the slowed benchmark (Mix, sec/op)" has_line "$mix_row" "$summary"
check "run 1: the job summary has the table header" has_line '^\| *benchmark *\|' "$summary"
mix_line=$(grep -n '^func BenchmarkMix(' "$origin/mix_test.go" | cut -d: -f1)
check "run 1: an ::error annotation points at BenchmarkMix (mix_test.go line $mix_line)" \
  has_line "^::error file=mix_test.go,line=$mix_line[,:]" "$out"
verdict=$(output verdict "$outputs" || echo "<unset>")
regressions=$(output regressions "$outputs" || echo "<unset>")
report=$(output report-json "$outputs" || echo "<unset>")
check "run 1: output verdict=fail (got $verdict)" test "$verdict" = fail
check "run 1: output regressions >= 2 (time of Mix, allocs of Join; got $regressions)" \
  test "$regressions" -ge 2 2>/dev/null
report_host=$(host_path "$report" || echo "")
check "run 1: output report-json ($report) is under a mount, readable from the host" test -n "$report_host"
case $report_host in
  "$tmp/ws" | "$tmp/ws/"*) report_in_ws=${report_host#"$tmp/ws/"} ;;
esac
check "run 1: report-json is the documented workspace file benchgate-report.json (got $report)" test "$report_in_ws" = benchgate-report.json
check "run 1: report-json is a file written by this run" test -f "$report_host" -a "$report_host" -nt "$tmp/logs/run1.start"
if [[ -f $report_host ]]; then
  j=$report_host
  check "run 1: report JSON: verdict fail" json_true '.verdict == "fail"' "$j"
  check "run 1: report JSON: head is the merge commit (GITHUB_SHA)" json_true ".head.sha == \"$merge\"" "$j"
  check "run 1: report JSON: base is the merge commit's first parent, fetched into the shallow clone (not the stale base.sha)" \
    json_true ".base.sha == \"$main_tip\"" "$j"
  check "run 1: report JSON: count 10 and benchtime 20ms from the inputs" json_true '.count == 10 and .benchtime == "20ms"' "$j"
  check "run 1: report JSON: default threshold 5% and alpha 0.01" json_true '.policy.threshold == 0.05 and .policy.alpha == 0.01' "$j"
  check "run 1: report JSON: default fail-on time,allocs,bytes,failure" \
    json_true '(.policy.fail_on | sort) == ["allocs", "bytes", "time"] and .policy.fail_on_failure == true' "$j"
  check "run 1: report JSON: default packages ./... include the sub-package" \
    json_true 'any(.benchmarks[]; .package == "example.com/e2ebench/stable" and (.name | startswith("Sum")))' "$j"
  check "run 1: report JSON: Mix sec/op is a regression" \
    json_true 'any(.benchmarks[]; (.name | startswith("Mix")) and .unit == "sec/op" and .status == "regression")' "$j"
  check "run 1: report JSON: Join allocs/op is a regression (+1)" \
    json_true 'any(.benchmarks[]; (.name | startswith("Join")) and .unit == "allocs/op" and .status == "regression")' "$j"
fi
check_workspace 1
check_no_token 1
ncomments=$(comments | jq length)
check "run 1: the fake API has exactly one comment (got $ncomments)" test "$ncomments" = 1
body1=$(comments | jq -r '.[0].body // ""')
id1=$(comments | jq -r '.[0].id // ""')
check "run 1: the comment carries the marker <!-- benchgate:$key -->" grep -Fq -- "<!-- benchgate:$key -->" <<<"$body1"
check "run 1: the comment has the slowed benchmark's row" grep -Eq -- "$mix_row" <<<"$body1"
check "run 1: the comment is on PR #$pr of $repo" \
  test "$(comments | jq -r '.[0] | "\(.owner)/\(.repo)#\(.issue)"')" = "$repo#$pr"
bad_auth=$(requests | jq --arg t "Bearer $token" '[.[] | select(.authorization != $t)] | length')
check "run 1: every API request carried the token input (INPUT_TOKEN) as a Bearer token" test "$bad_auth" = 0
[[ $failed == "$before" ]] || show_run 1

# ---------------------------------------------------------------------------
log "run 2: pull_request again, the same comment is edited"
patches1=$(count_requests PATCH)
posts1=$(count_requests POST)
run_action 2 pull_request "$tmp/event-pr.json" "$merge" "${runner_inputs[@]}"
before=$failed
check "run 2: action.yml has the inputs the program reads ($((${#runner_inputs[@]} / 2)) found, token defaults to \${{ github.token }})" \
  test "$((${#runner_inputs[@]} / 2))" -ge 17 -a "$(action_inputs | grep -c -x -F "$(printf 'token\t${{ github.token }}')")" = 1
check "run 2: exit status 1 (regression), got $rc" test "$rc" = 1
check "run 2: the job summary has the slowed benchmark's row" has_line "$mix_row" "$summary"
ncomments=$(comments | jq length)
id2=$(comments | jq -r '.[0].id // ""')
body2=$(comments | jq -r '.[0].body // ""')
check "run 2: still exactly one comment (got $ncomments)" test "$ncomments" = 1
check "run 2: the comment's id is unchanged ($id1 -> $id2)" test "$id2" = "$id1"
check "run 2: the comment's body was updated" test "$body2" != "$body1"
check "run 2: the comment still carries the marker" grep -Fq -- "<!-- benchgate:$key -->" <<<"$body2"
patched=$(requests | jq --arg p "/api/v3/repos/$repo/issues/comments/$id1" '[.[] | select(.method == "PATCH" and .path == $p)] | length')
check "run 2: a PATCH of comment $id1 happened (PATCH requests: $patches1 -> $(count_requests PATCH))" \
  test "$(count_requests PATCH)" -gt "$patches1" -a "$patched" -ge 1
check "run 2: no comment was created (POST requests: $posts1 -> $(count_requests POST))" \
  test "$(count_requests POST)" = "$posts1"
check_workspace 2
check_no_token 2
[[ $failed == "$before" ]] || show_run 2

# ---------------------------------------------------------------------------
log "run 3: pull request from a fork, read-only token"
curl -fsS -X POST "$fake/_fake/readonly?on=true"
run_action 3 pull_request "$tmp/event-fork.json" "$merge" "${user_inputs[@]}"
curl -fsS -X POST "$fake/_fake/readonly?on=false"
before=$failed
check "run 3: exit status 1 (the gate's verdict, not the comment's 403), got $rc" test "$rc" = 1
check "run 3: the job summary has the slowed benchmark's row" has_line "$mix_row" "$summary"
comment_note() { grep -Ei 'comment' "$summary" | grep -Eiq 'fork|403|read-only|permission|not accessible|forbidden|could not|skipped'; }
check "run 3: the job summary has a note about the comment (fork, 403)" comment_note
check "run 3: a ::warning line about the comment was printed" has_line '^::warning( [^:]*)?::.*[Cc]omment' <(cat "$out" "$err")
verdict=$(output verdict "$outputs" || echo "<unset>")
check "run 3: output verdict=fail (got $verdict)" test "$verdict" = fail
ncomments=$(comments | jq length)
body3=$(comments | jq -r '.[0].body // ""')
check "run 3: still exactly one comment (got $ncomments)" test "$ncomments" = 1
check "run 3: the comment was left as run 2 wrote it" test "$body3" = "$body2"
check_workspace 3
check_no_token 3
[[ $failed == "$before" ]] || show_run 3

# ---------------------------------------------------------------------------
log "run 4: pull_request_target without allow-privileged-events"
writes4=$(($(count_requests POST) + $(count_requests PATCH)))
ref=refs/heads/main
run_action 4 pull_request_target "$tmp/event-pr.json" "$main_tip" "${user_inputs[@]}"
before=$failed
check "run 4: exit status 2 (refused), got $rc" test "$rc" = 2
check "run 4: the error names pull_request_target" has_text pull_request_target <(cat "$err" "$out")
check "run 4: the error names the allow-privileged-events input" has_text allow-privileged-events <(cat "$err" "$out")
check "run 4: nothing was written to GitHub" test "$(($(count_requests POST) + $(count_requests PATCH)))" = "$writes4"
check_workspace 4
check_no_token 4
[[ $failed == "$before" ]] || show_run 4

# ---------------------------------------------------------------------------
log "run 5: a hostile pull request"
git -C "$origin" checkout -q -b hostile "$pr_head"
cat >"$origin/spy_test.go" <<'SPY'
package e2ebench

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var secret = regexp.MustCompile(`s3cret|t0ken|_secret`)

// loot tries every channel to the credentials and the step's files and
// says what got through.
func loot() string {
	var b strings.Builder
	for _, kv := range os.Environ() {
		if secret.MatchString(kv) || strings.HasPrefix(kv, "GITHUB_") || strings.HasPrefix(kv, "ACTIONS_") || strings.HasPrefix(kv, "INPUT_") {
			fmt.Fprintf(&b, "LEAK env %s\n", kv)
		}
	}
	for _, p := range []string{"/proc/1/environ", fmt.Sprintf("/proc/%d/environ", os.Getppid())} {
		if data, err := os.ReadFile(p); err == nil && secret.Match(data) {
			fmt.Fprintf(&b, "LEAK read %s: %s\n", p, strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
	var targets []string
	if f, err := os.Open("targets.txt"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			m, _ := filepath.Glob(sc.Text())
			targets = append(targets, m...)
		}
		f.Close()
	}
	for _, p := range targets {
		if f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			fmt.Fprintln(f, "verdict=pass")
			f.Close()
			fmt.Fprintf(&b, "LEAK wrote %s\n", p)
		}
	}
	if data, err := os.ReadFile("/github/workspace/.git/config"); err == nil && strings.Contains(strings.ToLower(string(data)), "authorization") {
		fmt.Fprintf(&b, "LEAK the checkout's persisted credentials: %s\n", data)
	}
	for _, sock := range []string{"/var/run/docker.sock", "/run/docker.sock"} {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			fmt.Fprintf(&b, "LEAK docker socket %s\n", sock)
		}
	}
	return b.String()
}

func forge() {
	fmt.Println("::set-output name=verdict::pass")
	fmt.Println("::add-mask::regress")
	fmt.Println("noise ##[error file=README.md,line=1]forged")
	fmt.Fprintln(os.Stderr, "::error file=README.md,line=1::forged on stderr")
	fmt.Fprintln(os.Stderr, "::stop-commands::zzz")
}

func BenchmarkSpy(b *testing.B) {
	forge()
	if l := loot(); l != "" {
		b.Fatalf("::set-output name=verdict::pass\n%s", l)
	}
	for i := 0; i < b.N; i++ {
		sinkU = Mix(1)
	}
}

func BenchmarkNames(b *testing.B) {
	for _, name := range []string{"##[warning]forged", "::stop-commands::zzz"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sinkU = Mix(1)
			}
		})
	}
}
SPY
cat >"$origin/loud_test.go" <<'LOUD'
package e2ebench

import "testing"

func BenchmarkLoud(b *testing.B) {
	forge()
	b.Fatalf("::error file=README.md,line=1::forged failure\n##[set-output name=verdict;]pass\n::add-mask::regress\n%s", loot())
}
LOUD
printf '%s\n' '/github/file_commands/*' /github/workspace/.git/config /github/workflow/event.json >"$origin/targets.txt"
git -C "$origin" add -A
git -C "$origin" commit -q -m "benchmarks that try to steal the token"
hostile_head=$(git -C "$origin" rev-parse HEAD)
git -C "$origin" checkout -q --detach main
git -C "$origin" merge -q --no-ff -m "Merge $hostile_head into $main_tip" hostile
merge=$(git -C "$origin" rev-parse HEAD) # check_workspace compares HEAD with it
git -C "$origin" update-ref "refs/pull/$pr/merge" "$merge"
git -C "$origin" checkout -q main
hgit -c protocol.version=2 fetch -q --no-tags --depth=1 origin "+$merge:refs/remotes/pull/$pr/merge"
hgit checkout -q --force "refs/remotes/pull/$pr/merge"
as_root chown -R 1001:1001 "$ws"
secrets=(ghs_github_secret_e2e rt_runtime_secret_e2e oidc_request_secret_e2e)
sock=()
[[ -S /var/run/docker.sock ]] && sock=(-v /var/run/docker.sock:/var/run/docker.sock)
ref=refs/pull/$pr/merge
run_action 5 pull_request "$tmp/event-pr.json" "$merge" "${user_inputs[@]}" \
  -e "GITHUB_TOKEN=${secrets[0]}" -e "ACTIONS_RUNTIME_TOKEN=${secrets[1]}" \
  -e "ACTIONS_ID_TOKEN_REQUEST_TOKEN=${secrets[2]}" -e "ACTIONS_ID_TOKEN_REQUEST_URL=https://token.example/x" \
  -e ACTIONS_RESULTS_URL=https://results.example/ -e ACTIONS_CACHE_URL=https://cache.example/ \
  "${sock[@]}"
before=$failed
check "run 5: exit status 1 (Mix's real regression), got $rc" test "$rc" = 1
verdict=$(output verdict "$outputs" || echo "<unset>")
check "run 5: output verdict=fail (got $verdict)" test "$verdict" = fail
check "run 5: the outputs file has no line the benchmarks wrote" test -z "$(grep -F 'verdict=pass' "$outputs" || true)"
check "run 5: the summary has no line the benchmarks wrote" test -z "$(grep -F 'verdict=pass' "$summary" || true)"
check "run 5: the Loud benchmark's failure is reported" has_text Loud "$summary"
check "run 5: the Spy benchmark ran and found nothing to steal (a row, not a failure)" \
  json_true 'any(.benchmarks[]; (.name | startswith("Spy")) and .status != "failed")' "$tmp/ws/benchgate-report.json"
leaks=$( (cat "$out" "$err" "$summary" "$outputs"; comments | jq -r '.[].body'; requests | jq -r '.[].body') |
  grep -E -- "LEAK|${secrets[0]}|${secrets[1]}|${secrets[2]}|$token" | grep -v '^::add-mask::' || true)
check "run 5: no secret and no LEAK line in the log, summary, outputs or API request bodies" test -z "$leaks"
[[ -z $leaks ]] || head -n 10 <<<"$leaks" | sed 's/^/    /'
"$tmp/runnercmds" "$out" >"$tmp/logs/run5.cmds"
forged=$(grep -E '^UNGUARDED|^set-output|^add-mask: .*regress|^stop-commands: .*zzz' "$tmp/logs/run5.cmds" || true)
check "run 5: the runner would run no forged command" test -z "$forged"
[[ -z $forged ]] || head -n 10 <<<"$forged" | sed 's/^/    /'
check "run 5: the runner would still run benchgate's own annotation" has_line '^error: ::error file=mix_test.go' "$tmp/logs/run5.cmds"
check "run 5: the forgeries are in the log, inert" has_text '::set-output name=verdict::pass' "$out"
check "run 5: nothing on stderr holds a command" test -z "$("$tmp/runnercmds" "$err")"
sandboxed=$(find "$tmp/home" -uid 65532 | head -n 3)
check "run 5: the sandbox's home is given back to the runner user" test -z "$sandboxed"
check_workspace 5
check_no_token 5
[[ $failed == "$before" ]] || show_run 5

echo "--- done in ${SECONDS}s"
