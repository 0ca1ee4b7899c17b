#!/usr/bin/env bash
# fjtrace-top -- CMD when the relay daemon goes away while CMD runs (issue
# 24): the recorder exits 115 ("CMD exited 0, but the recording was lost")
# and says which daemon went away; fjtrace-top must pass that status on and
# tell it the same way (its ERROR lines), not exit 3 for its own lost live
# view. The relay is a private one of this test (--relayd, --live-port);
# the shared session daemon is not touched.
#   bash test-top-lost.sh FJTRACE_RECORD FJTRACE_TOP FJ_BURN
source "$(dirname "$0")/relay-lib.sh"
keep_tmp_here
TOP=${2:?usage}
BURN=${3:?usage}
need lttng lttng-relayd python3 timeout
export FJTRACE_RECORD=$REC

start_relayd "$TMP/relay"
# about 5 s of CMD; the relay is stopped 2 s after the first frame
top_burn_start "$TOP" "$BURN"
top=$TOP_PID
out_wait '^fjtrace-top [0-9]'
sleep 2
stop_relayd
st=0
wait "$top" || st=$?
[[ $st -eq 115 ]]
check $? "the relay gone while CMD ran: fjtrace-top exits 115 as fjtrace-record does (got $st)" \
    "$TMP/err"
grep -q "^fjtrace-top: CMD exited 0, but the recording was lost while it ran" "$TMP/err"
check $? "fjtrace-top says the recording was lost" "$TMP/err"
grep -q "fjtrace-record: ERROR: the relay daemon at 127.0.0.1 .* went away while CMD ran" "$TMP/err"
check $? "fjtrace-top shows the recorder's ERROR naming the relay that went away" "$TMP/err"
grep -q "fjtrace-record: exit 115" "$TMP/err"
check $? "and the recorder's exit line" "$TMP/err"
done_testing
