#!/bin/bash
# CMD not found -> 127, not executable -> 126: one message, checked before
# any session or directory is created.
source "$(dirname "$0")/lib.sh"
cd "$TMP"

run_rec 127 -o "$TMP/trace" -- fjtrace-no-such-command-$$ arg
one_line_err
err_has "fjtrace-no-such-command-$$: command not found"
[[ ! -e $TMP/trace ]] || fail "output directory created for a missing CMD"
pass "missing CMD on PATH -> 127"

run_rec 127 -o "$TMP/trace" -- "$TMP/nope/prog"
one_line_err
err_has "command not found"
pass "missing CMD path -> 127"

printf '#!/bin/sh\ntouch %s/ran\n' "$TMP" >"$TMP/noexec"
chmod 644 "$TMP/noexec"
run_rec 126 -o "$TMP/trace" -- "$TMP/noexec"
one_line_err
err_has "not executable"
[[ ! -e $TMP/ran ]] || fail "non-executable CMD ran"
pass "non-executable CMD -> 126"

mkdir -p "$TMP/pathdir"
cp "$TMP/noexec" "$TMP/pathdir/fjtrace-noexec-$$"
PATH=$TMP/pathdir:$PATH run_rec 126 -o "$TMP/trace" -- "fjtrace-noexec-$$"
one_line_err
err_has "not executable"
pass "non-executable CMD found on PATH -> 126"

run_rec 126 -o "$TMP/trace" -- "$TMP/pathdir"
one_line_err
err_has "is a directory"
pass "directory as CMD -> 126"

[[ ! -e $TMP/fjtrace-traces && ! -e $TMP/trace ]] || fail "an output directory was created"
