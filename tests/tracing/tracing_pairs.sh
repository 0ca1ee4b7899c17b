#!/bin/bash
# Quicksort and counted completers traced: every pair closes and nests.
. "$(dirname "$0")/lib.sh" "$1"
QS=$2 RUNTIME_TEST=$3 CONTENTION=$4 ANALYZE=${5:-}
check=$(dirname "$0")/check_trace.py
if record qs "$QS" -n 100000 -p 2; then
  python3 "$check" "$tmp/qs" pairs
  ok $? "quicksort: every task executed once, exec/executed and join/joined pairs nested per thread"
fi
if record cc "$RUNTIME_TEST" completers; then
  python3 "$check" "$tmp/cc" pairs --expect-completions
  ok $? "counted completers: completing/completed pairs nested per thread, completions recorded"
fi
# The instrumented lock: named once, contended acquisitions traced in pairs.
# 8 workers on one lock: whatever the load, while the holder runs (or is
# preempted holding it) the other workers wait, so waits dominate; with 2
# workers on a loaded machine they seldom run at the same time.
if record lock "$CONTENTION" -p 8 -n 2000; then
  python3 "$check" "$tmp/lock" pairs
  ok $? "contention: lock_wait/lock_acquired pairs nested per thread"
  text=$(babeltrace2 "$tmp/lock")
  grep -q 'fjtrace:lock_init: .*name = "shared-resource"' <<<"$text"
  ok $? "contention: a lock_init event names the lock \"shared-resource\""
  waits=$(grep -c 'fjtrace:lock_wait:' <<<"$text")
  got=$(grep -c 'fjtrace:lock_acquired:' <<<"$text")
  [ "$waits" -gt 0 ]
  ok $? "contention: contended acquisitions are traced ($waits lock_wait events)"
  is "$got" "$waits" "contention: every lock_wait has its lock_acquired"
  # The analyzer attributes the lost time to the lock, by name.
  if [ -n "$ANALYZE" ]; then
    st=0
    report=$("$ANALYZE" "$tmp/lock") || st=$?
    is "$st" 0 "fjtrace-analyze reads the whole contention trace: exit 0"
    grep -q '^  lock "shared-resource": [0-9]* waits' <<<"$report"
    ok $? "the report has a line for lock \"shared-resource\"" || echo "$report"
    grep -q 'hidden_serialization.*most for lock "shared-resource"' <<<"$report"
    ok $? "the hidden_serialization advice names lock \"shared-resource\"" || echo "$report"
  else
    skip 3 "no fjtrace-analyze in this build"
  fi
fi
done_testing
