#!/bin/bash
# CMD not found -> 127, not executable -> 126: one message, checked before
# any session or directory is created.
source "$(dirname "$0")/lib.sh"
cd "$TMP" || fail "no $TMP"

run_rec 127 -o "$TMP/trace" -- fjtrace-no-such-command-$$ arg
one_line_err
err_has "fjtrace-no-such-command-$$: command not found"
[[ ! -e $TMP/trace ]]
check $? "no output directory is created for a missing CMD"

run_rec 127 -o "$TMP/trace" -- "$TMP/nope/prog"
one_line_err
err_has "command not found"

printf '#!/bin/sh\ntouch %s/ran\n' "$TMP" >"$TMP/noexec"
chmod 644 "$TMP/noexec"
run_rec 126 -o "$TMP/trace" -- "$TMP/noexec"
one_line_err
err_has "not executable"
[[ ! -e $TMP/ran ]]
check $? "a non-executable CMD does not run"

mkdir -p "$TMP/pathdir"
cp "$TMP/noexec" "$TMP/pathdir/fjtrace-noexec-$$"
PATH=$TMP/pathdir:$PATH run_rec 126 -o "$TMP/trace" -- "fjtrace-noexec-$$"
one_line_err
err_has "not executable"

run_rec 126 -o "$TMP/trace" -- "$TMP/pathdir"
one_line_err
err_has "is a directory"

[[ ! -e $TMP/fjtrace-traces && ! -e $TMP/trace ]]
check $? "no output directory was created by any of these"
done_testing
