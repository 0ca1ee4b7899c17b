"""TAP (Test Anything Protocol) for the Python tests; the same calls as
tests/tap.h and tests/tap.sh.

    import tap
    tap.ok(rc == 0, "the analyzer exits 0", f"rc {rc}, stderr {err!r}")
    tap.is_eq(forks, 88, "fib(10) forks F(11)-1 tasks")
    tap.done_testing()

The TAP stream is the process's stdout at import time, kept apart; from
then on fd 1 (print, child processes) goes to stderr, so nothing else can
corrupt the stream. Each check is one line whose text says what must hold;
what helps to understand a failure is printed (as `#` lines) only then.
"""
import inspect
import os
import sys

sys.stdout.flush()
_tap = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
_run = 0
_failed = 0
_planned = None


def _emit(line):
    _tap.write(line + "\n")


def plan(n):
    """N checks follow."""
    global _planned
    _planned = n
    _emit(f"1..{n}")


def plan_skip_all(why):
    """Nothing can be checked here (say why); exits 0, counted as a skip."""
    _emit(f"1..0 # SKIP {why}")
    sys.exit(0)


def diag(*lines):
    """`#` lines for the reader, not checks."""
    for text in lines:
        for line in str(text).splitlines() or [""]:
            _emit(f"# {line}")


def ok(cond, what, *details):
    """One check: COND must hold. WHAT says what must hold; DETAILS are
    printed on failure only. Returns COND as a bool."""
    global _run, _failed
    _run += 1
    cond = bool(cond)
    if cond:
        _emit(f"ok {_run} - {what}")
    else:
        _failed += 1
        caller = inspect.stack()[1]
        if caller.filename == __file__:
            caller = inspect.stack()[2]
        _emit(f"not ok {_run} - {what}")
        diag(f"  failed at {os.path.basename(caller.filename)}:{caller.lineno}", *details)
    return cond


def is_eq(got, expected, what, *details):
    """GOT must equal EXPECTED; both are printed on failure."""
    return ok(got == expected, what, f"     got: {got!r}", f"expected: {expected!r}", *details)


def skip(n, why):
    """N checks that cannot run here, counted as skipped."""
    global _run
    for _ in range(n):
        _run += 1
        _emit(f"ok {_run} # SKIP {why}")


def bail_out(why):
    """Stops the whole test: what follows cannot run (setup failed)."""
    _emit(f"Bail out! {why}")
    sys.exit(1)


def failed():
    """How many checks failed so far."""
    return _failed


def done_testing():
    """Prints the plan if none was given and exits: 0 when every check
    passed and the plan was kept, else 1."""
    if _planned is None:
        _emit(f"1..{_run}")
    elif _planned != _run:
        diag(f"planned {_planned} checks but ran {_run}")
        sys.exit(1)
    if _failed:
        diag(f"{_failed} of {_run} checks failed")
    sys.exit(1 if _failed else 0)
