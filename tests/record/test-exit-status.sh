#!/bin/bash
# CMD's exit status is the recorder's; CMD keeps its stdin/stdout; the
# session is gone afterwards. Needs lttng-sessiond (fjtrace-record starts one
# when none is reachable).
source "$(dirname "$0")/lib.sh"

daemon_before=0
lttng --no-sessiond list >/dev/null 2>&1 && daemon_before=1

run_rec 7 -o "$TMP/t1" -- sh -c 'exit 7'
err_has "trace: $TMP/t1"
session_listed "$TMP/t1" && fail "session writing to $TMP/t1 still exists"
pass "exit 7 propagated"

run_rec 0 -o "$TMP/t2" -- true
pass "exit 0 propagated"

run_rec 143 -o "$TMP/t3" -- sh -c 'kill -TERM $$'
pass "death by SIGTERM -> 143"

# stdin and stdout reach CMD (it runs as a background child of the script)
out=$(echo "hello via stdin" | "$REC" -o "$TMP/t4" -- cat 2>"$TMP/err")
[[ $out == "hello via stdin" ]] || { cat "$TMP/err" >&2; fail "stdin/stdout not passed through: '$out'"; }
pass "stdin/stdout passed to CMD"

# arguments are passed verbatim, options after CMD belong to CMD
run_rec 0 -o "$TMP/t5" -- printf '%s|' "a b" --help -o ""
[[ $(cat "$TMP/out") == "a b|--help|-o||" ]] || fail "arguments mangled: $(cat "$TMP/out")"
run_rec 0 -o "$TMP/t6" printf '%s|' --blocking
[[ $(cat "$TMP/out") == "--blocking|" ]] || fail "options after CMD parsed by the recorder"
pass "CMD arguments verbatim"

# the default output directory: a new timestamped folder under ./fjtrace-traces/
mkdir "$TMP/cwd"; cd "$TMP/cwd"
run_rec 0 -- true
run_rec 0 -- true
n=$(find "$TMP/cwd/fjtrace-traces" -mindepth 1 -maxdepth 1 -type d | wc -l)
[[ $n -eq 2 ]] || fail "expected 2 trace folders under fjtrace-traces/, found $n"
err_has "trace: $TMP/cwd/fjtrace-traces/[0-9]{8}-[0-9]{6}"
pass "default output under ./fjtrace-traces/"

# a daemon the recorder started is stopped again (unless someone else
# started using it meanwhile: the daemon is shared on this machine)
if (( ! daemon_before )); then
    if lttng --no-sessiond list >/dev/null 2>&1; then
        lttng --no-sessiond list | grep -q ') ' || fail "the daemon it started is still running with no session"
    fi
    pass "daemon it started was stopped"
fi
