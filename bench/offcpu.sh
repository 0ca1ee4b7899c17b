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
lttng --no-sessiond list >/dev/null 2>&1 || { echo "$0: no lttng-sessiond reachable" >&2; exit 3; }

tmp=$(mktemp -d /tmp/fjtrace-bench-offcpu.XXXXXX)
session=
busy=()
cleanup() {
    set +e
    for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
    if [[ -n $session ]]; then
        lttng --no-sessiond destroy "$session" >/dev/null 2>&1
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

lq() { # lttng, quiet unless it fails
    local out
    out=$(lttng --no-sessiond "$@" 2>&1) || { echo "$0: lttng $*: $out" >&2; exit 3; }
}

# recorded MODE OUT CMD...: CMD under a fresh session tracking its process
# only (held at a gate until tracked); MODE x excludes the off-CPU events.
# Appends "offcpu=K" (off-CPU interval events) to OUT.
recorded() {
    local mode=$1 out=$2
    shift 2
    session=fjbench-offcpu-$$-$RANDOM
    local dir=$tmp/$session
    lq create "$session" --output="$dir"
    lq enable-channel --userspace --session="$session" --subbuf-size=4M --num-subbuf=8 ch
    if [[ $mode == x ]]; then
        # every event but fjtrace:offcpu*, by initial letter: an --exclude
        # makes lttng-sessiond 2.13.9 die on 'lttng list SESSION' (anyone's)
        local main_events
        main_events=$(printf 'fjtrace:%s*,' {a..n} {p..z})
        lq enable-event --userspace --session="$session" --channel=ch "${main_events%,}"
    else
        lq enable-event --userspace --session="$session" --channel=ch 'fjtrace:*'
    fi
    lq add-context --userspace --session="$session" --channel=ch --type=vtid --type=procname
    local gate=$tmp/gate
    rm -f "$gate"
    mkfifo "$gate"
    (read -r _ <"$gate" && exec "$@") >"$out" &
    local child=$!
    lq untrack --userspace --session="$session" --vpid --all
    lq track --userspace --session="$session" --vpid="$child"
    lq start "$session"
    # shellcheck disable=SC2016 # $1 is expanded by the inner sh
    timeout 30 sh -c 'echo go >"$1"' sh "$gate" || { echo "$0: child did not start" >&2; exit 3; }
    wait "$child" || { echo "$0: $* failed (recorded)" >&2; exit 1; }
    lq stop "$session"
    lq destroy "$session"
    session=
    echo "offcpu=$(babeltrace2 "$dir" 2>/dev/null | grep -c 'fjtrace:offcpu: ' || true)" >>"$out"
    rm -rf "$dir"
}

field() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | head -n 1; }
med() {
    sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "load before: $(uptime)"
: >"$tmp/x"; : >"$tmp/o"; : >"$tmp/of"
tasks=0
for ((r = 1; r <= reps; r++)); do
    recorded x "$tmp/run" "$fib" "$n" "$p"
    field "$tmp/run" elapsed_ns >>"$tmp/x"
    recorded o "$tmp/run" "$fib" "$n" "$p"
    field "$tmp/run" elapsed_ns >>"$tmp/o"
    echo "$(field "$tmp/run" offcpu) $(field "$tmp/run" elapsed_ns)" >>"$tmp/of"
    tasks=$(field "$tmp/run" tasks)
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
echo "load after:  $(uptime)"

awk -v n="$n" -v p="$p" -v reps="$reps" -v tasks="$tasks" -v tx="$tx" -v to="$to" \
    -v fr="$fib_rate" -v br="$burn_rate" -v b="$busy_n" 'BEGIN {
    printf "bench-offcpu: naive fib(%d), P=%d, %d tasks; %d repetitions interleaved (x o), medians\n", n, p, tasks, reps
    printf "%-46s %10s %9s\n", "configuration", "median ms", "ns/task"
    printf "%-46s %10.3f %9.2f\n", "(x) recorded, fjtrace:offcpu* excluded", tx / 1e6, tx / tasks
    printf "%-46s %10.3f %9.2f\n", "(o) recorded with off-CPU events", to / 1e6, to / tasks
    printf "off-CPU cost: %.2f ns/task, ratio o/x %.4f\n", (to - tx) / tasks, to / tx
    printf "off-CPU events per second of run: fib %.0f/s; fj-burn depth 8 with %d busy loops %.0f/s\n", fr, b, br
}'
