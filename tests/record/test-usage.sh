#!/bin/bash
# --help, --version and bad usage (exit 2). Needs no lttng at all.
source "$(dirname "$0")/lib.sh"

run_rec 0 --version
[[ $(cat "$TMP/out") == "fjtrace-record 0.1.0" ]] || fail "--version printed '$(cat "$TMP/out")'"
pass "--version"

run_rec 0 --help
for w in -o --output --blocking --cmd-only --subbuf-size --num-subbuf --version --help; do
    grep -q -- "$w" "$TMP/out" || fail "--help does not mention $w"
done
for code in 2 120 121 122 123 126 127; do
    grep -Eq "^ +$code " "$TMP/out" || fail "--help does not document exit code $code"
done
grep -qi "before CMD starts" "$TMP/out" || fail "--help does not say when the recorder's codes are used"
pass "--help lists options and exit codes"

# bad usage, each: status 2, a message, no CMD run, nothing created
cd "$TMP"
marker=$TMP/ran
for args in "--bogus touch $marker" "-x touch $marker" "" "--" "-o" "--subbuf-size" \
            "--num-subbuf 0 touch $marker" "--num-subbuf x touch $marker" \
            "--subbuf-size 4Q touch $marker" "-o '' touch $marker"; do
    eval "set -- $args"
    run_rec 2 "$@"
    [[ -s $TMP/err ]] || fail "no message for bad usage '$args'"
    [[ ! -e $marker ]] || fail "CMD ran despite bad usage '$args'"
    [[ ! -e $TMP/fjtrace-traces ]] || fail "bad usage '$args' created fjtrace-traces/"
done
run_rec 2 --bogus true
err_has "unknown option '--bogus'"
run_rec 2
err_has "missing CMD"
pass "bad usage exits 2 with a message"

# bad usage is reported even without lttng on PATH
mkpath "$TMP/bin" lttng
PATH=$TMP/bin run_rec 2 --frobnicate true
pass "bad usage takes precedence over a missing lttng"
