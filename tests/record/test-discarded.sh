#!/bin/bash
# Tiny buffers and a fast emitter lose events: the recorder must print a
# WARNING with the number of discarded events, and recorded + discarded = N.
source "$(dirname "$0")/lib.sh"
[[ -n $EMIT ]] || fail "needs the emitter"

N=300000
run_rec 0 -o "$TMP/t" --cmd-only --subbuf-size 4096 --num-subbuf 2 -- "$EMIT" "$N"
err_has "WARNING: LTTng discarded [0-9]+ events"
lost=$(sed -n 's/.*WARNING: LTTng discarded \([0-9]*\) events.*/\1/p' "$TMP/err")
got=$(sed -n 's/^fjtrace-record: events: \([0-9]*\)$/\1/p' "$TMP/err")
(( ${lost:-0} > 0 ))
check $? "the warning counts the discarded events ($lost)"
is "$(bt_count "$TMP/t")" "$got" "babeltrace2 counts the events the recorder reports"
is "$(( ${got:-0} + ${lost:-0} ))" "$N" "recorded + discarded = the $N emitted"
done_testing
