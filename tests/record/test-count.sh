# Events recorded from a real fjtrace emitter: the reported count equals N,
# babeltrace2 sees N fjtrace:fork events with the vtid/procname contexts,
# and no discard warning is printed with the default buffers.
source "$(dirname "$0")/lib.sh"
[[ -n $EMIT ]] || fail "needs the emitter"

N=200000
run_rec 0 -o "$TMP/t" -- "$EMIT" "$N"
err_has "trace: $TMP/t$"
err_has "events: $N$"
grep -q WARNING "$TMP/err" && { cat "$TMP/err" >&2; fail "unexpected warning with default buffers"; }
[[ $(bt_count "$TMP/t") == "$N" ]] || fail "babeltrace2 counts $(bt_count "$TMP/t") events, expected $N"
babeltrace2 "$TMP/t" >"$TMP/text" 2>"$TMP/bterr"
[[ ! -s $TMP/bterr ]] || { cat "$TMP/bterr" >&2; fail "babeltrace2 complained"; }
nf=$(grep -c ' fjtrace:fork: ' "$TMP/text")
[[ $nf -eq $N ]] || fail "$nf fjtrace:fork events in the text output, expected $N"
head -1 "$TMP/text" | grep -q 'vtid = ' || fail "no vtid context: $(head -1 "$TMP/text")"
head -1 "$TMP/text" | grep -q 'procname = "fjtrace-emit"' || fail "no procname context: $(head -1 "$TMP/text")"
tail -1 "$TMP/text" | grep -q "task = $N, parent = $((N - 1)), size_hint = $N" ||
    fail "last event fields wrong: $(tail -1 "$TMP/text")"
pass "$N events recorded and counted, contexts present"

run_rec 3 -o "$TMP/t2" -- "$EMIT" 10 3
err_has "events: 10$"
pass "emitter status 3 propagated, 10 events"

# CMD without fjtrace events: a trace path and 0 events, status kept
run_rec 5 -o "$TMP/t3" -- sh -c 'exit 5'
err_has "events: 0"
pass "uninstrumented CMD -> 0 events"
