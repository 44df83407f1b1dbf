#!/usr/bin/env bash
# The figures of bench/README.md's sections on the cost of a spawn, the
# split deque, natural code and a job's start across nodes, in one command:
#
#   bench/spawn.sh              # this tree
#   BASE=HEAD~3 bench/spawn.sh  # and paired against an older commit
#
# With BASE, the spawn benchmarks of both trees alternate, one run each a
# round, REPS rounds, and the last table gives the median of the per-round
# ratios: a burst of load from another tenant then hits both sides alike.
# REPS (default 8) sets the rounds and the runs of each cell.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-8}
work=$(mktemp -d)
cleanup() {
  if [ -n "${BASE:-}" ]; then git worktree remove --force "$work/base" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

spawn_benchmarks='BenchmarkSpawnGet$|BenchmarkForkJoin$|BenchmarkGoWaitGroup$|BenchmarkFib35Floor$'

echo "== spawn costs (package tsys), $REPS runs each"
go test -run XXX -bench "$spawn_benchmarks" -count "$REPS" ./tsys/

echo "== the deque alone (package sched)"
go test -run XXX -bench DequePushPop -count 5 ./sched/

echo "== natural code against the serial version and the fast clone"
go test -run XXX -bench BenchmarkNatural -benchtime 10x ./bench/

echo "== a job's start across nodes: 1 x 2 against 2 x 1, unpinned and pinned"
go build -o bin/tsys ./cmd/tsys
bin/tsys bench --apps "ep --class W;uts --tree T1" --configs 1x2,2x1:fishing:random \
  --loads "none;pin" --serial=false --reps "$REPS" --out "$work/start"

if [ -n "${BASE:-}" ]; then
  echo "== spawn costs against $BASE, alternating, $REPS rounds"
  git worktree add --detach "$work/base" "$BASE" >/dev/null
  (cd "$work/base" && go test -c -o "$work/old.test" ./tsys/)
  go test -c -o "$work/new.test" ./tsys/
  for _ in $(seq "$REPS"); do
    for side in old new; do
      "$work/$side.test" -test.run XXX -test.bench "$spawn_benchmarks" |
        awk -v side="$side" '/^Benchmark/ { for (i = 3; i < NF; i += 2) print side, $1, $(i + 1), $i }'
    done
  done >"$work/pairs"
  echo "| benchmark | unit | $BASE (median) | this tree (median) | ratio (median of rounds) |"
  echo "|---|---|---|---|---|"
  awk '
    { key = $2 " " $3; n[key, $1]++; v[key, $1, n[key, $1]] = $4; keys[key] = 1 }
    function median(a, k,   i, j, t) {
      for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    END {
      for (key in keys) {
        k = n[key, "new"]
        if (k == 0 || n[key, "old"] != k) continue
        for (i = 1; i <= k; i++) { o[i] = v[key, "old", i]; w[i] = v[key, "new", i]; r[i] = w[i] / o[i] }
        split(key, f, " ")
        printf "| %s | %s | %.4g | %.4g | %.3f |\n", f[1], f[2], median(o, k), median(w, k), median(r, k)
      }
    }' "$work/pairs" | sort
fi
