#!/bin/bash
# Damaged real traces through fjtrace-analyze. Records one small fj-fib trace,
# makes ~40 damaged copies (truncated streams, flipped bytes in streams and in
# the metadata, a deleted stream, empty or truncated metadata, no index,
# garbage appended) and runs the analyzer on each, as text and --json, and on
# some with --subtrees. Every run must end with a documented exit code (0, 1,
# 3 or 4; never a signal, a 20 s timeout or 5), no sanitizer report, and a
# message on stderr when the exit code is 3.
# Usage: mutate-traces.sh ANALYZE RECORD FIB   (TAP; skipped when it cannot
# record here). One check per analyzer run.
. "$(dirname "$0")/../tap.sh"
set -u
ANALYZE=${1:?usage: mutate-traces.sh ANALYZE RECORD FIB}
RECORD=${2:?}
FIB=${3:?}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The analyzer's salvage copies go under a $TMPDIR of this test's own: the
# check that none is left behind must not see another test's, made
# meanwhile by a test running beside this one.
export TMPDIR=$TMP/tmpdir
mkdir "$TMPDIR"

if ! "$RECORD" --cmd-only -o "$TMP/orig" -- "$FIB" 14 -p 2 >"$TMP/record.log" 2>&1; then
    cat "$TMP/record.log"
    plan_skip_all "cannot record a trace here (no LTTng?)"
fi
TRACE=$(dirname "$(find "$TMP/orig" -name metadata | head -n 1)")
REL=${TRACE#"$TMP/orig"}
STREAMS=$(find "$TRACE" -mindepth 1 -maxdepth 1 ! -name metadata ! -name index -printf '%f\n' | sort)
BIG=$(cd "$TRACE" && ls -S $STREAMS | head -n 1) # the stream with the most events
SMALL=$(cd "$TRACE" && ls -S $STREAMS | tail -n 1)
echo "mutate-traces: trace $TRACE; streams:" $STREAMS

# Byte edits, deterministic (seeded): flip FILE N SEED | trunc FILE SIZE | append FILE N
edit() {
    python3 - "$@" <<'PY'
import os, random, sys
op, path = sys.argv[1], sys.argv[2]
data = bytearray(open(path, "rb").read())
if op == "flip":
    n, rng = int(sys.argv[3]), random.Random(int(sys.argv[4]))
    for _ in range(n):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
elif op == "trunc":
    data = data[:int(sys.argv[3])]
elif op == "append":
    data += random.Random(7).randbytes(int(sys.argv[3]))
open(path, "wb").write(data)
PY
}

n=0
make_case() { # NAME: prints the copy's trace folder
    n=$((n + 1))
    local d="$TMP/case-$n-$1"
    cp -r "$TMP/orig" "$d"
    CASE="$d$REL"
    CASENAME="$1"
}

runs=0
# analyse ID CASE-DIR ARGS...: one analyzer run in the background, its
# output, stderr and exit code kept under $TMP/run-ID (judge reads them);
# its pid added to $pids.
pids=''
analyse() {
    local id=$1 dir=$2 lsan=${LSAN_OPTIONS:-}
    shift 2
    # a run that draws no picture: LeakSanitizer unwinds by frame pointers
    # (meson.build, lsan_full_stacks)
    [[ " $* " == *" --subtrees "* ]] || lsan=${FJTRACE_TEST_LSAN_FAST:-$lsan}
    (
        LSAN_OPTIONS=$lsan timeout 20 "$ANALYZE" --no-progress "$@" "$dir" \
            >"$TMP/run-$id.out" 2>"$TMP/run-$id.err"
        echo $? >"$TMP/run-$id.rc"
    ) &
    pids+=" $!"
}

judge() { # ID NAME ARGS...: judges the run ID (analyse) of ARGS: one check
    local id=$1 name=$2
    shift 2
    local out=$TMP/run-$id.out err=$TMP/run-$id.err
    local rc
    rc=$(cat "$TMP/run-$id.rc")
    local why=""
    runs=$((runs + 1))
    cat "$err" >>"$TMP/all-err"
    case $rc in
    0 | 1 | 4) ;;
    3) [ -s "$err" ] || why="exit 3 without a message" ;;
    124) why="hang (killed after 20 s)" ;;
    *) why="exit code $rc" ;;
    esac
    if grep -q 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$err"; then
        why="$why sanitizer report"
    fi
    # An analysed trace gives a report: valid JSON with --json, and a
    # trace that stopped decoding part-way is said to be incomplete.
    if [ "$rc" -le 1 ]; then
        case " $* " in
        *" --json "*) python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out" ||
            why="$why invalid JSON" ;;
        *) grep -q '^  trace \(complete\|INCOMPLETE\)' "$out" || why="$why no report" ;;
        esac
        if grep -q 'decoding stopped' "$err" && [ "$rc" -ne 1 ]; then
            why="$why decoding stopped but exit $rc"
        fi
        if grep -q 'is cut short' "$err" && [ "$rc" -eq 0 ]; then
            why="$why salvaged but exit 0"
        fi
    fi
    [ "$name" = original ] && [ "$rc" -ne 0 ] && why="$why the undamaged trace must analyse (exit 0)"
    rm -f -- "$out"
    [ -z "$why" ]
    ok $? "$name ${*:+($*) }ends with a documented exit code and a report, no sanitizer report (exit $rc)" ||
        diag "$why" "$(head -c 2000 "$err")"
}

# run_case: runs text and --json on $CASE; with "viz", also --subtrees. The
# runs of a case read their own copy and write their own files: they run
# side by side, beside those of the case before (two cores; a 20 s hang is
# still one, the load at most triples a run's time), and the runs of each
# case are judged in order once all its runs have ended (judge_last).
last_pids='' last_n='' last_name='' last_viz=0
run_case() {
    local viz=0
    [ "${1:-}" = viz ] && "$ANALYZE" --help | grep -q -- --subtrees && viz=1
    pids=''
    analyse "$n-t" "$CASE"
    analyse "$n-j" "$CASE" --json
    if [ $viz = 1 ]; then
        mkdir -p "$TMP/sub-$n"
        analyse "$n-s" "$CASE" --subtrees "$TMP/sub-$n" --format all
    fi
    judge_last
    last_pids=$pids last_n=$n last_name=$CASENAME last_viz=$viz
}
# judge_last: waits for the runs of the case before (run_case) and judges
# them.
judge_last() {
    [ -n "$last_pids" ] || return 0
    # shellcheck disable=SC2086 # a list of pids
    wait $last_pids
    judge "$last_n-t" "$last_name"
    judge "$last_n-j" "$last_name" --json
    [ $last_viz = 0 ] || judge "$last_n-s" "$last_name" --subtrees "$TMP/sub-$last_n" --format all
    last_pids=''
}

# The undamaged trace first: it must analyse.
CASE=$TRACE CASENAME=original
run_case viz

size=$(stat -c %s "$TRACE/$BIG")
for cut in 0 1 17 100 4095 4096 4097 $((size / 3)) $((size / 2)) $((size - 1)); do
    make_case "trunc-$BIG-$cut"
    edit trunc "$CASE/$BIG" "$cut"
    if [ "$cut" = $((size / 2)) ]; then run_case viz; else run_case; fi
done
make_case "trunc-$SMALL-40"
edit trunc "$CASE/$SMALL" 40
run_case
for seed in 1 2 3 4 5 6 7 8; do
    make_case "flip-$BIG-$seed"
    edit flip "$CASE/$BIG" $((seed * 3)) "$seed"
    if [ "$seed" = 1 ]; then run_case viz; else run_case; fi
done
for seed in 1 2; do
    make_case "flip-$SMALL-$seed"
    edit flip "$CASE/$SMALL" 4 "$seed"
    run_case
done
for seed in 1 2 3 4 5 6 7 8; do
    make_case "flip-metadata-$seed"
    edit flip "$CASE/metadata" $((seed % 3 + 1)) "$((100 + seed))"
    run_case
done
make_case "delete-$BIG"
rm "$CASE/$BIG"
run_case viz
make_case "delete-$SMALL"
rm "$CASE/$SMALL"
run_case
make_case "delete-all-streams"
(cd "$CASE" && rm $STREAMS)
run_case
make_case metadata-empty
: >"$CASE/metadata"
run_case
make_case metadata-deleted
rm "$CASE/metadata"
run_case
msize=$(stat -c %s "$TRACE/metadata")
for cut in 10 100 $((msize / 2)) $((msize - 1)); do
    make_case "metadata-trunc-$cut"
    edit trunc "$CASE/metadata" "$cut"
    run_case
done
make_case index-removed
rm -r "$CASE/index"
run_case viz
make_case index-flipped
for f in "$CASE"/index/*; do edit flip "$f" 6 9; done
run_case
make_case "garbage-$BIG"
edit append "$CASE/$BIG" 3000
run_case
make_case garbage-metadata
edit append "$CASE/metadata" 500
run_case
make_case garbage-stream-file
edit append "$CASE/$SMALL" 1
cp "$CASE/$SMALL" "$CASE/junk_stream" && edit flip "$CASE/junk_stream" 200 11
run_case
judge_last

stopped=$(grep -c 'decoding stopped' "$TMP/all-err" 2>/dev/null || echo 0)
salvaged=$(grep -c 'is cut short' "$TMP/all-err" 2>/dev/null || echo 0)
left=$(find "$TMPDIR" -maxdepth 1 -name 'fjtrace-salvage-*' | wc -l)
is "$left" 0 "no salvage copy is left in the analyzer's \$TMPDIR"
diag "mutate-traces: $n damaged copies, $runs runs ($stopped analysed up to a decode error," \
    "$salvaged found cut short)"
done_testing
