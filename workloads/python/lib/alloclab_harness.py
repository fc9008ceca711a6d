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
  script   a user's file: defines bench(loops) (see docs/guides/python.md)
  pyperf   a file written for pyperf: run as __main__ with its own command
           line (args) and this folder's pyperf module, which records what
           it asks Runner to measure; `task` picks the one measured

discover(path, scale, timeout, args) lists every benchmark of a pyperf
file or folder (pyperformance's MANIFEST included), as the runner plans
the cells, each file run once in a process of its own for at most
timeout seconds.
"""

import os
import runpy
import sys
import threading

from alloclab_errors import NotApplicable, missing_module  # noqa: F401 (the worker looks them up here)


def _read_regular(path, limit=1 << 20):
    """A metadata file's bytes, read only when it is a regular file of at
    most limit bytes: a FIFO named as a MANIFEST or a pyproject.toml
    would block the plan for ever, a device would never end."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(0, "not a regular file (a FIFO, a device or a folder)")
        if st.st_size > limit:
            raise OSError(0, "larger than %d bytes" % limit)
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read(limit + 1)
    finally:
        os.close(fd)


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


def _run_pyperf_file(path, scale, args, wanted=0, suspend=None):
    import pyperf  # this folder's, first on sys.path

    pyperf._reset(wanted, suspend)
    saved_argv = sys.argv
    sys.argv = [path] + list(args)
    try:
        _run_file(path, scale, "__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            raise RuntimeError("%s exited with status %r" % (path, e.code))
    finally:
        sys.argv = saved_argv
    return pyperf


def _command_runner(argv, env):
    """fn(loops) running argv `loops` times as a child process, with the
    plugin as its malloc through the preload library (env), timed whole."""
    import subprocess

    child_env = dict(os.environ)
    child_env.update(env or {})

    def run(loops):
        for _ in range(loops):
            done = subprocess.run(argv, env=child_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
            if done.returncode != 0:
                tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
                raise RuntimeError("bench_command %s: exit status %d %s" % (argv[0], done.returncode, tail[0]))

    return run


# Per thread: the file suspended at the benchmark it is measured on.
_suspended = threading.local()


def _run_to_task(path, scale, args, task):
    """The task-th benchmark the file registers, with the file suspended at
    that call (a greenlet: the same thread, its frames kept), so that the
    benchmark runs within the file's own run, the file as __main__ and its
    set-up still in place; finish() lets the file go on to its end (its
    clean-up). Without greenlet, the file runs to its end first."""
    try:
        import greenlet
    except ImportError:
        greenlet = None
    if greenlet is None:
        return _run_pyperf_file(path, scale, args)._task(path, task)
    main = greenlet.getcurrent()

    def body():
        _run_pyperf_file(path, scale, args, task, lambda reg: main.switch(("task", reg)))
        return ("ended", None)

    g = greenlet.greenlet(body)
    what, reg = g.switch()
    if what == "ended":
        import pyperf

        return pyperf._task(path, task)  # it registered fewer: says so
    _suspended.file = g
    return reg


def finish():
    """Lets the file this thread suspended go on to its end. Returns what
    it raised there, as text, or None."""
    g = getattr(_suspended, "file", None)
    _suspended.file = None
    if g is None or g.dead:
        return None
    try:
        g.switch()
    except BaseException as e:  # noqa: B902 (the file's own end)
        return "%s: %s" % (type(e).__name__, e)
    return None


def load(kind, path, scale, task=1, args=(), name=None, command_env=None):
    base = os.path.splitext(os.path.basename(path))[0]
    if kind in ("script", "pyperf"):
        _script_folder_first(path)
    if kind in ("bundled", "script"):
        namespace = _run_file(path, scale, "__alloclab__")
        return base, _bench_of(namespace, path), 1
    if kind == "pyperf" and os.path.basename(path) == "MANIFEST":
        # A manifest row whose metadata could not be read: the worker
        # meets the same problem again and it is the cell's error.
        for _f, _a, entry, problem in _pyperformance_entries(os.path.dirname(path)):
            if entry == name and problem is not None:
                raise ValueError(problem)
        raise RuntimeError("%s: %r is no longer a benchmark with broken metadata" % (path, name))
    if kind == "pyperf":
        got, fn, inner = _run_to_task(path, scale, args, task)
        if name and got != name:
            raise RuntimeError("%s: benchmark %d is now %r, not %r as when the run was planned" % (path, task, got, name))
        if isinstance(fn, tuple):
            fn = _command_runner(fn[1], command_env)
        return got, fn, inner
    raise ValueError("unknown kind %r" % kind)


# ---- finding the benchmarks: every one a file registers, and pyperformance's manifest ----


class ManifestError(Exception):
    """A pyperformance MANIFEST that cannot be read: the whole folder's
    problem, said in one line."""


def _pyperformance_entries(folder):
    """(file, args, name, error) of each benchmark in a pyperformance
    MANIFEST: [benchmarks] rows of name and metafile (<local>,
    <local:BASE>, a file or a folder), each metafile's [tool.pyperformance]
    runscript and extra_opts (variants inherit their sibling
    pyproject.toml, and `inherits` names another). A benchmark whose
    metadata is missing or wrong has its error (its row's), not the
    folder's: a <local> folder without a pyproject.toml runs its
    run_benchmark.py without options."""
    import tomllib

    manifest = os.path.join(folder, "MANIFEST")
    rows, section = [], None
    try:
        lines = _read_regular(manifest).decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ManifestError("%s: cannot be read: %s" % (manifest, e)) from None
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip()
            continue
        if section == "[benchmarks]":
            cols = line.split("\t")
            if cols[0] == "name":
                continue
            if len(cols) != 2 or not cols[0].strip() or not cols[1].strip():
                raise ManifestError("%s: line %d: %.80r is not NAME<tab>METAFILE" % (manifest, number, line))
            rows.append((cols[0].strip(), cols[1].strip()))

    def load_meta(path, depth=0):
        try:
            meta = tomllib.loads(_read_regular(path).decode("utf-8")).get("tool", {}).get("pyperformance", {})
        except OSError as e:
            raise ValueError("%s: cannot be read: %s" % (path, e.strerror or e)) from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, AttributeError) as e:
            raise ValueError("%s: is not TOML with a [tool.pyperformance] table: %s" % (path, e)) from None
        if not isinstance(meta, dict):
            raise ValueError("%s: [tool.pyperformance] is not a table" % path)
        parent = meta.get("inherits")
        if parent is not None and not isinstance(parent, str):
            raise ValueError("%s: inherits is not a string" % path)
        base = os.path.basename(path)
        if parent is None and base != "pyproject.toml" and base != "base.toml":
            parent = "pyproject.toml" if os.path.exists(os.path.join(os.path.dirname(path), "pyproject.toml")) else None
        if parent and depth < 8:
            parent = os.path.join(os.path.dirname(path), parent)
            if os.path.isdir(parent):
                parent = os.path.join(parent, "base.toml")
            merged = dict(load_meta(parent, depth + 1)[0])
            merged.update({k: v for k, v in meta.items() if k not in ("name", "inherits")})
            meta = merged
        return meta, path

    entries = []
    for name, metafile in rows:
        if metafile == "<local>":
            path = os.path.join(folder, "bm_" + name, "pyproject.toml")
        elif metafile.startswith("<local:") and metafile.endswith(">"):
            path = os.path.join(folder, "bm_" + metafile[7:-1], "bm_" + name + ".toml")
        else:
            path = os.path.join(folder, metafile)
            if os.path.isdir(path):
                path = os.path.join(path, "pyproject.toml")
        try:
            if not os.path.exists(path) and os.path.basename(path) == "pyproject.toml":
                meta, where = {}, path  # no metadata: the defaults
            else:
                meta, where = load_meta(path)
            runscript = meta.get("runscript", "run_benchmark.py")
            if not isinstance(runscript, str) or not runscript:
                raise ValueError("%s: runscript is not a file name" % where)
            script = os.path.join(os.path.dirname(where), runscript)
            opts = meta.get("extra_opts", [])
            if not isinstance(opts, list) or not all(isinstance(o, str) for o in opts):
                raise ValueError("%s: extra_opts is not a list of strings" % where)
            if not os.path.isfile(script):
                raise ValueError("%s: no such file (the MANIFEST's %s)" % (script, name))
            entries.append((script, list(opts), name, None))
        except ValueError as e:
            entries.append((path, [], name, str(e)))
    return entries


def _files_of(path, args):
    """(file, args, manifest name or None, the row's error or None) to run
    for pyperf=PATH."""
    if not os.path.isdir(path):
        return [(path, list(args), None, None)]
    if os.path.isfile(os.path.join(path, "MANIFEST")):
        return [(f, list(a) + list(args), n, e) for f, a, n, e in _pyperformance_entries(path)]
    import glob

    files = sorted(glob.glob(os.path.join(path, "*.py")) + glob.glob(os.path.join(path, "*", "run_benchmark.py")))
    return [(f, list(args), None, None) for f in files]


def _die_with_parent(parent):
    """A forked child dies with the process that forked it, however that
    ends (Linux's parent-death signal): no file's loop outlives a killed
    alloclab."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(3)


def _run_one(f, a, manifest_name, scale, timeout):
    """Runs one file once in a child (its own process group, dying with
    this process): (what it found as JSON text, None), or (None, why).
    The child's pipe is read until the child itself has ended, never to
    its end: a daemon the file started may hold it open for ever."""
    import json
    import select
    import signal
    import time

    r, w = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            os.setpgid(0, 0)
            _die_with_parent(parent)
            found = _discover_one(f, a, manifest_name, scale)
        except BaseException as e:  # noqa: B902 (the child never returns)
            found = [{"file": f, "args": a, "name": manifest_name, "error": repr(e)[:400], "not_applicable": False}]
        with os.fdopen(w, "w") as pipe:
            json.dump(found, pipe)
        os._exit(0)
    os.close(w)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass  # it has already made its group, or already ended
    os.set_blocking(r, False)
    chunks, ended, deadline = [], False, time.monotonic() + timeout
    while not ended:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready = select.select([r], [], [], min(left, 0.05))[0]
        ended = os.waitpid(pid, os.WNOHANG)[0] == pid
        while ready or ended:
            try:
                chunk = os.read(r, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    os.close(r)
    if not ended:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        os.waitpid(pid, 0)
        return None, "timed out after %g s, run once to find its benchmarks (--timeout)" % timeout
    try:
        os.killpg(pid, signal.SIGKILL)  # what it left running in its group
    except OSError:
        pass
    return b"".join(chunks).decode("utf-8", "replace"), None


def discover(path, scale, timeout, args):
    """Every benchmark of pyperf=PATH, found by running each file once as
    pyperf's main process does: [{file, args, task, name}] (a failing or
    not applicable file: [{file, args, error, not_applicable}])."""
    import json

    out = []
    try:
        files = _files_of(path, args)
    except ManifestError as e:
        # The folder's own problem: one line, and no benchmark.
        print(str(e)[:400], file=sys.stderr)
        sys.exit(2)
    for f, a, manifest_name, problem in files:
        if problem is not None:
            # The row names the MANIFEST: the worker reads the same entry.
            out.append({"file": os.path.join(path, "MANIFEST"), "args": [], "name": manifest_name,
                        "error": problem[:400], "not_applicable": False})
            continue
        # Each file in a process of its own, as each runs in a worker of
        # its own: no module, path or folder of one is seen by the next.
        text, why = _run_one(f, a, manifest_name, scale, timeout)
        if why is None:
            try:
                out.extend(json.loads(text))
                continue
            except ValueError:
                why = "it ended the process while it ran"
        out.append({"file": f, "args": a, "name": manifest_name, "error": why, "not_applicable": False})
    return out


def _discover_one(f, a, manifest_name, scale):
    """The benchmarks one file registers (in a child of discover())."""
    import contextlib
    import io

    _script_folder_first(f)
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            pyperf = _run_pyperf_file(f, scale, a)
        regs = pyperf._registrations()
        if not regs:
            raise NotApplicable("%s asked pyperf to measure nothing" % f)
        return [{"file": f, "args": a, "task": k + 1, "name": name} for k, (name, _kind) in enumerate(regs)]
    except BaseException as e:  # noqa: B902 (every failure is the file's row)
        missing = missing_module(e)
        na = isinstance(e, NotApplicable) or missing is not None
        why = "%s: %s" % (type(e).__name__, e) if not na else str(e)
        if missing is not None:
            why = "needs the Python module '%s', which is not installed" % missing
        last = [line for line in said.getvalue().splitlines() if line.strip()][-1:]
        if last and not na:
            why = "%s (%s)" % (why, last[0].strip())
        return [{"file": f, "args": a, "name": manifest_name, "error": why[:400], "not_applicable": na}]
