#!/usr/bin/env bash
# UTS on 2 nodes of 1 worker against UTS-MPI's work stealing on 2 ranks,
# side by side on this machine, in one command (issue 38's comparison):
#
#   UTS_SRC=~/src/uts bench/uts-vs-mpi.sh          # T3L, REPS rounds (default 5)
#   UTS_SRC=~/src/uts TREE=T1L REPS=3 bench/uts-vs-mpi.sh
#
# UTS_SRC is a checkout of UTS 2.1 as released (github.com/perarnau/uts at
# 8b0c41a, "Original UTS version 1.1"): the script builds its MPI work
# stealing program from there, as its Makefile does, and never copies it
# into this repository. It needs Open MPI's mpicc and mpirun (Debian:
# apt-get install openmpi-bin libopenmpi-dev); without them, or without
# UTS_SRC, it says what is missing and exits 0 having measured nothing.
#
# Each round runs, in an order that alternates from round to round,
# `tsys run uts` on one node of 2 workers (1x2), on 2 nodes of 1 worker
# (2x1, --nodes 2), and UTS-MPI on 2 ranks. Times are each program's own:
# tsys's wall_seconds (the job, without starting the processes) and
# UTS-MPI's "Wallclock time" (its search, without mpirun's start). Both
# must count the tree's published size; tsys checks it itself.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}
TREE=${TREE:-T3L}
case "$TREE" in
  T3L) mpi_args="-t 0 -b 2000 -q 0.200014 -m 5 -r 7" size=111345631 ;;
  T1L) mpi_args="-t 1 -a 3 -d 13 -b 4 -r 29" size=102181082 ;;
  T3) mpi_args="-t 0 -b 2000 -q 0.124875 -m 8 -r 42" size=4112897 ;;
  *) echo "uts-vs-mpi: TREE=$TREE: want T3L, T1L or T3" >&2; exit 2 ;;
esac
if [ -z "${UTS_SRC:-}" ] || [ ! -f "${UTS_SRC:-}/mpi_workstealing.c" ]; then
  echo "uts-vs-mpi: skipped: set UTS_SRC to a checkout of github.com/perarnau/uts at 8b0c41a (UTS_SRC=${UTS_SRC:-unset} has no mpi_workstealing.c)"
  exit 0
fi
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
  echo "uts-vs-mpi: skipped: no mpicc or mpirun on PATH: apt-get install openmpi-bin libopenmpi-dev"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/tsys" ./cmd/tsys
(cd "$UTS_SRC" && mpicc -O3 -DBRG_RNG -D__MPI__ -o "$work/uts-mpi-ws" \
  uts_dm.c stats.c dequeue.c dlist.c mpi_workstealing.c rng/brg_sha1.c uts.c -lm)

# Open MPI refuses root unless told; a container's user often is.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

tsys_run() { # LAYOUT: the job's seconds, or a failure
  local out
  case "$1" in
    1x2) out=$("$work/tsys" run uts --tree "$TREE" --workers 2 --json) ;;
    2x1) out=$("$work/tsys" run uts --tree "$TREE" --nodes 2 --workers 1 --json) ;;
  esac
  if ! grep -q '"verified":true' <<<"$out"; then
    echo "uts-vs-mpi: tsys $1 did not verify: $out" >&2
    exit 1
  fi
  sed -n 's/.*"wall_seconds":\([0-9.e+-]*\).*/\1/p' <<<"$out"
}
mpi_run() {
  local out
  # shellcheck disable=SC2086 # the tree's arguments are words
  out=$(mpirun --oversubscribe --bind-to none -np 2 "$work/uts-mpi-ws" $mpi_args)
  if ! grep -q "Tree size = $size," <<<"$out"; then
    echo "uts-vs-mpi: UTS-MPI did not count $size nodes: $out" >&2
    exit 1
  fi
  sed -n 's/.*Wallclock time = \([0-9.]*\) sec.*/\1/p' <<<"$out"
}

echo "UTS $TREE, $REPS rounds; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$REPS"); do
  if [ $((r % 2)) = 1 ]; then
    a=$(tsys_run 1x2) b=$(tsys_run 2x1) m=$(mpi_run)
  else
    m=$(mpi_run) b=$(tsys_run 2x1) a=$(tsys_run 1x2)
  fi
  echo "$r $a $b $m" | tee -a "$work/rounds" >&2
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

. bench/lib.sh
echo
echo "| UTS $TREE, s | A | B | B / A |"
echo "|---|---|---|---|"
awk '{ print $2, $3 }' "$work/rounds" | pair_row "A tsys 1x2, B tsys 2x1"
awk '{ print $3, $4 }' "$work/rounds" | pair_row "A tsys 2x1, B UTS-MPI 2 ranks"
