#!/bin/bash
# Several trace folders read ahead in one reading, through the real stack:
# two fj-burn processes recorded at once (one folder each, LTTng's per-process
# buffers) beside 3 busy loops, so their workers are preempted; one of them
# also sleeps in its leaves (blocked). check_offcpu_folders.py holds the
# known answers and the comparisons.
#   tracing_offcpu_folders.sh FJTRACE-RECORD FJTRACE-ANALYZE FJ-BURN
record=$1 analyze=$2 burn=$3
tmp=$(mktemp -d /tmp/fjtrace-folders.XXXXXX)
. "$(dirname "$0")/../busy.sh"
trap 'busy_stop; rm -rf "$tmp"' EXIT

busy_start 3
# A: 2^5 leaves x 2 ms of CPU; B: 2^4 leaves x (3 ms of CPU + 1 ms asleep)
"$record" --blocking --no-count -o "$tmp/t" -- sh -c \
  "'$burn' -p 2 --depth 5 --leaf-us 2000 & '$burn' -p 2 --depth 4 --leaf-us 3000 --sleep-us 1000; wait" \
  >/dev/null 2>"$tmp/rec.err"
st=$?
busy_stop
python3 "$(dirname "$0")/check_offcpu_folders.py" "$analyze" "$tmp/t" "$st" "$tmp/rec.err"
