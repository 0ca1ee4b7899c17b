#!/usr/bin/env bash
# fjtrace-top -- CMD decodes the live session in a decoding process of its
# own (issue 26 step 4: libbabeltrace2 never runs in fjtrace-top itself):
# while the view runs, fjtrace-top has a child process of its own program
# (not the recorder, not the relay daemon); killed, as a crash or an abort
# in the library would end it, only the live view is lost: fjtrace-top
# says the live session cannot be read because its decoding process died,
# lets CMD run to its end, and exits 3 (the live session cannot be read).
# The relay is a private one of this test; the shared session daemon is
# not touched.
#   bash test-top-decoder.sh FJTRACE_RECORD FJTRACE_TOP FJ_BURN
source "$(dirname "$0")/relay-lib.sh"
keep_tmp_here
TOP=${2:?usage}
BURN=${3:?usage}
need lttng lttng-relayd python3 timeout pgrep
export FJTRACE_RECORD=$REC

start_relayd "$TMP/relay"
top_burn_start "$TOP" "$BURN"
top=$TOP_PID
# a frame with forks: events were read (before any, fjtrace-top tries the
# live session again, which loses nothing)
out_wait ': [1-9][0-9]* tasks so far'
# fjtrace-top runs under timeout; its decoding process is a child of the
# same program (forked, not executed)
name=$(basename "$TOP" | cut -c1-15)
viewer=$(pgrep -P "$top" -x "$name" | head -n 1)
decoder=
[[ -n $viewer ]] && decoder=$(pgrep -P "$viewer" -x "$name" | head -n 1)
[[ -n $decoder ]]
check $? "while the view runs, fjtrace-top (pid ${viewer:-none}) has a decoding process of its own" \
    "$TMP/err"
[[ -n $decoder ]] && kill -KILL "$decoder"
st=0
wait "$top" || st=$?
[[ $st -eq 3 ]]
check $? "its decoding process killed: fjtrace-top exits 3, the live session cannot be read (got $st)" \
    "$TMP/err"
grep -q "the live session cannot be read: .*its decoding process died" "$TMP/err"
check $? "fjtrace-top says the live session cannot be read: its decoding process died" "$TMP/err"
grep -q "the live view is lost; waiting for CMD to end" "$TMP/err"
check $? "and lets CMD run to its end" "$TMP/err"
grep -q "summary variant=" "$TMP/cmd.log"
check $? "CMD ran to its end (its summary line)" "$TMP/cmd.log"
done_testing
