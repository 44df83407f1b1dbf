#!/usr/bin/env bash
# The figures of bench/README.md's section "Order in a branch-and-bound
# search": examples/knapsack's two parallel forms against the serial
# search, on 1 and 2 workers, one run of each a round, REPS rounds
# (default 3): the median wall time (with its spread) and the nodes the
# search looked at.
#
#   bench/order.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/knapsack" ./examples/knapsack

run() { # prints: wall_seconds nodes
  "$work/knapsack" run knapsack "$@" --json |
    sed -n 's/.*"result":{"best":[0-9]*,"nodes":\([0-9]*\)}.*"wall_seconds":\([0-9.e+-]*\).*/\2 \1/p'
}

echo "| items | run | wall s, median (min to max) | nodes looked at (median) |"
echo "|---|---|---|---|"
for n in 50 80; do
  for _ in $(seq "$REPS"); do
    echo "serial $(run -n "$n" --serial)"
    for w in 1 2; do
      for form in ordered natural; do
        echo "$form,$w $(run -n "$n" --form "$form" --workers "$w")"
      done
    done
  done | awk -v n="$n" '
    { k = $1; c[k]++; t[k, c[k]] = $2; m[k, c[k]] = $3; if (!(k in seen)) { seen[k] = 1; order[++nk] = k } }
    function sorted(a, k, j,   i, x, y) { for (i = 2; i <= j; i++) for (x = i; x > 1 && a[k, x - 1] > a[k, x]; x--) { y = a[k, x]; a[k, x] = a[k, x - 1]; a[k, x - 1] = y } }
    function median(a, k, j) { return j % 2 ? a[k, (j + 1) / 2] : (a[k, j / 2] + a[k, j / 2 + 1]) / 2 }
    END {
      for (i = 1; i <= nk; i++) {
        k = order[i]; j = c[k]; sorted(t, k, j); sorted(m, k, j)
        split(k, f, ",")
        name = f[1] == "serial" ? "serial" : f[1] " form, " f[2] " worker" (f[2] > 1 ? "s" : "")
        printf "| %d | %s | %.4f (%.4f to %.4f) | %d |\n", n, name, median(t, k, j), t[k, 1], t[k, j], median(m, k, j)
      }
    }'
done
