#!/bin/bash
# No reachable session daemon and lttng-sessiond cannot start -> exit 121.
# Fakes on PATH: an lttng whose probe fails (as with no daemon) and an
# lttng-sessiond that exits 1. The shared real daemon is never touched.
source "$(dirname "$0")/lib.sh"

mkpath "$TMP/bin" lttng lttng-sessiond
cat >"$TMP/bin/lttng" <<'FAKE'
#!/bin/sh
echo "$*" >>"${FAKE_LOG:?}"
echo "Error: No session daemon is available" >&2
exit 1
FAKE
cat >"$TMP/bin/lttng-sessiond" <<'FAKE'
#!/bin/sh
echo "sessiond $*" >>"${FAKE_LOG:?}"
echo "Error: fake lttng-sessiond refuses to start" >&2
exit 1
FAKE
chmod +x "$TMP/bin/lttng" "$TMP/bin/lttng-sessiond"
export FAKE_LOG=$TMP/log

PATH=$TMP/bin run_rec 121 -o "$TMP/trace" -- touch "$TMP/ran"
one_line_err
err_has "lttng-sessiond"
err_has "fake lttng-sessiond refuses to start"
[[ ! -e $TMP/ran ]]
check $? "without a daemon CMD does not run"
[[ ! -e $TMP/trace ]]
check $? "the output directory it created is removed again"
grep -q -- '--no-sessiond list' "$FAKE_LOG"
check $? "the daemon is probed with 'lttng --no-sessiond list'" "$FAKE_LOG"
grep -q -- '^sessiond .*--daemonize' "$FAKE_LOG"
check $? "it tries to start lttng-sessiond --daemonize" "$FAKE_LOG"
! grep -q -- 'create' "$FAKE_LOG"
check $? "it creates no session without a daemon" "$FAKE_LOG"

# Same with no lttng-sessiond program at all.
rm "$TMP/bin/lttng-sessiond"
PATH=$TMP/bin run_rec 121 -o "$TMP/trace" -- touch "$TMP/ran"
one_line_err
err_has "lttng-sessiond"
[[ ! -e $TMP/ran ]]
check $? "with no lttng-sessiond program CMD does not run"

# An existing output directory given by the user is not removed.
mkdir "$TMP/mine"
PATH=$TMP/bin run_rec 121 -o "$TMP/mine" -- true
[[ -d $TMP/mine ]]
check $? "a directory the user gave is not removed"
done_testing
