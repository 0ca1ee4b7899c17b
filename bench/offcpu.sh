#!/usr/bin/env bash
# bench-offcpu: what recording off-CPU time costs (runtime/src/offcpu.c).
#
#   (x) recorded without the off-CPU events: fjtrace:* but
#       fjtrace:offcpu* (the perf event is then never opened)
#   (o) recorded with them: fjtrace:* (what fjtrace-record does)
#
# Cost: naive fib(N) at P workers, (x) and (o) interleaved REPS times, one
# fib per process (bench-tracing-fib); ns per task = (o - x) / tasks on the
# medians. Events: fj-burn (a tree whose leaves burn CPU time) at P workers
# while B busy loops compete for the cores, recorded with (o): off-CPU
# events per second of run. Prints the load (uptime) before and after.
#
# usage: offcpu.sh [-n N] [-p P] [-r REPS] [-b BUSY] FIB_BIN BURN_BIN
set -euo pipefail

n=27 p=2 reps=9 busy_n=3
while getopts "n:p:r:b:h" opt; do
    case $opt in
        n) n=$OPTARG ;;
        p) p=$OPTARG ;;
        r) reps=$OPTARG ;;
        b) busy_n=$OPTARG ;;
        h) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ $# -eq 2 ]] || { echo "usage: $0 [-n N] [-p P] [-r REPS] [-b BUSY] FIB_BIN BURN_BIN" >&2; exit 2; }
[[ $n =~ ^[0-9]+$ && $p =~ ^[1-9][0-9]*$ && $reps =~ ^[1-9][0-9]*$ && $busy_n =~ ^[0-9]+$ ]] ||
    { echo "$0: bad -n/-p/-r/-b" >&2; exit 2; }
fib=$1 burn=$2
for b in "$fib" "$burn"; do [[ -x $b ]] || { echo "$0: $b: not an executable" >&2; exit 2; }; done
for t in lttng babeltrace2; do
    command -v "$t" >/dev/null || { echo "$0: '$t' not found" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/fjtrace-bench-offcpu.XXXXXX)
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
busy=()
cleanup() {
    for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
    bench_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# recorded MODE OUT CMD...: CMD recorded alone (bench_record); MODE x
# leaves the off-CPU events out. Appends "offcpu=K" (off-CPU interval
# events) to OUT.
recorded() {
    local mode=$1 out=$2
    shift 2
    local dir=$tmp/rec-$RANDOM-$SECONDS events='fjtrace:*'
    [[ $mode == x ]] && events=$NO_OFFCPU_EVENTS
    bench_record "$dir" "$events" "--type=vtid --type=procname" "$out" "$@"
    bench_record_end
    echo "offcpu=$(babeltrace2 "$dir" 2>/dev/null | grep -c 'fjtrace:offcpu: ' || true)" >>"$out"
    rm -rf "$dir"
}

med() {
    sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "load before: $(load_avg)"
: >"$tmp/x"; : >"$tmp/o"; : >"$tmp/of"
# Tasks of naive fib(n): F(n+1)-1 forks plus the root (bench-tracing-fib's
# own tasks= is n/a: its pool does not count tasks).
tasks=$(awk -v n="$n" 'BEGIN { a = 0; b = 1; for (i = 0; i < n + 1; i++) { c = a + b; a = b; b = c }; print a }')
for ((r = 1; r <= reps; r++)); do
    recorded x "$tmp/run" "$fib" "$n" "$p"
    field "$tmp/run" elapsed_ns >>"$tmp/x"
    recorded o "$tmp/run" "$fib" "$n" "$p"
    field "$tmp/run" elapsed_ns >>"$tmp/o"
    echo "$(field "$tmp/run" offcpu) $(field "$tmp/run" elapsed_ns)" >>"$tmp/of"
done
tx=$(med "$tmp/x") to=$(med "$tmp/o")
awk '{ print $1 / ($2 / 1e9) }' "$tmp/of" >"$tmp/ofr"
fib_rate=$(med "$tmp/ofr")

for ((i = 0; i < busy_n; i++)); do (while :; do :; done) >/dev/null 2>&1 & busy+=($!); done
: >"$tmp/br"
for ((r = 1; r <= reps; r++)); do
    recorded o "$tmp/run" "$burn" -p "$p" --depth 8 --leaf-us 500
    el=$(sed -n 's/^summary .*elapsed_s=\([0-9.]*\).*/\1/p' "$tmp/run")
    echo "$(field "$tmp/run" offcpu) $el" | awk '{ print $1 / $2 }' >>"$tmp/br"
done
for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
busy=()
burn_rate=$(med "$tmp/br")
echo "load after:  $(load_avg)"

awk -v n="$n" -v p="$p" -v reps="$reps" -v tasks="$tasks" -v tx="$tx" -v to="$to" \
    -v fr="$fib_rate" -v br="$burn_rate" -v b="$busy_n" 'BEGIN {
    printf "bench-offcpu: naive fib(%d), P=%d, %d tasks; %d repetitions interleaved (x o), medians\n", n, p, tasks, reps
    printf "%-46s %10s %9s\n", "configuration", "median ms", "ns/task"
    printf "%-46s %10.3f %9.2f\n", "(x) recorded, fjtrace:offcpu* excluded", tx / 1e6, tx / tasks
    printf "%-46s %10.3f %9.2f\n", "(o) recorded with off-CPU events", to / 1e6, to / tasks
    printf "off-CPU cost: %.2f ns/task, ratio o/x %.4f\n", (to - tx) / tasks, to / tx
    printf "off-CPU events per second of run: fib %.0f/s; fj-burn depth 8 with %d busy loops %.0f/s\n", fr, b, br
}'
