#!/usr/bin/env bash
# The figures of bench/README.md's "A node cut off for a few seconds", in
# one command (as root: network namespaces):
#
#   BASE=$(git merge-base HEAD main) bench/backup.sh
#
# TestBackupsForACutNode (cmd/tsys/badnet) as a measurement: three nodes
# in network namespaces on a bridge, one worker each, keyed, memberlist's
# LAN timing; EP class A (CLASS) undisturbed, then with the worker node's
# bridge port down for 5 s (CUT, in seconds), from 0.5 s (AFTER) after it
# first borrows work, which it does as the job begins. A round runs the
# test once on BASE's tsys and once on this tree's, alternating, RUNS
# rounds (default 10). For each tree: the median (range) of the
# undisturbed and the cut jobs' wall_seconds, and of the ratio of each cut
# job to the undisturbed job just before it; how many cut jobs ended
# before the cut did (wall_seconds < AFTER + CUT); the backups, tasks run
# again and late results, summed; and the load average around the rounds.
# KEEP=DIR keeps each job's line (old.csv, new.csv) in DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10}
CLASS=${CLASS:-A}
CUT=${CUT:-5}
AFTER=${AFTER:-0.5}
BASE=${BASE:?set BASE to the commit to compare with, e.g. BASE=\$(git merge-base HEAD main)}
. bench/lib.sh
build_old_new "$BASE"
go test -c -o "$work/badnet.test" ./cmd/tsys/badnet

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "load before: $(load)"
for round in $(seq "$RUNS"); do
  for tree in old new; do
    measure=()
    [ "$tree" = old ] && measure=(-cut-measure)
    (cd cmd/tsys/badnet && "$work/badnet.test" -test.run 'TestBackupsForACutNode$' -test.count 1 \
      -badnet-tsys "$work/$tree" -cut-runs 1 -cut-class "$CLASS" -cut-for "${CUT}s" -cut-after "${AFTER}s" \
      -cut-csv "$work/$tree.csv" "${measure[@]}" >"$work/$tree.log" 2>&1) || {
      echo "round $round, $tree: the test failed:"
      cat "$work/$tree.log"
      exit 1
    }
  done
  echo "round $round done, load $(load)"
done
echo "load after: $(load)"
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"
  cp "$work/old.csv" "$work/new.csv" "$KEEP/"
fi

echo
echo "| tree | undisturbed s | cut ${CUT} s | cut / undisturbed | ended before the cut | backups | tasks_rerun | late_results |"
echo "|---|---|---|---|---|---|---|---|"
for tree in old new; do
  name=$BASE
  [ "$tree" = new ] && name="this tree"
  # Lines: run,kind,wall_seconds,backups,tasks_rerun,late_results; each
  # test writes run 1's undisturbed and cut jobs, then run 2's
  # undisturbed (the test's last check), which this leaves out.
  awk -F, -v name="$name" -v after="$AFTER" -v cut="$CUT" '
    function sort(v, k,   i, j, t) { for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t } }
    function median(v, k) { return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2 }
    $1 == 1 && $2 == "undisturbed" { u[++nu] = $3; last = $3 }
    $1 == 1 && $2 == "cut" { c[++nc] = $3; r[nc] = $3 / last; early += $3 < after + cut; b += $4; rr += $5; l += $6 }
    END { sort(u, nu); sort(c, nc); sort(r, nc)
      printf "| %s | %.2f (%.2f to %.2f) | %.2f (%.2f to %.2f) | %.2f (%.2f to %.2f) | %d of %d | %d | %d | %d |\n",
        name, median(u, nu), u[1], u[nu], median(c, nc), c[1], c[nc], median(r, nc), r[1], r[nc], early, nc, b, rr, l }' "$work/$tree.csv"
done
