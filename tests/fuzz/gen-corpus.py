#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_core (tests/fuzz/corpus/) in the harness's
8-byte event encoding (see fuzz_core.c): plausible fork/exec/steal/join
sequences, a counted completer, locks, parks, a few damaged variants, and
one replayed on the CPU (its length 2 modulo 4: off-CPU records and the
OMPT tool's clock readings read ahead)."""
import os
import struct
import sys

# fja_kind's order (analyzer/core/event.h)
K = {n: i for i, n in enumerate(
    "pool_begin pool_end worker_begin worker_end submit result fork exec executed "
    "steal join joined completing completed park unpark wake lock_init lock_wait "
    "lock_acquired pool_runtime suspend resume dependence offcpu offcpu_start offcpu_lost "
    "offcpu_unavailable exec_joined offcpu_client join_stolen join_done joins_told "
    "offcpu_clock offcpu_task_clock offcpu_out offcpu_in unknown".split())}


def ev(kind, worker=0, task=0, arg=0, pool=0, source=0, size=0, name=0, dt=100):
    w = 6 if worker < 0 else worker
    b1 = w | (pool << 3) | (source << 5)
    return struct.pack("<BBBBBBh", K[kind], b1, task, arg, size, name, dt)


def fib_tree(pool=0, source=0, root=1):
    """Two workers: the client submits root, w0 forks 2 and 3, w1 steals 3."""
    a = dict(pool=pool, source=source)
    return [
        ev("submit", -1, root, **a), ev("exec", 0, root, **a),
        ev("fork", 0, root + 1, root, size=13, **a), ev("fork", 0, root + 2, root, size=12, **a),
        ev("steal", 1, root + 2, 0, **a), ev("exec", 1, root + 2, **a),
        ev("exec", 0, root + 1, **a), ev("executed", 0, root + 1, dt=300, **a),
        ev("join", 0, root + 2, **a), ev("executed", 1, root + 2, dt=400, **a),
        ev("joined", 0, root + 2, **a), ev("executed", 0, root, **a),
        ev("result", -1, root, **a),
    ]


def run(body, pool=0, source=0, workers=2):
    a = dict(pool=pool, source=source)
    head = [ev("pool_begin", -1, 0, workers, **a)] + [
        ev("worker_begin", w, **a) for w in range(workers)]
    tail = [ev("worker_end", w, **a) for w in range(workers)] + [ev("pool_end", -1, **a)]
    return head + body + tail


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    os.makedirs(out, exist_ok=True)
    seeds = {
        "fib": run(fib_tree()),
        "two-trees": run(fib_tree(root=1) + fib_tree(root=8)),
        "two-pools": run(fib_tree(pool=0), pool=0) + run(fib_tree(pool=1), pool=1),
        "two-sources": run(fib_tree(source=0)) + run(fib_tree(source=1), source=1),
        "completer": run([
            ev("submit", -1, 1), ev("exec", 0, 1), ev("fork", 0, 2, 1), ev("completing", 0, 1),
            ev("executed", 0, 1), ev("exec", 0, 2), ev("executed", 0, 2),
            ev("completed", 0, 1), ev("result", -1, 1)]),
        "locks-parks": run([
            ev("lock_init", -1, 0, 3, name=2), ev("submit", -1, 1), ev("wake", -1, 0, 1),
            ev("unpark", 1), ev("exec", 0, 1), ev("lock_wait", 0, 0, 3),
            ev("lock_acquired", 0, 0, 3, dt=900), ev("park", 1), ev("executed", 0, 1),
            ev("result", -1, 1), ev("unknown", 2)]),
        "backwards": run(fib_tree()[:6] + [ev("executed", 0, 2, dt=-5000)] + fib_tree()[6:]),
        "unfinished": run(fib_tree()[:7]),
        # offcpu: size and name say how far back its begin and end lie;
        # offcpu_task_clock: arg the clock, size the tool's time, name its
        # bits (1: told, 2: a switch follows)
        "oncpu": run([
            ev("offcpu_start", 0), ev("offcpu_start", 1), ev("offcpu_task_clock", 0, 0, 1),
            ev("submit", -1, 1), ev("exec", 0, 1), ev("offcpu_task_clock", 0, 0, 3, size=1,
                                                       name=3),
            ev("fork", 0, 2, 1), ev("steal", 1, 2), ev("exec", 1, 2),
            ev("offcpu", 0, 0, 0, size=3, name=1, dt=600),
            ev("offcpu_task_clock", 0, 0, 9, size=4, name=3), ev("join", 0, 2),
            ev("executed", 1, 2, dt=400), ev("joined", 0, 2),
            ev("offcpu_task_clock", 0, 0, 12, size=5, name=1), ev("executed", 0, 1),
            ev("result", -1, 1)]) + [b"\0\0"],
    }
    for name, evs in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(b"".join(evs))


main()
