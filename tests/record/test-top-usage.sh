#!/bin/bash
# fjtrace-top's command line (issue 24, item 12): each mistake is refused
# before anything runs, with a message naming the option or argument, and
# the status its --help documents. Needs no lttng: nothing gets that far.
#   bash test-top-usage.sh FJTRACE_RECORD FJTRACE_TOP
source "$(dirname "$0")/lib.sh"
TOP=${2:?usage: $0 FJTRACE_RECORD FJTRACE_TOP}
export FJTRACE_RECORD=$REC
marker=$TMP/ran

# run_top WANT REGEX ARGS...: fjtrace-top ARGS exits WANT, says REGEX on
# stderr, and CMD (touch $marker) never ran.
run_top() {
    local want=$1 re=$2 st=0
    shift 2
    rm -f -- "$marker"
    timeout 60 "$TOP" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || st=$?
    check $((st != want)) "fjtrace-top $(shown "$@") exits $want" "$TMP/err" || diag "it exited $st"
    grep -Eq -- "$re" "$TMP/err"
    check $? "its stderr says /$re/" "$TMP/err"
    [[ ! -e $marker ]]
    check $? "CMD did not run" "$TMP/err"
}

run_top 2 "option needs a value: -i$" --batch -i
run_top 2 "option needs a value: --interval$" --batch --interval
run_top 2 "option needs a value: --live-port$" --batch --live-port
run_top 2 "unknown option --zork$" --batch --zork -- touch "$marker"
run_top 2 "unknown option -x$" --batch -x -- touch "$marker"
run_top 2 "option takes no value: --batch$" --batch=1 -- touch "$marker"
run_top 2 "--live-port goes with --relayd" --batch --live-port 5344 -- touch "$marker"
# The URL before -- is not the command to run.
run_top 2 "not both.*net://127.0.0.1/host/a/b" --batch net://127.0.0.1/host/a/b -- touch "$marker"
# An unwritable --cmd-output: the documented 5 ("output not writable"), not
# 127 from a child that could not open it.
: >"$TMP/file"
run_top 5 "cannot write --cmd-output $TMP/file/log" --batch --cmd-output "$TMP/file/log" -- touch "$marker"
"$TOP" --help | grep -Eq '^ +5 +internal error \(.*output not writable'
check $? "--help documents 5 for an output that cannot be written"
done_testing
