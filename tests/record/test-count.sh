#!/bin/bash
# Events recorded from a real fjtrace emitter: the reported count equals N,
# babeltrace2 sees N fjtrace:fork events, lean by default (no context) and
# with the vtid/procname contexts on request (--context), and no discard
# warning is printed with the default buffers.
# Exact totals use --cmd-only: on this shared machine other root processes
# emitting fjtrace events would land in a per-UID session too.
source "$(dirname "$0")/lib.sh"
[[ -n $EMIT ]] || fail "needs the emitter"

N=200000
run_rec 0 -o "$TMP/t" --count --cmd-only -- "$EMIT" "$N"
err_has "trace: $TMP/t$"
err_has "events: $N$"
! grep -q WARNING "$TMP/err"
check $? "no warning with the default buffers" "$TMP/err"
# The load map (statedump) has its own channel: reported apart, and it
# names the emitter's own binary.
maps=$(sed -n 's/.*load-map events: \([0-9]*\)$/\1/p' "$TMP/err")
[[ ${maps:-0} -gt 0 ]]
check $? "the recorder reports the load-map events apart ($maps)" "$TMP/err"
is "$(bt_count "$TMP/t")" "$N" "babeltrace2 counts the $N events of the fjtrace channel"
is "$(bt_count_all "$TMP/t")" "$((N + ${maps:-0}))" "babeltrace2 counts $N + the load-map events in all"
babeltrace2 "$TMP/t" >"$TMP/all" 2>"$TMP/bterr"
[[ ! -s $TMP/bterr ]]
check $? "babeltrace2 reads the trace without a complaint" "$TMP/bterr"
grep -q "lttng_ust_statedump:bin_info: .*path = \"$(readlink -f "$EMIT")\"" "$TMP/all"
check $? "the statedump names the emitter's binary"
grep ' fjtrace:' "$TMP/all" >"$TMP/text"
is "$(grep -c ' fjtrace:fork: ' "$TMP/text")" "$((N - 1))" "the text output has the emitter's pool_begin and $((N - 1)) fjtrace:fork events"
! grep -m1 ' fjtrace:fork: ' "$TMP/text" | grep -q 'vtid = \|procname = '
check $? "fjtrace events carry no context by default" || diag "$(grep -m1 ' fjtrace:fork: ' "$TMP/text")"
site_size=$(printf '0x%x' $((((N - 1) & 0xffff) << 48)))
tail -1 "$TMP/text" | grep -qi "task = $((N - 1)), site_size = $site_size }"
check $? "the last event's fields are task $((N - 1)), site_size $site_size (size_hint $(((N - 1) & 0xffff)), site 0)" ||
    diag "$(tail -1 "$TMP/text")"

run_rec 0 --count -o "$TMP/tctx" --cmd-only --context vtid --context=procname -- "$EMIT" 10
babeltrace2 "$TMP/tctx" 2>/dev/null | grep ' fjtrace:' >"$TMP/text3"
head -1 "$TMP/text3" | grep -q 'vtid = [0-9]*, procname = "fjtrace-emit"'
check $? "--context vtid --context=procname adds both contexts" || diag "$(head -1 "$TMP/text3")"

run_rec 3 --count -o "$TMP/t2" --cmd-only -- "$EMIT" 10 3
err_has "events: 10$"

# --all-processes records every process of the user, e.g. CMD's children
run_rec 0 --count -o "$TMP/t4" --all-processes --context procname -- sh -c '"$1" 1000 && "$1" 234' sh "$EMIT"
is "$(babeltrace2 "$TMP/t4" 2>/dev/null | grep ' fjtrace:' | grep -c 'procname = "fjtrace-emit"')" 1234 \
    "--all-processes records the 1234 events of CMD's child processes"
err_has "events: [0-9]+$"

# --cmd-only records CMD's process only, not its children; the default
# records CMD's descendants (tests/record/test-descendants.sh)
run_rec 0 --count -o "$TMP/t5" --cmd-only -- sh -c '"$1" 1000' sh "$EMIT"
err_has "events: 0"
err_has "warning: CMD itself emitted no fjtrace event: .* record without --cmd-only"
run_rec 0 --count -o "$TMP/t6" -- sh -c '"$1" 1000' sh "$EMIT"
err_has "events: 1000$"
run_rec 0 --count -o "$TMP/t7" -- sh -c 'env -i "$1" 1000' sh "$EMIT"
err_has "events: 0"
err_has "warning: neither CMD nor its descendants emitted a fjtrace event: .* only with --all-processes"

# CMD without fjtrace events: a trace path and 0 events, status kept
run_rec 5 --count -o "$TMP/t3" --cmd-only -- sh -c 'exit 5'
err_has "events: 0"
done_testing
