#!/bin/bash
# Recording onto a full disk (issue 18): a 64 KiB tmpfs fills up while a
# real workload is recorded. The recorder must name the full disk (not only
# "babeltrace2 cannot read the trace"), keep CMD's status, and the analyzer
# must say the trace cannot be decoded (exit 3, not 4 "no fjtrace event").
# Needs root (mount); skipped otherwise.
#   test-full-disk.sh RECORD FIB ANALYZE
source "$(dirname "$0")/lib.sh"
FIB=${2:?}
ANALYZE=${3:?}
[[ $(id -u) -eq 0 ]] || plan_skip_all "mounting a small tmpfs needs root"
mnt=$TMP/small
mkdir -p "$mnt"
mount -t tmpfs -o size=64k tmpfs "$mnt" 2>"$TMP/mount.err" ||
    plan_skip_all "cannot mount a tmpfs here: $(cat "$TMP/mount.err")"
trap 'umount "$mnt" 2>/dev/null; rm -rf "$TMP"' EXIT

run_rec 0 -o "$mnt/t" -- "$FIB" 22 -p 2
err_has "the disk holding $mnt/t is full"
! grep -q '^fjtrace-record: warning: babeltrace2 cannot read the trace' "$TMP/err"
check $? "it does not blame babeltrace2 alone" "$TMP/err"
st=0
"$ANALYZE" --no-progress "$mnt/t" >/dev/null 2>"$TMP/an.err" || st=$?
is "$st" 3 "fjtrace-analyze exits 3 (cannot be decoded) on the cut trace"
grep -q "$mnt/t" "$TMP/an.err"
check $? "and names the trace" "$TMP/an.err"

umount "$mnt"
mount -t tmpfs -o size=600k tmpfs "$mnt" 2>"$TMP/mount.err" || fail "remount: $(cat "$TMP/mount.err")"
run_rec 0 -o "$mnt/t" -- "$FIB" 22 -p 2
err_has "the disk holding $mnt/t is full"
st=0
"$ANALYZE" --no-progress "$mnt/t" >/dev/null 2>"$TMP/an.err" || st=$?
[[ $st == 1 || $st == 3 ]]
check $? "600 KiB: the analyzer reads what was written or says it cannot (exit $st, 1 or 3)" "$TMP/an.err"
done_testing
