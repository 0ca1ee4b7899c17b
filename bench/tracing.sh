#!/usr/bin/env bash
# bench-tracing: what the fjtrace tracepoints cost, on naive fib.
#
#   (a) tracepoints compiled out   bench-tracing-fib-notrace (static libfj_notrace)
#   (b) compiled in, not recording bench-tracing-fib (shared libfj), no session
#   (c) compiled in, recording     the same binary under a real LTTng session
#   (d) the floor                  bench-tracing-floor: a bare loop of
#                                  lttng_ust_tracepoint(fjtrace, exec, ...),
#                                  run not recorded (d0) and recorded (d1)
#   (a2) informative, if given     bench-tracing-fib-notrace-shared: compiled
#                                  out but a shared library, like (b)
#
# The configurations run interleaved (a [a2] b c d0 d1, REPS times), one timed
# fib (or loop) per process; every program prints its own timing, this
# script records, counts and prints the table of minima (the machine is
# shared: the fastest of the runs is the least disturbed). See bench/README.md.
#
# -c: times are the CPU time of the thread doing the work (the root's
# thread in fib, the loop's in the floor; cpu_ns) instead of the wall clock
# (elapsed_ns): on a machine shared with other busy programs the wall clock
# counts the time they had the CPU, the CPU time much less of it.
#
# usage: tracing.sh [-c] [-n N] [-p P] [-r REPS] NOTRACE_BIN TRACE_BIN FLOOR_BIN [NOTRACE_SHARED_BIN]
set -euo pipefail

n=27 p=1 reps=9 tf=elapsed_ns
while getopts "cn:p:r:h" opt; do
    case $opt in
        c) tf=cpu_ns ;;
        n) n=$OPTARG ;;
        p) p=$OPTARG ;;
        r) reps=$OPTARG ;;
        h) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [[ $# -ne 3 && $# -ne 4 ]]; then
    echo "usage: $0 [-c] [-n N] [-p P] [-r REPS] NOTRACE_BIN TRACE_BIN FLOOR_BIN [NOTRACE_SHARED_BIN]" >&2
    exit 2
fi
[[ $n =~ ^[0-9]+$ && $p =~ ^[0-9]+$ && $reps =~ ^[1-9][0-9]*$ ]] || { echo "$0: bad -n/-p/-r" >&2; exit 2; }
bin_a=$1 bin_b=$2 bin_d=$3 bin_a2=${4:-}
for b in "$bin_a" "$bin_b" "$bin_d" ${bin_a2:+"$bin_a2"}; do
    [[ -x $b ]] || { echo "$0: $b: not an executable" >&2; exit 2; }
done
for t in lttng lttng-sessiond babeltrace2; do
    command -v "$t" >/dev/null || { echo "$0: '$t' not found" >&2; exit 2; }
done

# Tasks of naive fib(n): F(n+1)-1 forks plus the root. The floor emits about
# as many events as (c) records: 3 per task.
tasks=$(awk -v n="$n" 'BEGIN { a = 0; b = 1; for (i = 0; i < n + 1; i++) { c = a + b; a = b; b = c }; print a }')
floor_events=$((3 * tasks))

tmp=$(mktemp -d /tmp/fjtrace-bench.XXXXXX)
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

# run_plain OUT CMD...: runs CMD, stdout to OUT
run_plain() {
    local out=$1
    shift
    "$@" >"$out" || { echo "$0: $* failed" >&2; exit 1; }
}

# run_recorded OUT CMD...: runs CMD under a fresh session restricted to its
# process; appends "events=E discarded=D" to OUT.
run_recorded() {
    local out=$1
    shift
    local dir=$tmp/rec-$RANDOM-$SECONDS
    bench_record "$dir" 'fjtrace:*' '' "$out" "$@"
    local discarded
    discarded=$(lttng --no-sessiond list "$session" | awk '/Discarded events:/ { s += $3 } END { print s + 0 }')
    bench_record_end
    local events bytes
    events=$(babeltrace2 "$dir" -c sink.utils.counter -p step=+0 2>/dev/null |
        awk '/ Event messages/ { print $1 }')
    # On disk: the stream files of the channel (not the metadata, not the index).
    bytes=$(find "$dir" -type f -path '*/64-bit/ch_*' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    echo "events=${events:-0} discarded=$discarded bytes=$bytes" >>"$out"
    rm -rf "$dir"
}

other_sessions=$( (lttng --no-sessiond list 2>/dev/null || true) | grep -c '^ *[0-9][0-9]*) ' || true)
# The table is built from these files, one line per repetition.
: >"$tmp/a" ; : >"$tmp/a2" ; : >"$tmp/b" ; : >"$tmp/c" ; : >"$tmp/d0" ; : >"$tmp/d1"
start=$SECONDS
for ((r = 1; r <= reps; r++)); do
    run_plain "$tmp/run" "$bin_a" "$n" "$p"
    field "$tmp/run" "$tf" >>"$tmp/a"
    if [[ -n $bin_a2 ]]; then
        run_plain "$tmp/run" "$bin_a2" "$n" "$p"
        field "$tmp/run" "$tf" >>"$tmp/a2"
    fi
    run_plain "$tmp/run" "$bin_b" "$n" "$p"
    field "$tmp/run" "$tf" >>"$tmp/b"
    run_recorded "$tmp/run" "$bin_b" "$n" "$p"
    printf '%s %s %s %s %s\n' "$(field "$tmp/run" "$tf")" "$(field "$tmp/run" events)" \
        "$(field "$tmp/run" discarded)" "$(field "$tmp/run" tasks)" "$(field "$tmp/run" bytes)" >>"$tmp/c"
    run_plain "$tmp/run" "$bin_d" "$floor_events"
    field "$tmp/run" "$tf" >>"$tmp/d0"
    run_recorded "$tmp/run" "$bin_d" "$floor_events"
    printf '%s %s %s %s\n' "$(field "$tmp/run" "$tf")" "$(field "$tmp/run" events)" \
        "$(field "$tmp/run" discarded)" "$(field "$tmp/run" bytes)" >>"$tmp/d1"
done

# med FILE [COLUMN]: the minimum of a column (the least disturbed run)
med() {
    awk -v c="${2:-1}" '{ print $c }' "$1" | sort -g | head -n 1
}
ta=$(med "$tmp/a") ta2=0 tb=$(med "$tmp/b") tc=$(med "$tmp/c" 1) ec=$(med "$tmp/c" 2)
[[ -n $bin_a2 ]] && ta2=$(med "$tmp/a2")
td0=$(med "$tmp/d0") td1=$(med "$tmp/d1" 1) ed=$(med "$tmp/d1" 2)
# bytes per event: of the run with the fewest bytes per event (they barely vary)
bc=$(awk '$2 > 0 { print $5 / $2 }' "$tmp/c" | sort -g | head -n 1)
bd=$(awk '$2 > 0 { print $4 / $2 }' "$tmp/d1" | sort -g | head -n 1)
disc_c=$(awk '{ s += $3 } END { print s + 0 }' "$tmp/c")
disc_d=$(awk '{ s += $3 } END { print s + 0 }' "$tmp/d1")
other_sessions_end=$( (lttng --no-sessiond list 2>/dev/null || true) | grep -c '^ *[0-9][0-9]*) ' || true)

awk -v n="$n" -v p="$p" -v reps="$reps" -v tasks="$tasks" -v ta="$ta" -v ta2="$ta2" -v tb="$tb" -v tc="$tc" \
    -v ec="$ec" -v td0="$td0" -v td1="$td1" -v ed="$ed" -v fe="$floor_events" \
    -v dc="$disc_c" -v dd="$disc_d" -v secs=$((SECONDS - start)) -v bc="${bc:-0}" -v bd="${bd:-0}" \
    -v os="$other_sessions" -v ose="$other_sessions_end" -v tf="$tf" '
function pf(ok) { return ok ? "PASS" : "MISS" }
BEGIN {
    printf "bench-tracing: naive fib(%d), P=%d, %d tasks per run; %d repetitions, interleaved (a%s b c d0 d1), minima\n", n, p, tasks, reps, (ta2 > 0 ? " a2" : "")
    printf "recording: LTTng session per run, channel --subbuf-size=4M --num-subbuf=8 (per-UID buffers, discard mode),\n"
    printf "           events fjtrace:*, no context (as fjtrace-record), tracking only the benchmark process\n\n"
    printf "times: %s\n\n", tf == "cpu_ns" ? "CPU time of the working thread (-c)" : "wall clock"
    printf "%-44s %10s %9s %10s %9s\n", "configuration", "min ms", "ns/task", "events", "ns/event"
    printf "%-44s %10.3f %9.2f %10s %9s\n", "(a) tracing compiled out (fj_notrace_dep)", ta / 1e6, ta / tasks, "-", "-"
    if (ta2 > 0)
        printf "%-44s %10.3f %9.2f %10s %9s\n", "(a2) compiled out, shared lib (informative)", ta2 / 1e6, ta2 / tasks, "-", "-"
    printf "%-44s %10.3f %9.2f %10s %9s\n", "(b) compiled in, not recording (fj_dep)", tb / 1e6, tb / tasks, "-", "-"
    printf "%-44s %10.3f %9.2f %10d %9.2f\n", "(c) compiled in, recording", tc / 1e6, tc / tasks, ec, (tc - tb) / ec
    printf "%-44s %10.3f %9s %10d %9.2f\n", "(d0) floor loop, not recording", td0 / 1e6, "-", fe, td0 / fe
    printf "%-44s %10.3f %9s %10d %9.2f\n", "(d1) floor loop, recording", td1 / 1e6, "-", ed, td1 / ed
    printf "\n"
    rb = tb / ta; rc = (tc - tb) / ec; rd = (td1 - td0) / ed; ept = ec / tasks
    printf "%-58s %10s %8s  %s\n", "metric", "value", "goal", "result"
    printf "%-58s %9.3fx %8s  %s\n", "(b)/(a) compiled-in, not recording vs compiled out", rb, "<= 1.10", pf(rb <= 1.10)
    if (ta2 > 0)
        printf "%-58s %9.3fx %8s  %s\n", "(b)/(a2) the same, both shared (informative)", tb / ta2, "", ""
    printf "%-58s %8.2f ns %8s\n", "recording cost per event (c) = (t_c - t_b) / events", rc, ""
    printf "%-58s %8.2f ns %8s\n", "floor per event (d) = (t_d1 - t_d0) / events", rd, ""
    printf "%-58s %9.3fx %8s  %s\n", "recording cost per event (c) / floor (d)", rc / rd, "<= 1.1", pf(rc / rd <= 1.1)
    printf "%-58s %10.3f %8s  %s\n", "events per task (c)", ept, "<= 3.2", pf(ept <= 3.2)
    printf "%-58s %10.2f %8s  %s\n", "bytes per event on disk (c), libfj events", bc, "<= 28", pf(bc > 0 && bc <= 28)
    printf "%-58s %10.2f %8s\n", "bytes per event on disk (d1), the floor (exec, no context)", bd, ""
    printf "%-58s %10d %8s  %s\n", "discarded events, all recorded runs of (c)", dc, "0", pf(dc == 0)
    printf "%-58s %10d %8s  %s\n", "discarded events, all recorded runs of (d1)", dd, "0", pf(dd == 0)
    printf "\ngoal not recording <= 1.10x compiled out: %.3fx %s\n", rb, pf(rb <= 1.10)
    printf "goal recording cost per event <= 1.1x the no-context floor: %.3fx %s\n", rc / rd, pf(rc / rd <= 1.1)
    printf "goal <= 28 bytes per event on disk: %.2f %s\n", bc, pf(bc > 0 && bc <= 28)
    printf "\nother LTTng sessions on the daemon: %d at start, %d at end; wall time %d s\n", os, ose, secs
}'
