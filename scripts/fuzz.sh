#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME (default 10s) on top of its seed
# corpus (which make test already runs as plain tests).
#
# A failing run is retried, but only as far as the failure can be the Go
# fuzz coordinator's own race at the end of -fuzztime (reported upstream
# as golang/go#75804): a run that says only "context deadline exceeded" and
# wrote no failing input is run again, up to 3 times in all. Any other
# failure is retried once: a real crasher is written to testdata/fuzz/ and
# fails the retry at once as part of the seed corpus, and a hang fails it
# again.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# crashers lists the failing inputs written for a target.
crashers() { { find "$1/testdata/fuzz/$2" -type f 2>/dev/null || true; } | sort; }

for pkg in $($GO list ./...); do
  dir=$($GO list -f '{{.Dir}}' "$pkg")
  for target in $($GO test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target"
    for try in 1 2 3; do
      before=$(crashers "$dir" "$target")
      if $GO test -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZTIME" "$pkg" 2>&1 | tee "$log"; then
        break
      fi
      after=$(crashers "$dir" "$target")
      deadline_only=false
      if [ "$before" = "$after" ] && grep -q '^    context deadline exceeded$' "$log" &&
        [ "$(grep -c '^--- FAIL' "$log")" = 1 ]; then
        deadline_only=true
      fi
      if [ "$try" = 3 ] || { [ "$try" = 2 ] && ! $deadline_only; }; then
        echo "fuzz $pkg $target failed"
        exit 1
      fi
      if $deadline_only; then
        echo "fuzz $pkg $target: the fuzz coordinator's deadline race (no failing input written); running it again"
      else
        echo "fuzz $pkg $target failed; retrying once"
      fi
    done
  done
done
