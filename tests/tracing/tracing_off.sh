#!/bin/bash
# Tracing compiled out records nothing; and with no session daemon reachable
# a traced program runs normally.
. "$(dirname "$0")/lib.sh" "$1"
FIB=$2 FIB_NOTRACE=$3
# (not lib.sh's record, which skips the count: the count is checked here)
"$RECORD" --count --cmd-only -o "$tmp/off" -- "$FIB_NOTRACE" 18 -p 2 >"$tmp/off.out" 2>"$tmp/off.err"
if ok $? "fjtrace-record records the build with tracing compiled out"; then
  if [ -e "$tmp/off" ] && [ -n "$(find "$tmp/off" -name metadata)" ]; then
    python3 "$(dirname "$0")/check_trace.py" "$tmp/off" none
    ok $? "the build with tracing compiled out leaves no fjtrace event in the trace"
  fi
  grep -q 'events: 0' "$tmp/off.err"
  ok $? "fjtrace-record counts 0 events of the build with tracing compiled out" || cat "$tmp/off.err"
fi
# Hide every session daemon: a private mount namespace with empty run dirs.
mkdir -p "$tmp/home"
st=0
out=$(unshare -m bash -c 'mount -t tmpfs none /var/run/lttng 2>/dev/null || mount -t tmpfs none /run;
      HOME='"$tmp/home"' LTTNG_HOME='"$tmp/home"' exec "$0" 20 -p 2' "$FIB" 2>&1) || st=$?
ok $st "a traced fib with no session daemon reachable exits 0" || echo "$out"
grep -q '^fib(20) = 6765$' <<<"$out"
ok $? "a traced fib with no session daemon reachable prints fib(20) = 6765" || echo "$out"
done_testing
