#!/bin/sh
# Writes the CPU profile that Go's profile-guided optimisation builds the
# tsys command with: a mix of the apps' runs, with and without inlining, on
# 1 and 2 workers and serial, merged. The repository ships its output as
# cmd/tsys/default.pgo, which every go build, run and test of the command
# uses; regenerate it with
#
#	bench/pgo.sh cmd/tsys/default.pgo
#
# and compare the apps before committing it (bench/README.md, "Profile-
# guided optimisation", has how, and why two of rt's functions are never
# inlined).
set -eu
out=$(realpath "${1:-cmd/tsys/default.pgo}")
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
rt --verify=false --workers 1
rt --verify=false --serial
ep --class W --workers 1
RUNS
go tool pprof -proto "$tmp"/p*/cpu.pprof >"$out"
echo "wrote $out ($(wc -c <"$out") bytes) from $i runs"
