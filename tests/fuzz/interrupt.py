#!/usr/bin/env python3
"""Ctrl-C and SIGTERM of fjtrace-analyze leave no temporary behind (TAP).

Records fj-fib, cuts one stream file in the middle of a packet (so the
analyzer reads it from a fjtrace-salvage-* copy under $TMPDIR) and asks for
a Chrome trace and a report (hidden .NAME.tmp-PID-N files beside them). Once
both kinds of temporary exist, the analyzer is sent SIGINT (then, in a second
run, SIGTERM): it must die of that signal, say what it removed, and leave
neither temporaries nor outputs. Then SIGTERM while the off-CPU streams are
read ahead (in a child process, stopped for the test): the child ends and
the folder of links to those streams is removed.

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


def children(pid):
    try:
        return [int(c) for c in open(f"/proc/{pid}/task/{pid}/children").read().split()]
    except OSError:
        return []


def interrupt_preread(tmp, trace):
    """SIGTERM while the off-CPU streams are read ahead (a child process,
    stopped here so that it is still there): the child must end too, and
    the folder of links to those streams must go."""
    private = os.path.join(tmp, "tmpdir-preread")
    os.mkdir(private)
    env = dict(os.environ, TMPDIR=private)
    for _ in range(100):  # the child lives milliseconds: catch it
        p = subprocess.Popen([ANALYZE, "--no-progress", "--json", trace], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, env=env)
        child = None
        while p.poll() is None and child is None:
            kids = children(p.pid)
            if kids:
                child = kids[0]
                os.kill(child, signal.SIGSTOP)
        if child is None:
            p.communicate(timeout=300)
            continue
        links = glob.glob(os.path.join(private, "fjtrace-analyze-streams.*"))
        p.send_signal(signal.SIGTERM)
        err = p.communicate(timeout=60)[1]
        try:
            os.kill(child, 0)
            alive = True
        except OSError:
            alive = False
        ok(p.returncode == -signal.SIGTERM and not alive,
           f"SIGTERM in the off-CPU pre-read: the analyzer dies of it and its (stopped) "
           f"reading child ends too (returncode {p.returncode}, child alive: {alive})")
        ok(links and links[0] in err and not os.listdir(private),
           "SIGTERM in the off-CPU pre-read: the folder of links is removed and named "
           f"({links}, left {os.listdir(private)[:4]}): " + err.strip().replace("\n", " | ")[:300])
        return
    print("# the off-CPU pre-read's child was never caught running: not checked")


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
        interrupt_preread(tmp, os.path.join(tmp, "orig"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{n}")
    sys.exit(1 if failed else 0)


main()
