#!/usr/bin/env python3
"""make test: the test runs of the three builds, overlapped where no check
can tell (docs/testing.md, "What `make test` costs, and what runs beside
what").

usage: make-test.py BUILD [MESON-TEST-OPTION...] [-- BUILD [OPTION...]]...

Each BUILD with the `meson test` options that pick its suites (--suite,
--no-suite), in order: the first is built already (make's `build`), the
others are built here with ninja. Two steps:

1. The tests that may run beside others: every test but those declared
   `is_parallel : false` with a priority of 0 or less. The first build's
   start at once, three at a time (--num-processes 3: many of them wait
   more than they compute, on sessions, relays and timers); meanwhile the
   other builds are built and their tests run, one build after the other,
   two at a time: up to five tests at once, and the builds, on the
   machine.
   Those tests check no figure a load could change (that is why they are
   parallel); a test that is not parallel but has a higher priority
   (viz-record: the viz suite's shared recording, stamped with the run of
   `meson test` that reads it) runs first in its build's run, alone there.
2. The tests that must run alone (`is_parallel : false`, priority 0 or
   less: known answers, off-CPU time, peak memory, install_make), one at a
   time, the first build's, then the others' in order, with nothing else
   of this script running.

Each run of `meson test` writes its log as BUILD/meson-logs/testlog-beside
and testlog-alone (.json, .txt); scripts/test-summary then adds them up
(a log missing where tests were to run, a build that failed, is a
failure). Exit status: the summary's, 1 also when a build failed.
"""
import json
import os
import subprocess
import sys
import threading

MESON_TEST = ["meson", "test", "--print-errorlogs"]
# tests at once in the first build's run of the tests beside others, and
# in every other run (docs/testing.md)
FIRST_BESIDE, PROCESSES = 3, 2
LOGS = ("testlog-beside", "testlog-alone")


def parse(argv):
    """[(build, [options]), ...] from BUILD OPTION... -- BUILD OPTION..."""
    builds, cur = [], None
    for a in argv:
        if a == "--":
            cur = None
        elif cur is None:
            cur = (a, [])
            builds.append(cur)
        else:
            cur[1].append(a)
    return builds


def suites_ok(suites, options):
    """Whether a test of SUITES (['fjtrace:viz', ...]) passes the --suite
    and --no-suite OPTIONS as meson's own filter does."""
    names = {s.split(":", 1)[-1] for s in suites}
    want = [options[i + 1] for i, o in enumerate(options) if o == "--suite"]
    avoid = [options[i + 1] for i, o in enumerate(options) if o == "--no-suite"]
    return (not want or names & set(want)) and not names & set(avoid)


def split(build, options):
    """The names of BUILD's tests its OPTIONS pick: (beside, alone)."""
    out = subprocess.run(["meson", "introspect", "--tests", build], capture_output=True,
                         text=True, check=True).stdout
    beside, alone = [], []
    for t in json.loads(out):
        if not suites_ok(t["suite"], options):
            continue
        if t["is_parallel"] or t["priority"] > 0:
            beside.append(t["name"])
        else:
            alone.append(t["name"])
    return beside, alone


lock = threading.Lock()


def run(cmd, tag):
    """Runs CMD, its output printed line by line behind TAG; its exit code."""
    with lock:
        print(f"[{tag}] $ {' '.join(cmd)}", flush=True)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         errors="replace")
    for line in p.stdout:
        with lock:
            sys.stdout.write(f"[{tag}] {line}")
            sys.stdout.flush()
    return p.wait()


def test(build, names, log, processes=PROCESSES):
    """meson test of NAMES in BUILD (none: nothing run), PROCESSES at a
    time, log LOG; exit code."""
    if not names:
        return 0
    return run(MESON_TEST + ["--num-processes", str(processes), "-C", build, "--logbase", log]
               + names, os.path.basename(build))


def main():
    builds = parse(sys.argv[1:])
    if not builds:
        sys.exit(__doc__)
    failed = []
    for build, _ in builds:
        for log in LOGS:  # no stale log of an earlier run is added up
            for ext in (".json", ".txt"):
                try:
                    os.remove(os.path.join(build, "meson-logs", log + ext))
                except FileNotFoundError:
                    pass
    parts = {}

    def later_builds():
        for build, options in builds[1:]:
            if run(["ninja", "-C", build], os.path.basename(build)) != 0:
                failed.append(f"ninja -C {build}")
                continue
            parts[build] = split(build, options)
            if test(build, parts[build][0], LOGS[0]) != 0:
                failed.append(f"{build}: tests beside others")

    first, options = builds[0]
    parts[first] = split(first, options)
    others = threading.Thread(target=later_builds)
    others.start()
    if test(first, parts[first][0], LOGS[0], FIRST_BESIDE) != 0:
        failed.append(f"{first}: tests beside others")
    others.join()
    for build, _ in builds:
        if build in parts and test(build, parts[build][1], LOGS[1]) != 0:
            failed.append(f"{build}: tests alone")
    for f in failed:
        print(f"make-test: {f} failed", file=sys.stderr)
    # every log a run of meson test was to write; a build that failed: its
    # tests beside others, whose log is missing, a failure of the summary
    failed_build = (["(not built)"], [])
    logs = [os.path.join(build, "meson-logs", log + ".json") for build, _ in builds
            for log, names in zip(LOGS, parts.get(build, failed_build)) if names]
    summary = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts",
                           "test-summary")
    st = subprocess.run([summary] + logs).returncode
    sys.exit(1 if st or any(f.startswith("ninja") for f in failed) else 0)


main()
