#!/bin/bash
# CMD's exit status is the recorder's; CMD keeps its stdin/stdout; the
# session is gone afterwards. Needs lttng-sessiond (fjtrace-record starts one
# when none is reachable).
source "$(dirname "$0")/lib.sh"

daemon_before=0
lttng --no-sessiond list >/dev/null 2>&1 && daemon_before=1

run_rec 7 -o "$TMP/t1" -- sh -c 'exit 7'
err_has "trace: $TMP/t1"
! session_listed "$TMP/t1"
check $? "no session writes to the trace folder afterwards"

run_rec 0 -o "$TMP/t2" -- true
run_rec 143 -o "$TMP/t3" -- sh -c 'kill -TERM $$'

# stdin and stdout reach CMD (it runs as a background child of the script)
out=$(echo "hello via stdin" | "$REC" -o "$TMP/t4" -- cat 2>"$TMP/err")
is "$out" "hello via stdin" "CMD reads the recorder's stdin and writes its stdout"

# arguments are passed verbatim, options after CMD belong to CMD
run_rec 0 -o "$TMP/t5" -- printf '%s|' "a b" --help -o ""
is "$(cat "$TMP/out")" "a b|--help|-o||" "CMD's arguments are passed verbatim"
run_rec 0 -o "$TMP/t6" printf '%s|' --blocking
is "$(cat "$TMP/out")" "--blocking|" "options after CMD are CMD's"

# the default output directory: a new timestamped folder under ./fjtrace-traces/
mkdir "$TMP/cwd"
cd "$TMP/cwd" || fail "no $TMP/cwd"
run_rec 0 -- true
run_rec 0 -- true
is "$(find "$TMP/cwd/fjtrace-traces" -mindepth 1 -maxdepth 1 -type d | wc -l)" 2 \
    "two runs make two trace folders under ./fjtrace-traces/"
err_has "trace: $TMP/cwd/fjtrace-traces/[0-9]{8}-[0-9]{6}"

# a daemon the recorder started is stopped again (unless someone else
# started using it meanwhile: the daemon is shared on this machine)
if (( ! daemon_before )); then
    if lttng --no-sessiond list >/dev/null 2>&1; then
        lttng --no-sessiond list | grep -q ') '
        check $? "the daemon it started is stopped, or serves someone else's session"
    fi
else
    skip 1 "a session daemon was running before the test"
fi
done_testing
