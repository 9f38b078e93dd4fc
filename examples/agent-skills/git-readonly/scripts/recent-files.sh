#!/bin/sh
# Files changed in the last $1 days, most often changed first.
# A script can use the shell; the tool that runs it cannot.
set -eu
days=${1:-7}
case $days in
  ''|*[!0-9]*) echo "days must be a whole number, got: $days" >&2; exit 2 ;;
esac
git log --since="$days days ago" --name-only --pretty=format: |
  grep -v '^$' | sort | uniq -c | sort -rn | head -n 20
