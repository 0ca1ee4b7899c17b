"""The recording the hostile-input tests damage: fj-fib recorded through the
real stack, and the folder of its one trace."""
import glob
import os
import subprocess

import tap


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
