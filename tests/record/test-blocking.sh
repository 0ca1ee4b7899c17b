#!/bin/bash
# --blocking: LTTNG_UST_ALLOW_BLOCKING=1 exported to CMD, a blocking channel,
# and no loss even with buffers that lose events in discard mode.
source "$(dirname "$0")/lib.sh"
[[ -n $EMIT ]] || fail "needs the emitter"

unset LTTNG_UST_ALLOW_BLOCKING
run_rec 0 -o "$TMP/t0" -- sh -c 'echo "[${LTTNG_UST_ALLOW_BLOCKING-unset}]"'
is "$(cat "$TMP/out")" "[unset]" "without --blocking LTTNG_UST_ALLOW_BLOCKING stays unset"

# CMD inspects its own session: the channel must have an infinite blocking timeout
probe='lttng --no-sessiond list "$(lttng --no-sessiond list | grep -B1 "Trace output: $0\$" | sed -n "s/^ *[0-9]*) \([^ ]*\) .*/\1/p")"'
run_rec 0 -o "$TMP/t1" --blocking -- sh -c "echo \"[\$LTTNG_UST_ALLOW_BLOCKING]\"; $probe" "$TMP/t1"
grep -qx '\[1\]' "$TMP/out"
check $? "--blocking exports LTTNG_UST_ALLOW_BLOCKING=1 to CMD" "$TMP/out"
grep -qi 'blocking timeout.*inf' "$TMP/out"
check $? "--blocking makes the channel's blocking timeout infinite" "$TMP/out"

N=20000
run_rec 0 -o "$TMP/t2" --count --cmd-only --blocking --subbuf-size 64k --num-subbuf 2 -- "$EMIT" "$N"
! grep -q WARNING "$TMP/err"
check $? "--blocking with small buffers loses no event (no warning)" "$TMP/err"
err_has "events: $N$"
is "$(bt_count "$TMP/t2")" "$N" "babeltrace2 counts all $N events"
done_testing
