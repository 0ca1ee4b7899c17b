#!/usr/bin/env python3
"""--recording TOKEN through the real stack: three fj-fib runs recorded
apart into one folder, two by default (each recording's own token, CMD and
its descendants) and one with --cmd-only (no token); the report of each
token holds that run's pool alone (naive fib(n) forks exactly F(n+1)-1
tasks) and counts the other two as left out; a token of no pool exits 7.
What a trace on a relay daemon needs: it holds every instrumented process
of the user.

    test_recording.py ANALYZER FJTRACE_RECORD FJ_FIB
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402
from tap import ok  # noqa: E402

ANALYZER, RECORD, FIB = sys.argv[1], sys.argv[2], sys.argv[3]


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def analyze(trace, *extra):
    p = subprocess.run([ANALYZER, "--no-progress", "--json", *extra, trace],
                       capture_output=True, text=True, timeout=300)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except ValueError:
        return p.returncode, None, p.stderr


if not shutil.which("lttng"):
    tap.plan_skip_all("no lttng on PATH")
def token_of(trace):
    """The recording token in the trace's pool_begin (babeltrace2)."""
    out = subprocess.run(["babeltrace2", trace], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "fjtrace:pool_begin:" in line and "recording = " in line:
            return int(line.split("recording = ")[1].split(",")[0])
    return None


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "t")
    tokens = []
    for name, n, scope in (("a", 12, []), ("b", 13, []), ("c", 11, ["--cmd-only"])):
        rec = subprocess.run([RECORD, *scope, "-o", os.path.join(out, name), "--", FIB, str(n),
                              "-p", "2"], capture_output=True, text=True, timeout=300)
        if rec.returncode in (120, 121):
            tap.plan_skip_all(f"no usable lttng: {rec.stderr.strip()}")
        ok(rec.returncode == 0, f"fj-fib {n} recorded{' ' + scope[0] if scope else ''}",
           rec.stderr)
        tokens.append(token_of(os.path.join(out, name)))
    ok(tokens[0] and tokens[1] and tokens[0] != tokens[1] and tokens[2] == 0,
       "two tokens, one per recording; none with --cmd-only", tokens)
    rc, r, err = analyze(out)
    ok(rc == 0 and r and len(r["pools"]) == 3 and "recording" not in r["trace"],
       "without --recording: the three pools, no recording note", rc, err)
    for token, n, forks in ((tokens[0], 12, fib(13) - 1), (tokens[1], 13, fib(14) - 1)):
        rc, r, err = analyze(out, "--recording", str(token))
        ok(rc == 0 and r and len(r["pools"]) == 1, f"--recording {token}: one pool, exit 0", rc,
           err)
        if r and r["pools"]:
            ok(r["pools"][0]["totals"]["forks"] == forks,
               f"--recording {token}: fib({n})'s pool, F({n + 1})-1 = {forks} forks",
               r["pools"][0]["totals"])
        ok(r and r["trace"].get("recording", {}).get("token") == token
           and r["trace"]["recording"]["left_out_pools"] == 2
           and r["trace"]["recording"]["left_out_events"] > 0,
           f"--recording {token}: the other two pools counted as left out",
           r and r["trace"].get("recording"))
    text = subprocess.run([ANALYZER, "--no-progress", "--recording", str(tokens[0]), out],
                          capture_output=True, text=True, timeout=300).stdout
    ok(f"recording {tokens[0]}: left out 2 pool(s) of other programs" in text,
       "the text report says what was left out")
    other = tokens[0] ^ tokens[1] or 1
    rc, r, err = analyze(out, "--recording", str(other))
    ok(rc == 7 and r and not r["pools"] and f"no pool of recording {other}" in err,
       "a token of no pool: exit 7, said on stderr, a report without pools", rc, err)
    for bad in ("0", "abc", "-1"):
        p = subprocess.run([ANALYZER, "--recording", bad, out], capture_output=True, text=True)
        ok(p.returncode == 2 and "bad recording token" in p.stderr,
           f"--recording {bad}: usage error, exit 2", p.returncode, p.stderr)
sys.exit(tap.done_testing())
