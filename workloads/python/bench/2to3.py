"""2to3: lib2to3's parser and a few of its fixers over generated Python 2
source (print statements, dict.has_key, except-comma, unicode literals):
a concrete syntax tree of small node objects per file."""

import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # lib2to3 is deprecated in 3.11; it is still what 2to3 runs
    from lib2to3 import refactor

FILES = max(1, int(6 * SCALE))
SOURCE = "".join(
    'def f%d(d, x):\n'
    '    print "value", x, %d\n'
    '    if d.has_key(x):\n'
    '        return u"found %%s" %% d[x]\n'
    '    try:\n'
    '        y = int(x) / 2\n'
    '    except ValueError, e:\n'
    '        print >>sys.stderr, e\n'
    '    return [k for k in d.iterkeys() if k > %d]\n\n' % (i, i, i)
    for i in range(40)
)
FIXERS = ["lib2to3.fixes.fix_print", "lib2to3.fixes.fix_has_key", "lib2to3.fixes.fix_except",
          "lib2to3.fixes.fix_unicode", "lib2to3.fixes.fix_dict"]
TOOL = refactor.RefactoringTool(FIXERS)


def bench(loops):
    for _ in range(loops):
        for i in range(FILES):
            tree = TOOL.refactor_string(SOURCE, "generated%d.py" % i)
        out = str(tree)
        assert "print(" in out and " in d" in out
