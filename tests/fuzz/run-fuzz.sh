#!/bin/bash
# Builds the libFuzzer harness on the analysis core with clang (ASan+UBSan,
# independent of the meson build's compiler) and runs it for SECONDS on a
# copy of the seed corpus. Usage: run-fuzz.sh BUILD_DIR SECONDS
# TAP: two checks (it builds; the campaign ends without a finding), all
# skipped without clang or libFuzzer; a diagnostic gives the executions count.
. "$(dirname "$0")/../tap.sh"
set -u
BUILD=${1:?usage: run-fuzz.sh BUILD_DIR SECONDS}
SECONDS_=${FJ_FUZZ_SECONDS:-${2:-60}}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
CLANG=${CLANG:-clang}
command -v "$CLANG" >/dev/null 2>&1 || plan_skip_all "no clang"
mkdir -p "$BUILD"
BIN="$BUILD/fuzz_core"
if ! "$CLANG" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g -O1 \
    -std=c11 -D_GNU_SOURCE -I "$SRC/analyzer/core" \
    "$HERE/fuzz_core.c" "$SRC"/analyzer/core/*.c -lm -o "$BIN" 2>"$BUILD/fuzz_core.log"; then
    cat "$BUILD/fuzz_core.log"
    if grep -q 'libclang_rt.fuzzer\|cannot find.*fuzzer\|unsupported option' "$BUILD/fuzz_core.log"; then
        plan_skip_all "clang cannot build libFuzzer targets here"
    fi
    ok 1 "the libFuzzer harness on the analysis core builds with clang, ASan and UBSan"
    done_testing
fi
ok 0 "the libFuzzer harness on the analysis core builds with clang, ASan and UBSan"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/corpus" "$TMP/artifacts"
cp "$HERE"/corpus/* "$TMP/corpus/"
cd "$TMP" || bail_out "no $TMP"
ASAN_OPTIONS=detect_leaks=1 "$BIN" -max_total_time="$SECONDS_" -timeout=5 -rss_limit_mb=2048 \
    -max_len=4096 -print_final_stats=1 -artifact_prefix="$TMP/artifacts/" corpus \
    >"$TMP/log" 2>&1
rc=$?
tail -n 25 "$TMP/log"
runs=$(sed -n 's/^Done \([0-9][0-9]*\) runs.*/\1/p' "$TMP/log" | tail -n 1)
[ "$rc" -eq 0 ] && [ -n "$runs" ]
ok $? "a ${SECONDS_} s libFuzzer campaign on the analysis core finds nothing (no crash, leak, UB, timeout)"
if [ "$rc" -ne 0 ] || [ -z "$runs" ]; then
    for a in "$TMP"/artifacts/*; do
        [ -e "$a" ] || continue
        mkdir -p "$BUILD/fuzz-artifacts"
        cp "$a" "$BUILD/fuzz-artifacts/"
        echo "run-fuzz: crashing input kept in $BUILD/fuzz-artifacts/$(basename "$a")"
    done
    diag "libFuzzer exit $rc after ${runs:-?} executions"
else
    diag "$runs executions in ${SECONDS_} s"
fi
done_testing
