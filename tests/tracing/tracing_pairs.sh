#!/bin/bash
# Quicksort and counted completers traced: every pair closes and nests.
. "$(dirname "$0")/lib.sh" "$1"
QS=$2 RUNTIME_TEST=$3 CONTENTION=$4 ANALYZE=${5:-}
record qs "$QS" -n 100000 -p 2 && python3 "$(dirname "$0")/check_trace.py" "$tmp/qs" pairs || fail=1
record cc "$RUNTIME_TEST" completers && \
  python3 "$(dirname "$0")/check_trace.py" "$tmp/cc" pairs --expect-completions || fail=1
# The instrumented lock: named once, contended acquisitions traced in pairs.
if record lock "$CONTENTION" -p 2 -n 2000; then
  python3 "$(dirname "$0")/check_trace.py" "$tmp/lock" pairs || fail=1
  text=$(babeltrace2 "$tmp/lock")
  grep -q 'fjtrace:lock_init: .*name = "shared-resource"' <<<"$text" || { echo "FAIL: no lock_init naming the lock"; fail=1; }
  waits=$(grep -c 'fjtrace:lock_wait:' <<<"$text"); got=$(grep -c 'fjtrace:lock_acquired:' <<<"$text")
  [ "$waits" -gt 0 ] && [ "$waits" = "$got" ] || { echo "FAIL: lock_wait $waits vs lock_acquired $got"; fail=1; }
  # The analyzer attributes the lost time to the lock, by name.
  if [ -n "$ANALYZE" ]; then
    report=$("$ANALYZE" "$tmp/lock") || [ $? = 1 ] || { echo "FAIL: fjtrace-analyze on the lock trace"; fail=1; }
    grep -q '^  lock "shared-resource": [0-9]* waits' <<<"$report" || { echo "FAIL: report has no lock line: $report"; fail=1; }
    grep -q 'hidden_serialization.*most for lock "shared-resource"' <<<"$report" || { echo "FAIL: advice does not name the lock"; fail=1; }
  fi
fi
exit $fail
