"""The python workload's loader, run inside the embedded interpreter.

load(kind, path, scale) runs a benchmark file in a namespace of its own
and returns (name, fn, inner_loops), where fn(loops) runs the benchmark
`loops` times and inner_loops is how many iterations one loop holds (a
value is the time of one, as pyperf reports it). The worker times
fn(loops) itself, unless fn returns its own seconds (pyperf's
bench_time_func and timeit, which leave their set-up out); nothing here is
inside the timed call except what the benchmark's own function does.

kind:
  bundled  a file of workloads/python/bench: defines bench(loops)
  script   a user's file: defines bench(loops) (see docs/python.md)
  pyperf   a file written for pyperf: run as __main__ with this folder's
           pyperf module, which records what it asks Runner to measure
"""

import os
import runpy
import sys

from alloclab_errors import NotApplicable  # noqa: F401 (the worker looks it up here)


def _run_file(path, scale, run_name):
    if not os.path.isfile(path):
        raise FileNotFoundError("no benchmark file %s" % path)
    return runpy.run_path(path, init_globals={"SCALE": scale}, run_name=run_name)


def _bench_of(namespace, path):
    fn = namespace.get("bench")
    if not callable(fn):
        raise TypeError("%s defines no function bench(loops)" % path)
    return fn


def _script_folder_first(path):
    # As `python FILE` does: the file's folder first on sys.path, so that
    # it imports its neighbours. Not for the bundled benchmarks, whose
    # names are those of the modules they exercise.
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)


def load(kind, path, scale):
    name = os.path.splitext(os.path.basename(path))[0]
    if kind in ("script", "pyperf"):
        _script_folder_first(path)
    if kind in ("bundled", "script"):
        namespace = _run_file(path, scale, "__alloclab__")
        return name, _bench_of(namespace, path), 1
    if kind == "pyperf":
        import pyperf  # this folder's, first on sys.path

        pyperf._reset()
        saved_argv = sys.argv
        sys.argv = [path]
        try:
            _run_file(path, scale, "__main__")
        except SystemExit as e:
            if e.code not in (None, 0):
                raise RuntimeError("%s exited with status %r" % (path, e.code))
        finally:
            sys.argv = saved_argv
        return pyperf._first_benchmark(path)
    raise ValueError("unknown kind %r" % kind)
