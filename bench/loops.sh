#!/usr/bin/env bash
# The figures of bench/README.md's section "Loops", in one command:
#
#   bench/loops.sh            # ROUNDS=11
#
# 1. The loop benchmarks of package tsys (tsys/loop_bench_test.go): each
#    runs every form of its loop once per round, in turn, and reports the
#    median over ROUNDS rounds of the per-round ratios:
#    - BenchmarkLoopSum: sqrt(x) sin(x) summed over 50 M float64, as the
#      serial loop, hand-split goroutines, RegisterRange (default split,
#      and Grain(4096)), Reduce (closures) and RegisterLoop (per index),
#      on 1 and 2 workers;
#    - BenchmarkLoopMap (Map over 20 M float64) and BenchmarkLoopStore
#      (ForEach storing an int per element over 20 M) against hand-split
#      goroutines;
#    - BenchmarkLoopUneven: 200 000 iterations of Pareto-distributed
#      costs on 2 workers, the default split against factoring and a
#      sweep of grains;
#    - BenchmarkLoopChunkTarget: the default chunk length against others.
# 2. rt --flat (the rows of a sphereflake, uneven) split by halving and by
#    factoring, alternating, ROUNDS rounds: on 2 workers, and on 2 nodes
#    of 1 worker.
# The machine's load is printed before and after: a 2-worker speedup
# means little on a machine that was busy.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-11}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. bench/lib.sh

echo "== $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
go test -run XXX -bench 'BenchmarkLoop(Sum|Map|Store|Uneven|ChunkTarget)$' -benchtime "${ROUNDS}x" -timeout 60m ./tsys/ |
  awk '/^Benchmark/ { print $1; for (i = 5; i < NF; i += 2) printf "  %-26s %s\n", $(i + 1), $i }'
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

go build -o "$work/tsys" ./cmd/tsys
rt="rt --flat -w 800 -h 600 --samples 2"
echo "== rt --flat, wall seconds: halving | factoring | factoring / halving, $ROUNDS rounds"
echo "| run | halving | factoring | factoring / halving |"
echo "|---|---|---|---|"
for where in "--workers 2" "--nodes 2 --workers 1"; do
  for _ in $(seq "$ROUNDS"); do
    h=$(wall "$work/tsys" run $rt --split halving $where)
    f=$(wall "$work/tsys" run $rt --split factoring $where)
    echo "$h $f"
  done | pair_row "$where"
done
