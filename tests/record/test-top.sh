#!/usr/bin/env bash
# fjtrace-top through the real stack (lttng-relayd, a live session,
# babeltrace2's src.ctf.lttng-live): --batch on a program running a few
# seconds shows frames whose figures move and a final report that is exact
# (fj-burn --depth D runs 2^(D+1)-1 tasks); attaching to a live session
# someone else records; the interactive view in tmux (send-keys q).
#   bash test-top.sh FJTRACE_RECORD FJTRACE_TOP FJ_BURN [OMPT_TOOL OMP_FIB]
source "$(dirname "$0")/relay-lib.sh"
keep_tmp_here
TOP=${2:?usage}
BURN=${3:?usage}
OMP_TOOL=${4:-}
OMP_FIB=${5:-}
need lttng lttng-relayd babeltrace2 python3 timeout
export FJTRACE_RECORD=$REC

# --- usage
for bad in "" "--interval 0 -- true" "--interval x -- true" "http://x/host/a/b" \
           "net://127.0.0.1/nohost" "--relayd net://x net://127.0.0.1/host/a/b"; do
    st=0
    # shellcheck disable=SC2086 # split on purpose
    "$TOP" --batch $bad >"$TMP/out" 2>"$TMP/err" || st=$?
    [[ $st -eq 2 ]]
    check $? "'fjtrace-top $bad' is a usage error (exit 2, got $st)" "$TMP/err"
done

# frames FILE: the number of frames (lines 'fjtrace-top HH:MM:SS ...')
frames() { grep -Ec '^fjtrace-top [0-9]{2}:[0-9]{2}:[0-9]{2} ' "$1"; }
# moving FILE: distinct event counts over the frames that saw a pool
moving() { awk '/^events /{e=$2} /^pool /{if (e != "") seen[e]=1; e=""} END{print length(seen)}' "$1"; }

# --- -- CMD --batch: frames move, the final report is exact
D=10
st=0
timeout 300 "$TOP" --batch --interval 0.3 --cmd-output "$TMP/cmd.log" -- \
    "$BURN" -p 2 --depth "$D" --leaf-us 1000 --sleep-us 200 >"$TMP/out" 2>"$TMP/err" || st=$?
check $st "fjtrace-top -- fj-burn exits 0 like CMD" "$TMP/err"
n=$(frames "$TMP/out")
[[ $n -ge 2 ]]
check $? "at least 2 frames, each starting 'fjtrace-top HH:MM:SS' ($n)" "$TMP/out"
m=$(moving "$TMP/out")
[[ $m -ge 2 ]]
check $? "the figures move: $m different event counts over the frames with a pool" "$TMP/out"
grep -q '^  worker .* run .* join .* search .* park .* lock .* offcpu .*tasks/s .*steals/s .*queue' "$TMP/out"
check $? "a frame shows per worker run/join/search/park/lock/offcpu, tasks/s, steals/s, queue" "$TMP/out"
grep -Eq 'running tree [0-9]+: [0-9]+ tasks so far' "$TMP/out"
check $? "a frame shows the running tree's size so far" "$TMP/out"
grep -q '^fjtrace-top: final report' "$TMP/out"
check $? "the final report follows the frames" "$TMP/out"
want=$(( (1 << (D + 1)) - 1 ))
grep -Eq "^  tasks $want  forks $(( want - 1 )) " "$TMP/out"
check $? "final report exact: $want tasks, $(( want - 1 )) forks" "$TMP/out"
grep -q "trace complete" "$TMP/out"
check $? "final report: the live trace is complete" "$TMP/out"
# The leaves sleep: off the CPU. When the workers record their switches
# (perf), a frame shows an off-CPU share (a lower bound, '>N%') and the
# final report has the on-CPU figures; else both say n/a / not known.
if grep -q "off-CPU time recorded" "$TMP/out"; then
    grep -Eq '^ +[0-9]+ .* > *[0-9.]+% ' "$TMP/out"
    check $? "off-CPU recorded: the frames show an off-CPU share (lower bound)" "$TMP/out"
else
    ! grep -Eq '^ +[0-9]+ .* > *[0-9.]+% ' "$TMP/out"
    check $? "off-CPU not recorded: the frames show n/a, never a share" "$TMP/out"
fi
trace=$(sed -n 's/^fjtrace-top: trace: \(.*\) (kept for .*/\1/p' "$TMP/err")
[[ -n $trace && -d $trace ]]
check $? "it names the relay's folder with the trace ($trace)" "$TMP/err"
[[ -s $TMP/cmd.log ]] && grep -q "fjtrace-record: session fjtrace-top-" "$TMP/cmd.log"
check $? "CMD's and the recorder's output went to --cmd-output" "$TMP/cmd.log"
pgrep -f "lttng-relayd -o ${trace%/*/*}" >/dev/null && check 1 "its relay daemon is gone"
[[ -n $trace ]] && rm -rf "${trace%/*/*}" "${trace%/*/*}.log"

# --- an OpenMP program (the OMPT tool): OpenMP task fib(n) creates
# 2F(n+1)-2 explicit tasks
if [[ -n $OMP_TOOL && -n $OMP_FIB ]]; then
    st=0
    FJTRACE_OMP_TOOL=$OMP_TOOL timeout 300 "$TOP" --batch --openmp --interval 0.3 -- \
        "$OMP_FIB" 18 -p 2 >"$TMP/out" 2>"$TMP/err" || st=$?
    check $st "--openmp -- omp-fib 18: exit 0" "$TMP/err"
    grep -q '^pool 1 omp-fib' "$TMP/out"
    check $? "--openmp: the frames show the OpenMP pool" "$TMP/out"
    grep -Eq "explicit $(( 2 * $(fib 19) - 2 ))\)" "$TMP/out"
    check $? "--openmp: the final report counts 2F(19)-2 explicit tasks" "$TMP/out"
else
    skip 3 "no OMPT tool or clang-built omp-fib"
fi

# --- CMD's status; a CMD that cannot run
st=0
"$TOP" --batch -- sh -c 'exit 3' >"$TMP/out" 2>"$TMP/err" || st=$?
[[ $st -eq 3 ]]
check $? "CMD's exit status 3 is fjtrace-top's (got $st)" "$TMP/err"
st=0
timeout 60 "$TOP" --batch -- "$TMP/no-such-cmd" >"$TMP/out" 2>"$TMP/err" || st=$?
[[ $st -eq 127 ]] && grep -q "command not found" "$TMP/err"
check $? "CMD not found: fjtrace-record's 127 and its message (got $st)" "$TMP/err"

# --- no terminal and no --batch: exit 2 before CMD runs
st=0
"$TOP" -- touch "$TMP/ran" </dev/null >"$TMP/out" 2>"$TMP/err" || st=$?
[[ $st -eq 2 && ! -e $TMP/ran ]] && grep -q "use --batch" "$TMP/err"
check $? "no terminal without --batch: exit 2, CMD not run (got $st)" "$TMP/err"

# --- attach to a live session that fjtrace-record streams to our relay
start_relayd "$TMP/relay"
S=fjtrace-attach-$$
"$REC" --relayd "net://127.0.0.1:$RELAY_C:$RELAY_D" --live=200000 --cmd-only --session-name "$S" -- \
    "$BURN" -p 2 --depth 10 --leaf-us 1000 >/dev/null 2>"$TMP/rec.err" </dev/null &
rec=$!
CLEANUP_PIDS+=("$rec")
for (( i = 0; i < 200; i++ )); do
    lttng --no-sessiond list 2>/dev/null | grep -q "$S" && break
    sleep 0.05
done
st=0
timeout 300 "$TOP" --batch --interval 0.3 "net://127.0.0.1:$RELAY_L/host/$(uname -n)/$S" \
    >"$TMP/out" 2>"$TMP/err" || st=$?
check $st "attached to the live session: exit 0 when it ends" "$TMP/err"
[[ $(frames "$TMP/out") -ge 1 ]] && grep -q '^pool 1 fj-burn' "$TMP/out"
check $? "attached: frames show CMD's pool" "$TMP/out"
grep -q '^fjtrace-top: final report' "$TMP/out"
check $? "attached: the final report when the session ends" "$TMP/out"
wait "$rec"
check $? "the recorder of the attached session exits 0" "$TMP/rec.err"
# --- -- CMD through a relay given with --relayd / --live-port
st=0
timeout 300 "$TOP" --batch --interval 0.3 --relayd "net://127.0.0.1:$RELAY_C:$RELAY_D" \
    --live-port "$RELAY_L" -- "$BURN" -p 2 --depth 8 --leaf-us 1000 >"$TMP/out" 2>"$TMP/err" || st=$?
check $st "--relayd/--live-port: exit 0 like CMD" "$TMP/err"
grep -Eq "^  tasks 511  forks 510 " "$TMP/out"
check $? "--relayd/--live-port: the final report is exact (511 tasks)" "$TMP/out"
ls -d "$TMP/relay/$(uname -n)"/fjtrace-top-* >/dev/null 2>&1
check $? "--relayd: the trace is in the given relay's folder"
st=0
timeout 60 "$TOP" --batch "net://127.0.0.1:$RELAY_L/host/$(uname -n)/no-such-session" \
    >"$TMP/out" 2>"$TMP/err" || st=$?
[[ $st -eq 3 ]]
check $? "attaching to a session that does not exist: exit 3 (got $st)" "$TMP/err"
stop_relayd
st=0
timeout 60 "$TOP" --batch "net://127.0.0.1:$RELAY_L/host/$(uname -n)/$S" >"$TMP/out" 2>"$TMP/err" || st=$?
[[ $st -eq 3 ]]
check $? "attaching to a relay that is down: exit 3 (got $st)" "$TMP/err"

# --- the interactive view (ncurses) in tmux
if command -v tmux >/dev/null; then
    T="tmux -L fjtop-$$"
    $T new-session -d -s top -x 160 -y 45 \
        "FJTRACE_RECORD='$REC' '$TOP' --interval 0.3 -- '$BURN' -p 2 --depth 16 --leaf-us 1000; echo EXIT=\$?; sleep 60"
    CLEANUP_PIDS+=("$($T display -p '#{pane_pid}' 2>/dev/null || echo 0)")
    screen=
    for (( i = 0; i < 300; i++ )); do
        screen=$($T capture-pane -p -t top 2>/dev/null)
        grep -q '^pool 1 fj-burn' <<<"$screen" && break
        sleep 0.1
    done
    grep -Eq '^fjtrace-top [0-9:]{8}  frame' <<<"$screen" && grep -q '^pool 1 fj-burn' <<<"$screen" &&
        grep -q 'q: stop CMD' <<<"$screen"
    ok $? "tmux: the screen shows the frame, CMD's pool and the key help" || diag "$screen"
    grep -q '^fjtrace-top: final report' <<<"$screen"
    [[ $? -ne 0 ]]
    ok $? "tmux: no final report while CMD runs"
    $T send-keys -t top q
    for (( i = 0; i < 600; i++ )); do
        screen=$($T capture-pane -p -S -200 -t top 2>/dev/null)
        grep -q '^EXIT=' <<<"$screen" && break
        sleep 0.1
    done
    grep -q '^EXIT=130' <<<"$screen"
    ok $? "tmux: q stops CMD (SIGINT: status 130)" || diag "$screen"
    grep -q 'fjtrace-top: final report' <<<"$screen" || grep -q 'advice' <<<"$screen"
    ok $? "tmux: the report is shown after the view closes" || diag "$screen"
    $T kill-server 2>/dev/null
else
    skip 4 "tmux not installed"
fi
done_testing
