#!/usr/bin/env bash
# evidence-table.sh RESULTS.tsv
#
# The README's table from scripts/evidence.sh's results: per setting and
# design, how many runs found each planted change, how many runs had a false
# alarm (an unchanged benchmark called a change) and the false alarms in
# all, and the median wall time of a run.
set -euo pipefail
awk -F'\t' 'NR > 1 {
  k = $3 "\t" $2
  if (!(k in n)) order[++m] = k
  n[k]++; a[k] += $5; b[k] += $6; c[k] += $7
  if ($8 != "?" && $8 > 0) { fr[k]++; fa[k] += $8 }
  w[k, n[k]] = $9
}
END {
  print "| setting | design | runs | +3 % found | +5 % found | +10 % found | runs with a false alarm (false alarms) | median wall time |"
  print "|:--|:--|--:|--:|--:|--:|--:|--:|"
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
    printf "| %s | %s | %d | %d | %d | %d | %d (%d) | %.0f s |\n", s, p[2], cnt, a[k], b[k], c[k], fr[k], fa[k], med
  }
}' "$1"
