#!/bin/bash
# --blocking: LTTNG_UST_ALLOW_BLOCKING=1 exported to CMD, a blocking channel,
# and no loss even with buffers that lose events in discard mode.
source "$(dirname "$0")/lib.sh"
[[ -n $EMIT ]] || fail "needs the emitter"

unset LTTNG_UST_ALLOW_BLOCKING
run_rec 0 -o "$TMP/t0" -- sh -c 'echo "[${LTTNG_UST_ALLOW_BLOCKING-unset}]"'
[[ $(cat "$TMP/out") == "[unset]" ]] || fail "LTTNG_UST_ALLOW_BLOCKING set without --blocking"

# CMD inspects its own session: the channel must have an infinite blocking timeout
probe='lttng --no-sessiond list "$(lttng --no-sessiond list | grep -B1 "Trace output: $0\$" | sed -n "s/^ *[0-9]*) \([^ ]*\) .*/\1/p")"'
run_rec 0 -o "$TMP/t1" --blocking -- sh -c "echo \"[\$LTTNG_UST_ALLOW_BLOCKING]\"; $probe" "$TMP/t1"
grep -qx '\[1\]' "$TMP/out" || fail "LTTNG_UST_ALLOW_BLOCKING=1 not exported"
grep -qi 'blocking timeout.*inf' "$TMP/out" || { cat "$TMP/out" >&2; fail "channel is not blocking"; }
pass "--blocking exports LTTNG_UST_ALLOW_BLOCKING=1, channel blocking-timeout=inf"

N=20000
run_rec 0 -o "$TMP/t2" --cmd-only --blocking --subbuf-size 64k --num-subbuf 2 -- "$EMIT" "$N"
grep -q WARNING "$TMP/err" && { cat "$TMP/err" >&2; fail "events lost in blocking mode"; }
err_has "events: $N$"
[[ $(bt_count "$TMP/t2") == "$N" ]] || fail "babeltrace2 counts $(bt_count "$TMP/t2"), expected $N"
pass "--blocking with small buffers: all $N events"
