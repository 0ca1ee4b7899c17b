#!/bin/bash
# Tracing compiled out records nothing; and with no session daemon reachable
# a traced program runs normally.
. "$(dirname "$0")/lib.sh" "$1"
FIB=$2 FIB_NOTRACE=$3
record off "$FIB_NOTRACE" 18 -p 2 && {
  if [ -e "$tmp/off" ] && [ -n "$(find "$tmp/off" -name metadata)" ]; then
    python3 "$(dirname "$0")/check_trace.py" "$tmp/off" none || fail=1
  fi
  grep -q 'events: 0' "$tmp/off.err" || { echo "FAIL: notrace build recorded events"; cat "$tmp/off.err"; fail=1; }
}
# Hide every session daemon: a private mount namespace with empty run dirs.
mkdir -p "$tmp/home"
out=$(unshare -m bash -c 'mount -t tmpfs none /var/run/lttng 2>/dev/null || mount -t tmpfs none /run;
      HOME='"$tmp/home"' LTTNG_HOME='"$tmp/home"' exec "$0" 20 -p 2' "$FIB" 2>&1) || { echo "FAIL: no-daemon run: $out"; fail=1; }
grep -q '^fib(20) = 6765$' <<<"$out" || { echo "FAIL: no-daemon output: $out"; fail=1; }
exit $fail
