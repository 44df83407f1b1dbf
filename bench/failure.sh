#!/usr/bin/env bash
# The figures of bench/README.md's section "Failure and cancellation", in
# one command:
#
#   BASE=c61120c bench/failure.sh
#
# 1. What tasks that can fail cost the programs that never fail: fib and
#    UTS T1 on 1 and 2 workers, this tree's tsys against BASE's, one run
#    each a round, alternating, REPS rounds (default 11): the median and
#    spread of the per-round ratios of wall time.
# 2. How soon a cancelled run returns on one node (BenchmarkCancel).
# 3. How soon a cancelled job ends on 2 nodes: in one process, two nodes
#    over real memberlist and TCP (BenchmarkCancelAcrossNodes: Run's
#    return, then EndJob until the other node stopped); and as processes,
#    examples/search rooted against a node process, interrupted (as
#    Ctrl-C) after 1 s, REPS times: the time from the signal to the
#    root's exit, and whether the node then serves the next job.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-11}
BASE=${BASE:?set BASE to the commit to compare with, e.g. BASE=c61120c}
work=$(mktemp -d)
node=
cleanup() {
  git worktree remove --force "$work/base" 2>/dev/null || true
  if [ -n "$node" ]; then kill "$node" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

git worktree add --detach "$work/base" "$BASE" >/dev/null
(cd "$work/base" && go build -o "$work/old" ./cmd/tsys)
go build -o "$work/new" ./cmd/tsys
go build -o "$work/search" ./examples/search

. bench/lib.sh

echo "== programs that never fail: $BASE against this tree, alternating, $REPS rounds"
for job in "fib -n 39" "uts --tree T1"; do
  for w in 1 2; do
    for _ in $(seq "$REPS"); do
      o=$(wall "$work/old" run $job --workers "$w")
      n=$(wall "$work/new" run $job --workers "$w")
      echo "$o $n"
    done | pair_row "$job | $w"
  done
done

echo "== a cancelled run on one node (BenchmarkCancel)"
go test -run XXX -bench BenchmarkCancel -benchtime "${REPS}x" ./tsys/ | grep '^Benchmark'

echo "== a cancelled job on 2 nodes, in one process (BenchmarkCancelAcrossNodes)"
go test -run XXX -bench BenchmarkCancelAcrossNodes -benchtime "${REPS}x" ./cluster/ | grep '^Benchmark'

echo "== a cancelled job on 2 node processes: examples/search interrupted after 1 s, $REPS times"
"$work/search" node --fast --workers 1 >"$work/node.out" 2>"$work/node.err" &
node=$!
for _ in $(seq 50); do [ -s "$work/node.out" ] && break; sleep 0.1; done
seed=$(sed -n 's/.*gossip \([^,]*\),.*/\1/p' "$work/node.out")
for _ in $(seq "$REPS"); do
  "$work/search" run search --zeros 60 --join "$seed" --workers 1 >/dev/null 2>"$work/run.err" &
  pid=$!
  sleep 1
  t0=$(date +%s%N)
  kill -INT "$pid"
  wait "$pid" || true
  t1=$(date +%s%N)
  next=$("$work/search" run search --zeros 14 --join "$seed" --workers 1 --json | sed -n 's/.*"nodes":\([0-9]*\).*/\1/p')
  echo "$(( (t1 - t0) / 1000000 )) ms to exit; the next job ran on $next nodes"
done
