#!/bin/bash
# Off-CPU time recorded through the real stack (TAP, from check_offcpu.py):
#   preempted   fj-burn at P=2 (16 leaves x 8 ms of CPU) while 3 busy loops
#               compete for the 2 cores
#   blocked     each of the 2^3 leaves burns 1 ms, sleeps 2 ms: 8 blocked intervals
#   unavailable perf_event_open refused by seccomp (EACCES): said in the trace
# With FJTRACE-ANALYZE, the report's known answers too (check_offcpu.py).
# usage: tracing_offcpu.sh MODE FJTRACE-RECORD FJ-BURN NOPERF [FJTRACE-ANALYZE]
set -u
mode=$1 record=$2 burn=$3 noperf=$4 analyze=${5:-}
check=$(dirname "$0")/check_offcpu.py
tmp=$(mktemp -d /tmp/fjtrace-offcpu.XXXXXX)
busy=()
cleanup() {
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
run() { # run CMD...: records CMD into $tmp/t
  local rc=0
  "$record" --cmd-only --context vtid -o "$tmp/t" -- "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [ $rc = 0 ] && return
  echo "1..1"; echo "not ok 1 - $mode: recording $* exited $rc"; sed 's/^/# /' "$tmp/err"; exit 1
}
case $mode in
  preempted)
    for _ in 1 2 3; do (while :; do :; done) >/dev/null 2>&1 & busy+=($!); done
    run "$burn" -p 2 --depth 4 --leaf-us 8000
    for pid in "${busy[@]}"; do kill "$pid"; done; busy=()
    python3 "$check" "$tmp/t" preempted ${analyze:+"$analyze"}; exit ;;
  blocked)
    run "$burn" -p 2 --depth 3 --leaf-us 1000 --sleep-us 2000
    python3 "$check" "$tmp/t" blocked 3 2000 ${analyze:+"$analyze"}; exit ;;
  unavailable)
    run "$noperf" "$burn" -p 2 --depth 3 --leaf-us 100
    python3 "$check" "$tmp/t" unavailable 13 ${analyze:+"$analyze"}; exit ;;
esac
echo "1..1"; echo "not ok 1 - unknown mode $mode"; exit 1
