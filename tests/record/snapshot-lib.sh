# Checks of --snapshot's folders, shared by test-snapshot-early.sh and
# test-snapshot-pending.sh (sourced after their preamble: check, $TMP, and
# the recorder's stderr in $TMP/err).
# shellcheck shell=bash

# snapshot_lines: the folders the recorder says it wrote ("snapshot (WHY):
# /FOLDER"), one a line.
snapshot_lines() { sed -n 's/^fjtrace-record: snapshot ([^)]*): \(\/.*\)$/\1/p' "$TMP/err"; }

# check_folders DIR WHAT: every folder in DIR holds a trace; each snapshot
# taken is a folder of its own; the summary ("trace: FOLDER") names each
# once, and only folders that exist.
check_folders() {
    local dir=$1 what=$2 d empty=0 named dup
    for d in "$dir"/*/; do
        [[ -d $d ]] || continue
        [[ -n $(find "$d" -name metadata -print -quit) ]] || empty=$(( empty + 1 ))
    done
    [[ $empty -eq 0 ]]
    check $? "$what: no snapshot folder without a trace ($empty)" "$TMP/err" || diag "$(find "$dir" | head -n 20)"
    dup=$(snapshot_lines | sort | uniq -d)
    [[ -z $dup ]]
    check $? "$what: each snapshot taken is a folder of its own${dup:+ ($dup)}" "$TMP/err"
    named=$(sed -n 's/^fjtrace-record: trace: //p' "$TMP/err")
    dup=$(sort <<<"$named" | uniq -d)
    [[ -z $dup ]]
    check $? "$what: the summary names no folder twice${dup:+ ($dup)}" "$TMP/err"
    while IFS= read -r d; do
        [[ -z $d || -d $d ]] || { check 1 "$what: the folder the summary names exists ($d)" "$TMP/err"; return; }
    done <<<"$named"
}
