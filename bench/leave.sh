#!/usr/bin/env bash
# The figures of bench/README.md's "Runs that end leave cleanly": noise
# that ended runs leave on a cluster, before and after, in one command:
#
#   BASE=8727485 bench/leave.sh
#
# Three `tsys node` on loopback (fixed ports from PORT, default 17946),
# balancing, and JOBS (default 50) jobs of fib -n 20 run one after
# another with --join, on BASE's tsys and then on this tree's. For each
# tree: how many lines the nodes and the runs logged that name a dial to
# a gone process ("dial failed") or a gone member invited ("cannot take
# part"), and how long the jobs took in all.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-50}
PORT=${PORT:-17946}
BASE=${BASE:?set BASE to the commit to compare with, e.g. BASE=8727485}
. bench/lib.sh
build_old_new "$BASE"

echo "| tree | jobs | \"dial failed\" lines, nodes | runs | \"cannot take part\" lines, nodes | runs | seconds for the jobs |"
echo "|---|---|---|---|---|---|---|"
for tree in old new; do
  bin=$work/$tree
  pids=()
  for i in 0 1 2; do
    join=()
    [ "$i" -gt 0 ] && join=(--join "127.0.0.1:$PORT")
    "$bin" node --bind "127.0.0.1:$((PORT + i))" --sched balance "${join[@]}" >"$work/$tree.node$i.log" 2>&1 &
    pids+=($!)
  done
  sleep 2
  : >"$work/$tree.runs.log"
  start=$(date +%s.%N)
  for _ in $(seq "$JOBS"); do
    "$bin" run fib -n 20 --workers 1 --sched balance --join "127.0.0.1:$PORT" >/dev/null 2>>"$work/$tree.runs.log"
  done
  took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
  sleep 2
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  count() { cat "$@" | grep -c "$pattern" || true; }
  pattern="dial failed"; dn=$(count "$work/$tree".node*.log); dr=$(count "$work/$tree.runs.log")
  pattern="cannot take part"; cn=$(count "$work/$tree".node*.log); cr=$(count "$work/$tree.runs.log")
  name=$BASE
  [ "$tree" = new ] && name="this tree"
  printf '| %s | %d | %d | %d | %d | %d | %.1f |\n' "$name" "$JOBS" "$dn" "$dr" "$cn" "$cr" "$took"
done
