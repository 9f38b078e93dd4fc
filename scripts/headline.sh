#!/usr/bin/env bash
# Runs the benchmarks behind BENCHMARKS.md's headline table ROUNDS times
# (default 5) in one session and prints, for each figure, the median of
# the worker's benchmark over the median of its echo through the same
# engine, in wall time and in the process's CPU time per call (engine,
# worker and caller all run in the test process). Then the memory figures
# of BenchmarkBootLargeScope at 10,000 skills and skill::search's p50/p99.
#
#   scripts/headline.sh            # ROUNDS=5
#   ROUNDS=3 scripts/headline.sh
#
# The 100,000-skill memory figures come from make large-scope, which
# asserts them.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
ROUNDS=${ROUNDS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
$GO test -c -o "$out/bench.test" ./bench/
echo "commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (dirty)'), $(date -u +%Y-%m-%dT%H:%MZ), $ROUNDS rounds"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
cd bench
for i in $(seq "$ROUNDS"); do
  "$out/bench.test" -test.run '^$' -test.bench 'BenchmarkRead$|BenchmarkRegister/sequential|BenchmarkIndex10k|BenchmarkFS5k' -test.benchtime 1s >> "$out/runs.txt"
done
"$out/bench.test" -test.run '^$' -test.bench 'BenchmarkBootLargeScope' -test.benchtime 1x -boot-skills 10000 -boot-index-reads 100 >> "$out/mem.txt"
"$out/bench.test" -test.run '^$' -test.bench 'BenchmarkSearch$' -test.benchtime 300x >> "$out/search.txt" 2>&1 || true
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
awk '
  # name (without the -N GOMAXPROCS suffix) -> list of ns/op and cpu-ns/op
  /^Benchmark/ {
    name = $1; sub(/-[0-9]+$/, "", name)
    for (i = 2; i < NF; i++) {
      if ($(i+1) == "ns/op") wall[name] = wall[name] " " $i
      if ($(i+1) == "cpu-ns/op") cpu[name] = cpu[name] " " $i
    }
  }
  function median(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    if (n == 0) return 0
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function row(label, num, den, goal,   w, c) {
    w = median(wall[den]) ? median(wall[num]) / median(wall[den]) : 0
    c = median(cpu[den]) ? median(cpu[num]) / median(cpu[den]) : 0
    printf "| %s | %.2f | %s | %s |\n", label, w, (c ? sprintf("%.2f", c) : "—"), goal
  }
  END {
    print "| figure | wall ratio | CPU ratio | goal |"
    print "|---|---|---|---|"
    row("resources-read of 4 KiB / echo of the same bytes", "BenchmarkRead/resources-read-4KiB", "BenchmarkRead/echo-4KiB", "≤ 1.1")
    row("the same, bodies in the BodyStore", "BenchmarkRead/resources-read-4KiB-store", "BenchmarkRead/echo-4KiB-store", "—")
    row("the same, a read that misses the store", "BenchmarkRead/resources-read-4KiB-store-miss", "BenchmarkRead/echo-4KiB-store-miss", "—")
    row("8 concurrent reads, time per read / echo (throughput = 1/ratio)", "BenchmarkRead/resources-read-4KiB-8callers", "BenchmarkRead/echo-4KiB-8callers", "≤ 1.11 (≥ 0.9 throughput)")
    row("register of 1 KiB, sequential / echo of 4 KiB (the figure followed since issue 3)", "BenchmarkRegister/sequential", "BenchmarkRead/echo-4KiB", "≤ 2.1")
    row("register of 4 KiB, sequential / echo of 4 KiB", "BenchmarkRegister/sequential-4KiB", "BenchmarkRead/echo-4KiB", "—")
    row("iii://skills, 10,000 × 512 B / echo as long", "BenchmarkIndex10k/body-512B", "BenchmarkIndex10k/echo-512B", "≤ 1.3")
    row("iii://skills, 10,000 × 4 KiB / echo as long", "BenchmarkIndex10k/body-4096B", "BenchmarkIndex10k/echo-4096B", "≤ 1.3")
    row("skills::list, 5,000 files / echo of the same bytes", "BenchmarkFS5k/skills-list", "BenchmarkFS5k/echo-listing", "≤ 1.2")
    row("one fs skill of 2 KiB among 5,000 / echo of the same bytes", "BenchmarkFS5k/read-one", "BenchmarkFS5k/echo-body", "≤ 1.2")
  }' "$out/runs.txt"
echo
echo "memory, 10,000 × 4 KiB (BenchmarkBootLargeScope):"
grep '^Benchmark' "$out/mem.txt" || cat "$out/mem.txt"
echo
echo "skill::search (BenchmarkSearch):"
grep '^Benchmark' "$out/search.txt" || tail -20 "$out/search.txt"
