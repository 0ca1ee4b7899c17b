#!/usr/bin/env bash
# Regenerates the small golden traces under tests/data/ (run by hand, as
# root or a member of the tracing group; needs lttng, lttng-ust, built
# samples in BUILD). Then run update-golden.sh to refresh the expected JSON.
#
#   tests/analyzer/gen/make-traces.sh BUILD_DIR
set -euo pipefail
build=$(realpath "${1:?usage: make-traces.sh BUILD_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
data=$root/tests/data
rec=$root/scripts/fjtrace-record
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cc -O1 -I"$root/tracepoints" -o "$tmp/scenario" "$here/scenario.c" \
    "$root/tracepoints/fjtrace_tp.c" -llttng-ust -ldl

# --cmd-only: other programs tracing at the same time stay out
small=(--cmd-only --subbuf-size 16k --num-subbuf 8)
record() { # NAME [--openmp] CMD...
    local name=$1 opts=(); shift
    [ "$1" = --openmp ] && { opts=(--openmp); shift; }
    rm -rf "${data:?}/$name"
    "$rec" -o "$data/$name" "${small[@]}" "${opts[@]}" -- "$@" >/dev/null || true
}

# Not regenerated here: fib12-sized-p2 (bench-tracing-fib 12 2 recorded by
# libfj before fork's site_size, 2026-12-06: fork with size_hint and site)
# and fib12-packed-p2 (the same after it), their load maps dropped; what
# test_cli.py compares is the two layouts of one program.
record fib-p1 "$build/samples/fj-fib" 10 -p 1
record fib13-p1 "$build/samples/fj-fib" 13 -p 1
record fib-p2 "$build/samples/fj-fib" 12 -p 2
record quicksort-p2 "$build/samples/fj-quicksort" -n 1000 -p 2
record breakeven-p2 "$build/samples/fj-breakeven" -n 100 -q 10 -p 2 -r 5 --think 1
record contention-p2 "$build/samples/fj-contention" -n 200 -p 2
# OpenMP (the OMPT tool): naive task fib(10), 2F(11)-2 = 176 tasks; untied
# tasks that yield (suspend/resume)
FJTRACE_OMP_TOOL=$build/ompt/libfjtrace-omp.so record omp-fib-p2 --openmp "$build/samples/omp/omp-fib" 10 -p 2
FJTRACE_OMP_TOOL=$build/ompt/libfjtrace-omp.so record omp-untied --openmp "$build/tests/openmp/omp-cases-clang" untied
# a tree of 4 leaves of 2 ms beside a busy loop: off-CPU records, and the
# OMPT tool's clock readings (offcpu_task_clock with its own time and
# switch_follows) for the replay's golden changes (TOOL_TIME, TOOL_TAIL)
( timeout 10 sh -c 'while :; do :; done' & )
OMP_NUM_THREADS=2 FJTRACE_OMP_TOOL=$build/ompt/libfjtrace-omp.so record omp-tree-offcpu --openmp "$build/tests/openmp/omp-known-clang" tree 2 2000
pkill -f "while :; do :; done" || true
# their load maps name this machine's build paths: drop them, so that the
# golden reports do not depend on where the binaries are
for n in omp-fib-p2 omp-untied omp-tree-offcpu; do
    rm -f "$data/$n"/ust/uid/*/64-bit/fjtrace_maps_* "$data/$n"/ust/uid/*/64-bit/index/fjtrace_maps_*
done
record killed "$tmp/scenario" killed
record anomalies "$tmp/scenario" anomalies
# tiny buffers and a burst of events: LTTng discards some
rm -rf "$data/discarded"
"$rec" -o "$data/discarded" --cmd-only --subbuf-size 4096 --num-subbuf 2 -- \
    "$build/samples/fj-fib" 16 -p 2 >/dev/null || true

# a CTF trace with no fjtrace event at all: lttng_ust_tracef only
lttng --no-sessiond list >/dev/null 2>&1 || lttng-sessiond --daemonize --no-kernel
s=fja-notrace-$$
rm -rf "$data/no-fjtrace"
lttng create "$s" --output="$data/no-fjtrace" >/dev/null
lttng enable-event -u -s "$s" 'lttng_ust_tracef:*' >/dev/null
lttng start "$s" >/dev/null
"$tmp/scenario" tracef
lttng stop "$s" >/dev/null
lttng destroy "$s" >/dev/null
echo "traces written under $data"
