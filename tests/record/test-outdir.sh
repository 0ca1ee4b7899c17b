#!/bin/bash
# Unusable output directories -> 123 with one message, before CMD runs.
# We run as root, so permission bits would not stop us: use a path whose
# parent is a regular file, /proc, an existing file and a non-empty directory.
source "$(dirname "$0")/lib.sh"

: >"$TMP/file"
run_rec 123 -o "$TMP/file/trace" -- touch "$TMP/ran"
one_line_err
err_has "cannot create output directory '$TMP/file/trace'"
pass "parent is a regular file -> 123"

run_rec 123 -o "/proc/fjtrace-record-test-$$" -- touch "$TMP/ran"
one_line_err
err_has "output directory"
pass "/proc path -> 123"

run_rec 123 -o "$TMP/file" -- touch "$TMP/ran"
one_line_err
err_has "not a directory"
pass "existing file -> 123"

mkdir "$TMP/full"; : >"$TMP/full/old"
run_rec 123 -o "$TMP/full" -- touch "$TMP/ran"
one_line_err
err_has "not empty"
[[ -e $TMP/full/old ]] || fail "touched a non-empty directory"
pass "non-empty directory -> 123"

[[ ! -e $TMP/ran ]] || fail "CMD ran although the output directory was unusable"
