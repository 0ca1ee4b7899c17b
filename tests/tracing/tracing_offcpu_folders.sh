#!/bin/bash
# Several trace folders read ahead in one reading, through the real stack:
# two fj-burn processes recorded at once (one folder each, LTTng's per-process
# buffers) beside 3 busy loops, so their workers are preempted; one of them
# also sleeps in its leaves (blocked). check_offcpu_folders.py holds the
# known answers and the comparisons.
#   tracing_offcpu_folders.sh FJTRACE-RECORD FJTRACE-ANALYZE FJ-BURN
record=$1 analyze=$2 burn=$3
tmp=$(mktemp -d /tmp/fjtrace-folders.XXXXXX)
busy=()
stop_busy() {
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
  busy=()
}
trap 'stop_busy; rm -rf "$tmp"' EXIT

for _ in 1 2 3; do (while :; do :; done) >/dev/null 2>&1 & busy+=($!); done
# A: 2^5 leaves x 2 ms of CPU; B: 2^4 leaves x (3 ms of CPU + 1 ms asleep)
"$record" --blocking --no-count -o "$tmp/t" -- sh -c \
  "'$burn' -p 2 --depth 5 --leaf-us 2000 & '$burn' -p 2 --depth 4 --leaf-us 3000 --sleep-us 1000; wait" \
  >/dev/null 2>"$tmp/rec.err"
st=$?
stop_busy
python3 "$(dirname "$0")/check_offcpu_folders.py" "$analyze" "$tmp/t" "$st" "$tmp/rec.err"
