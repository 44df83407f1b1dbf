#!/usr/bin/env bash
# The figures of bench/README.md's section "Chaos", in one command:
#
#   RUNS=30 SEED=2024 bench/chaos.sh
#
# runs TestChaos (cmd/tsys/chaos_test.go) as a soak: RUNS random runs of
# EP A, UTS T1L and RT on three nodes (one worker each), half under fast
# and half under default failure detection, each disturbed once: a random
# node, the root among them, stopped (SIGSTOP, then SIGCONT) or starved
# (four hogs pinned to its CPU) for 0.5 to 8 s at a random moment. It
# prints each run, then per app and detection the runs, how many were
# verified, the median and largest ratio of wall time to the undisturbed
# run, and the tasks run again and late results summed.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-30}
SEED=${SEED:-2024}
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
status=0
(cd cmd/tsys && go test -count=1 -run 'TestChaos$' -v -timeout 90m . \
  -chaos.runs "$RUNS" -chaos.seed "$SEED" -chaos.out "$csv") |
  grep -E 'chaos_test.go|^(--- |ok|FAIL)|dropping the job' || status=$?
echo
echo "detection,app,runs,verified,median wall/undisturbed,max wall/undisturbed,max disturbance s,tasks_rerun,late_results"
sort -t, -k1,2 "$csv" | awk -F, '
  function flush() {
    if (n == 0) return
    for (i = 2; i <= n; i++) for (j = i; j > 1 && r[j - 1] > r[j]; j--) { t = r[j]; r[j] = r[j - 1]; r[j - 1] = t }
    m = (n % 2) ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
    printf "%s,%s,%d,%d,%.2f,%.2f,%.1f,%d,%d\n", det, app, n, ok, m, r[n], dmax, rerun, late
    n = 0; ok = 0; rerun = 0; late = 0; dmax = 0; delete r
  }
  $1 != det || $2 != app { flush(); det = $1; app = $2 }
  { n++; r[n] = $7 / $8; if ($6 > dmax) dmax = $6; rerun += $10; late += $11; if ($12 == "true") ok++ }
  END { flush() }'
exit $status
