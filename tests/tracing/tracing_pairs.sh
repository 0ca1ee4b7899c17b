#!/bin/bash
# Quicksort and counted completers traced: every pair closes and nests.
. "$(dirname "$0")/lib.sh" "$1"
QS=$2 RUNTIME_TEST=$3
record qs "$QS" -n 100000 -p 2 && python3 "$(dirname "$0")/check_trace.py" "$tmp/qs" pairs || fail=1
record cc "$RUNTIME_TEST" completers && \
  python3 "$(dirname "$0")/check_trace.py" "$tmp/cc" pairs --expect-completions || fail=1
exit $fail
