#!/bin/bash
# 'lttng stop' is bounded by progress, not by a fixed time: a stop that has
# written everything and then never returns (what LTTng 2.13 does when CMD
# died inside an event write: it waits for a buffer nobody will close) is
# given up 15 s after the trace folder stopped growing, well before the
# 120 s cap, and the recording is closed and kept; a stop that keeps writing
# for longer than that is left to finish.
# A fake lttng on PATH runs the real one for everything; its `stop` first
# does what the case needs.
source "$(dirname "$0")/lib.sh"
[[ -n $EMIT ]] || fail "needs the emitter"
[[ -n ${EPOCHREALTIME:-} ]] || plan_skip_all "needs bash >= 5 (EPOCHREALTIME)"
real=$(command -v lttng) || plan_skip_all "needs lttng"

mkpath "$TMP/bin" lttng
cat >"$TMP/bin/lttng" <<FAKE
#!/bin/bash
# stop's argument is the session; the trace folder is \$STOP_DIR
if [[ \$2 == stop ]]; then
    case \$STOP_CASE in
    hang) "$real" "\$@" && exec sleep 100000 ;;
    slow) for i in \$(seq 18); do echo "\$i" >>"\$STOP_DIR/slow-stop"; sleep 1; done ;;
    esac
fi
exec "$real" "\$@"
FAKE
chmod +x "$TMP/bin/lttng"

# stop_case CASE: records 1000 events with the fake's stop doing CASE;
# the recorder's output in $TMP/CASE.out, .err, its exit status in
# $TMP/CASE.st and its wall time (s) in $TMP/CASE.took. Both cases mostly
# wait (15 s of a silent stop, 18 s of a slow one): they run side by side,
# each recording its own session into its own folder.
stop_case() {
    local start=$EPOCHREALTIME st=0
    STOP_CASE=$1 STOP_DIR=$TMP/$1 PATH=$TMP/bin:$PATH \
        "$REC" -o "$TMP/$1" --count --cmd-only -- "$EMIT" 1000 \
        >"$TMP/$1.out" 2>"$TMP/$1.err" </dev/null || st=$?
    echo "$st" >"$TMP/$1.st"
    awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f\n", b - a }' >"$TMP/$1.took"
}
# judge_case CASE: its recorder's run as the last one (err_has reads
# $TMP/err): one check, it exited 0; its wall time in $took.
took=
judge_case() {
    local st
    st=$(cat "$TMP/$1.st")
    took=$(cat "$TMP/$1.took")
    cp "$TMP/$1.out" "$TMP/out" && cp "$TMP/$1.err" "$TMP/err"
    check $((st != 0)) "fjtrace-record -o \$TMP/$1 --count --cmd-only -- $(basename "$EMIT") 1000 exits 0 (the fake's stop: $1)" "$TMP/err" ||
        diag "it exited $st"
}
stop_case hang &
stop_case slow &
wait

judge_case hang
(( took < 60 ))
check $? "a stop that never returns: the recorder ends $took s later, within 60 s (cap: 120 s)" "$TMP/err"
err_has "warning: 'lttng stop' wrote nothing for 15 s"
err_has "events: 1000$"
session=$(sed -n 's/.*: session \([^ ]*\) recording to .*/\1/p' "$TMP/err")
! lttng --no-sessiond list 2>/dev/null | grep -Fq -- "${session:-no session}"
check $? "session ${session:-?} is destroyed all the same"

judge_case slow
(( took >= 18 ))
check $? "a stop that writes for 18 s is waited for ($took s)" "$TMP/err"
! grep -q "warning: 'lttng stop'" "$TMP/err"
check $? "and draws no warning" "$TMP/err"
err_has "events: 1000$"
done_testing
