#!/usr/bin/env bash
# bench/java.sh: what the JVM agent (docs/java.md) costs a Java program.
#
#   not recording: samples/java Fib with a threshold (fib(32), forking above
#     n = 16, parallelism 1) with no agent vs with the agent loaded and no
#     LTTng session (goal <= 1.05x), three ways:
#     - warm: fib(32) computed WREPS times on one pool; the median over the
#       last half of the runs of the CPU time of the Java threads (their
#       ns clocks; compiler and GC threads not in it), the code JIT-compiled;
#     - cold: the first computation of the same run (the pool's creation
#       included), the same clocks;
#     - whole process: the JVM's start-up, the agent's premain, compilation
#       and GC included: perf stat's task-clock of `Fib ... 1` (one run),
#       with the agent's class cache (docs/java.md, "Cost"; a fresh one,
#       filled before the runs) and without (FJTRACE_JAVA_CACHE=off).
#   recording, per event: (recorded - loaded not recording) / events per
#     run, warm (Fib every 18, a task per call, 100 runs on one pool: the
#     median run's Java threads' CPU) under the agent, vs fj-fib 30 naive
#     under libfj's own tracepoints ((recorded - not) process CPU / events)
#   bytes per event: the fjtrace channel's stream files / events, both
#
# CPU time, not wall-clock: other work shares the machine. perf's hardware
# counters (instructions) are not available in this VM.
# Every configuration runs REPS times, interleaved; medians (min..max).
# usage: java.sh [-r REPS] [BUILD_DIR]     (default: 7 reps, build/)
set -euo pipefail

reps=7
while getopts "r:h" opt; do
    case $opt in
        r) reps=$OPTARG ;;
        h) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
export FJTRACE_JAVA_CACHE=$tmp/class-cache

wreps=200
cutoff=(threshold 32 1 16)
naive_reps=100
naive_java=(every 18 1 0 "$naive_reps")
naive_fj=(30 --variant naive -p 1)

# parsers of a summary line: cold/warm CPU of the Java threads (us), the
# process CPU of fj-fib (ms)
cold_cpu() { sed -n 's/^summary .*cold_cpu_us=\([0-9.]*\).*/\1/p'; }
warm_cpu() { sed -n 's/^summary .*warm_cpu_us=\([0-9.]*\).*/\1/p'; }
fj_cpu() { sed -n 's/^summary .*cpu_s=\([0-9.]*\).*/\1/p' | awk '{ printf "%.3f\n", $1 * 1000 }'; }
# run KEY PARSER CMD...: appends CMD's figure to $tmp/KEY; CMD's output in
# $tmp/out
run() {
    local key=$1 parse=$2
    shift 2
    "$@" >"$tmp/out" 2>/dev/null || { echo "$0: '$*' failed" >&2; exit 1; }
    "$parse" <"$tmp/out" >>"$tmp/$key"
}
# task_clock KEY CMD...: appends the whole process's CPU ms (perf stat's
# task-clock: every thread, start-up included) to $tmp/KEY
task_clock() {
    local key=$1
    shift
    perf stat -x, -e task-clock -o "$tmp/perf" "$@" >/dev/null 2>&1 || { echo "$0: '$*' failed" >&2; exit 1; }
    awk -F, '$3 == "task-clock" { print $1 }' "$tmp/perf" >>"$tmp/$key"
}
# rec KEY PARSER RECORDER-OPTIONS -- CMD...: records CMD; its figure, the
# events, the bytes of the fjtrace channel's streams
rec() {
    local key=$1 parse=$2 out
    shift 2
    rm -rf "$tmp/trace"
    out=$(FJTRACE_JAVA_AGENT=$agent "$record" --count --cmd-only --blocking -o "$tmp/trace" "$@" 2>"$tmp/err") || {
        cat "$tmp/err" >&2; exit 1; }
    "$parse" <<<"$out" >>"$tmp/$key"
    sed -n 's/.*fjtrace-record: events: \([0-9]*\).*/\1/p' "$tmp/err" >>"$tmp/$key.events"
    find "$tmp/trace" -type f -name 'fjtrace_[0-9]*' -printf '%s\n' | awk '{ s += $1 } END { print s }' >>"$tmp/$key.bytes"
}
median() { sort -g "$tmp/$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
spread() { sort -g "$tmp/$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.1f..%.1f", lo, hi }'; }
have_perf=1
perf stat -e task-clock true >/dev/null 2>&1 || have_perf=0

java -javaagent:"$agent" -cp "$jar" Fib threshold 20 1 16 >/dev/null # fills the class cache
echo "load before: $(uptime)"
for ((i = 1; i <= reps; i++)); do
    run warm_none warm_cpu java -cp "$jar" Fib "${cutoff[@]}" "$wreps"
    cold_cpu <"$tmp/out" >>"$tmp/cold_none"
    run warm_agent warm_cpu java -javaagent:"$agent" -cp "$jar" Fib "${cutoff[@]}" "$wreps"
    cold_cpu <"$tmp/out" >>"$tmp/cold_agent"
    if ((have_perf)); then
        task_clock proc_none java -cp "$jar" Fib "${cutoff[@]}" 1
        task_clock proc_agent java -javaagent:"$agent" -cp "$jar" Fib "${cutoff[@]}" 1
        FJTRACE_JAVA_CACHE=off task_clock proc_nocache java -javaagent:"$agent" -cp "$jar" Fib "${cutoff[@]}" 1
    fi
    run naive_agent warm_cpu java -javaagent:"$agent" -cp "$jar" Fib "${naive_java[@]}"
    rec naive_rec warm_cpu --java -- java -cp "$jar" Fib "${naive_java[@]}"
    run fj_norec fj_cpu "$fjfib" "${naive_fj[@]}"
    rec fj_rec fj_cpu -- "$fjfib" "${naive_fj[@]}"
done
echo "load after:  $(uptime)"

w0=$(median warm_none) w1=$(median warm_agent) k0=$(median cold_none) k1=$(median cold_agent)
n1=$(median naive_agent) n2=$(median naive_rec)
f0=$(median fj_norec) f1=$(median fj_rec)
ej=$(median naive_rec.events) ef=$(median fj_rec.events)
bj=$(median naive_rec.bytes) bf=$(median fj_rec.bytes)
echo "medians of $reps runs (min..max):"
printf '  Fib threshold 32 (16) P=1, warm (us per fib(32), median of the last %d of %d)  no agent %s (%s)  agent, not recording %s (%s)\n' \
    $((wreps / 2)) "$wreps" "$w0" "$(spread warm_none)" "$w1" "$(spread warm_agent)"
printf '  Fib threshold 32 (16) P=1, cold (us, first fib(32), pool creation included)  no agent %s (%s)  agent, not recording %s (%s)\n' \
    "$k0" "$(spread cold_none)" "$k1" "$(spread cold_agent)"
if ((have_perf)); then
    p0=$(median proc_none) p1=$(median proc_agent) p2=$(median proc_nocache)
    printf '  Fib threshold 32 (16) P=1, whole process (task-clock ms)  no agent %s (%s)  agent, not recording %s (%s), without its class cache %s (%s)\n' \
        "$p0" "$(spread proc_none)" "$p1" "$(spread proc_agent)" "$p2" "$(spread proc_nocache)"
    awk -v p0="$p0" -v p1="$p1" -v p2="$p2" 'BEGIN { printf "  whole process: %.3fx (without the class cache %.3fx)\n", p1 / p0, p2 / p0 }'
fi
printf '  Fib every 18 P=1 x %d, warm (us per fib(18))  agent, not recording %s (%s), recorded %s (%s), %s events, %s bytes\n' \
    "$naive_reps" "$n1" "$(spread naive_agent)" "$n2" "$(spread naive_rec)" "$ej" "$bj"
printf '  fj-fib 30 naive P=1 (process CPU ms)  not recording %s (%s), recorded %s (%s), %s events, %s bytes\n' \
    "$f0" "$(spread fj_norec)" "$f1" "$(spread fj_rec)" "$ef" "$bf"
awk -v w0="$w0" -v w1="$w1" -v k0="$k0" -v k1="$k1" -v n1="$n1" -v n2="$n2" -v f0="$f0" -v f1="$f1" \
    -v ej="$ej" -v ef="$ef" -v bj="$bj" -v bf="$bf" -v nr="$naive_reps" 'BEGIN {
    printf "agent loaded, not recording, fib with a threshold: warm %.3fx, cold %.3fx (goal <= 1.05x)\n", w1 / w0, k1 / k0
    pj = (n2 - n1) / (ej / nr) * 1e3; pf = (f1 - f0) / ef * 1e6
    printf "recording cost per event: agent %.1f ns, libfj %.1f ns: %.2fx\n", pj, pf, pj / pf
    printf "bytes per event: agent %.1f, libfj %.1f\n", bj / ej, bf / ef
}'
