"""The part of pyperf's API that benchmark files call, written for alloclab.

A file written for pyperf builds a Runner and asks it to measure something
(bench_func, bench_time_func, timeit, bench_async_func). Here nothing is
measured at that point: the Runner records the first request as a function
of `loops` with its inner_loops, and alloclab's worker runs that function in
its own processes, values and warm-ups, timing it itself or, for
bench_time_func and timeit, taking the time the function reports, as pyperf
does; a value is the time of one inner loop. The rest of the API (metadata, the argument
parser, add_cmdline_args) is accepted so that such files run unmodified.
bench_command's program is run by the harness as a child process with the
plugin as its malloc (the preload library), timed per run.

Each call registers one benchmark; alloclab finds them all by running the
file once (each becomes a row), then each worker runs the file again and
measures the one it was given, as pyperf's worker processes do.
"""

import argparse
import time

from alloclab_errors import NotApplicable

__version__ = "2.6.0 (alloclab's compatible subset)"
VERSION = (2, 6, 0)

perf_counter = time.perf_counter

import threading

# Per thread: each workload thread runs the file in a namespace of its own.
_state = threading.local()


def _reset(wanted=0, suspend=None):
    """A fresh file: nothing registered yet; at the `wanted`-th
    registration (from 1) suspend(registration) is called, so that the
    benchmark is measured within the file's own run, as pyperf's worker
    measures its task when the file asks for it."""
    _state.registered = []
    _state.wanted = wanted
    _state.suspend = suspend


def _registered():
    if not hasattr(_state, "registered"):
        _reset()
    return _state.registered


def _registrations():
    """(name, kind) of every benchmark the file registered, in order."""
    return [(name, "command" if isinstance(fn, tuple) else "function") for name, fn, _ in _registered()]


def _task(path, task):
    """The task-th benchmark the file registered (from 1), as pyperf's
    worker processes pick theirs: (name, fn or ("command", argv), inner_loops)."""
    regs = _registered()
    if not regs:
        raise NotApplicable("%s asked pyperf to measure nothing" % path)
    if not 1 <= task <= len(regs):
        raise RuntimeError("%s registered %d benchmark(s); there is no benchmark %d" % (path, len(regs), task))
    return regs[task - 1]


def python_implementation():
    import sys

    return sys.implementation.name.lower()


def python_has_jit():
    return False


class Runner:
    def __init__(self, values=None, processes=None, loops=0, min_time=0.1, metadata=None, show_name=True,
                 program_args=None, add_cmdline_args=None, _argparser=None, warmups=None, **kwargs):
        self.metadata = dict(metadata or {})
        self.program_args = program_args
        self._add_cmdline_args = add_cmdline_args
        self.argparser = _argparser or argparse.ArgumentParser()
        self.args = None

    def parse_args(self, args=None):
        # The file's own command line (the workload's args=, or
        # pyperformance's extra_opts), as pyperf's Runner parses it.
        if self.args is None:
            import sys

            self.args, _ = self.argparser.parse_known_args(sys.argv[1:] if args is None else args)
        return self.args

    def _register(self, name, fn, inner_loops=None):
        self.parse_args()
        # The name becomes a table's row: printable, and not too long.
        name = "".join(c if c.isprintable() else "?" for c in str(name))[:200] or "unnamed"
        if inner_loops is None:
            inner_loops = 1
        if isinstance(inner_loops, bool) or not isinstance(inner_loops, int) or not 1 <= inner_loops <= 1 << 20:
            raise ValueError("%s: inner_loops=%r is not a whole number from 1 to 2^20" % (name, inner_loops))
        regs = _registered()
        regs.append((name, fn, inner_loops))
        if _state.suspend is not None and len(regs) == _state.wanted:
            _state.suspend(regs[-1])
        return None

    def bench_func(self, name, func, *args, inner_loops=None, metadata=None):
        def run(loops):
            for _ in range(loops):
                func(*args)

        return self._register(name, run, inner_loops)

    def bench_time_func(self, name, time_func, *args, inner_loops=None, metadata=None):
        def run(loops):
            dt = time_func(loops, *args)
            # pyperf takes this as the time of `loops` iterations, and so
            # does alloclab: a value that is not one is the benchmark's
            # bug, not a measurement.
            if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not (0 < dt < 1e9):
                raise ValueError("%s: bench_time_func's function returned %r, not a duration in seconds" % (name, dt))
            return float(dt)

        return self._register(name, run, inner_loops)

    def bench_async_func(self, name, func, *args, inner_loops=None, metadata=None, loop_factory=None):
        import asyncio

        def run(loops):
            async def many():
                for _ in range(loops):
                    await func(*args)

            asyncio.run(many())

        return self._register(name, run, inner_loops)

    def timeit(self, name, stmt=None, setup="pass", teardown="pass", inner_loops=None, duplicate=None,
               metadata=None, globals=None):
        import timeit as _timeit

        timer = _timeit.Timer(stmt if stmt is not None else "pass", setup, globals=globals)

        # The timer's own time, its set-up left out, as pyperf's timeit.
        def run(loops):
            return float(timer.timeit(loops))

        return self._register(name, run, inner_loops)

    def bench_command(self, name, command):
        # Run by the harness as a child process with the plugin as its
        # malloc (the preload library), timed per run as pyperf does.
        if not isinstance(command, (list, tuple)) or not command or not all(isinstance(a, str) for a in command):
            raise ValueError("%s: bench_command wants a command as a list of strings" % name)
        return self._register(name, ("command", list(command)))
