#!/usr/bin/env bash
# fjtrace-top -- CMD when the relay daemon goes away while CMD runs (issue
# 24): the recorder exits 115 ("CMD exited 0, but the recording was lost")
# and says which daemon went away; fjtrace-top must pass that status on and
# tell it the same way (its ERROR lines), not exit 3 for its own lost live
# view. The relay is a private one of this test (--relayd, --live-port);
# the shared session daemon is not touched.
#   bash test-top-lost.sh FJTRACE_RECORD FJTRACE_TOP FJ_BURN
source "$(dirname "$0")/relay-lib.sh"
TOP=${2:?usage}
BURN=${3:?usage}
need lttng lttng-relayd python3 timeout
export FJTRACE_RECORD=$REC

start_relayd "$TMP/relay"
# fj-burn -p 2 --depth 10 --leaf-us 5000: about 5 s of CMD, the relay is
# stopped after 2 s of it
timeout 300 "$TOP" --batch --interval 0.5 --relayd "net://127.0.0.1:$RELAY_C:$RELAY_D" \
    --live-port "$RELAY_L" --cmd-output "$TMP/cmd.log" -- \
    "$BURN" -p 2 --depth 10 --leaf-us 5000 >"$TMP/out" 2>"$TMP/err" &
top=$!
for (( i = 0; i < 600; i++ )); do
    grep -q '^fjtrace-top [0-9]' "$TMP/out" 2>/dev/null && break
    sleep 0.05
done
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
