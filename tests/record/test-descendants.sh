#!/bin/bash
# By default fjtrace-record records CMD and its descendants, and only them
# (issue 27): a wrapper script, make, time, env and a shell pipeline have
# their instrumented children recorded, while an unrelated instrumented
# program started outside, running all the while, is left out. Known
# answers: naive fj-fib N forks F(N+1)-1 times (fib 15: 986, fib 16: 1596);
# the unrelated program is fj-fib 17 (2583 forks) in a loop. --cmd-only and
# --all-processes, the two extremes, show that the test can tell.
#   bash test-descendants.sh FJTRACE_RECORD FJ_FIB FJTRACE_ANALYZE
source "$(dirname "$0")/lib.sh"
FIB=${EMIT:?usage: $0 FJTRACE_RECORD FJ_FIB FJTRACE_ANALYZE}
ANALYZE=${3:?usage}
need() { command -v "$1" >/dev/null 2>&1 || bail_out "needs $1"; }
need babeltrace2
need python3

# forks TRACE: its fork events, counted by babeltrace2; what babeltrace2
# said (its exit status and stderr) and the trace's folders in
# $TMP/forks.why, for a check that fails.
forks() {
    babeltrace2 "$1" 2>"$TMP/bt.err" | grep -c ' fjtrace:fork: '
    local st=${PIPESTATUS[0]}
    {
        echo "babeltrace2 exit $st on $1; its stderr:"
        tail -n 8 "$TMP/bt.err"
        echo "the trace's folders:"
        find "$1" -name metadata -printf '%h %s\n' | head -n 20
    } >"$TMP/forks.why"
}

# forks_each TRACE: its fork events, counted by babeltrace2 folder by
# folder (per-process buffers: one folder a process), and how many folders
# it could not open in $TMP/unreadable. With --all-processes a process of
# the unrelated loop may end as the session begins: LTTng then leaves its
# folder with its metadata cut short (seen: 4096 bytes, a stream class
# missing), which babeltrace2 refuses, and with it the whole trace when
# given the top folder. Such a folder is listed in $TMP/forks.why.
forks_each() {
    local total=0 bad=0 dir n
    : >"$TMP/forks.why"
    while IFS= read -r dir; do
        if ! babeltrace2 "$dir" >"$TMP/bt.out" 2>"$TMP/bt.err"; then
            bad=$((bad + 1))
            { echo "babeltrace2 cannot open $dir ($(stat -c %s "$dir/metadata") bytes of metadata):"
              tail -n 4 "$TMP/bt.err"; } >>"$TMP/forks.why"
            continue
        fi
        n=$(grep -c ' fjtrace:fork: ' "$TMP/bt.out")
        total=$((total + n))
    done < <(find "$1" -name metadata -printf '%h\n')
    echo "$bad" >"$TMP/unreadable"
    echo "$total"
}

# The unrelated program: started here, outside any recording, before it
# and running until after it.
( while [[ ! -e $TMP/stop ]]; do "$FIB" 17 -p 1 >/dev/null; echo run >>"$TMP/unrelated.runs"; done ) &
unrelated=$!
trap 'touch "$TMP/stop"; wait "$unrelated"; rm -rf "$TMP"' EXIT
for ((i = 0; i < 300; i++)); do [[ -s $TMP/unrelated.runs ]] && break; sleep 0.1; done
[[ -s $TMP/unrelated.runs ]] || bail_out "the unrelated fj-fib loop does not run"

# A wrapper script: two instrumented children, one in the background, and
# a pause while the unrelated loop goes on (a few of its runs fall inside
# every recording); it writes its children's pids.
cat >"$TMP/run.sh" <<EOS
#!/bin/sh
"$FIB" 15 -p 2 >/dev/null &
echo \$! >"\$1"
sleep 0.5
"$FIB" 16 -p 2 >/dev/null &
echo \$! >>"\$1"
wait
EOS
chmod +x "$TMP/run.sh"

runs_before=$(wc -l <"$TMP/unrelated.runs")
run_rec 0 -o "$TMP/wrap" -- "$TMP/run.sh" "$TMP/wrap.pids"
runs_during=$(( $(wc -l <"$TMP/unrelated.runs") - runs_before ))
[[ $runs_during -ge 1 ]]
check $? "the unrelated fj-fib 17 ran during the recording ($runs_during times)"
is "$(forks "$TMP/wrap")" 2582 "a wrapper script: both children recorded, nothing else (986 + 1596 forks)"
err_has "note: left out [0-9]+ fjtrace process\(es\) that are not CMD's descendants: .*fj-fib"
"$ANALYZE" --json "$TMP/wrap" >"$TMP/wrap.json" 2>"$TMP/an.err"
check $? "fjtrace-analyze reads the wrapper's trace (exit 0)" "$TMP/an.err"
python3 - "$TMP/wrap.json" "$TMP/wrap.pids" >"$TMP/pids.cmp" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))
got = sorted(p["process"]["pid"] for p in r["pools"])
want = sorted(int(x) for x in open(sys.argv[2]).read().split())
print(got, want)
sys.exit(got != want)
EOP
check $? "its pools are exactly the wrapper's two children, by pid" "$TMP/pids.cmp"

cat >"$TMP/Makefile" <<EOS
run:
	"$FIB" 15 -p 2 >/dev/null
	"$FIB" 16 -p 2 >/dev/null
EOS
run_rec 0 -o "$TMP/make" -- make -s -C "$TMP" run
is "$(forks "$TMP/make")" 2582 "make: the recipe's two programs recorded (986 + 1596 forks)"

if [[ -x /usr/bin/time ]]; then
  run_rec 0 -o "$TMP/time" -- /usr/bin/time "$FIB" 15 -p 2
  is "$(forks "$TMP/time")" 986 "time: its child recorded (986 forks)"
else
  skip 2 "no /usr/bin/time"
fi
run_rec 0 -o "$TMP/env" -- env FJ_WORKERS=2 "$FIB" 16
is "$(forks "$TMP/env")" 1596 "env: the program it runs recorded (1596 forks)"
run_rec 0 -o "$TMP/pipe" -- bash -c "'$FIB' 15 -p 2 | cat >/dev/null; '$FIB' 16 -p 2 | tee /dev/null | cat >/dev/null"
is "$(forks "$TMP/pipe")" 2582 "a shell pipeline: both programs recorded (986 + 1596 forks)"

# The two extremes.
run_rec 0 -o "$TMP/cmd" --cmd-only -- "$TMP/run.sh" "$TMP/cmd.pids"
is "$(forks "$TMP/cmd")" 0 "--cmd-only: the wrapper's own process only, which forks nothing"
err_has "warning: CMD itself emitted no fjtrace event"
runs_before=$(wc -l <"$TMP/unrelated.runs")
run_rec 0 -o "$TMP/all" --all-processes -- "$TMP/run.sh" "$TMP/all.pids"
runs_during=$(( $(wc -l <"$TMP/unrelated.runs") - runs_before ))
n=$(forks_each "$TMP/all")
[[ $runs_during -ge 2 && $n -ge $(( 2582 + 2583 )) ]]
if ! check $? "--all-processes: the unrelated program's runs are in too ($n forks >= 2582 + 2583; it ran $runs_during times; $(cat "$TMP/unreadable") folders babeltrace2 could not open)"; then
    diag "$(cat "$TMP/forks.why" "$TMP/err")"
elif [[ -s $TMP/forks.why ]]; then
    diag "$(cat "$TMP/forks.why")"
fi
done_testing
