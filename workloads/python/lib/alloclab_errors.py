"""What a benchmark can raise to say it cannot run here, shared by the
harness and the pyperf stand-in so that neither imports the other; and the
one rule for when a failed import means a module is not installed."""

import importlib.machinery
import sys


class NotApplicable(Exception):
    """The benchmark cannot run here (a library missing, an unsupported
    pyperf call): the cell is "not applicable" with this message."""


def missing_module(e):
    """The name of the module whose absence `e` reports, when it is not
    installed (the cell is then "not applicable"), or None when the import
    failed for another reason and the cell is the benchmark's error: the
    program put None in sys.modules to block it (pyperformance's mako does
    that to markupsafe, which Debian's Mako imports anyway), or the package
    is installed and lacks the submodule (another version)."""
    if not isinstance(e, ModuleNotFoundError) or not e.name:
        return None
    if e.name in sys.modules and sys.modules[e.name] is None:
        return None
    top = e.name.partition(".")[0]
    if top in sys.builtin_module_names:
        return None
    if top != e.name and (top in sys.modules or importlib.machinery.PathFinder.find_spec(top) is not None):
        return None
    return e.name
