"""The part of pyperf's API that benchmark files call, written for alloclab.

A file written for pyperf builds a Runner and asks it to measure something
(bench_func, bench_time_func, timeit, bench_async_func). Here nothing is
measured at that point: the Runner records the first request as a function
of `loops` with its inner_loops, and alloclab's worker runs that function in
its own processes, values and warm-ups, timing it itself or, for
bench_time_func and timeit, taking the time the function reports, as pyperf
does; a value is the time of one inner loop. The rest of the API (metadata, the argument
parser, add_cmdline_args) is accepted so that such files run unmodified.
Calls that cannot be measured this way (bench_command runs a program)
make the benchmark "not applicable".
"""

import argparse
import time

from alloclab_errors import NotApplicable

__version__ = "2.6.0 (alloclab's compatible subset)"
VERSION = (2, 6, 0)

perf_counter = time.perf_counter

_registered = []


def _reset():
    del _registered[:]


def _first_benchmark(path):
    if not _registered:

        raise NotApplicable("%s asked pyperf to measure nothing" % path)
    return _registered[0]


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
        if self.args is None:
            self.args, _ = self.argparser.parse_known_args([] if args is None else args)
        return self.args

    def _register(self, name, fn, inner_loops=None):
        self.parse_args()
        # The name becomes a table's row: printable, and not too long.
        name = "".join(c if c.isprintable() else "?" for c in str(name))[:200] or "unnamed"
        if inner_loops is None:
            inner_loops = 1
        if isinstance(inner_loops, bool) or not isinstance(inner_loops, int) or not 1 <= inner_loops <= 1 << 20:
            raise ValueError("%s: inner_loops=%r is not a whole number from 1 to 2^20" % (name, inner_loops))
        _registered.append((name, fn, inner_loops))
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

        raise NotApplicable("bench_command runs a program, not Python in this interpreter: not supported")
