#!/usr/bin/python3.11
"""What CPython's own allocator is worth natively, in the steady state.

alloclab replays allocation traces recorded from the python workload; a
replay is only worth believing if it agrees with the interpreter itself.
This script measures the real thing: one benchmark of
workloads/python/bench run natively by Debian's CPython 3.11, with
PYTHONMALLOC=pymalloc (obmalloc) against PYTHONMALLOC=malloc (glibc), and
reports what native CPython pays once it is warm: CPU time and page faults
per iteration over timed calls that follow untimed warm-up calls, so that
start-up, imports, the first touches of the heap and teardown are left
out. The whole process (start to exit, as wait4 reports it) is recorded
beside it, for comparison with what a cold replay measures.

Each of P pairs runs two fresh processes, one per allocator, in an order
that alternates from pair to pair, so that drift of the machine falls on
both sides alike. The ratio pymalloc/malloc is the geometric mean of the
pairs' ratios, with a 95% Student t interval; "not resolved" means the
interval holds 1. With --callgrind, instructions per iteration come from
two callgrind runs per allocator that differ only in their number of
timed calls, so start-up and teardown cancel out.

  PYTHONPATH=benchmarks /usr/bin/python3.11 benchmarks/native_python.py [--pairs 10] [--warmups 3]
      [--values 10] [--loops 1] [--scale 1.0] [--hash-seed 1] [--timeout 120]
      [--callgrind] [--callgrind-values 2,6] [-o FILE] BENCH_FILE

The benchmark file is loaded as the python workload loads it
(workloads/python/lib/alloclab_harness.py, load("bundled", ...)): run with
a global SCALE, it defines bench(loops). Bad input is one line on standard
error and status 2; a child that fails or outlives --timeout, one line and
status 1. The JSON document goes to standard output (or -o FILE); a line
per finished pair goes to standard error when it is a terminal.
"""
import argparse
import json
import math
import os
import resource
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

PYTHON = "/usr/bin/python3.11"
SCRIPT = os.path.abspath(__file__)
HARNESS_DIR = os.path.join(os.path.dirname(os.path.dirname(SCRIPT)), "workloads", "python", "lib")
MODES = ("pymalloc", "malloc")
# -B: no __pycache__ written into the tree. -s, -P: no user site-packages and
# no script folder on sys.path, as in the embedded interpreter's isolated
# configuration. Not -I or -E: they would ignore PYTHONMALLOC itself.
CHILD_FLAGS = ["-B", "-s", "-P"]
REFUSED = 2  # a child's exit status for bad input, passed on by the parent


class ChildFailed(Exception):
    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


# ---- the command line ----


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        # One line, not argparse's usage block: callers read the reason.
        sys.stderr.write("native_python.py: %s\n" % message)
        sys.exit(2)


def value_pair(text):
    a, sep, b = text.partition(",")
    if not sep:
        raise ValueError(text)
    return int(a), int(b)


def parse_args(argv):
    p = OneLineParser(prog="native_python.py", description=__doc__.split("\n\n")[0])
    p.add_argument("bench", metavar="BENCH_FILE")
    p.add_argument("--pairs", type=int, default=10)
    p.add_argument("--warmups", type=int, default=3)
    p.add_argument("--values", type=int, default=10)
    p.add_argument("--loops", type=int, default=1)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--hash-seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per child")
    p.add_argument("--callgrind", action="store_true")
    p.add_argument("--callgrind-values", type=value_pair, default=(2, 6), metavar="V1,V2")
    p.add_argument("-o", "--output")
    p.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    opts = p.parse_args(argv)
    v1, v2 = opts.callgrind_values
    checks = [
        (opts.pairs >= 2, "--pairs must be at least 2 (an interval needs two pairs)"),
        (opts.warmups >= 0, "--warmups must be 0 or more"),
        (opts.values >= 1, "--values must be at least 1"),
        (opts.loops >= 1, "--loops must be at least 1"),
        (math.isfinite(opts.scale) and opts.scale > 0, "--scale must be a positive number"),
        (0 <= opts.hash_seed <= 4294967295, "--hash-seed must be from 0 to 4294967295"),
        (math.isfinite(opts.timeout) and opts.timeout > 0, "--timeout must be a positive number of seconds"),
        (1 <= v1 < v2, "--callgrind-values V1,V2 needs 1 <= V1 < V2"),
        (os.path.isfile(opts.bench), "no benchmark file %s" % opts.bench),
    ]
    for ok, why in checks:
        if not ok:
            p.error(why)
    return opts


# ---- the child: one process, one allocator ----


def load_bench(path, scale):
    """The bench(loops) of the file, loaded by the harness the python
    workload uses (found through PYTHONPATH, which the parent sets)."""
    import alloclab_harness

    try:
        return alloclab_harness.load("bundled", path, scale)[1]
    except FileNotFoundError as e:
        refuse(str(e))
    except TypeError as e:
        # The harness's own refusal; any other TypeError is the file's bug.
        if "defines no function bench" not in str(e):
            raise
        refuse(str(e))


def refuse(message):
    sys.stderr.write("native_python.py: %s\n" % message)
    sys.exit(REFUSED)


def rusage_delta(r0, r1):
    return {
        "user_ns": round((r1.ru_utime - r0.ru_utime) * 1e9),
        "sys_ns": round((r1.ru_stime - r0.ru_stime) * 1e9),
        "minor_faults": r1.ru_minflt - r0.ru_minflt,
        "major_faults": r1.ru_majflt - r0.ru_majflt,
    }


def measure(fn, opts):
    """Untimed warm-ups, then the timed calls: each call's CPU time, and
    getrusage and wall time around all of them together."""
    for _ in range(opts.warmups):
        fn(opts.loops)
    cpu, own = [], []
    r0, w0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter_ns()
    for _ in range(opts.values):
        c0 = time.process_time_ns()
        got = fn(opts.loops)
        cpu.append(time.process_time_ns() - c0)
        # A self-timed file returns its own seconds (the harness's rule).
        if isinstance(got, (int, float)) and not isinstance(got, bool):
            own.append(round(got * 1e9))
    w1, r1 = time.perf_counter_ns(), resource.getrusage(resource.RUSAGE_SELF)
    record = {
        "cpu_ns": cpu,
        "cpu_ns_per_iteration_median": statistics.median(cpu) / opts.loops,
        "wall_ns": w1 - w0,
        "iterations": opts.values * opts.loops,
    }
    record.update(rusage_delta(r0, r1))
    if own:
        record["own_ns"] = own
    return record


def child(opts):
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # the benchmark's prints stay off the JSON line
    record = {
        "mode": opts.child,
        "pythonmalloc": os.environ.get("PYTHONMALLOC"),
        "pythonhashseed": os.environ.get("PYTHONHASHSEED"),
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "warmups": opts.warmups,
        "loops": opts.loops,
    }
    record.update(measure(load_bench(opts.bench, opts.scale), opts))
    real_stdout.write(json.dumps(record) + "\n")


# ---- the parent: children, pairs, the summary ----


def child_env(opts, mode):
    # Built explicitly: no PYTHON* variable of the caller reaches the child.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONMALLOC=mode, PYTHONHASHSEED=str(opts.hash_seed), PYTHONPATH=HARNESS_DIR)
    return env


def child_argv(opts, mode, values):
    return [PYTHON] + CHILD_FLAGS + [
        SCRIPT, "--child", mode, "--warmups", str(opts.warmups), "--values", str(values),
        "--loops", str(opts.loops), "--scale", repr(opts.scale), "--", opts.bench]


def last_line(f):
    f.seek(0)
    lines = [line for line in f.read().decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def run_child(argv, env, timeout, what):
    """Runs one child to its end or its deadline: (its last line of
    standard output, its whole-process record from wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter_ns()
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=True)
        # Reaped here with wait4, not by Popen, to keep the child's rusage.
        pidfd = os.pidfd_open(proc.pid)
        try:
            ended = select.select([pidfd], [], [], timeout)[0]
        finally:
            os.close(pidfd)
        if not ended:
            os.killpg(proc.pid, signal.SIGKILL)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter_ns() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if not ended:
            raise ChildFailed("%s: killed after %g s (--timeout)" % (what, timeout))
        if proc.returncode == REFUSED:
            raise ChildFailed(last_line(err).removeprefix("native_python.py: "), REFUSED)
        if proc.returncode != 0:
            raise ChildFailed("%s: exit status %d: %s" % (what, proc.returncode, last_line(err)))
        whole = {
            "cpu_ns": round((ru.ru_utime + ru.ru_stime) * 1e9),
            "user_ns": round(ru.ru_utime * 1e9),
            "sys_ns": round(ru.ru_stime * 1e9),
            "maxrss_kib": ru.ru_maxrss,
            "minor_faults": ru.ru_minflt,
            "major_faults": ru.ru_majflt,
            "wall_ns": wall,
        }
        return last_line(out), whole


def run_measured(opts, mode, pair, order):
    what = "pair %d, %s child" % (pair, mode)
    line, whole = run_child(child_argv(opts, mode, opts.values), child_env(opts, mode), opts.timeout, what)
    try:
        record = json.loads(line)
    except ValueError:
        raise ChildFailed("%s: printed no JSON record (%.80r)" % (what, line)) from None
    record.update(pair=pair, order=order, whole_process=whole)
    return record


def progress(k, pair, opts):
    if not sys.stderr.isatty():
        return
    p, m = (pair[mode]["cpu_ns_per_iteration_median"] for mode in MODES)
    print("pair %d/%d: CPU per iteration pymalloc %.3f ms, malloc %.3f ms, ratio %.4f"
          % (k + 1, opts.pairs, p / 1e6, m / 1e6, p / m), file=sys.stderr)


def run_pairs(opts):
    records = []
    for k in range(opts.pairs):
        order = MODES if k % 2 == 0 else MODES[::-1]
        pair = {mode: run_measured(opts, mode, k, i) for i, mode in enumerate(order)}
        records.extend(pair[mode] for mode in order)
        progress(k, pair, opts)
    return records


# ---- the summary ----


def paired_ratio(records, value):
    """pymalloc/malloc of value(record): the geometric mean of the pairs'
    ratios, its 95% interval and what it says."""
    by_pair = {}
    for r in records:
        by_pair.setdefault(r["pair"], {})[r["mode"]] = value(r)
    ratios = [p["pymalloc"] / p["malloc"] for _, p in sorted(by_pair.items())]
    logs = [math.log(r) for r in ratios]
    n = len(logs)
    mean = statistics.mean(logs)
    # Imported here: the children (this file in child mode) run with the
    # harness's folder on their path, not this one.
    import intervals
    half = intervals.t95(n - 1) * statistics.stdev(logs) / math.sqrt(n)
    low, high = math.exp(mean - half), math.exp(mean + half)
    verdict = "pymalloc faster" if high < 1 else "pymalloc slower" if low > 1 else "not resolved"
    return {
        "ratio": math.exp(mean), "low": low, "high": high, "verdict": verdict,
        "median_ns": {m: statistics.median(value(r) for r in records if r["mode"] == m) for m in MODES},
        "pair_ratios": ratios,
    }


def faults(records):
    out = {}
    for m in MODES:
        mine = [r for r in records if r["mode"] == m]
        minor = statistics.median(r["minor_faults"] for r in mine)
        out[m] = {
            "median": minor,
            "per_iteration": minor / mine[0]["iterations"],
            "major_median": statistics.median(r["major_faults"] for r in mine),
        }
    return out


def summarise(records, opts):
    return {
        "pairs": opts.pairs,
        "steady_cpu_per_iteration": paired_ratio(records, lambda r: r["cpu_ns_per_iteration_median"]),
        "whole_process_cpu": paired_ratio(records, lambda r: r["whole_process"]["cpu_ns"]),
        "minor_faults_timed": faults(records),
    }


# ---- callgrind: instructions per iteration ----


def callgrind_ir(path):
    """Ir, the first event, from the file's totals: line (or its summary:)."""
    found = None
    with open(path) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                found = int(line.split()[1])
    if found is None:
        raise ChildFailed("%s: no summary: or totals: line" % path)
    return found


def callgrind(opts):
    if shutil.which("valgrind") is None:
        print("native_python.py: --callgrind skipped: valgrind is not installed", file=sys.stderr)
        return {"skipped": "valgrind is not installed"}
    v1, v2 = opts.callgrind_values
    per_iteration = {}
    with tempfile.TemporaryDirectory(prefix="native_python-callgrind-") as tmp:
        for mode in MODES:
            ir = {}
            for v in (v1, v2):
                out = os.path.join(tmp, "%s-%d.out" % (mode, v))
                argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + child_argv(opts, mode, v)
                run_child(argv, child_env(opts, mode), opts.timeout, "callgrind, %s child, %d values" % (mode, v))
                ir[v] = callgrind_ir(out)
            # Start-up, warm-ups and teardown are in both runs: they cancel.
            per_iteration[mode] = (ir[v2] - ir[v1]) / ((v2 - v1) * opts.loops)
    diff = per_iteration["pymalloc"] - per_iteration["malloc"]
    return {
        "values": [v1, v2],
        "instructions_per_iteration": per_iteration,
        "pymalloc_minus_malloc": diff,
        "sign": "pymalloc fewer" if diff < 0 else "pymalloc more" if diff > 0 else "equal",
    }


def write(doc, path):
    text = json.dumps(doc, indent=1) + "\n"
    if path is None:
        sys.stdout.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)


def parent(opts):
    records = run_pairs(opts)
    summary = summarise(records, opts)
    if opts.callgrind:
        summary["callgrind"] = callgrind(opts)
    write({
        "bench": opts.bench,
        "python": PYTHON,
        "settings": {k: getattr(opts, k) for k in ("pairs", "warmups", "values", "loops", "scale", "hash_seed",
                                                   "timeout")},
        "children": records,
        "summary": summary,
    }, opts.output)


def main(argv):
    opts = parse_args(argv)
    if opts.child:
        child(opts)
        return 0
    try:
        parent(opts)
    except ChildFailed as e:
        print("native_python.py: %s" % e, file=sys.stderr)
        return e.status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
