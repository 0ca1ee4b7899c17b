#!/usr/bin/env python3
"""SIGUSR1 sent to a recorder from the very start (issue 24, item 11).

    usr1.py pending CMD ARGS...
        blocks SIGUSR1, sends it to itself (so that it is pending at the
        exec) and execs CMD: the signal meets CMD's first instruction.
    usr1.py burst MS[,MS...] [--blocked] CMD ARGS...
        forks; the child execs CMD (with --blocked, SIGUSR1 blocked before
        the exec, as a careful launcher does: then no signal meets the
        default action of a process that has not started); the parent sends
        SIGUSR1 to it MS milliseconds after the fork, for each MS, then
        waits. Prints "sent N late M" (M: signals that found CMD gone) and
        exits with CMD's status as a shell says it (128+N for signal N).
"""
import os
import signal
import sys
import time


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "pending":
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
        os.kill(os.getpid(), signal.SIGUSR1)
        os.execvp(sys.argv[2], sys.argv[2:])
    if len(sys.argv) < 4 or sys.argv[1] != "burst":
        sys.exit(__doc__)
    delays = sorted(float(ms) / 1000 for ms in sys.argv[2].split(","))
    args = sys.argv[3:]
    blocked = args[0] == "--blocked"
    if blocked:
        args = args[1:]
    if blocked:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    pid = os.fork()
    t0 = time.monotonic()
    if pid == 0:
        try:
            os.execvp(args[0], args)
        finally:
            os._exit(127)
    if blocked:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    # CMD's pid for the caller: "python3" may be a wrapper (a pyenv shim
    # running helpers of its own before it execs), so its children are not
    # only CMD
    print(f"child {pid}", flush=True)
    late = 0
    for d in delays:
        wait = t0 + d - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        try:
            os.kill(pid, signal.SIGUSR1)
        except ProcessLookupError:
            late += 1
    _, status = os.waitpid(pid, 0)
    print(f"sent {len(delays)} late {late}", flush=True)
    code = os.waitstatus_to_exitcode(status)
    sys.exit(128 - code if code < 0 else code)


main()
