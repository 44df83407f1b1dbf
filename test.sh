#!/usr/bin/env bash
# The test command of README.md, run by CI as it is. Every phase runs even
# when an earlier one fails, so that one failure does not hide the others;
# the summary at the end names each phase that failed, and the exit status
# is 1 if any did.
set -uo pipefail
cd "$(dirname "$0")"

failed=()
phase() { # phase NAME COMMAND...: run one phase, remembering a failure
  local name=$1
  shift
  echo "== $name"
  "$@" || failed+=("$name")
}

# A phase whose tests mostly wait on processes of their own runs beside
# the next one, its output held back until it ends so that the log reads
# phase by phase: phase_beside starts it, phases_beside_end waits for it.
beside_dir=$(mktemp -d)
trap 'rm -rf "$beside_dir"' EXIT
beside=()
phase_beside() { # phase_beside NAME COMMAND...
  local name=$1 n=${#beside[@]}
  shift
  beside+=("$name")
  ( "$@" >"$beside_dir/$n.log" 2>&1; echo $? >"$beside_dir/$n.rc" ) &
}
phases_beside_end() {
  wait
  local n
  for n in "${!beside[@]}"; do
    echo "== ${beside[$n]} (ran beside the phase above)"
    cat "$beside_dir/$n.log"
    [ "$(cat "$beside_dir/$n.rc")" = 0 ] || failed+=("${beside[$n]}")
  done
  beside=()
}

check_gofmt() {
  local unformatted
  unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
  if [ -n "$unformatted" ]; then
    echo "gofmt would change:"; echo "$unformatted"; return 1
  fi
}

# Everything under internal/ but the report and the scheduler table, which
# are no runtime code, runs with the race detector.
race=(./inline/... ./tsys/... $(go list ./internal/... | grep -v -e /internal/report -e /internal/schedspec))
rest=(./advise/... ./apps/... ./cli/... ./cmd/... ./examples/... ./bench/... ./internal/report/... ./internal/schedspec/... ./sim/...)

check_lists() {
  local untested
  untested=$(comm -23 <(go list ./... | sort) <(go list "${race[@]}" "${rest[@]}" | sort))
  if [ -n "$untested" ]; then
    echo "test.sh tests no package of:"; echo "$untested"; echo "add them to race (runtime code) or rest"; return 1
  fi
}

phase "gofmt" check_gofmt
phase "go vet" go vet ./...
phase "every package is tested below" check_lists
# Before the tests: it puts the pinned apidiff in the module cache, which
# the checker's own tests then use offline.
phase "public API against CHANGELOG.md" go run ./internal/apicheck
phase "runtime packages with the race detector" go test -race -count=1 "${race[@]}"
phase_beside "nodes shared by several jobs, their processes built with the race detector" \
  env TSYS_TEST_RACE=1 go test -count=1 -timeout 20m -run 'TestJobsShareNodes' ./cmd/tsys
phase "apps, command line, examples and cluster processes" go test -count=1 -timeout 20m "${rest[@]}"
phases_beside_end

if [ ${#failed[@]} -gt 0 ]; then
  echo "== FAILED:"
  printf '   %s\n' "${failed[@]}"
  exit 1
fi
echo "== all phases passed"
