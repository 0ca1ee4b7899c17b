#!/usr/bin/env python3
"""Ctrl-C and SIGTERM of fjtrace-analyze leave no temporary behind (TAP).

Records fj-fib, cuts one stream file in the middle of a packet (so the
analyzer reads it from a fjtrace-salvage-* copy under $TMPDIR) and asks for
a Chrome trace and a report (hidden .NAME.tmp-PID-N files beside them). Once
both kinds of temporary exist, the analyzer is sent SIGINT (then, in a second
run, SIGTERM): it must die of that signal, say what it removed, and leave
neither temporaries nor outputs.

    interrupt.py ANALYZE RECORD FIB     (a TAP skip when it cannot record here)
"""
import glob
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

ANALYZE, RECORD, FIB = sys.argv[1:4]
n = 0
failed = 0


def ok(cond, what):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok"), n, "-", what)
    failed += not cond


def cut_mid_packet(trace):
    """Cuts the biggest stream file in the middle of its middle packet."""
    streams = [f for f in os.listdir(trace) if f.startswith("fjtrace_")]
    big = max(streams, key=lambda f: os.path.getsize(os.path.join(trace, f)))
    idx = open(os.path.join(trace, "index", big + ".idx"), "rb").read()
    length = struct.unpack(">IIII", idx[:16])[3]
    packets = [struct.unpack(">QQ", idx[o:o + 16]) for o in range(16, len(idx) - length + 1, length)]
    off, bits = packets[len(packets) // 2]
    os.truncate(os.path.join(trace, big), off + bits // 16)
    return big, len(packets)


def interrupt(tmp, trace, sig):
    private = os.path.join(tmp, f"tmpdir-{sig}")
    out = os.path.join(tmp, f"out-{sig}")
    os.mkdir(private)
    os.mkdir(out)
    env = dict(os.environ, TMPDIR=private)
    p = subprocess.Popen([ANALYZE, "--no-progress", "--json", "-o", os.path.join(out, "r.json"),
                          "--chrome-trace", os.path.join(out, "t.json"), trace],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    seen = (), ()
    while p.poll() is None:
        seen = glob.glob(os.path.join(out, ".t.json.tmp-*")), glob.glob(
            os.path.join(private, "fjtrace-salvage-*"))
        if all(seen):
            p.send_signal(sig)
            break
        time.sleep(0.002)
    err = p.communicate(timeout=300)[1]
    name = signal.Signals(sig).name
    if not all(seen):
        ok(False, f"{name}: the analyzer ended (rc {p.returncode}) before both temporaries "
               f"existed ({seen}): {err.strip()[:300]}")
        return
    ok(p.returncode == -sig, f"{name}: dies of {name} (returncode {p.returncode})")
    ok("removed the temporary" in err and seen[0][0] in err and seen[1][0] in err,
       f"{name}: says it removed the Chrome-trace temporary and the salvage copy: "
       + err.strip().replace("\n", " | ")[:300])
    left = os.listdir(out) + os.listdir(private)
    ok(not left, f"{name}: nothing left in the output folder or $TMPDIR ({left[:4]})")


def main():
    tmp = tempfile.mkdtemp()
    try:
        rec = subprocess.run([RECORD, "--cmd-only", "--blocking", "--subbuf-size", "64k", "-o",
                              os.path.join(tmp, "orig"), "--", FIB, "25", "-p", "2"],
                             capture_output=True, text=True)
        if rec.returncode != 0:
            print("1..0 # SKIP cannot record here:", rec.stderr.strip()[-200:])
            sys.exit(0)  # a TAP skip: meson takes any other status for an error
        meta = glob.glob(os.path.join(tmp, "orig", "**", "metadata"), recursive=True)[0]
        big, npackets = cut_mid_packet(os.path.dirname(meta))
        print(f"# {big} cut in packet {npackets // 2 + 1} of {npackets}")
        interrupt(tmp, os.path.join(tmp, "orig"), signal.SIGINT)
        interrupt(tmp, os.path.join(tmp, "orig"), signal.SIGTERM)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{n}")
    sys.exit(1 if failed else 0)


main()
