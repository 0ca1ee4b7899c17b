#!/usr/bin/env bash
# bench/omp.sh: what the OMPT tool (libfjtrace-omp) costs an OpenMP program.
#
#   not recording: omp-fib with no tool vs with the tool loaded and no LTTng
#     session (its callbacks run, its tracepoints are disabled), on fib with a
#     cutoff (goal <= 1.05x) and on naive fib (a task per call, the worst
#     case); and the tool's start-up (fib(1))
#   recording, per event: (recorded - loaded not recording) / events, for
#     omp-fib naive under the tool vs fj-fib naive under libfj's own
#     tracepoints, (recorded - not recorded) / events (goal: <= 1.2x)
#
# Times are the process's CPU time (cpu_s of the program's summary line,
# CLOCK_PROCESS_CPUTIME_ID, start-up included), which a loaded machine
# disturbs far less than wall-clock time; P=1 throughout, so no thread spins
# waiting for another. Every configuration runs REPS times, interleaved;
# the tables show medians (and min..max).
# usage: omp.sh [-r REPS] [BUILD_DIR]     (default: 11 reps, build/)
set -euo pipefail

reps=11
while getopts "r:h" opt; do
    case $opt in
        r) reps=$OPTARG ;;
        h) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
build=${1:-build}
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "$0: bad -r '$reps'" >&2; exit 2; }
here=$(cd -- "$(dirname -- "$0")" && pwd -P)
record=$here/../scripts/fjtrace-record
tool=$build/ompt/libfjtrace-omp.so
ompfib=$build/samples/omp/omp-fib
fjfib=$build/samples/fj-fib
for f in "$tool" "$ompfib" "$fjfib"; do
    [[ -e $f ]] || { echo "$0: $f missing: build first (meson setup $build && ninja -C $build)" >&2; exit 2; }
done
tool=$(cd -- "$(dirname -- "$tool")" && pwd -P)/$(basename -- "$tool")
tmp=$(mktemp -d /tmp/fjtrace-bench-omp.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

start_args=(1 -p 1)
cutoff_args=(36 --variant cutoff --cutoff 20 -p 1)
naive_omp=(23 -p 1)
naive_fj=(26 --variant naive -p 1)

cpu_of() { sed -n 's/^summary .*cpu_s=\([0-9.]*\).*/\1/p'; }
# cpu KEY CMD...: appends CMD's CPU time (ms) to $tmp/KEY
cpu() {
    local key=$1 out
    shift
    out=$("$@" 2>/dev/null) || { echo "$0: '$*' failed" >&2; exit 1; }
    cpu_of <<<"$out" | awk '{ printf "%.3f\n", $1 * 1000 }' >>"$tmp/$key"
}
# tool KEY CMD...: the same with the tool loaded
tool() { local key=$1; shift; OMP_TOOL_LIBRARIES=$tool cpu "$key" "$@"; }
# rec KEY RECORDER-OPTIONS -- CMD...: records CMD; its CPU time, the events
rec() {
    local key=$1 out
    shift
    rm -rf "$tmp/trace"
    out=$(FJTRACE_OMP_TOOL=$tool "$record" --count --cmd-only -o "$tmp/trace" "$@" 2>"$tmp/err") || {
        cat "$tmp/err" >&2; exit 1; }
    grep -q 'WARNING: LTTng discarded' "$tmp/err" && { echo "$0: events discarded" >&2; exit 1; }
    cpu_of <<<"$out" | awk '{ printf "%.3f\n", $1 * 1000 }' >>"$tmp/$key"
    sed -n 's/.*fjtrace-record: events: \([0-9]*\).*/\1/p' "$tmp/err" >"$tmp/$key.events"
}
median() { sort -g "$tmp/$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
spread() { sort -g "$tmp/$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.1f..%.1f", lo, hi }'; }

echo "load before: $(uptime)"
for ((i = 1; i <= reps; i++)); do
    cpu start_none "$ompfib" "${start_args[@]}"
    tool start_tool "$ompfib" "${start_args[@]}"
    cpu cut_none "$ompfib" "${cutoff_args[@]}"
    tool cut_tool "$ompfib" "${cutoff_args[@]}"
    cpu naive_none "$ompfib" "${naive_omp[@]}"
    tool naive_tool "$ompfib" "${naive_omp[@]}"
    rec naive_rec --openmp -- "$ompfib" "${naive_omp[@]}"
    cpu fj_norec "$fjfib" "${naive_fj[@]}"
    rec fj_rec -- "$fjfib" "${naive_fj[@]}"
done
echo "load after:  $(uptime)"

s0=$(median start_none) s1=$(median start_tool)
c0=$(median cut_none) c1=$(median cut_tool)
n0=$(median naive_none) n1=$(median naive_tool) n2=$(median naive_rec)
f0=$(median fj_norec) f1=$(median fj_rec)
eo=$(cat "$tmp/naive_rec.events") ef=$(cat "$tmp/fj_rec.events")
echo "CPU ms of the process, medians of $reps runs (min..max):"
printf '  start-up omp-fib 1          no tool %s (%s)  tool %s (%s)\n' "$s0" "$(spread start_none)" "$s1" "$(spread start_tool)"
printf '  omp-fib 36 cutoff 20 P=1    no tool %s (%s)  tool, not recording %s (%s)\n' "$c0" "$(spread cut_none)" "$c1" "$(spread cut_tool)"
printf '  omp-fib 23 naive P=1        no tool %s (%s)  tool, not recording %s (%s)\n' "$n0" "$(spread naive_none)" "$n1" "$(spread naive_tool)"
printf '  omp-fib 23 naive recorded   %s (%s), %s events\n' "$n2" "$(spread naive_rec)" "$eo"
printf '  fj-fib 26 naive             not recording %s (%s), recorded %s (%s), %s events\n' "$f0" "$(spread fj_norec)" "$f1" "$(spread fj_rec)" "$ef"
awk -v s0="$s0" -v s1="$s1" -v c0="$c0" -v c1="$c1" -v n0="$n0" -v n1="$n1" -v n2="$n2" \
    -v f0="$f0" -v f1="$f1" -v eo="$eo" -v ef="$ef" 'BEGIN {
    printf "tool start-up: +%.2f ms CPU (loading the tool and LTTng-UST)\n", s1 - s0
    printf "cutoff, whole process: %.3fx; without the start-up: %.3fx (goal <= 1.05x)\n", c1 / c0, (c1 - s1) / (c0 - s0)
    printf "naive (a task per call), without the start-up: %.3fx, %.0f ns more per task\n", (n1 - s1) / (n0 - s0), (n1 - n0 - (s1 - s0)) * 1e6 / (2 * 46368 - 2)
    po = (n2 - n1) / eo * 1e6; pf = (f1 - f0) / ef * 1e6
    printf "recording cost per event: tool %.1f ns, libfj %.1f ns: %.2fx (goal <= 1.2x)\n", po, pf, po / pf
}'
