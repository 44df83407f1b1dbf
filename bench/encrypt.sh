#!/usr/bin/env bash
# The figures of bench/README.md's section "Encrypted task transport", in
# one command:
#
#   bench/encrypt.sh                # this tree: keyless against keyed
#   BASE=1b0b399 bench/encrypt.sh   # and BASE keyed (frames not sealed) against this tree keyed
#
# 1. What sealing costs a frame on one core (BenchmarkSeal), and a stream
#    of 64 KiB and 1 MiB frames over loopback, plain against sealed
#    (BenchmarkTransportThroughput), COUNT runs each (default 6).
# 2. EP class W, UTS T1 and RT (its default job, unverified) on 2 nodes x
#    1 worker (--nodes 2 --workers 1): the job's wall time (--json's
#    wall_seconds) without --key-file and with it, one run each a round,
#    alternating, REPS rounds (default 21): the medians and the median and
#    spread of the per-round ratios keyed / keyless. A key also encrypts
#    gossip and authenticates the handshake, so this is all a key costs.
# 3. With BASE, the same jobs keyed on BASE's tsys (a tree whose task
#    frames are not sealed) against keyed on this tree's: what sealing
#    alone costs.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-21}
COUNT=${COUNT:-6}
work=$(mktemp -d)
cleanup() {
  if [ -n "${BASE:-}" ]; then git worktree remove --force "$work/base" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/new" ./cmd/tsys
if [ -n "${BASE:-}" ]; then
  git worktree add --detach "$work/base" "$BASE" >/dev/null
  (cd "$work/base" && go build -o "$work/old" ./cmd/tsys)
fi
head -c 32 /dev/urandom | base64 >"$work/key"

echo "== sealing a frame, and a stream of frames over loopback (package net/transport), $COUNT runs"
go test -run XXX -bench 'BenchmarkSeal|BenchmarkTransportThroughput' -count "$COUNT" ./net/transport/ | grep '^Benchmark'

. bench/lib.sh

# compare BIN_A ARGS_A BIN_B ARGS_B: REPS rounds of A then B, printing a
# table row per job.
compare() {
  local job
  for job in "ep --class W" "uts --tree T1" "rt --verify=false"; do
    for _ in $(seq "$REPS"); do
      x=$(wall "$1" run $job --nodes 2 --workers 1 $2)
      y=$(wall "$3" run $job --nodes 2 --workers 1 $4)
      echo "$x $y"
    done | pair_row "$job"
  done
}

echo "== 2 nodes x 1 worker, keyless against keyed (this tree), alternating, $REPS rounds"
echo "| job | keyless s | keyed s | keyed / keyless |"
compare "$work/new" "" "$work/new" "--key-file $work/key"

if [ -n "${BASE:-}" ]; then
  echo "== 2 nodes x 1 worker, keyed: $BASE (frames not sealed) against this tree (sealed), alternating, $REPS rounds"
  echo "| job | $BASE s | this tree s | this tree / $BASE |"
  compare "$work/old" "--key-file $work/key" "$work/new" "--key-file $work/key"
fi
