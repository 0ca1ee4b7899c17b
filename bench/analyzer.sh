#!/bin/bash
# bench-analyzer: fjtrace-analyze vs babeltrace2's decode-only floor
# (`babeltrace2 TRACE -c sink.utils.dummy`) on recorded naive fib traces
# (fib(30): ~4 M events; fib(32): ~10.6 M), interleaved repetitions in the
# same run, medians; the analyzer with --jobs 1 and with the default (one
# decoding thread per online core); plus its peak RSS per task and the load
# (uptime) before and after. CPU seconds (user + system) are printed too:
# on a loaded machine the wall times say more about the others. The share
# of the largest stream file bounds what the parallel decoding can gain
# (one thread per stream: the workers recorded on one CPU fill one stream).
# With BEFORE (another fjtrace-analyze, e.g. main's before a change), its
# default run joins the interleaved ones, on the same recording.
#   bench/analyzer.sh [BUILD] [FIB_NS] [REPS] [BEFORE]  (defaults: build "30 32" 3)
set -euo pipefail
build=${1:-build} ns=${2:-30 32} reps=${3:-3} before=${4:-}
analyze=$build/analyzer/fjtrace-analyze
tmp=$(mktemp -d /tmp/fjtrace-bench-analyzer.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

run() { # run CMD...: prints "seconds maxrss_kb cpu_seconds"
  /usr/bin/time -f '%e %M %U %S' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || [ $? = 1 ]
  awk '{print $1, $2, $3 + $4}' "$tmp/t"
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

bench_one() { # bench_one N
  local n=$1 trace=$tmp/trace-$1
  # Blocking: a benchmark trace must be whole (the recording is not timed);
  # --count: its events are counted (the figures per event need them).
  scripts/fjtrace-record --cmd-only --blocking --count -o "$trace" -- \
    "$build/samples/fj-fib" "$n" --variant naive -p 2 >/dev/null 2>"$tmp/rec.err"
  local events tasks size
  events=$(sed -n 's/.*events: \([0-9]*\).*/\1/p' "$tmp/rec.err" | head -n 1)
  # naive fib(n): F(n+1)-1 forked tasks plus the root
  tasks=$(python3 -c "a, b = 0, 1
for _ in range($n + 1): a, b = b, a + b
print(a)")
  size=$(du -sm "$trace" | cut -f1)
  local largest
  largest=$(find "$trace" -type f -name 'fjtrace_[0-9]*' -printf '%s\n' |
    awk '{t += $1; if ($1 > m) m = $1} END {printf "%.0f", t ? 100 * m / t : 0}')
  local floor=() one=() all=() rss1=() rss=() cf=() c1=() ca=() old=() rsso=() co=() s k c
  for ((i = 0; i < reps; i++)); do
    read -r s _ c < <(run babeltrace2 "$trace" -c sink.utils.dummy); floor+=("$s"); cf+=("$c")
    read -r s k c < <(run "$analyze" --no-progress --jobs 1 "$trace" -o /dev/null)
    one+=("$s"); rss1+=("$k"); c1+=("$c")
    read -r s k c < <(run "$analyze" --no-progress "$trace" -o /dev/null)
    all+=("$s"); rss+=("$k"); ca+=("$c")
    if [ -n "$before" ]; then
      read -r s k c < <(run "$before" --no-progress "$trace" -o /dev/null)
      old+=("$s"); rsso+=("$k"); co+=("$c")
    fi
  done
  local f a1 a k1 kd
  f=$(median "${floor[@]}") a1=$(median "${one[@]}") a=$(median "${all[@]}")
  k1=$(median "${rss1[@]}") kd=$(median "${rss[@]}")
  awk -v f="$f" -v a1="$a1" -v a="$a" -v k1="$k1" -v k="$kd" -v e="$events" -v t="$tasks" \
    -v mb="$size" -v r="$reps" -v n="$n" -v j="$(nproc)" -v big="$largest" \
    -v cf="$(median "${cf[@]}")" -v c1="$(median "${c1[@]}")" -v ca="$(median "${ca[@]}")" \
    -v o="$([ -n "$before" ] && median "${old[@]}")" -v ko="$([ -n "$before" ] && median "${rsso[@]}")" \
    -v co="$([ -n "$before" ] && median "${co[@]}")" 'BEGIN {
    printf "\nfib(%d) naive P=2: %d events, %d tasks, %d MB, largest fjtrace stream %d%% of the events'"'"' bytes; %d interleaved runs, medians\n", n, e, t, mb, big, r
    printf "%-46s %9s %12s %7s %9s %9s\n", "", "seconds", "M events/s", "ratio", "CPU s", "peak MiB"
    printf "%-46s %9.2f %12.2f %7s %9.2f %9s\n", "babeltrace2 -c sink.utils.dummy (floor)", f, e / f / 1e6, "1.00", cf, "-"
    printf "%-46s %9.2f %12.2f %7.2f %9.2f %9.1f\n", "fjtrace-analyze --jobs 1", a1, e / a1 / 1e6, a1 / f, c1, k1 / 1024
    printf "%-46s %9.2f %12.2f %7.2f %9.2f %9.1f\n", "fjtrace-analyze (default: " j " decoding threads)", a, e / a / 1e6, a / f, ca, k / 1024
    if (o != "") printf "%-46s %9.2f %12.2f %7.2f %9.2f %9.1f\n", "before (BEFORE, default threads)", o, e / o / 1e6, o / f, co, ko / 1024
    printf "ratio analyzer / floor: %.2f (goal <= 0.6): %s\n", a / f, (a / f <= 0.6) ? "PASS" : "MISS"
    goal = 32 * 1024 * 1024 + 64 * t
    printf "peak RSS %.1f MiB = %.1f bytes/task over 32 MiB; goal 32 MiB + 64 B/task = %.1f MiB: %s\n", k / 1024, (k * 1024 - 32 * 1024 * 1024) / t, goal / 1048576, (k * 1024 <= goal) ? "PASS" : "MISS"
  }'
  rm -rf "$trace"
}

echo "bench-analyzer: load before: $(uptime)"
for n in $ns; do
  bench_one "$n"
done
echo "bench-analyzer: load after: $(uptime)"
