#!/bin/bash
# bench-analyzer: fjtrace-analyze vs babeltrace2's decode-only floor
# (`babeltrace2 TRACE -c sink.utils.dummy`) on one recorded trace of about
# 20 M events, interleaved repetitions in the same run, medians; plus the
# analyzer's peak RSS per task.
#   bench/analyzer.sh [BUILD] [FIB_N] [REPS]     (defaults: build 33 3)
set -euo pipefail
build=${1:-build} n=${2:-33} reps=${3:-3}
analyze=$build/analyzer/fjtrace-analyze
tmp=$(mktemp -d /tmp/fjtrace-bench-analyzer.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Blocking: a benchmark trace must be whole (the recording is not timed).
scripts/fjtrace-record --cmd-only --blocking -o "$tmp/trace" -- \
  "$build/samples/fj-fib" "$n" --variant naive -p 2 >/dev/null 2>"$tmp/rec.err"
events=$(sed -n 's/.*events: \([0-9]*\).*/\1/p' "$tmp/rec.err" | tail -n 1)
# naive fib(n): F(n+1)-1 forked tasks plus the root
tasks=$(python3 -c "a, b = 0, 1
for _ in range($n + 1): a, b = b, a + b
print(a)")
size=$(du -sm "$tmp/trace" | cut -f1)

run() { # run CMD...: prints "seconds maxrss_kb"
  /usr/bin/time -f '%e %M' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || [ $? = 1 ]
  cat "$tmp/t"
}
floor=() mine=() rss=()
for ((i = 0; i < reps; i++)); do
  read -r s _ < <(run babeltrace2 "$tmp/trace" -c sink.utils.dummy); floor+=("$s")
  read -r s k < <(run "$analyze" --no-progress "$tmp/trace" -o /dev/null); mine+=("$s"); rss+=("$k")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
f=$(median "${floor[@]}") a=$(median "${mine[@]}") k=$(median "${rss[@]}")
awk -v f="$f" -v a="$a" -v k="$k" -v e="$events" -v t="$tasks" -v mb="$size" -v r="$reps" 'BEGIN {
  printf "bench-analyzer: naive fib trace, %d events, %d tasks, %d MB; %d interleaved runs, medians\n", e, t, mb, r
  printf "%-46s %9s %12s\n", "", "seconds", "M events/s"
  printf "%-46s %9.2f %12.2f\n", "babeltrace2 -c sink.utils.dummy (floor)", f, e / f / 1e6
  printf "%-46s %9.2f %12.2f\n", "fjtrace-analyze (text report)", a, e / a / 1e6
  printf "ratio analyzer / floor: %.2f (goal <= 1.0)\n", a / f
  goal = 32 * 1024 * 1024 + 64 * t
  printf "peak RSS %.1f MiB = %.1f bytes/task; goal 32 MiB + 64 B/task = %.1f MiB: %s\n", k / 1024, (k * 1024 - 32 * 1024 * 1024) / t, goal / 1048576, (k * 1024 <= goal) ? "PASS" : "MISS"
}'
