#!/usr/bin/env bash
# race-loop.sh runs the whole Go test suite N times in a row under the race
# detector (-count=1, so nothing is cached) and stops at the first failing
# run, keeping its output. It prints one line per run and a summary.
#
# Usage: scripts/race-loop.sh [N]   (default 10)
set -uo pipefail
n="${1:-10}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log="$(mktemp -d)/race-loop"
passed=0
start=$(date +%s)
for i in $(seq 1 "$n"); do
	t0=$(date +%s)
	if go test -race -count=1 ./... >"$log.$i" 2>&1; then
		passed=$((passed + 1))
		echo "run $i/$n: ok ($(($(date +%s) - t0)) s)"
		rm -f "$log.$i"
	else
		echo "run $i/$n: FAIL ($(($(date +%s) - t0)) s); output kept in $log.$i"
		grep -E '^(--- FAIL|FAIL|panic:)' "$log.$i" | head -20
		break
	fi
done
echo "race-loop: $passed of $n runs passed in $(($(date +%s) - start)) s"
[ "$passed" -eq "$n" ]
