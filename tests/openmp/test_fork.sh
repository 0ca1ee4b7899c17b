#!/usr/bin/env bash
# An OpenMP program that forks without exec (issue 24, item 8), built with
# clang and gcc (on libomp), recorded with --openmp, with and without
# --all-processes: the parent's pool holds its own tasks only (100 + 50
# explicit, 2 regions x 2 implicit: 154 tasks, 150 forks), none unfinished,
# exit 0. The child's region (37 tasks) is not traced: the tool stops in a
# child forked without exec (docs/openmp.md).
# usage: test_fork.sh RECORD TOOL ANALYZE OMP_FORK...
. "$(dirname "$0")/../tap.sh"
set -u
RECORD=$1 TOOL=$2 ANALYZE=$3
shift 3
export FJTRACE_OMP_TOOL=$TOOL
tmp=$(mktemp -d /tmp/fjtrace-omp-fork.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

for prog in "$@"; do
    for scope in "" --all-processes; do
        what="$(basename "$prog")${scope:+ $scope}"
        st=0
        rm -rf "$tmp/t"
        "$RECORD" --openmp $scope -o "$tmp/t" -- "$prog" >"$tmp/out" 2>"$tmp/err" || st=$?
        ok "$st" "$what: recorded, exit 0" || { diag "$(cat "$tmp/err")"; continue; }
        grep -Eq '^parent [0-9]+ child [0-9]+$' "$tmp/out"
        ok $? "$what: the program forked, and its child ran its region"
        st=0
        "$ANALYZE" --json --no-progress "$tmp/t" >"$tmp/r.json" 2>"$tmp/aerr" || st=$?
        # With --all-processes another fjtrace program of the user running
        # meanwhile (another test) has pools too, caught mid-run: the trace
        # is whole only without them. The program's are those of its pid;
        # a pool caught without its pool_begin has no process (null): not
        # the program's, whose pool_begin the recording holds.
        read -r _ parent _ child <"$tmp/out"
        others=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(sum((p["process"] or {}).get("pid") not in (int(sys.argv[2]), int(sys.argv[3]))
          for p in r["pools"]))' \
            "$tmp/r.json" "$parent" "$child" 2>/dev/null || echo 0)
        if [[ $others == 0 ]]; then
            ok "$st" "$what: analysed, exit 0 (the trace is complete)" || diag "$(cat "$tmp/aerr")"
        else
            ok "$((st > 1))" "$what: analysed, exit 0 or 1 ($others pool(s) of other programs running meanwhile were recorded, maybe mid-run)"
        fi
        got=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
mine = [p for p in r["pools"]
        if (p["process"] or {}).get("pid") in (int(sys.argv[2]), int(sys.argv[3]))]
print(" ".join("%d:%d/%d/%d" % (p["process"]["pid"], p["totals"]["tasks"], p["totals"]["forks"],
                                p["totals"]["unfinished_tasks"]) for p in mine))' "$tmp/r.json" "$parent" "$child" 2>&1)
        is "$got" "$parent:154/150/0" "$what: one pool of the program's, the parent's: 154 tasks, 150 forks, 0 unfinished"
        if [[ -z $scope ]]; then
            n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["pools"]))' "$tmp/r.json")
            is "$n" 1 "$what: no other pool in the trace"
        fi
    done
done
done_testing
