#!/usr/bin/env bash
# What a node serving a job whose work is all elsewhere costs, against the
# same node with no job (bench/README.md, "An idle node"): node B (2
# workers) joins a cluster; in "job" mode a run of one worker that inlines
# every spawn, so that it never has a task to lend, roots a job B serves.
# Over 10 s, starting 3 s after the job (or after B, with no job), it
# reads the CPU ticks (utime + stime, 100 a second) of B's process from
# /proc/PID/stat. Prints one line per run: BUILD MODE SCHED TICKS.
#
#   go build -o bin/tsys ./cmd/tsys && bench/idleserve.sh bin/tsys
#   bench/idleserve.sh old/tsys bin/tsys    # two builds in turn
#
# REPS (default 3), SCHEDS (default "fishing balance") and MODES (default
# "nojob job") change what runs.
set -euo pipefail
REPS=${REPS:-3}
SCHEDS=${SCHEDS:-fishing balance}
MODES=${MODES:-nojob job}
work=$(mktemp -d)
pids=()
cleanup() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# ticks PID: utime + stime of PID, in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# gossip_of FILE: the gossip address a node logged.
gossip_of() {
  local i
  for i in $(seq 200); do
    grep -q "gossip" "$1" && break
    sleep 0.05
  done
  sed -n 's/.*gossip \([^,]*\),.*/\1/p' "$1" | head -1
}

# one BIN MODE SCHED: one measurement; prints the ticks.
one() {
  local bin=$1 mode=$2 sched=$3
  pids=()
  "$bin" node --workers 2 --bind 127.0.0.1:0 --sched "$sched" --log-level warn >"$work/b" 2>&1 &
  local b=$!
  pids+=("$b")
  local seed
  seed=$(gossip_of "$work/b")
  if [ "$mode" = job ]; then
    "$bin" run fib -n 50 --workers 1 --inline always --sched "$sched" --join "$seed" --min-nodes 1 >"$work/run" 2>&1 &
  else
    # the same cluster of two, with a peer that roots nothing
    "$bin" node --workers 1 --bind 127.0.0.1:0 --sched "$sched" --join "$seed" --log-level warn >"$work/run" 2>&1 &
  fi
  pids+=($!)
  sleep 3
  local t0 t1
  t0=$(ticks "$b")
  sleep 10
  t1=$(ticks "$b")
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
  echo $((t1 - t0))
}

for ((r = 0; r < REPS; r++)); do
  for sched in $SCHEDS; do
    for mode in $MODES; do
      for bin in "$@"; do
        echo "$bin $mode $sched $(one "$bin" "$mode" "$sched")"
      done
    done
  done
done
