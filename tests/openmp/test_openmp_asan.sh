#!/usr/bin/env bash
# The OMPT tool built with ASan+UBSan (the sanitizer build), loaded into
# uninstrumented OpenMP programs with the ASan runtime preloaded first (a
# sanitized library cannot be dlopen'ed otherwise), recording through
# fjtrace-record: the tool's records, reference counts, batches and lock
# table must draw no sanitizer report.
# usage: test_openmp_asan.sh RECORD TOOL ASAN_RUNTIME OMP_FIB OMP_CASES
. "$(dirname "$0")/../tap.sh"
set -u
RECORD=$1 TOOL=$2 ASAN=$3 FIB=$4 CASES=$5
tmp=$(mktemp -d /tmp/fjtrace-omp-asan.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# run NAME CMD...: records CMD under the sanitized tool (--no-dlopen: the
# ASan runtime must stay first in LD_PRELOAD), in the background: its exit
# status in $tmp/NAME.st. A recording mostly waits on LTTng's daemons: two
# at a time, each its own session and folder; judge NAME reads them back in
# order: three checks.
running=0
run() {
    local name=$1
    shift
    if [ "$running" -ge 2 ]; then
        wait -n
        running=$((running - 1))
    fi
    echo "$name" >>"$tmp/order"
    (
        st=0
        LD_PRELOAD=$ASAN ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1 \
            FJTRACE_OMP_TOOL=$TOOL "$RECORD" --count --openmp --no-dlopen --cmd-only -o "$tmp/$name" -- "$@" \
            >"$tmp/$name.out" 2>"$tmp/$name.err" || st=$?
        echo "$st" >"$tmp/$name.st"
    ) &
    running=$((running + 1))
}
judge() {
    local name=$1
    ok "$(cat "$tmp/$name.st" 2>/dev/null || echo 1)" "$name: recorded under the sanitized tool (exit 0)" ||
        tail -5 "$tmp/$name.err"
    ! grep -q 'ERROR: AddressSanitizer\|runtime error:' "$tmp/$name.err" "$tmp/$name.out"
    ok $? "$name: no ASan or UBSan report" || grep -A8 'ERROR: AddressSanitizer\|runtime error:' "$tmp/$name.err" | head -20
    grep -q 'events: [1-9]' "$tmp/$name.err"
    ok $? "$name: events were recorded"
}

: >"$tmp/order"
run fib "$FIB" 18 -p 2
for c in steal taskwait taskgroup depend undeferred untied lock critical nested; do
    run "$c" "$CASES" "$c"
done
wait
while read -r name; do judge "$name"; done <"$tmp/order"
done_testing
