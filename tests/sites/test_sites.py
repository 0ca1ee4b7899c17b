#!/usr/bin/env python3
"""Creation sites through the real stack: programs recorded with
fjtrace-record (LTTng, with the load-map statedump), their tasks' sites
resolved by fjtrace-analyze with libdw. Expected lines are read from the
sources (the fj_fork line of samples/fib.c, the lines marked SITE:name in
tests/sites/), never hard-coded. Skipped (TAP) without a usable lttng.

    test_sites.py ANALYZER FJTRACE_RECORD SRCDIR FJ_FIB SITES_PROG SITES_PROG_NOPIE SITES_LIB
                  [LIBFJTRACE_OMP OMP_FIB]
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402
from tap import ok, is_eq  # noqa: E402

ANALYZER, RECORD, SRC, FIB, PROG, PROG_NOPIE, LIB = sys.argv[1:8]
OMP_TOOL, OMP_FIB = (sys.argv[8:10] + [None, None])[:2]
HERE = os.path.join(SRC, "tests", "sites")
# Copies of the programs run from a temporary folder: find libfj and the
# test library without the build tree's relative rpath.
LIB_PATH = ":".join([os.path.dirname(os.path.abspath(LIB)),
                     os.path.join(os.path.dirname(os.path.abspath(FIB)), "..", "runtime")])


def inflation_flag():
    """The analyzer's flag factor, FJA_INFLATION_FLAG, read from its header."""
    with open(os.path.join(SRC, "analyzer", "core", "analysis.h")) as f:
        return float(re.search(r"#define FJA_INFLATION_FLAG ([\d.]+)", f.read()).group(1))


FLAG = inflation_flag()


def line_of(path, marker):
    """The 1-based line of path holding marker (exactly one)."""
    with open(path) as f:
        hits = [i + 1 for i, text in enumerate(f) if marker in text]
    assert len(hits) == 1, f"{marker!r} in {path}: {hits}"
    return hits[0]


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def record(tmp, name, cmd):
    return record_with_output(tmp, name, cmd)[0]


def record_with_output(tmp, name, cmd):
    """Records CMD into TMP/NAME: the trace folder and what CMD printed."""
    out = os.path.join(tmp, name)
    env = dict(os.environ, LD_LIBRARY_PATH=LIB_PATH)
    rec = subprocess.run([RECORD, "-o", out, "--cmd-only", "--blocking", "--"] + cmd,
                         capture_output=True, text=True, timeout=300, env=env)
    if rec.returncode in (120, 121):  # no lttng / no session daemon
        tap.plan_skip_all(f"no usable lttng: {rec.stderr.strip()}")
    ok(rec.returncode == 0, f"{name}: recorded", rec.stderr)
    return out, rec.stdout


def analyze(trace, *extra):
    # no picture: LeakSanitizer unwinds by frame pointers (meson.build,
    # lsan_full_stacks; check_pictures keeps the full unwinding)
    fast = os.environ.get("FJTRACE_TEST_LSAN_FAST")
    a = subprocess.run([ANALYZER, "--json", "--no-progress", *extra, trace],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, LSAN_OPTIONS=fast) if fast else None)
    ok(a.returncode == 0 and a.stdout, f"{os.path.basename(trace)}: analysed whole (exit 0)",
       f"rc {a.returncode}", a.stderr)
    return (json.loads(a.stdout) if a.stdout else {"pools": [{"sites": []}]}), a.stderr


def sites_of(report):
    return report["pools"][0]["sites"] or []


def site_at(sites, file, line):
    hits = [s for s in sites if s["file"] and os.path.basename(s["file"]) == file
            and s["line"] == line]
    return hits[0] if len(hits) == 1 else None


def check_fib(tmp):
    n = 15
    trace = record(tmp, "fib", [FIB, str(n), "-p", "2", "--variant", "naive"])
    r, _ = analyze(trace)
    sites = sites_of(r)
    # naive fib is a typed task: its site is the line of its FJ_SPAWN, in
    # the task function (the generated spawn is inlined libfj code)
    fork_line = line_of(os.path.join(SRC, "samples", "fib.c"), "FJ_SPAWN_SIZED(fib_naive")
    s = site_at(sites, "fib.c", fork_line)
    ok(s, f"fib: a site at fib.c:{fork_line}, the line of its FJ_SPAWN",
       json.dumps(sites, indent=1))
    if s:
        is_eq(s["tasks"], fib(n + 1) - 1, "fib: all F(n+1)-1 forked tasks attributed to it")
        is_eq(s["function"], "fib_naive", "fib: in the task function fib_naive")
        ok(s["binary"].endswith("/fj-fib"), "fib: binary fj-fib", s["binary"])
        is_eq(s["resolution"], "line", "fib: resolved to a line")
        ok(s["depth_min"] == 1 and s["depth_max"] == r["pools"][0]["trees"][0]["depth"],
           "fib: depths from 1 to the tree's depth", s)
    invoke_line = line_of(os.path.join(SRC, "samples", "fj-fib.c"), "fj_invoke(")
    root = site_at(sites, "fj-fib.c", invoke_line)
    ok(root and root["submits"] == 1 and root["forks"] == 0,
       f"fib: the root task is attributed to fj-fib.c:{invoke_line}, its fj_invoke", sites)
    is_eq(len(sites), 2, "fib: two sites (fork, invoke)")
    adv = [a["message"] for a in r["pools"][0]["advice"] if a["kind"] == "site_too_small"]
    ok(len(adv) == 1 and f"fib.c:{fork_line} (fib_naive)" in adv[0],
       "fib: one 'too small' advice, at the FJ_SPAWN line (naive fib's tasks are ~1 fork each)",
       r["pools"][0]["advice"])


def check_pictures(tmp):
    """The Chrome/Perfetto slices, the subtree diagram and the HTML report
    name tasks by the line that forked them."""
    trace = record(tmp, "fib-pictures", [FIB, "10", "-p", "2", "--variant", "naive"])
    fork_line = line_of(os.path.join(SRC, "samples", "fib.c"), "FJ_SPAWN_SIZED(fib_naive")
    label = f"fib.c:{fork_line} (fib_naive)"
    out = os.path.join(tmp, "pictures")
    a = subprocess.run([ANALYZER, "--no-progress", "--chrome-trace", out + ".json",
                        "--subtrees", out, "--format", "dot", "--html", out + ".html", trace],
                       capture_output=True, text=True, timeout=300)
    ok(a.returncode == 0, "pictures: written", a.stderr)
    with open(out + ".json") as f:
        names = [e.get("name", "") for e in json.load(f)["traceEvents"] if e.get("ph") == "B"]
    forked = [n for n in names if n.startswith(label)]
    is_eq(len(forked), fib(11) - 1, f"chrome trace: every forked task's slice is named {label}")
    dots = [os.path.join(out, f) for f in os.listdir(out) if f.endswith(".dot")]
    text = "".join(open(d).read() for d in dots)
    ok(label in text, "subtree diagram: nodes labelled with their site", dots)
    html = open(out + ".html").read()
    ok('id="sites"' in html and label in html and "<label for=" in html,
       "html: a creation-sites table, sortable by its column headings")


def check_qs(tmp, prog, name):
    trace = record(tmp, name, [prog, "qs", "100000"])
    r, _ = analyze(trace)
    sites = sites_of(r)
    src = os.path.join(HERE, "sites_prog.c")
    left = site_at(sites, "sites_prog.c", line_of(src, "SITE:left"))
    right = site_at(sites, "sites_prog.c", line_of(src, "SITE:right"))
    ok(left and right, f"{name}: the left and right forks are two sites", sites)
    if left and right:
        ok(left["forks"] == right["forks"] > 0, f"{name}: as many left forks as right forks",
           left["forks"], right["forks"])
        ok(left["function"] == right["function"] == "qs", f"{name}: both in qs")
        total = sum(s["tasks"] for s in sites)
        is_eq(total, r["pools"][0]["totals"]["tasks"], f"{name}: every task has a site")


def check_lib(tmp, mode):
    depth = 8
    trace = record(tmp, mode, [PROG, mode, str(depth)])
    r, _ = analyze(trace)
    sites = sites_of(r)
    line = line_of(os.path.join(HERE, "sites_lib.c"), "SITE:lib")
    s = site_at(sites, "sites_lib.c", line)
    ok(s, f"{mode}: a site at sites_lib.c:{line}, inside the shared library", sites)
    if s:
        is_eq(s["tasks"], 2 ** depth - 1, f"{mode}: 2^depth-1 tasks forked in the library")
        ok(s["binary"].endswith("libsites-lib.so"), f"{mode}: binary is the library",
           s["binary"])


def check_stripped(tmp):
    exe = os.path.join(tmp, "stripped-prog")
    shutil.copy(PROG, exe)
    subprocess.run(["strip", "--strip-all", exe], check=True)
    trace = record(tmp, "stripped", [exe, "qs", "20000"])
    r, err = analyze(trace)
    sites = [s for s in sites_of(r) if s["binary"] == exe]
    ok(sites, "stripped: sites in the stripped binary", sites_of(r))
    ok(all(s["file"] is None and s["line"] is None and s["resolution"] == "offset"
           and s["offset"].startswith("0x") for s in sites),
       "stripped: binary+offset only, no line", sites)
    ok("no symbols or debug information" in err and exe in err,
       "stripped: a warning names the binary", err)


def check_debuglink(tmp):
    """Debug information in a separate file, found through .gnu_debuglink
    (next to the binary, as /usr/lib/debug is for packages): lines again."""
    exe = os.path.join(tmp, "linked-prog")
    shutil.copy(PROG, exe)
    subprocess.run(["objcopy", "--only-keep-debug", exe, exe + ".debug"], check=True)
    subprocess.run(["strip", "--strip-all", exe], check=True)
    subprocess.run(["objcopy", "--add-gnu-debuglink=" + exe + ".debug", exe], check=True, cwd=tmp)
    trace = record(tmp, "debuglink", [exe, "qs", "20000"])
    r, err = analyze(trace)
    src = os.path.join(HERE, "sites_prog.c")
    left = site_at(sites_of(r), "sites_prog.c", line_of(src, "SITE:left"))
    ok(left and left["binary"] == exe and left["resolution"] == "line",
       "debuglink: a stripped binary's sites resolve to lines through its debug file",
       sites_of(r), err)


def check_rebuilt(tmp):
    exe = os.path.join(tmp, "rebuilt-prog")
    shutil.copy(PROG, exe)
    trace = record(tmp, "rebuilt", [exe, "qs", "20000"])
    shutil.copy(PROG_NOPIE, exe)  # another build at the same path
    r, err = analyze(trace)
    sites = [s for s in sites_of(r) if s["binary"] == exe]
    ok(sites and all(s["line"] is None and s["resolution"] == "rebuilt" for s in sites),
       "rebuilt: no line from the new binary", sites_of(r))
    ok("rebuilt after the recording" in err and exe in err, "rebuilt: a warning says so", err)


def check_openmp(tmp):
    """OpenMP task fib: each of fib_naive's two '#pragma omp task' lines is a
    site (the OMPT tool records codeptr_ra), F(n+1)-1 tasks each, 2F(n+1)-2
    in all."""
    if not OMP_FIB:
        tap.skip(3, "the OMPT tool or omp-fib was not built")
        return
    n = 12
    out = os.path.join(tmp, "omp")
    env = dict(os.environ, FJTRACE_OMP_TOOL=OMP_TOOL)
    rec = subprocess.run([RECORD, "-o", out, "--openmp", "--", OMP_FIB, str(n), "-p", "2"],
                         capture_output=True, text=True, timeout=300, env=env)
    ok(rec.returncode == 0, "openmp: omp-fib recorded with --openmp", rec.stderr)
    r, _ = analyze(out)
    src = os.path.join(SRC, "samples", "omp", "omp-fib.c")
    with open(src) as f:
        text = f.read().splitlines()
    start = next(i for i, t in enumerate(text) if t.startswith("static long fib_naive("))
    pragmas = [i + 1 for i in range(start, len(text)) if "#pragma omp task " in text[i]][:2]
    sites = [site_at(sites_of(r), "omp-fib.c", line) for line in pragmas]
    ok(all(sites), f"openmp: the task pragmas of fib_naive (omp-fib.c:{pragmas}) are sites",
       sites_of(r))
    if all(sites):
        ok(all(s["tasks"] == fib(n + 1) - 1 and s["function"] == "fib_naive" for s in sites),
           "openmp: F(n+1)-1 tasks at each pragma, 2F(n+1)-2 in all", sites)


def check_baseline(tmp):
    """The share site does P^2 times the shared-line writes per task (its work
    grows with P on purpose: whether two workers really overlap on a loaded
    2-CPU machine is not something a test can demand); the steady site does
    the same instructions at every P, and measures its own CPU time: whether
    that time stays the same is the hardware's business (a worker spinning on
    a sibling hyperthread slows it), so the analyzer's ratio is compared with
    the program's own."""
    base, base_out = record_with_output(tmp, "share-p1", [PROG, "share", "400", "-p", "1"])
    trace, trace_out = record_with_output(tmp, "share-p2", [PROG, "share", "400", "-p", "2"])
    r, _ = analyze(trace, "--baseline", base)
    sites = sites_of(r)
    src = os.path.join(HERE, "sites_prog.c")
    share = site_at(sites, "sites_prog.c", line_of(src, "SITE:share"))
    steady = site_at(sites, "sites_prog.c", line_of(src, "SITE:steady"))
    ok(share and share["work_inflation"] and share["work_inflation"]["flagged"],
       "baseline: the site whose tasks grew is flagged", share)
    if share and share["work_inflation"]:
        ok(share["work_inflation"]["ratio"] >= 2, "baseline: by at least 2x (4x by design)",
           share["work_inflation"])
    own = steady_ratio(base_out, trace_out)
    check_steady(steady, own)
    adv = [a for a in r["pools"][0]["advice"] if a["kind"] == "site_work_inflation"]
    named = [a for a in adv if f"sites_prog.c:{line_of(src, 'SITE:share')} " in a["message"]]
    ok(len(named) == 1, "baseline: one inflation advice names the share site's line", adv)
    # The steady site's own CPU time grows where a sibling hyperthread spins
    # beside it (x1.6 once, in CI, measured by the program itself): an
    # advice for it is then true, and only then
    steady_grew = own is not None and own >= FLAG / 1.10
    steady_line = f"sites_prog.c:{line_of(src, 'SITE:steady')} "
    others = [a for a in adv if a not in named]
    ok(all(steady_grew and steady_line in a["message"] for a in others),
       "baseline: no other inflation advice, but the steady site's where its own time grew",
       others, f"the program's own ratio: {own}")
    r1, _ = analyze(trace)
    ok(all(s["work_inflation"] is None for s in sites_of(r1)),
       "without --baseline: work_inflation is null")
    check_baseline_clock(tmp, base, trace)


def steady_ratio(base_out, trace_out):
    """The program's own ratio of its steady tasks' median CPU time, P=2 to P=1."""
    medians = [re.search(r"steady median cpu ns: (\d+)", o) for o in (base_out, trace_out)]
    ok(all(medians), "baseline: the program printed its steady tasks' median CPU time",
       base_out, trace_out)
    if not all(medians):
        return None
    base_ns, trace_ns = (int(m.group(1)) for m in medians)
    return trace_ns / base_ns if base_ns else None


def check_steady(steady, own):
    """The steady site's inflation is the program's own (within 10%); flagged
    only where its own CPU time grew by the flag's factor or nearly."""
    infl = steady and steady["work_inflation"]
    ok(infl and own and abs(infl["ratio"] / own - 1) <= 0.10,
       "baseline: the steady site's ratio is the program's own, within 10%",
       infl, f"the program's own ratio: {own}")
    ok(infl and own and (own >= FLAG / 1.10 or not infl["flagged"]),
       "baseline: the steady site is not flagged unless its own CPU time grew", infl,
       f"the program's own ratio: {own}")


def check_baseline_clock(tmp, base, trace):
    """BASE is read on the report's clock: a run compared with itself gives
    x1 at every site, the root's too (its self time holds the preemptions
    of a loaded machine, which a wall-clock reading of BASE would count);
    a BASE without its off-CPU streams is wall-clock, and self times on two
    clocks are not compared."""
    r, _ = analyze(trace, "--baseline", trace)
    sites = sites_of(r)
    ok(sites and all(s["work_inflation"] and s["work_inflation"]["ratio"] == 1 for s in sites),
       "baseline: a run compared with itself gives x1 at every site",
       [s["work_inflation"] for s in sites])
    ok(r["pools"][0].get("baseline") == {"workers": 2, "figures": "on_cpu", "comparable": True},
       "baseline: read on-CPU like the run", r["pools"][0].get("baseline"))
    wall = os.path.join(tmp, "share-p1-wall")
    shutil.copytree(base, wall)
    for path in glob.glob(os.path.join(wall, "**", "fjtrace_offcpu_*"), recursive=True):
        os.remove(path)
    r, _ = analyze(trace, "--baseline", wall)
    ok(r["pools"][0].get("baseline", {}).get("comparable") is False
       and r["pools"][0]["baseline"]["figures"] == "wall_clock",
       "baseline without off-CPU streams: wall-clock, not comparable", r["pools"][0].get("baseline"))
    ok(all(s["work_inflation"] is None for s in sites_of(r)),
       "baseline on another clock: every work_inflation is null")


if not shutil.which("lttng"):
    tap.plan_skip_all("no lttng on PATH")
with tempfile.TemporaryDirectory() as tmp:
    check_fib(tmp)
    check_pictures(tmp)
    check_qs(tmp, PROG, "qs-pie")
    check_qs(tmp, PROG_NOPIE, "qs-nopie")
    check_lib(tmp, "lib")
    check_lib(tmp, "dlopen")
    check_stripped(tmp)
    check_debuglink(tmp)
    check_rebuilt(tmp)
    check_baseline(tmp)
    check_openmp(tmp)
sys.exit(tap.done_testing())
