#!/usr/bin/env bash
# bench/omp.sh: what the OMPT tool (libfjtrace-omp) costs an OpenMP program.
#
#   not recording: omp-fib with no tool vs with the tool loaded and no LTTng
#     session (its callbacks run, its tracepoints are disabled), on fib with a
#     cutoff at P=2 and P=1 (goal <= 1.05x) and on naive fib (a task per
#     call, the worst case)
#   recording, per event: (recorded - loaded not recording) / events, for
#     omp-fib naive under the tool vs fj-fib naive under libfj's own
#     tracepoints (goal: the tool <= 1.2x libfj's cost per event)
#
# Every configuration runs REPS times, interleaved; each program times its
# own parallel part (elapsed_s of its summary line); the table shows medians.
# usage: omp.sh [-r REPS] [BUILD_DIR]     (default: 7 reps, build/)
set -euo pipefail

reps=7
while getopts "r:h" opt; do
    case $opt in
        r) reps=$OPTARG ;;
        h) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

cutoff_args=(36 --variant cutoff --cutoff 20 -p 2)
cutoff1_args=(34 --variant cutoff --cutoff 20 -p 1)
naive_omp=(23 -p 1)
naive_fj=(26 --variant naive -p 1)

elapsed() { sed -n 's/^summary .*elapsed_s=\([0-9.]*\).*/\1/p'; }
# run KEY CMD...: appends CMD's elapsed time to $tmp/KEY
run() { local key=$1; shift; "$@" 2>/dev/null | elapsed >>"$tmp/$key"; }
# rec KEY CMD...: records CMD; appends its elapsed time and the event count
rec() {
    local key=$1 out
    shift
    rm -rf "$tmp/trace"
    out=$(FJTRACE_OMP_TOOL=$tool "$record" --cmd-only -o "$tmp/trace" "$@" 2>"$tmp/err") || {
        cat "$tmp/err" >&2; exit 1; }
    elapsed <<<"$out" >>"$tmp/$key"
    grep -q 'WARNING: LTTng discarded' "$tmp/err" && { echo "$0: events discarded" >&2; exit 1; }
    sed -n 's/.*fjtrace-record: events: \([0-9]*\).*/\1/p' "$tmp/err" >"$tmp/$key.events"
}
median() { sort -g "$tmp/$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
spread() { sort -g "$tmp/$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.4f..%.4f", lo, hi }'; }

echo "load before: $(uptime)"
for ((i = 1; i <= reps; i++)); do
    run cut_none "$ompfib" "${cutoff_args[@]}"
    OMP_TOOL_LIBRARIES=$tool run cut_tool "$ompfib" "${cutoff_args[@]}"
    run cut1_none "$ompfib" "${cutoff1_args[@]}"
    OMP_TOOL_LIBRARIES=$tool run cut1_tool "$ompfib" "${cutoff1_args[@]}"
    run naive_none "$ompfib" "${naive_omp[@]}"
    OMP_TOOL_LIBRARIES=$tool run naive_tool "$ompfib" "${naive_omp[@]}"
    rec naive_rec --openmp -- "$ompfib" "${naive_omp[@]}"
    run fj_norec "$fjfib" "${naive_fj[@]}"
    rec fj_rec -- "$fjfib" "${naive_fj[@]}"
done
echo "load after:  $(uptime)"

c0=$(median cut_none) c1=$(median cut_tool)
d0=$(median cut1_none) d1=$(median cut1_tool)
echo "spreads (min..max): cutoff P=2 $(spread cut_none) vs $(spread cut_tool); cutoff P=1 $(spread cut1_none) vs $(spread cut1_tool); naive $(spread naive_none) vs $(spread naive_tool)"
n0=$(median naive_none) n1=$(median naive_tool) n2=$(median naive_rec)
f0=$(median fj_norec) f1=$(median fj_rec)
eo=$(cat "$tmp/naive_rec.events") ef=$(cat "$tmp/fj_rec.events")
awk -v c0="$c0" -v c1="$c1" -v d0="$d0" -v d1="$d1" -v n0="$n0" -v n1="$n1" -v n2="$n2" -v f0="$f0" -v f1="$f1" \
    -v eo="$eo" -v ef="$ef" -v reps="$reps" 'BEGIN {
    printf "medians of %d runs (s)\n", reps
    printf "omp-fib 36 cutoff 20 P=2   no tool %.4f  tool, not recording %.4f  ratio %.3fx (goal <= 1.05x)\n", c0, c1, c1 / c0
    printf "omp-fib 34 cutoff 20 P=1   no tool %.4f  tool, not recording %.4f  ratio %.3fx (goal <= 1.05x)\n", d0, d1, d1 / d0
    printf "omp-fib 23 naive P=1       no tool %.4f  tool, not recording %.4f  ratio %.3fx\n", n0, n1, n1 / n0
    po = (n2 - n1) / eo * 1e9; pf = (f1 - f0) / ef * 1e9
    printf "recording, omp-fib 23 naive: %.4f s, %d events: %.1f ns/event\n", n2, eo, po
    printf "recording, fj-fib 26 naive:  %.4f s (not recording %.4f), %d events: %.1f ns/event\n", f1, f0, ef, pf
    printf "per-event cost, tool / libfj: %.2fx (goal <= 1.2x)\n", po / pf
}'
