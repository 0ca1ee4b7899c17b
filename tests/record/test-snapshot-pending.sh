#!/usr/bin/env bash
# --snapshot and a SIGUSR1 that meets the recorder's first instruction
# (issue 24, item 11). The recorder is a C front that blocks SIGUSR1 before
# anything else and holds it until the bash script has set its trap: a
# SIGUSR1 pending at the exec (the launcher blocks it and sends it to
# itself) is a request like any other, never the end of the recorder, and
# later ones still make snapshots. Then bursts of SIGUSR1s from the fork
# on (the launcher blocks SIGUSR1 until the exec): the recorder survives
# each, takes a snapshot per request it got (pending standard signals
# coalesce: several at once are one), names each folder once and keeps
# no empty one.
#   bash test-snapshot-pending.sh FJTRACE_RECORD FJ_BURN FJTRACE_ANALYZE USR1_PY
source "$(dirname "$0")/relay-lib.sh"
source "$(dirname "$0")/snapshot-lib.sh"
BURN=${2:?usage}
ANALYZE=${3:?usage}
USR1=${4:?usage}
need lttng babeltrace2 python3 pgrep

# 4 leaves on 2 workers, each 1 ms of CPU then 1 s asleep: about 2 s, few
# events (the buffers hold the whole run).
burn=("$BURN" -p 2 --depth 2 --leaf-us 1000 --sleep-us 1000000)

# usr1_mid_run REC_PID: once CMD (fj-burn, the recorder's child's child
# with --cmd-only's gate: any fj-burn under REC_PID) runs and has had
# 0.5 s, one SIGUSR1 to the recorder; waits for the snapshot it asks for.
usr1_mid_run() {
    local rec=$1 i n
    for (( i = 0; i < 600; i++ )); do
        pgrep -f "^$BURN -p 2 --depth 2" >/dev/null && grep -q 'recording to' "$TMP/err" && break
        sleep 0.05
    done
    sleep 0.5
    n=$(grep -c '^fjtrace-record: snapshot (SIGUSR1): .' "$TMP/err")
    kill -USR1 "$rec"
    for (( i = 0; i < 600; i++ )); do
        (( $(grep -c '^fjtrace-record: snapshot (SIGUSR1): .' "$TMP/err") > n )) && break
        sleep 0.05
    done
}

# --- SIGUSR1 pending at the exec, then one while CMD runs
out=$TMP/pending
st=0
python3 "$USR1" pending "$REC" --snapshot --cmd-only -o "$out" -- "${burn[@]}" \
    >/dev/null 2>"$TMP/err" </dev/null &
rec=$!
usr1_mid_run "$rec"
wait "$rec" || st=$?
is "$st" 0 "SIGUSR1 pending at the exec: the recorder lives on and exits 0 like CMD" || diag "$(cat "$TMP/err")"
grep -q '^fjtrace-record: snapshot (SIGUSR1): nothing recorded yet' "$TMP/err"
check $? "the pending SIGUSR1 is a request: a snapshot as the session starts (before CMD: nothing to keep)" "$TMP/err"
check_folders "$out" "pending SIGUSR1"
snaps=$(snapshot_lines)
[[ $(wc -l <<<"$snaps") -eq 1 && $snaps == "$out"/usr1-2-* &&
   $(find "$out" -mindepth 1 -maxdepth 1 -type d | wc -l) -eq 1 ]]
check $? "the SIGUSR1 while CMD runs: one snapshot folder, usr1-2-* (${snaps//$'\n'/ })" "$TMP/err"
if [[ -n $snaps && -d $snaps ]]; then
    st=0
    "$ANALYZE" --json --no-progress "$snaps" >"$TMP/r.json" 2>"$TMP/aerr" || st=$?
    tasks=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["pools"][0]["totals"]["tasks"])' "$TMP/r.json" 2>/dev/null)
    # mid-run: the 2 leaves asleep are unfinished (exit 1, "not complete")
    [[ $st -eq 1 && $tasks -ge 3 ]]
    check $? "the snapshot analyses: fj-burn's pool with its tasks so far ($tasks), unfinished mid-run (exit 1, got $st)" "$TMP/aerr"
fi

# --- without --snapshot, SIGUSR1 keeps its default action: a pending one
# ends the recorder as soon as the script has read its options, before it
# has started anything
st=0
python3 "$USR1" pending "$REC" -o "$TMP/plain" -- true >/dev/null 2>"$TMP/err" </dev/null || st=$?
is "$st" 138 "no --snapshot: a pending SIGUSR1 ends the recorder (138), its default action" || diag "$(cat "$TMP/err")"
[[ ! -e $TMP/plain/.fjtrace-record.claim ]]
check $? "no --snapshot: it leaves no claim behind (it ended before the output folder)"

# --- bursts from the fork on: 0 to 400 ms, then one while CMD runs
for round in 1 2 3; do
    out=$TMP/burst-$round
    st=0
    python3 "$USR1" burst 0,0,1,1,2,3,4,5,6,8,10,15,20,30,50,100,200,400 --blocked \
        "$REC" --snapshot --cmd-only -o "$out" -- "${burn[@]}" >"$TMP/out" 2>"$TMP/err" </dev/null &
    rec=$!
    # the recorder: the child the launcher names (its own children may be
    # a python3 wrapper's helpers, as pyenv's shims run)
    child=
    for (( i = 0; i < 600; i++ )); do
        child=$(sed -n 's/^child \([0-9]*\)$/\1/p' "$TMP/out")
        [[ -n $child ]] && break
        sleep 0.05
    done
    sleep 0.5
    usr1_mid_run "$child"
    wait "$rec" || st=$?
    is "$st" 0 "burst $round: 18 SIGUSR1s from the fork on: the recorder lives on and exits 0" || diag "$(cat "$TMP/err")"
    check_folders "$out" "burst $round"
    taken=$(grep -c '^fjtrace-record: snapshot (SIGUSR1): .' "$TMP/err")
    kept=$(find "$out" -mindepth 1 -maxdepth 1 -type d | wc -l)
    # (the summary's "snapshot (SIGUSR1):" lines name nothing after the colon)
    # requests: one per snapshot, n for "SIGUSR1 n times since the last
    # snapshot" (those that came while one was taken, or before the session)
    requests=$(( taken + $(sed -n 's/^fjtrace-record: SIGUSR1 \([0-9]*\) times since.*/\1 - 1/p' "$TMP/err" | paste -sd+ | sed 's/^$/0/') ))
    # at least the burst's request (one or more: coalesced) and the
    # mid-run one; never more requests than signals sent (19)
    (( taken >= 2 && requests >= taken && requests <= 19 ))
    check $? "burst $round: snapshots taken $taken, requests counted $requests (2 to the 19 sent)" "$TMP/err"
    last=$(snapshot_lines | tail -n 1)
    [[ -n $last && -d $last && $last == "$out"/usr1-"$taken"-* && $kept -ge 1 ]]
    check $? "burst $round: the mid-run SIGUSR1 is the last snapshot, usr1-$taken-*, kept ($kept kept)" "$TMP/err"
done
done_testing
