#!/bin/bash
# Events recorded from a real fjtrace emitter: the reported count equals N,
# babeltrace2 sees N fjtrace:fork events with the vtid/procname contexts,
# and no discard warning is printed with the default buffers.
# Exact totals use --cmd-only: on this shared machine other root processes
# emitting fjtrace events would land in a per-UID session too.
source "$(dirname "$0")/lib.sh"
[[ -n $EMIT ]] || fail "needs the emitter"

N=200000
run_rec 0 -o "$TMP/t" --cmd-only -- "$EMIT" "$N"
err_has "trace: $TMP/t$"
err_has "events: $N$"
grep -q WARNING "$TMP/err" && { cat "$TMP/err" >&2; fail "unexpected warning with default buffers"; }
# The load map (statedump) has its own channel: reported apart, and it
# names the emitter's own binary.
maps=$(sed -n 's/.*load-map events: \([0-9]*\)$/\1/p' "$TMP/err")
[[ ${maps:-0} -gt 0 ]] || fail "no load-map events reported"
[[ $(bt_count "$TMP/t") == "$N" ]] || fail "babeltrace2 counts $(bt_count "$TMP/t") events, expected $N"
[[ $(bt_count_all "$TMP/t") == "$((N + maps))" ]] ||
    fail "babeltrace2 counts $(bt_count_all "$TMP/t") events in all, expected $N + $maps"
babeltrace2 "$TMP/t" >"$TMP/all" 2>"$TMP/bterr"
[[ ! -s $TMP/bterr ]] || { cat "$TMP/bterr" >&2; fail "babeltrace2 complained"; }
grep -q "lttng_ust_statedump:bin_info: .*path = \"$(readlink -f "$EMIT")\"" "$TMP/all" ||
    fail "the statedump does not name $EMIT"
grep ' fjtrace:' "$TMP/all" >"$TMP/text"
nf=$(grep -c ' fjtrace:fork: ' "$TMP/text" || true)
[[ $nf -eq $N ]] || fail "$nf fjtrace:fork events in the text output, expected $N"
head -1 "$TMP/text" | grep -q 'vtid = ' || fail "no vtid context: $(head -1 "$TMP/text")"
head -1 "$TMP/text" | grep -q 'procname = "fjtrace-emit"' || fail "no procname context: $(head -1 "$TMP/text")"
tail -1 "$TMP/text" | grep -q "task = $N, parent = $((N - 1)), size_hint = $N, site = 0x0 }" ||
    fail "last event fields wrong: $(tail -1 "$TMP/text")"
pass "$N events recorded and counted, contexts present"

run_rec 3 -o "$TMP/t2" --cmd-only -- "$EMIT" 10 3
err_has "events: 10$"
pass "emitter status 3 propagated, 10 events"

# default mode records every process of the user, e.g. CMD's children
run_rec 0 -o "$TMP/t4" -- sh -c '"$1" 1000 && "$1" 234' sh "$EMIT"
n=$(babeltrace2 "$TMP/t4" 2>/dev/null | grep ' fjtrace:' | grep -c 'procname = "fjtrace-emit"' || true)
[[ $n -eq 1234 ]] || fail "default mode: $n events of CMD's children, expected 1234"
err_has "events: [0-9]+$"
pass "default mode records CMD's child processes"

# --cmd-only records CMD's process only, not its children
run_rec 0 -o "$TMP/t5" --cmd-only -- sh -c '"$1" 1000' sh "$EMIT"
err_has "events: 0"
pass "--cmd-only skips CMD's children"

# CMD without fjtrace events: a trace path and 0 events, status kept
run_rec 5 -o "$TMP/t3" --cmd-only -- sh -c 'exit 5'
err_has "events: 0"
pass "uninstrumented CMD -> 0 events"
