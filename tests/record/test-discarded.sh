#!/bin/bash
# Tiny buffers and a fast emitter lose events: the recorder must print a
# WARNING with the number of discarded events, and recorded + discarded = N.
# The number comes from LTTng's packet index, without decoding the trace:
# the same with --no-count (no "events:" line then), and the same as the
# sum of babeltrace2's discarded-events messages.
source "$(dirname "$0")/lib.sh"
[[ -n $EMIT ]] || fail "needs the emitter"

# bt_lost DIR: the events babeltrace2's pretty sink says were discarded
bt_lost() {
    babeltrace2 "$1" 2>&1 >/dev/null | sed -n 's/.*discarded \([0-9]*\) event.*/\1/p' |
        awk '{ s += $1 } END { print s + 0 }'
}

N=300000
run_rec 0 -o "$TMP/t" --count --cmd-only --subbuf-size 4096 --num-subbuf 2 -- "$EMIT" "$N"
err_has "WARNING: LTTng discarded [0-9]+ events"
lost=$(sed -n 's/.*WARNING: LTTng discarded \([0-9]*\) events.*/\1/p' "$TMP/err")
got=$(sed -n 's/^fjtrace-record: events: \([0-9]*\)$/\1/p' "$TMP/err")
(( ${lost:-0} > 0 ))
check $? "the warning counts the discarded events ($lost)"
is "$(bt_count "$TMP/t")" "$got" "babeltrace2 counts the events the recorder reports"
is "$(( ${got:-0} + ${lost:-0} ))" "$N" "recorded + discarded = the $N emitted"
is "$(bt_lost "$TMP/t")" "${lost:-}" "the discarded count is babeltrace2's sum of discarded-events messages"

run_rec 0 -o "$TMP/nc" --cmd-only --no-count --subbuf-size 4096 --num-subbuf 2 -- "$EMIT" "$N"
lost=$(sed -n 's/.*WARNING: LTTng discarded \([0-9]*\) events.*/\1/p' "$TMP/err")
! grep -q "^fjtrace-record: events:" "$TMP/err"
check $? "--no-count: no event count (the trace is not decoded)" "$TMP/err"
is "$(( $(bt_count "$TMP/nc") + ${lost:-0} ))" "$N" "--no-count: the warning still counts the discarded events: recorded + discarded = $N"
done_testing
