#!/usr/bin/env python3
"""Trace files that are not what they seem, and a temporary folder that
cannot be used (issue 24, items 3, 10 and 12; TAP), on copies of a
committed trace made at test time (a FIFO cannot be committed):

- an LTTng index file, a stream file or the metadata that is a FIFO, a
  device (a link to /dev/zero) or a folder: never a hang; the file is
  named, an index is read without, a stream is left out (exit 3 with the
  report of the rest), a metadata is refused (exit 3); nothing is left in
  $TMPDIR;
- a stream file or the metadata of mode 000, read by an unprivileged user
  (root reads it all the same: setpriv, else the checks are skipped): exit
  3 with a reason naming the file;
- a trace cut short (read from a salvage copy) with $TMPDIR missing, a
  file or not writable: still exit 1 with the report, and the message
  blames the temporary folder, never the trace;
- --timeline to a path that cannot be written: one error line, exit 6;
- the recorder's host file (fjtrace-host.txt) read, and one that is a
  FIFO, a device, too large or not the recorder's: a warning naming it,
  the host not known, the report unchanged.

    special_files.py ANALYZER TRACE
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402
from special import replace_with_special  # noqa: E402

ANALYZER, TRACE = sys.argv[1], sys.argv[2]
NOBODY = 65534
TIMEOUT = 60


def trace_dir(session):
    for root, _, files in os.walk(session):
        if "metadata" in files:
            return root
    tap.bail_out(f"no trace in {session}")


def run(args, env=None, user=None):
    cmd = [ANALYZER, "--no-progress", *args]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT,
                           env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    return p.returncode, p.stdout, p.stderr


def events(out):
    try:
        return json.loads(out)["trace"]["events"]
    except (ValueError, KeyError, TypeError):
        return None


def copy(base, name):
    """A copy of the trace every user can read, and its trace folder."""
    session = os.path.join(base, name)
    shutil.copytree(TRACE, session)
    for root, dirs, files in os.walk(session):
        for x in dirs + files:
            p = os.path.join(root, x)
            os.chmod(p, os.stat(p).st_mode | stat.S_IROTH | (stat.S_IXOTH if x in dirs else 0))
    os.chmod(session, 0o755)
    return session, trace_dir(session)


def special(base, tmpdir, whole):
    rel = os.path.relpath(trace_dir(TRACE), TRACE)
    streams = sorted(f for f in os.listdir(trace_dir(TRACE)) if f.startswith("fjtrace_"))
    big = max(streams, key=lambda s: os.path.getsize(os.path.join(trace_dir(TRACE), s)))
    cases = [("index", os.path.join("index", big + ".idx"), "fifo"),
             ("index", os.path.join("index", big + ".idx"), "device"),
             ("stream", streams[0], "fifo"), ("stream", streams[0], "device"),
             ("metadata", "metadata", "fifo"), ("metadata", "metadata", "folder")]
    for i, (what, name, how) in enumerate(cases):
        session, t = copy(base, f"special-{i}")
        replace_with_special(os.path.join(t, name), how)
        rc, out, err = run(["--json", session], env={"TMPDIR": tmpdir})
        shown = os.path.join(rel, name)
        if what == "index":
            tap.ok(rc == whole[0] and events(out) == whole[1] and shown in err
                   and "not a regular file" in err,
                   f"an index file that is a {how} is named and the trace read without it "
                   f"(exit {whole[0]}, every event)", f"rc {rc}, events {events(out)}", err)
        elif what == "stream":
            tap.ok(rc == 3 and events(out) is not None and shown in err
                   and "not a regular file" in err,
                   f"a stream file that is a {how} is named and left out: exit 3 with the "
                   "report of the other streams", f"rc {rc}, events {events(out)}", err)
        else:
            tap.ok(rc == 3 and shown in err and "not a regular file" in err
                   and len(err.strip().splitlines()) <= 2,
                   f"a metadata that is a {how} is refused naming it (exit 3)", f"rc {rc}", err)
        left = os.listdir(tmpdir)
        tap.ok(not left, f"nothing left in $TMPDIR after a {what} that is a {how}", left)
        for x in left:
            shutil.rmtree(os.path.join(tmpdir, x), ignore_errors=True)


HOST = "fjtrace-host.txt"
HOST_NONE = {"kernel": None, "irq_time_accounting": None, "steal_time_accounting": None}


def host_of(out):
    try:
        return json.loads(out)["trace"]["host"]
    except (ValueError, KeyError, TypeError):
        return None


def host_file(base, whole):
    """The recorder's fjtrace-host.txt beside the trace: read when it is
    the recorder's, else named in a warning and not known; never a hang,
    never a changed figure or exit status."""
    good = ("# fjtrace-record: the recording host, for fjtrace-analyze\nkernel 6.1.0-test\n"
            "CONFIG_IRQ_TIME_ACCOUNTING n\nCONFIG_PARAVIRT_TIME_ACCOUNTING y\n")
    session, _ = copy(base, "host-good")
    with open(os.path.join(session, HOST), "w") as f:
        f.write(good)
    rc, out, err = run(["--json", session])
    tap.ok((rc, events(out)) == whole and HOST not in err and host_of(out) == {
        "kernel": "6.1.0-test", "irq_time_accounting": False, "steal_time_accounting": True},
        "the recorder's host file is read: kernel, interrupt and steal time accounting",
        f"rc {rc}", host_of(out), err)
    bad = [("a FIFO", "fifo", None, "not a regular file"),
           ("a device", "device", None, "not a regular file"),
           ("a foreign line", None, good + "CONFIG_OTHER y\n", "line 5 is not fjtrace-record's"),
           ("over 4 KiB", None, good + "#" * 5000 + "\n", "over 4096 bytes"),
           ("a NUL byte", None, good.replace("6.1.0", "6.1\0"), "NUL byte")]
    for i, (what, how, text, why) in enumerate(bad):
        session, _ = copy(base, f"host-bad-{i}")
        path = os.path.join(session, HOST)
        with open(path, "w") as f:
            f.write(text or good)
        if how:
            replace_with_special(path, how)
        rc, out, err = run(["--json", session])
        tap.ok((rc, events(out)) == whole and host_of(out) == HOST_NONE and HOST in err
               and why in err,
               f"a host file that is {what}: a warning naming it, the host not known, the "
               f"report and exit {whole[0]} unchanged", f"rc {rc}", host_of(out), err)


def can_drop():
    if os.geteuid() != 0:
        return True  # not root: mode 000 is unreadable already
    return shutil.which("setpriv") and subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "true"]
    ).returncode == 0


def mode_000(base):
    user = NOBODY if os.geteuid() == 0 else None
    streams = sorted(f for f in os.listdir(trace_dir(TRACE)) if f.startswith("fjtrace_"))
    for name in (streams[0], "metadata"):
        session, t = copy(base, f"mode000-{name}")
        os.chmod(os.path.join(t, name), 0)
        tmp = os.path.join(base, f"tmp000-{name}")
        os.mkdir(tmp)
        os.chmod(tmp, 0o777)
        rc, out, err = run(["--json", session], env={"TMPDIR": tmp}, user=user)
        named = os.path.join(os.path.relpath(t, base), name)
        first = err.strip().splitlines()[0] if err.strip() else ""
        tap.ok(rc == 3 and named in err and "Permission denied" in err,
               f"{name} of mode 000: exit 3 and a reason naming it", f"rc {rc}", err)
        if name != "metadata":
            tap.ok(events(out) is not None, "the report of the other streams is written",
                   first)


def tmpdirs(base, whole_cut):
    session, t = copy(base, "cut")
    streams = sorted(f for f in os.listdir(t) if f.startswith("fjtrace_"))
    big = max(streams, key=lambda s: os.path.getsize(os.path.join(t, s)))
    path = os.path.join(t, big)
    os.truncate(path, os.path.getsize(path) - 5000)  # the last packet cut short
    rc, out, err = run(["--json", session])
    tap.ok(rc == 1 and events(out), "a trace cut short is salvaged (exit 1 with a report)",
           f"rc {rc}", err)
    cut_events = events(out)
    afile = os.path.join(base, "a-file")
    open(afile, "w").close()
    readonly = os.path.join(base, "read-only")
    os.mkdir(readonly, 0o555)
    bad = [("missing", os.path.join(base, "no-such-folder"), None),
           ("a file", afile, None)]
    if can_drop():
        bad.append(("not writable", readonly, NOBODY if os.geteuid() == 0 else None))
    else:
        tap.skip(1, "cannot drop root's privileges (setpriv): a read-only $TMPDIR is "
                 "writable by root")
    for what, tmp, user in bad:
        rc, out, err = run(["--json", session], env={"TMPDIR": tmp}, user=user)
        tap.ok(rc == 1 and events(out) == cut_events and "TMPDIR" in err
               and "damaged" not in err,
               f"$TMPDIR {what}: the cut trace is still salvaged (exit 1, the same report), "
               "the temporary folder named and the trace not blamed", f"rc {rc}", err)


def timeline(base):
    if "--timeline" not in run(["--help"])[1]:
        tap.skip(1, "no pictures in this build")
        return
    rc, _, err = run(["-o", os.devnull, "--timeline", "/proc/x.png", TRACE])
    lines = err.strip().splitlines()
    tap.ok(rc == 6 and len(lines) == 1 and "/proc/x.png" in lines[0],
           "--timeline /proc/x.png: exit 6 and one error line naming it", f"rc {rc}", err)


def main():
    base = tempfile.mkdtemp(prefix="fjtrace-special-")
    os.chmod(base, 0o755)
    try:
        tmpdir = os.path.join(base, "tmpdir")
        os.mkdir(tmpdir)
        rc, out, err = run(["--json", TRACE])
        whole = (rc, events(out))
        if rc != 0 or not whole[1]:
            tap.bail_out(f"the committed trace does not read whole: rc {rc}, {err.strip()[:200]}")
        special(base, tmpdir, whole)
        host_file(base, whole)
        if can_drop():
            mode_000(base)
        else:
            tap.skip(3, "running as root without setpriv: a file of mode 000 is readable")
        tmpdirs(base, whole)
        timeline(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    tap.done_testing()


main()
