#!/usr/bin/env bash
# bench/java.sh: what the JVM agent (docs/java.md) costs a Java program.
#
#   not recording: samples/java Fib with a threshold (fib(32), forking above
#     n = 16, parallelism 1) with no agent vs with the agent loaded and no
#     LTTng session (goal <= 1.05x), CPU time of the computation (the
#     program's summary line: the process's CPU from before the pool's
#     creation to the result; the JVM's start-up is not in it)
#   recording, per event: (recorded - loaded not recording) / events, for
#     Fib every 20 (a task per call) under the agent vs fj-fib naive under
#     libfj's own tracepoints, (recorded - not recorded) / events
#   bytes per event: the fjtrace channel's stream files / events, both
#
# Every configuration runs REPS times, interleaved; medians (min..max).
# usage: java.sh [-r REPS] [BUILD_DIR]     (default: 7 reps, build/)
set -euo pipefail

reps=7
while getopts "r:h" opt; do
    case $opt in
        r) reps=$OPTARG ;;
        h) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
build=${1:-build}
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "$0: bad -r '$reps'" >&2; exit 2; }
here=$(cd -- "$(dirname -- "$0")" && pwd -P)
record=$here/../scripts/fjtrace-record
agent=$build/java/fjtrace-agent.jar
jar=$build/samples/java/samples-java.jar
fjfib=$build/samples/fj-fib
for f in "$agent" "$jar" "$fjfib"; do
    [[ -e $f ]] || { echo "$0: $f missing: build first (meson setup $build && ninja -C $build)" >&2; exit 2; }
done
agent=$(cd -- "$(dirname -- "$agent")" && pwd -P)/fjtrace-agent.jar
tmp=$(mktemp -d /tmp/fjtrace-bench-java.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cutoff=(threshold 32 1 16)
naive_java=(every 20 1)
naive_fj=(26 --variant naive -p 1)

# java_cpu: the Fib summary's cpu_ms; fj_cpu: fj-fib's cpu_s in ms
java_cpu() { sed -n 's/^summary .*cpu_ms=\([0-9.]*\).*/\1/p'; }
fj_cpu() { sed -n 's/^summary .*cpu_s=\([0-9.]*\).*/\1/p' | awk '{ printf "%.3f\n", $1 * 1000 }'; }
# run KEY PARSER CMD...: appends CMD's CPU ms to $tmp/KEY
run() {
    local key=$1 parse=$2 out
    shift 2
    out=$("$@" 2>/dev/null) || { echo "$0: '$*' failed" >&2; exit 1; }
    "$parse" <<<"$out" >>"$tmp/$key"
}
# rec KEY PARSER RECORDER-OPTIONS -- CMD...: records CMD; its CPU ms, the
# events, the bytes of the fjtrace channel's streams
rec() {
    local key=$1 parse=$2 out
    shift 2
    rm -rf "$tmp/trace"
    out=$(FJTRACE_JAVA_AGENT=$agent "$record" --cmd-only --blocking -o "$tmp/trace" "$@" 2>"$tmp/err") || {
        cat "$tmp/err" >&2; exit 1; }
    "$parse" <<<"$out" >>"$tmp/$key"
    sed -n 's/.*fjtrace-record: events: \([0-9]*\).*/\1/p' "$tmp/err" >"$tmp/$key.events"
    find "$tmp/trace" -type f -name 'fjtrace_[0-9]*' -printf '%s\n' | awk '{ s += $1 } END { print s }' >"$tmp/$key.bytes"
}
median() { sort -g "$tmp/$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
spread() { sort -g "$tmp/$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.1f..%.1f", lo, hi }'; }

echo "load before: $(uptime)"
for ((i = 1; i <= reps; i++)); do
    run cut_none java_cpu java -cp "$jar" Fib "${cutoff[@]}"
    run cut_agent java_cpu java -javaagent:"$agent" -cp "$jar" Fib "${cutoff[@]}"
    run naive_agent java_cpu java -javaagent:"$agent" -cp "$jar" Fib "${naive_java[@]}"
    rec naive_rec java_cpu --java -- java -cp "$jar" Fib "${naive_java[@]}"
    run fj_norec fj_cpu "$fjfib" "${naive_fj[@]}"
    rec fj_rec fj_cpu -- "$fjfib" "${naive_fj[@]}"
done
echo "load after:  $(uptime)"

c0=$(median cut_none) c1=$(median cut_agent)
n1=$(median naive_agent) n2=$(median naive_rec)
f0=$(median fj_norec) f1=$(median fj_rec)
ej=$(cat "$tmp/naive_rec.events") ef=$(cat "$tmp/fj_rec.events")
bj=$(cat "$tmp/naive_rec.bytes") bf=$(cat "$tmp/fj_rec.bytes")
echo "CPU ms of the computation, medians of $reps runs (min..max):"
printf '  Fib threshold 32 (16) P=1   no agent %s (%s)  agent, not recording %s (%s)\n' "$c0" "$(spread cut_none)" "$c1" "$(spread cut_agent)"
printf '  Fib every 20 P=1            agent, not recording %s (%s), recorded %s (%s), %s events, %s bytes\n' "$n1" "$(spread naive_agent)" "$n2" "$(spread naive_rec)" "$ej" "$bj"
printf '  fj-fib 26 naive P=1         not recording %s (%s), recorded %s (%s), %s events, %s bytes\n' "$f0" "$(spread fj_norec)" "$f1" "$(spread fj_rec)" "$ef" "$bf"
awk -v c0="$c0" -v c1="$c1" -v n1="$n1" -v n2="$n2" -v f0="$f0" -v f1="$f1" \
    -v ej="$ej" -v ef="$ef" -v bj="$bj" -v bf="$bf" 'BEGIN {
    printf "agent loaded, not recording, fib with a threshold: %.3fx (goal <= 1.05x)\n", c1 / c0
    pj = (n2 - n1) / ej * 1e6; pf = (f1 - f0) / ef * 1e6
    printf "recording cost per event: agent %.1f ns, libfj %.1f ns: %.2fx\n", pj, pf, pj / pf
    printf "bytes per event: agent %.1f, libfj %.1f\n", bj / ej, bf / ef
}'
