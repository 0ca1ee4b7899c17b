"""The recording the hostile-input tests damage: fj-fib recorded through the
real stack, the folder of its one trace, and where its stream files' packets
begin."""
import glob
import json
import os
import struct
import subprocess

import tap


# Small packets that nothing overwrites: a recording of many packets per
# stream, so that a test can damage one packet in the middle of a stream.
SMALL_PACKETS = ("--blocking", "--subbuf-size", "8k", "--num-subbuf", "16")


def record_fib(record, fib, n, session, options=()):
    """Records `FIB N -p 2` with `fjtrace-record --cmd-only OPTIONS` into
    SESSION and returns the trace folder (the one holding the metadata); the
    whole test is skipped where recording cannot run."""
    rec = subprocess.run([record, "--cmd-only", *options, "-o", session, "--", fib, str(n),
                          "-p", "2"], capture_output=True, text=True)
    if rec.returncode != 0:
        tap.plan_skip_all("cannot record here: " + rec.stderr.strip()[-200:])
    found = glob.glob(os.path.join(session, "**", "metadata"), recursive=True)
    if not found:
        tap.bail_out("the recording holds no trace: " + rec.stderr.strip()[-200:])
    return os.path.dirname(found[0])


# The packet size (bits, u64) in LTTng-UST's packet context, at this byte
# offset of a packet (damage.py); a packet's header and context take 84 bytes.
OFF_PACKET_SIZE = 56
PACKET_HEAD = 84


def packet_offsets(path):
    """The byte offsets of the packets of the stream file PATH, as far as
    their sizes chain."""
    data = open(path, "rb").read()
    out, off = [], 0
    while off + PACKET_HEAD <= len(data):
        out.append(off)
        size = struct.unpack_from("<Q", data, off + OFF_PACKET_SIZE)[0]
        if size < 8 * PACKET_HEAD:
            break
        off += size // 8
    return out


def analyze_json(analyze, trace, args=(), env=None):
    """Runs `ANALYZE --no-progress --json ARGS TRACE` (ENV added to the
    environment); returns (exit code, the report or None, stderr)."""
    p = subprocess.run([analyze, "--no-progress", "--json", *args, trace], capture_output=True,
                       text=True, timeout=300, env=dict(os.environ, **(env or {})))
    try:
        r = json.loads(p.stdout)
    except ValueError:
        r = None
    return p.returncode, r, p.stderr


def figures(r):
    """What must not depend on how a trace was read: the events, and each
    pool's tasks and workers (None without a report)."""
    if not r:
        return None
    return (r["trace"]["events"], [(p["totals"]["tasks"], p["workers"]) for p in r["pools"]])
