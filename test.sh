#!/usr/bin/env bash
# The test command of README.md, run by CI as it is.
set -euo pipefail
cd "$(dirname "$0")"

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
echo "== go vet"
go vet ./...
race=(./inline/... ./internal/... ./sched/... ./tsys/... ./fishing/... ./balance/... ./net/... ./cluster/... ./monitor/... ./share/...)
rest=(./apps/... ./cli/... ./cmd/... ./examples/... ./bench/... ./report/... ./policies/... ./sim/...)
echo "== every package is tested below"
untested=$(comm -23 <(go list ./... | sort) <(go list "${race[@]}" "${rest[@]}" | sort))
if [ -n "$untested" ]; then
  echo "test.sh tests no package of:"; echo "$untested"; echo "add them to race (runtime code) or rest"; exit 1
fi
echo "== runtime packages with the race detector"
go test -race -count=1 "${race[@]}"
echo "== nodes shared by several jobs, their processes built with the race detector"
TSYS_TEST_RACE=1 go test -count=1 -run 'TestJobsShareNodes' ./cmd/tsys
echo "== apps, command line and cluster processes"
go test -count=1 "${rest[@]}"
