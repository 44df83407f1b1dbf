#!/usr/bin/env bash
# Two jobs on three long-lived nodes, under each sharing policy (tsys node
# --share): each job's time alone and beside the other, as bench/README.md
# reports it. Job A starts first, job B half a second later. Every node and
# client has one worker. Rounds rotate the order of the policies; cells are
# medians over the rounds. Prints a markdown table on stdout.
#
#   go build -o bin/tsys ./cmd/tsys && bench/sharing.sh
#
# TSYS (default bin/tsys), REPS (default 3), JOB_A and JOB_B (tsys run
# arguments) change what runs.
set -euo pipefail
TSYS=${TSYS:-bin/tsys}
REPS=${REPS:-3}
JOB_A=${JOB_A:-ep --class A}
JOB_B=${JOB_B:-uts --tree T1}
POLICIES=(exclusive fchp equi)
work=$(mktemp -d)
pids=()
cleanup() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# start_nodes POLICY: three nodes joined at the first; sets SEED.
start_nodes() {
  pids=()
  SEED=""
  for i in 0 1 2; do
    local join=()
    [ -n "$SEED" ] && join=(--join "$SEED")
    "$TSYS" node --bind 127.0.0.1:0 --fast --workers 1 --share "$1" --log-level warn "${join[@]}" >"$work/node$i" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do grep -q "gossip" "$work/node$i" && break; sleep 0.05; done
    [ -z "$SEED" ] && SEED=$(sed -n 's/.*gossip \([^,]*\),.*/\1/p' "$work/node$i")
  done
  sleep 1 # gossip reaches every node
}

stop_nodes() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; pids=(); }

# run_job OUT ARGS...: runs a job on the cluster, writes "wall verified" to OUT.
run_job() {
  local out=$1; shift
  local json
  json=$("$TSYS" run "$@" --workers 1 --join "$SEED" --json 2>>"$work/runs.log")
  local wall verified
  wall=$(grep -o '"wall_seconds":[0-9.e+-]*' <<<"$json" | cut -d: -f2)
  verified=$(grep -o '"verified":[a-z]*' <<<"$json" | cut -d: -f2)
  echo "$wall $verified" >"$out"
}

record() { # POLICY CELL FILE
  read -r wall verified <"$3"
  if [ "$verified" != true ]; then echo "$1 $2: the answer was not verified" >&2; exit 1; fi
  echo "$wall" >>"$work/$1.$2"
}

for ((r = 0; r < REPS; r++)); do
  for ((k = 0; k < ${#POLICIES[@]}; k++)); do
    p=${POLICIES[$(((k + r) % ${#POLICIES[@]}))]}
    start_nodes "$p"
    run_job "$work/a" $JOB_A; record "$p" a_alone "$work/a"
    run_job "$work/b" $JOB_B; record "$p" b_alone "$work/b"
    run_job "$work/a" $JOB_A &
    a=$!
    sleep 0.5
    run_job "$work/b" $JOB_B
    wait "$a"
    record "$p" a_shared "$work/a"; record "$p" b_shared "$work/b"
    stop_nodes
    echo "round $((r + 1)) of $REPS: $p done" >&2
  done
done

median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "| --share | A alone (s) | A beside B (s) | A's ratio | B alone (s) | B beside A (s) | B's ratio |"
echo "|---|---|---|---|---|---|---|"
for p in "${POLICIES[@]}"; do
  aa=$(median "$work/$p.a_alone"); as=$(median "$work/$p.a_shared")
  ba=$(median "$work/$p.b_alone"); bs=$(median "$work/$p.b_shared")
  awk -v p="$p" -v aa="$aa" -v as="$as" -v ba="$ba" -v bs="$bs" \
    'BEGIN { printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", p, aa, as, as / aa, ba, bs, bs / ba }'
done
echo
echo "A: tsys run $JOB_A; B: tsys run $JOB_B; $REPS rounds, medians; $(date -u +%Y-%m-%d)."
