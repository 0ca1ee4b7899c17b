#!/usr/bin/env python3
"""Ctrl-C in a terminal to `fjtrace-record -- CMD` (issue 24; TAP).

The terminal's line discipline sends SIGINT to the whole foreground process
group: the recorder's front, its script and CMD at once, each from the
kernel (the front passes on only the signals the script has not had:
record-front.c). test-sigint.sh sends the signal with kill(2) instead; only a
terminal makes the kernel's. Here a pseudo-terminal is the controlling
terminal of a new session whose leader acts as an interactive shell: it
runs the recorder in a process group of its own, made the terminal's
foreground group. Once CMD (fj-burn, leaves that mostly sleep) runs inside
the recording, the VINTR character (^C) is written to the master side.

Checks: the recorder exits 130 (CMD's status, 128 + SIGINT: fjtrace-record
--help), says the workload was interrupted, CMD is gone, the trace is read
(fjtrace-analyze exits 0 or 1 with a report of the pool, not 3 or 4), and
LTTng lists no session of that name.

    test-pty-sigint.py RECORD BURN ANALYZE   (a TAP skip when it cannot record)
"""
import json
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402

RECORD, BURN, ANALYZE = (os.path.abspath(x) for x in sys.argv[1:4])
# 128 leaves of 200 ms asleep each (12.8 s on two workers, little CPU): CMD
# still runs when the ^C comes
CMD = [BURN, "-p", "2", "--depth", "7", "--leaf-us", "100", "--sleep-us", "200000"]


def shell(argv, report_fd):
    """In the terminal's session (pty.fork's child, its leader): runs ARGV
    in a new process group made the foreground one, as an interactive shell
    does; writes that group's id, then ARGV's wait status, to REPORT_FD."""
    attrs = termios.tcgetattr(0)
    attrs[3] |= termios.ISIG  # the VINTR character is a signal to the foreground group
    attrs[6][termios.VINTR] = b"\x03"
    termios.tcsetattr(0, termios.TCSANOW, attrs)
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        os.execv(argv[0], argv)
    try:  # on both sides, as a shell does: whichever runs first
        os.setpgid(pid, pid)
    except PermissionError:  # the child has done it, and exec'd since
        pass
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    os.tcsetpgrp(0, pid)
    os.write(report_fd, f"{pid}\n".encode())
    _, status = os.waitpid(pid, 0)
    os.write(report_fd, f"{status}\n".encode())
    os._exit(0)


def running_cmd(sid):
    """The processes of session SID running CMD's program with its pool
    begun (its worker threads started)."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.getsid(int(pid)) == sid and len(os.listdir(f"/proc/{pid}/task")) >= 2 and \
                    open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0] == BURN.encode():
                out.append(int(pid))
        except OSError:  # gone meanwhile
            pass
    return out


class Terminal:
    """The master side: what the session wrote to it so far."""

    def __init__(self, fd):
        self.fd, self.text = fd, ""

    def read(self, seconds):
        """Reads what comes within SECONDS; False once the terminal is
        closed (every process of the session ended)."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return True
            try:
                data = os.read(self.fd, 4096)
            except OSError:  # EIO: no slave side open any more
                return False
            if not data:
                return False
            self.text += data.decode("utf-8", "replace")


def until(what, seconds, term):
    """Reads the terminal until WHAT() is true (returned) or SECONDS pass."""
    end = time.monotonic() + seconds
    while not (got := what()) and time.monotonic() < end:
        term.read(0.05)
    return got


class Report:
    """What the session's leader reports: the recorder's process group,
    then its wait status."""

    def __init__(self, fd):
        self.fd, self.data = fd, b""

    def poll(self):
        """The values reported so far (reads what came, without waiting)."""
        while select.select([self.fd], [], [], 0)[0] and (data := os.read(self.fd, 64)):
            self.data += data
        return [int(x) for x in self.data.split(b"\n")[:-1]]  # whole lines only

    def ended(self):
        """Whether the recorder has ended (its status reported)."""
        return len(self.poll()) > 1


def main():
    work = tempfile.mkdtemp(prefix="fjtrace-pty-")
    out = os.path.join(work, "trace")
    report_r, report_w = os.pipe()  # not inherited by the recorder (close-on-exec)
    leader, master = pty.fork()
    if leader == 0:
        try:
            os.close(report_r)
            shell([RECORD, "-o", out, "--", *CMD], report_w)
        except BaseException:  # said on the terminal
            traceback.print_exc()
        os._exit(127)
    os.close(report_w)
    term, report = Terminal(master), Report(report_r)
    if not until(report.poll, 60, term):
        tap.bail_out("the terminal's session could not start the recorder: " + term.text[-500:])
    group = report.poll()[0]  # the recorder's process group
    ended = report.ended
    try:
        started = until(lambda: re.search(r"session (\S+) recording to", term.text) or ended(),
                        60, term)
        # CMD's pool runs (its workers are threads) inside the recording
        burn = until(lambda: running_cmd(leader) or ended(), 60, term)
        if ended() or not started or not burn:
            tap.plan_skip_all("cannot record here: " + term.text.strip()[-300:])
        name = started.group(1)
        term.read(1.0)
        os.write(master, b"\x03")
        # the recorder's status as the shell saw it (None: still running)
        rc = os.waitstatus_to_exitcode(report.poll()[1]) if until(ended, 120, term) else None
        term.read(0.2)  # the rest of its messages
        tap.is_eq(rc, 128 + signal.SIGINT, "Ctrl-C: the recorder exits 130, CMD's status "
                  "(128 + SIGINT)", term.text[-1500:])
        tap.ok(re.search(r"fjtrace-record: interrupted by SIGINT.*CMD", term.text),
               "Ctrl-C: the recorder says the workload was interrupted", term.text[-1500:])
        tap.ok(not any(os.path.exists(f"/proc/{p}") for p in burn), "Ctrl-C: CMD is gone")
        p = subprocess.run([ANALYZE, "--no-progress", "--json", out], capture_output=True,
                           text=True, timeout=300)
        try:
            tasks = sum(x["totals"]["tasks"] for x in json.loads(p.stdout)["pools"])
        except (ValueError, KeyError):
            tasks = 0
        tap.ok(p.returncode in (0, 1) and tasks > 0, "Ctrl-C: the trace is read: fjtrace-analyze "
               "exits 0 or 1 with a report of CMD's pool (not 3 or 4)",
               f"exit {p.returncode}, {tasks} tasks", p.stderr[-800:])
        listed = subprocess.run(["lttng", "--no-sessiond", "list"], capture_output=True,
                                text=True).stdout
        tap.ok(name not in listed, f"Ctrl-C: LTTng lists no session {name} any more",
               listed[-800:])
    finally:
        try:  # a recorder that still runs (it hung, or the test stopped early)
            if not ended():
                os.killpg(group, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.close(master)
        os.waitpid(leader, 0)
        os.close(report_r)
        shutil.rmtree(work, ignore_errors=True)
    tap.done_testing()


main()
