# Shared helpers of the fjtrace-record tests; sourced by each test-*.sh.
# shellcheck shell=bash
# Usage of a test: bash test-X.sh PATH/TO/fjtrace-record [PATH/TO/fjtrace-emit]
# TAP (tests/tap.sh): each check says what must hold; no `set -e`, so a
# failed check is reported and the test goes on.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

REC=${1:?usage: $0 FJTRACE_RECORD [EMITTER]}
EMIT=${2:-}
[[ -x $REC ]] || bail_out "$REC is not executable"
REC=$(cd "$(dirname "$REC")" && pwd -P)/$(basename "$REC")
[[ -z $EMIT ]] || EMIT=$(cd "$(dirname "$EMIT")" && pwd -P)/$(basename "$EMIT")

TMP=$(mktemp -d /tmp/fjtrace-record-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# fail MESSAGE: a step the rest depends on went wrong; ends the test.
fail() { bail_out "$*"; }

# check STATUS WHAT [FILE]: one check, ok when STATUS is 0; else FILE (e.g.
# the stderr of the command checked) as diagnostics.
check() {
    ok "$1" "$2" && return 0
    [[ -n ${3:-} && -r ${3:-} ]] && diag "$(head -n 40 "$3")"
    return 1
}

# shown ARGS...: ARGS for a check's text, the scratch folder as $TMP.
shown() {
    local a=$* && echo "${a//$TMP/\$TMP}"
}

# run_rec EXPECTED_STATUS ARGS...: runs the recorder, output in $TMP/out
# and $TMP/err; one check: it exits EXPECTED_STATUS.
run_rec() {
    local want=$1 st=0
    shift
    "$REC" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || st=$?
    check $((st != want)) "fjtrace-record $(shown "$@") exits $want" "$TMP/err" || diag "it exited $st"
}

# err_has REGEX: one check, the last run's stderr matches REGEX.
err_has() {
    grep -Eq -- "$1" "$TMP/err"
    check $? "its stderr says /$(shown "$1")/" "$TMP/err"
}

# one_line_err: one check, the failure is reported in one line on stderr.
one_line_err() {
    [[ $(wc -l <"$TMP/err") -eq 1 ]]
    check $? "it reports the error in one line" "$TMP/err"
}

# mkpath DIR EXCLUDED... : DIR gets symlinks to every program on the normal
# PATH except the EXCLUDED names (a PATH without, e.g., lttng). The first
# of each name on PATH, as the shell would find it; one ln for them all
# (an ln per program forked ~3500 times on a Debian PATH: 55 s at load 10).
mkpath() {
    local dir=$1; shift
    mkdir -p "$dir"
    local d f name x
    local -A seen=()
    local targets=()
    for x in "$@"; do seen[$x]=1; done
    IFS=: read -r -a dirs <<<"$PATH"
    for d in "${dirs[@]}"; do
        [[ -d $d ]] || continue
        for f in "$d"/*; do
            name=${f##*/}
            [[ -x $f && ! -d $f && -z ${seen[$name]:-} ]] || continue
            seen[$name]=1
            targets+=("$f")
        done
    done
    (( ${#targets[@]} == 0 )) || ln -s -t "$dir" -- "${targets[@]}"
}

# session_listed DIR : some lttng session (on a reachable daemon) writes to DIR
session_listed() {
    lttng --no-sessiond list 2>/dev/null | grep -Fq -- "$1"
}

# babeltrace2 event count of trace DIR (all events)
bt_count_all() {
    babeltrace2 "$1" -c sink.utils.counter -p step=+0 2>/dev/null |
        awk '/ Event messages/{print $1}'
}

# babeltrace2 event count of the fjtrace channel of trace DIR: the load maps
# (statedump) in channel fjtrace_maps are left out, through a copy of each
# trace folder linking only its metadata and fjtrace_N streams.
bt_count() {
    local md dir total=0 n
    while IFS= read -r md; do
        dir=${md%/metadata}
        rm -rf -- "$TMP/btc" && mkdir -p -- "$TMP/btc"
        ln -s "$md" "$TMP/btc/metadata"
        compgen -G "$dir/fjtrace_[0-9]*" >/dev/null && ln -s "$dir"/fjtrace_[0-9]* "$TMP/btc/"
        n=$(bt_count_all "$TMP/btc")
        total=$(( total + ${n:-0} ))
    done < <(find "$1" -name metadata -type f)
    rm -rf -- "$TMP/btc"
    printf '%s\n' "$total"
}
