# Shell functions the bench scripts share; source it.

# wall BIN run ARGS...: the job's own wall time, from its --json report.
wall() { "$@" --json | sed -n 's/.*"wall_seconds":\([0-9.e+-]*\).*/\1/p'; }

# pair_row LABEL: reads lines "A B" (one round of two alternating runs
# each) and prints a Markdown table row: LABEL, A's median (range), B's
# median (range), and the median (range) of the per-round ratios B / A.
pair_row() {
  awk -v label="$1" '
    { a[NR] = $1; b[NR] = $2; r[NR] = $2 / $1 }
    function sort(v, k,   i, j, t) { for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t } }
    function median(v, k) { return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2 }
    END { k = NR; sort(a, k); sort(b, k); sort(r, k)
      printf "| %s | %.3f (%.3f to %.3f) | %.3f (%.3f to %.3f) | %.3f (%.3f to %.3f) |\n", label, median(a, k), a[1], a[k], median(b, k), b[1], b[k], median(r, k), r[1], r[k] }'
}

# checkout_base REV: sets work to a new temporary directory holding a
# worktree of REV at $work/base, both removed when the script exits.
checkout_base() {
  work=$(mktemp -d)
  trap 'git worktree remove --force "$work/base" 2>/dev/null || true; rm -rf "$work"' EXIT
  git worktree add --detach "$work/base" "$1" >/dev/null
}

# build_old_new REV: checks REV out (checkout_base) and builds its tsys
# command as $work/old and this tree's as $work/new.
build_old_new() {
  checkout_base "$1"
  (cd "$work/base" && go build -o "$work/old" ./cmd/tsys)
  go build -o "$work/new" ./cmd/tsys
}
