#!/usr/bin/env bash
# A task that is not inlined, tsys's Fork+Join against rayon's join, side
# by side on this machine, in one command:
#
#   bench/forkjoin-vs-rayon.sh            # REPS rounds (default 15)
#   N=30 REPS=9 bench/forkjoin-vs-rayon.sh
#
# Both compute fib(N) (default 32) on one worker with a fork at every
# internal node: `tsys run fib --workers 1 --inline off` (its fork clone
# forks n-1 and calls n-2) and bench/rayon (rayon::join of n-1 and n-2 on
# a 1-thread pool). Each makes fib(N+1)-1 forks, one per call with n >= 2;
# tsys's JSON reports that count as its spawns, and the script checks it.
# ns per task is the job's own time (tsys's wall_seconds, from the job's
# start to its result; rayon's timed pool.install) over that count.
# One run of each a round, alternating, so that a burst of load from
# another tenant hits both alike; the last line is the median and range
# of the per-round ratios tsys / rayon.
#
# rayon comes from Debian's librust-rayon-dev (apt-get install
# librust-rayon-dev), built offline: a source replacement pointing
# crates.io at the crate directory that package installs (RAYON_REGISTRY
# overrides it), given on cargo's command line, with a CARGO_HOME of its
# own that goes at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-15}
N=${N:-32}
registry=${RAYON_REGISTRY:-/usr/share/cargo/registry}

cargo=$(command -v cargo || true)
if [ -z "$cargo" ] && [ -x "$HOME/.cargo/bin/cargo" ]; then cargo=$HOME/.cargo/bin/cargo; fi
if [ -z "$cargo" ]; then
  echo "forkjoin-vs-rayon: cargo not found (neither on PATH nor in ~/.cargo/bin): install a Rust toolchain" >&2
  exit 1
fi
if ! compgen -G "$registry/rayon-[0-9]*" >/dev/null || ! compgen -G "$registry/rayon-core-[0-9]*" >/dev/null; then
  echo "forkjoin-vs-rayon: no rayon crate under $registry: apt-get install librust-rayon-dev" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/tsys" ./cmd/tsys
(cd bench/rayon && CARGO_HOME="$work/cargo" "$cargo" build --release --offline --quiet \
  --config 'source.crates-io.replace-with="debian"' \
  --config "source.debian.directory=\"$registry\"")
rayon=bench/rayon/target/release/fib-rayon

# The expected count of forks: fib(N+1)-1.
joins=$(awk -v n="$N" 'BEGIN { a = 0; b = 1; for (i = 0; i <= n; i++) { t = a + b; a = b; b = t } print a - 1 }')

field() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p"; }

echo "fib($N), 1 worker, $joins forks a run; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| round | tsys ns/task | rayon ns/join | tsys / rayon |"
echo "|---|---|---|---|"
for r in $(seq "$REPS"); do
  t=$("$work/tsys" run fib -n "$N" --workers 1 --inline off --json)
  if [ "$(field verified <<<"${t//true/1}")" != 1 ] || [ "$(field spawns <<<"$t")" != "$joins" ]; then
    echo "forkjoin-vs-rayon: tsys run fib went wrong: $t" >&2
    exit 1
  fi
  y=$("$rayon" -n "$N" -t 1) # exits non-zero on a wrong result
  tn=$(awk -v s="$(field wall_seconds <<<"$t")" -v j="$joins" 'BEGIN { printf "%.2f", s * 1e9 / j }')
  yn=$(field ns_per_join <<<"$y")
  echo "$r $tn $yn"
done | tee "$work/rounds" | awk '{ printf "| %d | %.2f | %.2f | %.2f |\n", $1, $2, $3, $2 / $3 }'
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

. bench/lib.sh
echo
echo "| fib($N), 1 worker | rayon ns/join | tsys ns/task | tsys / rayon |"
echo "|---|---|---|---|"
awk '{ print $3, $2 }' "$work/rounds" | pair_row "median (min to max) of $REPS rounds"
