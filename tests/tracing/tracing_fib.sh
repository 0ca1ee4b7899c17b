#!/bin/bash
# Naive fib traced for real: exactly F(n+1)-1 fork events, one exec and one
# executed per task, steals of tasks forked on the victim, <= 3.2 events/task.
. "$(dirname "$0")/lib.sh" "$1"
FIB=$2
for p in 1 2 4; do
  record fib$p "$FIB" 20 --variant naive -p $p || continue
  extra=; [ $p -gt 1 ] && extra=--expect-steals
  python3 "$(dirname "$0")/check_trace.py" "$tmp/fib$p" fib 20 $extra || { echo "FAIL at P=$p"; fail=1; }
done
exit $fail
