#!/bin/sh
# Writes a CPU profile for Go's profile-guided optimisation of the tsys
# command: a mix of the apps' runs, with and without inlining, on 1 and 2
# workers, merged. Build with it by
#
#	bench/pgo.sh /tmp/tsys.pgo && go build -pgo=/tmp/tsys.pgo -o bin/tsys ./cmd/tsys
#
# The repository ships no default.pgo: bench/README.md has why (PGO speeds
# up the spawn path, fib and UTS, and slows nqueens).
set -eu
out=$(realpath "${1:?usage: bench/pgo.sh PROFILE}")
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -pgo=off -o "$tmp/tsys" ./cmd/tsys
i=0
while read -r args; do
	i=$((i + 1))
	# shellcheck disable=SC2086 # the arguments are meant to split
	"$tmp/tsys" run $args --profile cpu --profile-dir "$tmp/p$i" >/dev/null 2>&1
done <<'RUNS'
fib -n 35 --workers 1
fib -n 35 --workers 2
fib -n 27 --workers 1 --inline off
fib -n 27 --workers 2 --inline off
nqueens -n 13 --workers 2
nqueens -n 12 --workers 1 --inline off
uts --tree T1 --workers 2
uts --tree T3 --workers 2
uts --tree T3 --workers 1 --inline off
ep --class W --workers 2
rt -w 320 -h 240 --workers 2 -o /dev/null
RUNS
go tool pprof -proto "$tmp"/p*/cpu.pprof >"$out"
echo "wrote $out ($(wc -c <"$out") bytes) from $i runs"
