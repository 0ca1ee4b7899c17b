#!/bin/bash
# bench-perfetto: the two trace exports of fjtrace-analyze side by side on
# one recorded trace of naive fib(N): the Chrome JSON (--chrome-trace) and
# Perfetto's protobuf (--perfetto), against the analysis alone; size, bytes
# per event and per task slice, the export's own time (analysis with it
# minus without), and the protobuf read back whole by pf-read.
# Interleaved repetitions in the same run, medians.
#   bench/perfetto.sh [BUILD] [FIB_N] [REPS]     (defaults: build 28 3)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build} n=${2:-28} reps=${3:-3}
analyze=$build/analyzer/fjtrace-analyze
pfread=$build/tests/viz/pf-read
[ -x "$pfread" ] || { echo "bench-perfetto: $pfread missing (needs protobuf-c)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/fjtrace-bench-perfetto.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$src/scripts/fjtrace-record" --count --cmd-only --blocking -o "$tmp/trace" -- \
  "$build/samples/fj-fib" "$n" --variant naive -p 2 >/dev/null 2>"$tmp/rec.err"
events=$(sed -n 's/^fjtrace-record: events: \([0-9]*\)$/\1/p' "$tmp/rec.err")
tasks=$(python3 -c "a, b = 0, 1
for _ in range($n + 1): a, b = b, a + b
print(a)")

run() { # run CMD...: prints "seconds maxrss_kb"
  /usr/bin/time -f '%e %M' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || [ $? = 1 ]
  cat "$tmp/t"
}
base=() json=() pb=() rd=() rss_j=() rss_p=()
for ((i = 0; i < reps; i++)); do
  read -r s _ < <(run "$analyze" --no-progress "$tmp/trace" -o /dev/null); base+=("$s")
  read -r s k < <(run "$analyze" --no-progress "$tmp/trace" -o /dev/null --chrome-trace "$tmp/t.json")
  json+=("$s") rss_j+=("$k")
  read -r s k < <(run "$analyze" --no-progress "$tmp/trace" -o /dev/null --perfetto "$tmp/t.pftrace")
  pb+=("$s") rss_p+=("$k")
  read -r s _ < <(run "$pfread" "$tmp/t.pftrace"); rd+=("$s")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
"$pfread" "$tmp/t.pftrace" >"$tmp/stats"
packets=$(sed -n 's/^track_events //p' "$tmp/stats")
awk -v b="$(median "${base[@]}")" -v j="$(median "${json[@]}")" -v p="$(median "${pb[@]}")" \
  -v r="$(median "${rd[@]}")" -v kj="$(median "${rss_j[@]}")" -v kp="$(median "${rss_p[@]}")" \
  -v sj="$(stat -c %s "$tmp/t.json")" -v sp="$(stat -c %s "$tmp/t.pftrace")" \
  -v e="$events" -v t="$tasks" -v te="$packets" -v reps="$reps" -v n="$n" 'BEGIN {
  printf "bench-perfetto: naive fib(%d) -p 2, %d events, %d tasks; %d interleaved runs, medians\n", n, e, t, reps
  printf "%-22s %12s %11s %10s %10s %9s %9s %9s\n", "export", "bytes", "B/event", "B/task", "B/track-ev", "seconds", "export s", "RSS MiB"
  printf "%-22s %12s %11s %10s %10s %9.2f %9s %9s\n", "none (analysis only)", "-", "-", "-", "-", b, "-", "-"
  printf "%-22s %12d %11.1f %10.1f %10s %9.2f %9.2f %9.1f\n", "--chrome-trace (JSON)", sj, sj / e, sj / t, "-", j, j - b, kj / 1024
  printf "%-22s %12d %11.1f %10.1f %10.1f %9.2f %9.2f %9.1f\n", "--perfetto (protobuf)", sp, sp / e, sp / t, sp / te, p, p - b, kp / 1024
  printf "protobuf / JSON size: %.3f (%.1fx smaller); pf-read reads it back in %.2f s\n", sp / sj, sj / sp, r
}'
