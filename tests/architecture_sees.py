#!/usr/bin/python3.11
"""tests/architecture.py against small trees made here: it must find a
circle of calls that no include shows (two files of one room declared in
its internal.h), and pass the same tree once the circle is broken. A test
of the test, so that the check on the real tree can fail.

  tests/architecture_sees.py ARCHITECTURE_PY WORK_DIR
"""
import os
import shutil
import subprocess
import sys

CHECK, WORK = sys.argv[1], sys.argv[2]


def tree(name, files):
    root = os.path.join(WORK, name)
    shutil.rmtree(root, ignore_errors=True)
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    return root


def check(root):
    p = subprocess.run(["/usr/bin/python3.11", CHECK, root], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


ROOMS = "foreach room : ['base', 'store']\n  subdir(room)\nendforeach\n"
INTERNAL = ("#ifndef S_INTERNAL_H\n#define S_INTERNAL_H\n"
            "int store_exec(int x);\nint store_migrate(int x);\n#endif\n")
circle = {
    "framework/meson.build": ROOMS,
    "framework/base/clock.h": "int base_now(void);\n",
    "framework/base/clock.c": '#include "base/clock.h"\nint base_now(void) { return 1; }\n',
    "framework/store/internal.h": INTERNAL,
    "framework/store/store.c": '#include "store/internal.h"\n'
                               "int store_exec(int x) { return x; }\n"
                               "int store_open(int x) { return store_migrate(x); }\n",
    "framework/store/schema.c": '#include "store/internal.h"\n'
                                "int store_migrate(int x) { return store_exec(x) + 1; }\n",
}
rc, out = check(tree("circle", circle))
if rc == 0 or "call each other" not in out or "framework/store/schema" not in out:
    sys.exit(f"architecture.py did not see store.c and schema.c call each other (exit {rc}):\n{out}")

broken = dict(circle)
broken["framework/store/store.c"] = '#include "store/internal.h"\nint store_open(int x) { return store_migrate(x); }\n'
broken["framework/store/sql.c"] = '#include "store/internal.h"\nint store_exec(int x) { return x; }\n'
rc, out = check(tree("no-circle", broken))
if rc != 0:
    sys.exit(f"architecture.py refused a tree with no circle (exit {rc}):\n{out}")

# A static function of the same name in two files is each file's own:
# no edge, no circle.
own = dict(broken)
own["framework/store/schema.c"] += "static int helper(void) { return 0; }\nint s2(void) { return helper(); }\n"
own["framework/store/sql.c"] += "static int helper(void) { return 1; }\nint s3(void) { return helper(); }\n"
rc, out = check(tree("statics", own))
if rc != 0:
    sys.exit(f"architecture.py took two files' static functions for calls between them (exit {rc}):\n{out}")
print("architecture_sees: ok")
