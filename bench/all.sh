#!/usr/bin/env bash
# bench-all: every row of issue 15 side by side in one run, with PASS/MISS
# per goal and the machine's load before and after:
#   bench-runtime  sequential, libfj P=1/P=2 (naive, cutoff, sort), libgomp
#   bench-tracing  compiled out vs compiled in not recording, the recording
#                  floor (no context) vs libfj's events, bytes per event
# Times are minima over repetitions (the machine is shared; the fastest run
# is the least disturbed); P=1 comparisons use CPU time. See bench/README.md.
#
# usage: all.sh [-n N] [-r REPS] [-N TRACE_N] [-R TRACE_REPS] BENCH_RUNTIME \
#               NOTRACE_BIN TRACE_BIN FLOOR_BIN [NOTRACE_SHARED_BIN]
set -euo pipefail

n=32 reps=7 tn=27 treps=7
while getopts "n:r:N:R:h" opt; do
    case $opt in
        n) n=$OPTARG ;;
        r) reps=$OPTARG ;;
        N) tn=$OPTARG ;;
        R) treps=$OPTARG ;;
        h) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ $# -ge 4 ]] || { sed -n '11,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
runtime=$1
shift
here=$(dirname "$0")
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
out=$(mktemp /tmp/fjtrace-bench-all.XXXXXX)
trap 'rm -f "$out"' EXIT

echo "bench-all: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load before: $(load_avg)"
echo
"$runtime" -n "$n" -r "$reps" | tee -a "$out"
echo
echo "load between: $(load_avg)"
echo
bash "$here/tracing.sh" -n "$tn" -p 1 -r "$treps" "$@" | tee -a "$out"
echo
echo "load after: $(load_avg)"
echo
echo "summary (issue 15 goals):"
grep '^goal ' "$out" | sed 's/^goal /  /'
