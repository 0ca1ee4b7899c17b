#!/bin/bash
# Unusable output directories -> 123 with one message, before CMD runs.
# We run as root, so permission bits would not stop us: use a path whose
# parent is a regular file, /proc, an existing file and a non-empty directory.
source "$(dirname "$0")/lib.sh"

: >"$TMP/file"
run_rec 123 -o "$TMP/file/trace" -- touch "$TMP/ran"
one_line_err
err_has "cannot create output directory '$TMP/file/trace'"

run_rec 123 -o "/proc/fjtrace-record-test-$$" -- touch "$TMP/ran"
one_line_err
err_has "output directory"

run_rec 123 -o "$TMP/file" -- touch "$TMP/ran"
one_line_err
err_has "not a directory"

mkdir "$TMP/full"; : >"$TMP/full/old"
run_rec 123 -o "$TMP/full" -- touch "$TMP/ran"
one_line_err
err_has "not empty"
[[ -e $TMP/full/old ]]
check $? "a non-empty directory is left as it was"

[[ ! -e $TMP/ran ]]
check $? "CMD never runs when the output directory is unusable"
done_testing
