#!/usr/bin/env bash
# The OMPT tool through the real stack: fjtrace-record --openmp records
# clang- and gcc-built OpenMP programs (the gcc ones run on libomp), and
# check_omp.py checks the decoded trace of each case.
# usage: test_openmp.sh RECORD TOOL ANALYZE OMP_FIB OMP_CASES [OMP_FIB_GCC OMP_CASES_GCC]
# (ANALYZE: fjtrace-analyze, or - when it is not built)
. "$(dirname "$0")/../tap.sh"
set -u
RECORD=$1 TOOL=$2 ANALYZE=$3
shift 3
[ "$ANALYZE" = - ] || export FJTRACE_ANALYZE=$ANALYZE
export FJTRACE_OMP_TOOL=$TOOL
here=$(dirname "$0")
tmp=$(mktemp -d /tmp/fjtrace-omp-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# run NAME CHECK-ARGS -- CMD...: records CMD, then checks, in the
# background: the recorder's status in $tmp/NAME.st (empty when it was not
# checked), the checker's TAP in $tmp/NAME.tap and its status in
# $tmp/NAME.cst. A recording mostly waits on LTTng's daemons (session,
# channels, the consumer's flush): two at a time, each its own session and
# folder. judge NAME reads them back in order: two checks. With ALONE=1 the
# recording has the machine to itself (no other recording before it ends):
# fib's advice judges task sizes against the fork cost, which a second
# recording's workers stretch (local CI 54: preempted 59% of their time).
running=0
run() {
    local name=$1 args=()
    shift
    while [ "$1" != -- ]; do args+=("$1"); shift; done
    shift
    if [ "${ALONE:-0}" = 1 ]; then
        wait
        running=0
    elif [ "$running" -ge 2 ]; then
        wait -n
        running=$((running - 1))
    fi
    echo "$name" >>"$tmp/order"
    printf '%s\n' "$(basename "$1") ${*:2}" >"$tmp/$name.what"
    (
        st=0
        "$RECORD" --openmp --cmd-only --context vtid -o "$tmp/$name" -- "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || st=$?
        echo "$st" >"$tmp/$name.st"
        [ "$st" = 0 ] || exit 0
        st=0
        python3 "$here/check_omp.py" "$tmp/$name" "${args[@]}" >"$tmp/$name.tap" 2>&1 || st=$?
        echo "$st" >"$tmp/$name.cst"
    ) &
    running=$((running + 1))
    printf '%s\n' "${args[*]}" >"$tmp/$name.args"
    if [ "${ALONE:-0}" = 1 ]; then
        wait
        running=0
    fi
}
judge() {
    local name=$1
    ok "$(cat "$tmp/$name.st" 2>/dev/null || echo 1)" "fjtrace-record --openmp records $(cat "$tmp/$name.what")" ||
        { cat "$tmp/$name.err"; return; }
    ok "$(cat "$tmp/$name.cst" 2>/dev/null || echo 1)" "$name: every check of check_omp.py $(cat "$tmp/$name.args") holds ($(grep -c '^ok' "$tmp/$name.tap") checks)" ||
        grep -v '^ok' "$tmp/$name.tap"
}

: >"$tmp/order"
while [ $# -ge 2 ]; do
    fib=$1 cases=$2
    shift 2
    tag=$(basename "$cases")
    ALONE=1 run "$tag-fib" fib 18 -- "$fib" 18 -p 2
    for c in steal taskwait taskgroup depend undeferred untied lock critical nested exit worksharing; do
        extra=()
        [ "$c" = untied ] && ldd "$cases" | grep -q libgomp && extra=(gomp)
        run "$tag-$c" "$c" "${extra[@]}" -- "$cases" "$c"
    done
done
wait
while read -r name; do judge "$name"; done <"$tmp/order"
# The gcc build runs on libomp, and the recorder says so.
if [ -n "${fib:-}" ] && grep -q libgomp "$tmp/$tag-fib.err"; then
    grep -q "running it on LLVM's libomp" "$tmp/$tag-fib.err"
    ok $? "a libgomp program: fjtrace-record says it runs it on libomp"
fi
# C++: a creation site is named with its namespaces and classes (libdw's
# scope chain of the function's declaration), not the bare function name.
if [ -n "${OMP_CPP:-}" ] && [ "$ANALYZE" != - ]; then
    st=0; "$RECORD" --openmp --cmd-only -o "$tmp/cpp" -- "$OMP_CPP" >/dev/null 2>"$tmp/cpp.err" || st=$?
    is "$st" 0 "fjtrace-record --openmp records a C++ program (omp-cpp)" || cat "$tmp/cpp.err"
    "$ANALYZE" --no-progress "$tmp/cpp" >"$tmp/cpp.txt" 2>&1
    grep -q 'omp-cpp.cpp:[0-9]* (work::Sorter<long>::fib)' "$tmp/cpp.txt" &&
        grep -q 'omp-cpp.cpp:[0-9]* (work::detail::leaves)' "$tmp/cpp.txt"
    ok $? "its creation sites are named with their namespaces and classes (work::Sorter<long>::fib, work::detail::leaves)" ||
        grep -A12 'creation sites' "$tmp/cpp.txt"
    # g++ names its outlined task functions after the mangled name
    # (_ZN4work6SorterIlE3fibEl._omp_fn.0): demangled, its suffix kept
    st=0; "$RECORD" --openmp --cmd-only -o "$tmp/cppg" -- "$OMP_CPP_GCC" >/dev/null 2>"$tmp/cppg.err" || st=$?
    is "$st" 0 "fjtrace-record --openmp records the g++ build (runs on libomp)" || cat "$tmp/cppg.err"
    "$ANALYZE" --no-progress "$tmp/cppg" >"$tmp/cppg.txt" 2>&1
    grep -q 'omp-cpp.cpp:[0-9]* (work::Sorter<long>::fib(long)._omp_fn.[0-9]*)' "$tmp/cppg.txt" &&
        ! grep -q '(_Z' "$tmp/cppg.txt"
    ok $? "its outlined task functions are demangled (work::Sorter<long>::fib(long)._omp_fn.N), no mangled name left" ||
        grep -A16 'creation sites' "$tmp/cppg.txt"
fi
# Not an OpenMP program: exit 125; no tool: exit 124.
st=0; "$RECORD" --openmp -o "$tmp/none" -- /bin/true 2>"$tmp/none.err" || st=$?
is "$st" 119 "--openmp on a program with no OpenMP runtime exits 119"
st=0; FJTRACE_OMP_TOOL=$tmp/missing.so "$RECORD" --openmp -o "$tmp/notool" -- "$fib" 5 2>"$tmp/notool.err" || st=$?
is "$st" 125 "--openmp with the tool missing exits 125"
done_testing
