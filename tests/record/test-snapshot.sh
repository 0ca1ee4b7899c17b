#!/usr/bin/env bash
# fjtrace-record --snapshot (flight recorder) through the real stack: a
# snapshot on SIGUSR1 while CMD runs and one when it crashes (SIGSEGV), each
# its own trace that fjtrace-analyze reads; a snapshot when CMD exits
# non-zero holding exactly its events; --snapshot-at-exit of a run that fits
# in the buffers analysed exactly (naive fib(n) forks F(n+1)-1 tasks).
#   bash test-snapshot.sh FJTRACE_RECORD FJ_FIB FJTRACE_ANALYZE FJTRACE_EMIT
source "$(dirname "$0")/relay-lib.sh"
FIB=${2:?usage}
ANALYZE=${3:?usage}
EMIT=${4:?usage}
need lttng babeltrace2 python3 pgrep timeout

# --- usage errors
for bad in "--snapshot-size 1M" "--snapshot-at-exit" "--snapshot --blocking" \
           "--snapshot --relayd net://127.0.0.1" "--snapshot --snapshot-size 12x" \
           "--snapshot --snapshot-size 1k"; do
    st=0
    # shellcheck disable=SC2086 # the options are split on purpose
    "$REC" $bad -- true 2>"$TMP/err" || st=$?
    [[ $st -eq 2 ]]
    check $? "'$bad' is a usage error (exit 2, got $st)" "$TMP/err"
done

# fjtrace events only (the load-map channel has its own)
bt_count() { babeltrace2 "$1" 2>/dev/null | grep -c ' fjtrace:'; }
count_snapshots() { find "$1" -mindepth 1 -maxdepth 1 -type d | wc -l; }

# --- SIGUSR1 while fib runs, then a crash
rec_out=$TMP/crash
( ulimit -c 0; exec "$REC" --snapshot --snapshot-size 1M --cmd-only -o "$rec_out" -- "$FIB" 40 -p 2 ) \
    >/dev/null 2>"$TMP/err" </dev/null &
rec=$!
CLEANUP_PIDS+=("$rec")
pid=
for (( i = 0; i < 300; i++ )); do
    # the recorder (the front) runs the script, whose child is CMD
    pid=$(pgrep -P "$(pgrep -P "$rec" -d,)" -x fj-fib) && break
    sleep 0.05
done
[[ -n $pid ]] || bail_out "fj-fib never started: $(cat "$TMP/err")"
sleep 1
kill -USR1 "$rec"
for (( i = 0; i < 600; i++ )); do
    grep -q "snapshot (SIGUSR1): " "$TMP/err" && break
    sleep 0.05
done
grep -q "snapshot (SIGUSR1): $rec_out/usr1-1-" "$TMP/err"
check $? "SIGUSR1: the recorder names the snapshot it wrote" "$TMP/err"
kill -0 "$pid" 2>/dev/null
check $? "SIGUSR1: CMD goes on running"
kill -SEGV "$pid"
st=0
for (( i = 0; i < 1200; i++ )); do kill -0 "$rec" 2>/dev/null || break; sleep 0.05; done
wait "$rec" || st=$?
[[ $st -eq 139 ]]
check $? "crash: the recorder exits 139 like CMD (got $st)" "$TMP/err"
grep -q "snapshot (CMD died of SIGSEGV): $rec_out/died-SIGSEGV-" "$TMP/err"
check $? "crash: a snapshot is written when CMD dies of a signal" "$TMP/err"
[[ $(count_snapshots "$rec_out") -eq 2 ]]
check $? "two snapshots in the output folder, nothing else" "$TMP/err"
lttng --no-sessiond list 2>/dev/null | grep -q "$rec_out" && check 1 "no session left behind"
for snap in "$rec_out"/usr1-1-* "$rec_out"/died-SIGSEGV-*; do
    name=${snap##*/}
    st=0
    "$ANALYZE" --json --no-progress "$snap" >"$TMP/r.json" 2>"$TMP/aerr" || st=$?
    [[ $st -eq 1 ]]
    check $? "$name: analysed, and incomplete (exit 1, got $st)" "$TMP/aerr"
    [[ $(json_get "$TMP/r.json" 'r["trace"]["complete"]') == False ]]
    check $? "$name: the report says the trace is not complete"
    forks=$(json_get "$TMP/r.json" 'r["pools"][0]["totals"]["forks"]')
    [[ $forks -gt 1000 ]]
    check $? "$name: holds the recent forks ($forks)"
    # When a CPU's buffer lost its beginning, babeltrace2 says so (a
    # discarded-events notice before the stream's first event) and the
    # analyzer reads from where every CPU's events begin; not every
    # snapshot gets that notice, so it is only checked for consistency.
    mid=$(json_get "$TMP/r.json" 'r["trace"]["began_mid_run"]')
    note=False
    grep -q "trace begins mid-run" "$TMP/aerr" && note=True
    [[ $mid == "$note" ]]
    check $? "$name: the report says it began mid-run when stderr does (began_mid_run $mid, note $note)" "$TMP/aerr"
    # Partial, never wrong: a tree begun before the window has no span or
    # parallelism, and the pool's figures come from whole trees only.
    verdict=$(python3 - "$TMP/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
for p in r["pools"]:
    whole = [t for t in p["trees"] if not t["partial"]]
    part = [t for t in p["trees"] if t["partial"]]
    if p["partial_trees"] != len(part): bad.append("partial_trees count")
    for t in part:
        if t["span_ns"] is not None or t["parallelism"] is not None or t["latency_ns"] is not None:
            bad.append(f"partial tree {t['root']} has a span, parallelism or latency")
    if not whole:
        if p["work_ns"] is not None or p["parallelism"] is not None:
            bad.append("pool figures without a whole tree")
    elif p["work_ns"] != sum(t["work_ns"] for t in whole):
        bad.append("pool work is not the whole trees' work")
print(len(part) if not bad else "; ".join(bad))
PY
)
    # the crash comes seconds into fib 40: the buffers have long wrapped
    [[ $verdict =~ ^[0-9]+$ && ( $name != died-* || $verdict -ge 1 ) ]]
    check $? "$name: trees begun before the window are partial (span, parallelism null) and out of the pool's figures ($verdict)"
done

# --- CMD exits non-zero: the snapshot holds exactly its events
st=0
"$REC" --snapshot --cmd-only -o "$TMP/exit3" -- "$EMIT" 5000 3 >/dev/null 2>"$TMP/err" </dev/null || st=$?
[[ $st -eq 3 ]]
check $? "exit 3: the recorder exits 3 like CMD" "$TMP/err"
snap=$(find "$TMP/exit3" -mindepth 1 -maxdepth 1 -type d -name 'exit-3-*')
[[ -n $snap && $(bt_count "$snap") -eq 5000 ]]
check $? "exit 3: one snapshot exit-3-* with CMD's 5000 events" "$TMP/err"

# --- CMD exits 0: no snapshot unless --snapshot-at-exit
st=0
"$REC" --snapshot --cmd-only -o "$TMP/exit0" -- "$EMIT" 100 >/dev/null 2>"$TMP/err" </dev/null || st=$?
[[ $st -eq 0 && $(count_snapshots "$TMP/exit0") -eq 0 ]] && grep -q "no snapshot taken" "$TMP/err"
check $? "exit 0 without --snapshot-at-exit: no snapshot, and it says so" "$TMP/err"
N=15
st=0
"$REC" --snapshot --snapshot-at-exit --cmd-only -o "$TMP/atexit" -- "$FIB" "$N" -p 2 >/dev/null 2>"$TMP/err" </dev/null || st=$?
snap=$(find "$TMP/atexit" -mindepth 1 -maxdepth 1 -type d -name 'at-exit-*')
[[ $st -eq 0 && -n $snap ]]
check $? "--snapshot-at-exit: a snapshot at-exit-* of a run that ended well" "$TMP/err"
st=0
"$ANALYZE" --json --no-progress "$snap" >"$TMP/r.json" 2>"$TMP/aerr" || st=$?
check $st "--snapshot-at-exit: the whole run fits in the buffers: complete (exit 0)" "$TMP/aerr"
got=$(json_get "$TMP/r.json" 'r["pools"][0]["totals"]["forks"]')
is "$got" $(( $(fib $(( N + 1 ))) - 1 )) "--snapshot-at-exit: forks = F(n+1)-1"
done_testing
