#!/bin/bash
# Two fjtrace-record -o DIR at once into the same DIR (issue 24, item 7):
# one records, the other exits 116 naming the other recorder, runs nothing
# and writes nothing there; DIR holds the winner's whole trace and nothing
# of the loser's. The same for DIR existing empty and DIR not there yet,
# several rounds each (started together: both pass any emptiness check
# before either writes). Without -o, two recorders started in the same
# second get a folder each.
source "$(dirname "$0")/lib.sh"
[[ -n $EMIT ]] || fail "needs the emitter"

# race DIR ROUND: recorders a (1000 events) and b (777) started together
# into DIR.
race() {
    local dir=$1 round=$2 pa pb sa=0 sb=0 n want winner loser
    rm -f "$TMP/ran-a" "$TMP/ran-b"
    "$REC" --count -o "$dir" -- sh -c "touch '$TMP/ran-a'; exec '$EMIT' 1000" >/dev/null 2>"$TMP/a.err" </dev/null &
    pa=$!
    "$REC" --count -o "$dir" -- sh -c "touch '$TMP/ran-b'; exec '$EMIT' 777" >/dev/null 2>"$TMP/b.err" </dev/null &
    pb=$!
    wait "$pa" || sa=$?
    wait "$pb" || sb=$?
    if (( sa == 0 && sb == 116 )); then winner=a loser=b want=1000
    elif (( sa == 116 && sb == 0 )); then winner=b loser=a want=777
    fi
    [[ -n ${winner:-} ]]
    check $? "round $round ($(shown "$dir")): one recorder exits 0, the other 116 (got $sa and $sb)" "$TMP/a.err" ||
        { diag "$(cat "$TMP/b.err")"; return; }
    grep -Eq "error: output directory '.*' is in use by another fjtrace-record( \(pid [0-9]+\))?: choose a new one with -o$" "$TMP/$loser.err"
    check $? "round $round: the loser says the folder is in use by another fjtrace-record" "$TMP/$loser.err"
    [[ $(wc -l <"$TMP/$loser.err") -eq 1 ]]
    check $? "round $round: the loser says it in one line" "$TMP/$loser.err"
    [[ ! -e $TMP/ran-$loser ]]
    check $? "round $round: the loser never ran its CMD"
    n=$(bt_count "$dir")
    [[ $n == "$want" ]]
    check $? "round $round: the folder holds the winner's $want events alone ($n)" "$TMP/$winner.err"
    grep -q "events: $want$" "$TMP/$winner.err"
    check $? "round $round: the winner reports its $want events" "$TMP/$winner.err"
    [[ $(find "$dir" -name metadata | wc -l) -eq 1 && ! -e $dir/.fjtrace-record.claim ]]
    check $? "round $round: one process's trace in it, and no claim left behind" "$TMP/$winner.err" ||
        diag "$(find "$dir" | head -n 20)"
}

for round in 1 2 3; do
    mkdir "$TMP/empty$round"
    race "$TMP/empty$round" "$round, empty folder"
done
for round in 1 2 3; do
    race "$TMP/new$round/trace" "$round, new folder"
done

# A folder claimed by a recorder that was killed: refused, saying so.
mkdir -p "$TMP/stale/.fjtrace-record.claim"
echo 999999999 >"$TMP/stale/.fjtrace-record.claim/pid"
run_rec 116 -o "$TMP/stale" -- touch "$TMP/ran"
err_has "claimed by fjtrace-record pid 999999999, which is gone"

# No -o: the default folders of two recorders started together differ.
mkdir "$TMP/cwd"
(cd "$TMP/cwd" && "$REC" --count -- "$EMIT" 1000 >/dev/null 2>"$TMP/a.err" </dev/null) &
pa=$!
(cd "$TMP/cwd" && "$REC" --count -- "$EMIT" 777 >/dev/null 2>"$TMP/b.err" </dev/null) &
pb=$!
wait "$pa"; check $? "no -o: recorder a exits 0" "$TMP/a.err"
wait "$pb"; check $? "no -o: recorder b exits 0" "$TMP/b.err"
mapfile -t dirs < <(find "$TMP/cwd/fjtrace-traces" -mindepth 1 -maxdepth 1 -type d | sort)
counts=()
for d in "${dirs[@]}"; do counts+=("$(bt_count "$d")"); done
is "$(printf '%s\n' "${counts[@]}" | sort -n | tr '\n' ' ')" "777 1000 " \
    "no -o: two folders, one with each program's events (777 and 1000)"
done_testing
