#!/usr/bin/env bash
# The generated fast clone against the one a BASE commit wrote by hand
# (issue 27): BenchmarkNatural's clone rows (fib 35, nqueens 14, UTS T1;
# each iteration times serial, 1 worker and 2 workers back to back), from
# BASE's test binary and this tree's, alternating, ROUNDS rounds (default
# 7). Prints, per job and build, the median over rounds of the clone's
# time on 1 worker against serial and of 1 worker against 2, and the ratio
# of this tree's median to BASE's.
#
#   BASE=1fdb086 bench/clone.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-7}
BASE=${BASE:?set BASE to the commit whose clones were written by hand, e.g. BASE=1fdb086}
JOBS=${JOBS:-fib35|nqueens14|utsT1}
. bench/lib.sh
checkout_base "$BASE"
(cd "$work/base" && go test -c -o "$work/old.test" ./bench)
go test -c -o "$work/new.test" ./bench
cd bench
for r in $(seq "$ROUNDS"); do
  for build in old new; do
    "$work/$build.test" -test.run XXX -test.bench "BenchmarkNatural/($JOBS)/clone\$" -test.benchtime 10x |
      awk -v b="$build" '/^BenchmarkNatural/ { for (i = 1; i <= NF; i++) { if ($i == "w1/serial") s = $(i-1); if ($i == "w1/w2") w = $(i-1) }
        sub(/^BenchmarkNatural\//, "", $1); sub(/\/clone.*/, "", $1); print b, $1, s, w }'
  done
done | awk -v base="$BASE" '
  function sort(v, k,   i, j, t) { for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t } }
  function median(v, k) { sort(v, k); return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2 }
  { key = $1 SUBSEP $2; n[key]++; s[key, n[key]] = $3; w[key, n[key]] = $4; jobs[$2] = 1 }
  END {
    printf "| job | %s clone: 1 worker / serial | this tree | this tree / %s | %s: 2 workers speed-up | this tree |\n", base, base, base
    print "|---|---|---|---|---|---|"
    for (j in jobs) {
      for (b = 0; b < 2; b++) { build = b ? "new" : "old"; k = n[build, j]
        for (i = 1; i <= k; i++) { vs[i] = s[build, j, i]; vw[i] = w[build, j, i] }
        ms[build] = median(vs, k); mw[build] = median(vw, k)
        lo[build] = vs[1]; hi[build] = vs[k] }
      printf "| %s | %.3f (%.3f to %.3f) | %.3f (%.3f to %.3f) | %.3f | %.2f | %.2f |\n", j, ms["old"], lo["old"], hi["old"], ms["new"], lo["new"], hi["new"], ms["new"] / ms["old"], mw["old"], mw["new"]
    }
  }'
