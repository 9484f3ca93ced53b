#!/usr/bin/env bash
# evidence-table.sh RESULTS.tsv
#
# docs/dev/evidence-log.md's table from scripts/evidence.sh's results: per setting and
# design, how many runs found each planted change, how many runs had a false
# alarm (an unchanged benchmark called a change) and the false alarms in
# all, the median wall time of a run, and, for benchgate's designs, the
# median over runs of the unchanged benchmarks' median per-round noise (from
# the per-run JSON files beside RESULTS.tsv).
set -euo pipefail
dir=$(dirname "$1")
noise() { # noise DESIGN SETTING: median over runs of the Same rows' median noise, in %
  local files=("$dir/$1-$2-"*.json)
  [[ -e ${files[0]} ]] || { echo "—"; return; }
  jq -s '[.[] | [.time[] | select(.name | startswith("Same")) | .noise // empty] | sort | select(length > 0) | .[length / 2 | floor]] | sort |
    if length == 0 then "—" else (.[length / 2 | floor] * 1000 | round / 10 | tostring) + " %" end' -r "${files[@]}"
}
declare -A noises
while IFS=$'\t' read -r d s; do
  noises["$s $d"]=$(noise "$d" "$s")
done < <(awk -F'\t' 'NR > 1 { print $2 "\t" $3 }' "$1" | sort -u)
for k in "${!noises[@]}"; do printf '%s\t%s\n' "$k" "${noises[$k]}"; done > "$dir/.noise.tmp"
awk -F'\t' -v nf="$dir/.noise.tmp" 'BEGIN { while ((getline l < nf) > 0) { split(l, a, "\t"); nz[a[1]] = a[2] } }
NR > 1 {
  k = $3 "\t" $2
  if (!(k in n)) order[++m] = k
  n[k]++; a[k] += $5; b[k] += $6; c[k] += $7
  if ($11 != "") { e[k] += $11; en[k]++ }
  if ($8 != "?" && $8 > 0) { fr[k]++; fa[k] += $8 }
  w[k, n[k]] = $9
}
END {
  print "| setting | design | runs | +3 % found | +5 % found | +10 % found | −5 % found | runs with a false alarm (false alarms) | noise per round | median wall time |"
  print "|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|"
  for (i = 1; i <= m; i++) {
    k = order[i]; split(k, p, "\t")
    cnt = n[k]
    for (x = 1; x <= cnt; x++) v[x] = w[k, x] + 0
    for (x = 2; x <= cnt; x++) { t = v[x]; y = x - 1; while (y >= 1 && v[y] > t) { v[y + 1] = v[y]; y-- } v[y + 1] = t }
    med = (cnt % 2) ? v[(cnt + 1) / 2] : (v[cnt / 2] + v[cnt / 2 + 1]) / 2
    s = p[1]
    if (s == "t5") s = "defaults (5 %, 10 rounds)"
    if (s == "t2") s = "--threshold 2%"
    if (s == "t1c20") s = "--threshold 1% --count 20"
    d = p[2]
    if (d == "new") d = "benchgate, new defaults"
    if (d == "old") d = "benchgate --runs 1 (old design)"
    if (d == "prev") d = "benchgate, the previous design (prev)"
    if (d == "seq") d = "go test + benchstat, sequential"
    z = nz[p[1] " " p[2]]; if (z == "") z = "—"
    m5 = (k in en) ? sprintf("%d", e[k]) : "—"
    printf "| %s | %s | %d | %d | %d | %d | %s | %d (%d) | %s | %.0f s |\n", s, d, cnt, a[k], b[k], c[k], m5, fr[k], fa[k], z, med
  }
}' "$1"
rm -f "$dir/.noise.tmp"
