#!/bin/bash
# --help, --version and bad usage (exit 2). Needs no lttng at all.
source "$(dirname "$0")/lib.sh"

run_rec 0 --version
version=$(cat "$(dirname "$0")/../../VERSION")
is "$(cat "$TMP/out")" "fjtrace-record $version" "--version prints 'fjtrace-record $version' (the VERSION file's)"

run_rec 0 --help
for w in -o --output --blocking --cmd-only --all-processes --recording --subbuf-size --num-subbuf --version --help; do
    grep -q -- "$w" "$TMP/out"
    check $? "--help mentions $w"
done
for code in 2 116 120 121 122 123 126 127; do
    grep -Eq "^ +$code " "$TMP/out"
    check $? "--help documents exit code $code"
done
grep -qi "before CMD starts" "$TMP/out"
check $? "--help says the recorder's own codes come before CMD starts"

# bad usage, each: status 2, a message, no CMD run, nothing created
cd "$TMP" || fail "no $TMP"
marker=$TMP/ran
for args in "--bogus touch $marker" "-x touch $marker" "" "--" "-o" "--subbuf-size" \
            "--num-subbuf 0 touch $marker" "--num-subbuf x touch $marker" \
            "--subbuf-size 4Q touch $marker" "-o '' touch $marker" \
            "--relayd '' touch $marker" "--relayd= touch $marker" \
            "--recording 0 touch $marker" "--recording 18446744073709551616 touch $marker" \
            "--recording x touch $marker" "--cmd-only --recording 5 touch $marker"; do
    eval "set -- $args"
    run_rec 2 "$@"
    [[ -s $TMP/err && ! -e $marker && ! -e $TMP/fjtrace-traces ]]
    check $? "bad usage '$(shown "$args")': a message, CMD not run, nothing created" "$TMP/err"
done
run_rec 2 --bogus true
err_has "unknown option '--bogus'"
run_rec 2
err_has "missing CMD"

# bad usage is reported even without lttng on PATH
mkpath "$TMP/bin" lttng
PATH=$TMP/bin run_rec 2 --frobnicate true

# The recorder as installed is a program (the front) that runs its script,
# found beside it or in ../libexec/fjtrace/: without it, exit 113 and one
# line naming where it was looked for, CMD not run.
if [[ $(head -c 4 "$REC" | od -An -c | tr -d ' ') == 177ELF ]]; then
    mkdir -p "$TMP/alone"
    cp -- "$REC" "$TMP/alone/fjtrace-record"
    st=0
    "$TMP/alone/fjtrace-record" -- touch "$marker" >/dev/null 2>"$TMP/err" </dev/null || st=$?
    is "$st" 113 "the front without its script exits 113"
    [[ $(wc -l <"$TMP/err") -eq 1 && ! -e $marker ]] && grep -q 'libexec/fjtrace/fjtrace-record.sh is missing' "$TMP/err"
    check $? "it says so in one line naming the script, and runs nothing" "$TMP/err"
    # Out of file descriptors (5: the three standard ones, the signalfd and
    # one end of the ready pipe), the front cannot start its script: the
    # same exit 113, with a message naming the call that failed.
    st=0
    (ulimit -n 5 && exec "$REC" -- touch "$marker") >/dev/null 2>"$TMP/err" </dev/null || st=$?
    is "$st" 113 "the front out of file descriptors exits 113"
    [[ ! -e $marker ]] && grep -q 'error: .*Too many open files' "$TMP/err"
    check $? "it names the call that failed, and runs nothing" "$TMP/err"
fi
done_testing
