#!/usr/bin/env python3
"""Hostile command lines for fjtrace-analyze (TAP), on a committed trace:
non-finite and huge windows, long windows, signed or blank-led ids, output
names at NAME_MAX, grouped unknown short options, a timeline in a format
it cannot draw, an unbounded --max-nodes.

    test_cli_hostile.py ANALYZER TRACE
"""
import json
import os
import subprocess
import sys
import tempfile

ANALYZER, TRACE = sys.argv[1], sys.argv[2]
n = 0
failed = 0


def ok(cond, what):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok"), n, "-", what)
    if not cond:
        failed += 1


def run(*args, cwd=None):
    p = subprocess.run([ANALYZER, "--no-progress", *args], capture_output=True, text=True,
                       timeout=120, cwd=cwd)
    if "runtime error:" in p.stderr or "Sanitizer" in p.stderr:
        print("# sanitizer:", p.stderr[:2000].replace("\n", "\n# "))
        return -999, p.stdout, p.stderr
    return p.returncode, p.stdout, p.stderr


def trees(report):
    try:
        return [len(p["trees"]) for p in json.loads(report)["pools"]]
    except (ValueError, KeyError):
        return None


def windows():
    # Converting inf, nan or 1e300 ns to an integer is undefined behaviour
    # (the ASan build has -fsanitize=float-cast-overflow): all refused.
    for w in ["0:inf", "nan:nan", "0:1e300", "inf:inf", "0:2e19", "0:18446744073709551616",
              "0:nan", "-1:2", " 1:2", "0:-0", "+1:2", "0:1e11s"]:
        rc, _, err = run("--window", w, TRACE)
        ok(rc == 2 and "bad window" in err, f"--window '{w}' refused (rc {rc})")
    # Not cut at 127 characters: a long valid window equals its short form,
    # and junk after 127 characters is still seen.
    rc0, short, _ = run("--json", "--window", "0:5ms", TRACE)
    rc, long_, err = run("--json", "--window", "0:" + "0" * 200 + "5ms", TRACE)
    ok(rc == rc0 == 0 and trees(long_) == trees(short),
       f"a 205-character window is read whole (rc {rc}, {err.strip()[:100]})")
    rc, _, err = run("--window", "0:" + "0" * 200 + "5x", TRACE)
    ok(rc == 2 and "bad window" in err, f"junk at character 204 of a window is refused (rc {rc})")


def ids():
    for opt, v in [("--root", " -1"), ("--root", "-1"), ("--root", " 7"), ("--root", "+3"),
                   ("--root", "18446744073709551616"), ("--pool", " -1"), ("--pool", " 1"),
                   ("--pool", "4294967296"), ("--max-nodes", " -1"), ("--depth", " -2")]:
        rc, _, err = run(opt, v, TRACE)
        ok(rc == 2 and "Try" in err, f"{opt} '{v}' refused (rc {rc})")


def long_names():
    with tempfile.TemporaryDirectory() as d:
        for length in (240, 244, 250, 255):
            name = os.path.join(d, "r" * length)
            rc, _, err = run("--json", "-o", name, TRACE)
            ok(rc == 0 and os.path.exists(name) and os.path.getsize(name) > 0,
               f"-o NAME of {length} bytes written (rc {rc}, {err.strip()[:120]})")
            if os.path.exists(name):
                os.unlink(name)
        left = os.listdir(d)
        ok(not left, f"no temporary left beside them ({left[:3]})")
        rc, _, err = run("--json", "-o", os.path.join(d, "r" * 256), TRACE)
        ok(rc == 6 and "File name too long" in err, f"-o NAME of 256 bytes: exit 6 and why ({rc})")


def options():
    rc, _, err = run("-xq", TRACE)
    ok(rc == 2 and "unknown option '-x'" in err and ANALYZER not in err,
       f"-xq names -x, not argv[0]: {err.splitlines()[0] if err else ''}")
    rc, _, err = run("--json", "-zq", TRACE)
    ok(rc == 2 and "unknown option '-z'" in err, f"--json -zq names -z: {err.splitlines()[0] if err else ''}")
    rc, _, err = run("--bogus", TRACE)
    ok(rc == 2 and "unknown option '--bogus'" in err, "a long unknown option is named")


def pictures():
    if "--timeline" not in run("--help")[1]:
        print("# no pictures in this build: timeline/max-nodes checks skipped")
        return
    with tempfile.TemporaryDirectory() as d:
        for ext in ("gif", "jpg", "pdf", "PNG", "png.txt"):
            target = os.path.join(d, "t." + ext)
            rc, _, err = run("-o", os.devnull, "--timeline", target, TRACE)
            ok(rc == 2 and "--timeline" in err and not os.path.exists(target),
               f"--timeline t.{ext} refused, nothing written (rc {rc})")
        for ext, magic in (("png", b"\x89PNG"), ("svg", b"<?xml")):
            target = os.path.join(d, "t." + ext)
            rc, _, err = run("-o", os.devnull, "--timeline", target, TRACE)
            head = open(target, "rb").read(5) if os.path.exists(target) else b""
            ok(rc == 0 and head.startswith(magic), f"--timeline t.{ext} is {ext} data")
        sub = os.path.join(d, "sub")
        os.mkdir(sub)
        rc, _, err = run("-o", os.devnull, "--subtrees", sub, "--max-nodes", "4294967295", TRACE)
        ok(rc == 0 and "capped to 3000" in err and os.listdir(sub),
           f"--max-nodes 4294967295 capped for PNG, with a warning (rc {rc})")
        rc, _, err = run("-o", os.devnull, "--subtrees", sub, "--format", "dot",
                         "--max-nodes", "4294967295", TRACE)
        ok(rc == 0 and "capped" not in err, "--format dot (no layout) is not capped")


windows()
ids()
long_names()
options()
pictures()
print(f"1..{n}")
sys.exit(1 if failed else 0)
