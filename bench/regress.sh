#!/usr/bin/env bash
# Is this tree slower than BASE anywhere that matters? One command:
#
#   BASE=65394ba bench/regress.sh
#
# fib -n 39, UTS T1 and EP W, on one node of 2 workers and on 2 nodes of
# one worker each (--nodes 2, which adds no start-up: wall_seconds counts
# the job from its start across the nodes), BASE's tsys against this
# tree's, one run each a round, alternating, REPS rounds (default 15).
# For each: the median job time of each build and the median and spread
# of the per-round ratios (this tree / BASE).
#
# JOBS and SHAPES (each a list separated by ';') choose other jobs and
# "nodes workers" shapes, e.g. the fast clones of issue 27 on one worker:
#
#   BASE=1fdb086 JOBS='fib -n 35;nqueens -n 14;uts --tree T1' SHAPES='1 1' bench/regress.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-15}
BASE=${BASE:?set BASE to the commit to compare with, e.g. BASE=65394ba}
. bench/lib.sh
build_old_new "$BASE"

echo "| job | nodes x workers | $BASE s | this tree s | this tree / $BASE |"
echo "|---|---|---|---|---|"
IFS=';' read -ra jobs <<<"${JOBS:-fib -n 39;uts --tree T1;ep --class W}"
IFS=';' read -ra shapes <<<"${SHAPES:-1 2;2 1}"
for job in "${jobs[@]}"; do
  for shape in "${shapes[@]}"; do
    read -r nodes workers <<<"$shape"
    for _ in $(seq "$REPS"); do
      o=$(wall "$work/old" run $job --nodes "$nodes" --workers "$workers")
      n=$(wall "$work/new" run $job --nodes "$nodes" --workers "$workers")
      echo "$o $n"
    done | pair_row "$job | $nodes x $workers"
  done
done
