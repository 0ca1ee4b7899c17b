#!/bin/bash
# lttng not on PATH -> exit 120, one message, CMD not run, no output dir.
source "$(dirname "$0")/lib.sh"

mkpath "$TMP/bin" lttng
PATH=$TMP/bin command -v lttng >/dev/null && fail "test PATH still has lttng"
PATH=$TMP/bin run_rec 120 -o "$TMP/trace" -- touch "$TMP/ran"
one_line_err
err_has "lttng.*not found"
[[ ! -e $TMP/ran ]]
check $? "without lttng CMD does not run"
[[ ! -e $TMP/trace ]]
check $? "without lttng no output directory is created"
done_testing
