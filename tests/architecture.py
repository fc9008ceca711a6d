#!/usr/bin/python3.11
"""The architecture as a test: the rules docs/reference/architecture.md states,
checked on the source tree.

  layers     a file includes only its own layer and the layers before it:
             the SDK, then the framework's rooms in the order
             framework/meson.build gives, then workloads, analysis, cli,
             benchmarks (the standalone loops the benchmark scripts measure);
             a plugin includes only the SDK and its own folder
  circles    no two modules (a .c and its .h) include or call each other,
             directly or through others: a call to a function defined in
             another file is an edge, whoever declared it (a room's
             internal.h hides none)
  owners     no .c file declares another file's function by hand: a
             declaration lives in its owner's header
  rooms      no framework room holds more than 12 files
  functions  no function is longer than 120 lines

Prints one line per breach and exits 1, or "architecture: ok" and 0.
  tests/architecture.py [SOURCE_ROOT]
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_ROOM_FILES = 12
MAX_FUNCTION_LINES = 120
CODE_DIRS = ["framework", "workloads", "analysis", "cli", "benchmarks", "plugins", "preload", "templates"]

problems = []


def rooms_in_order():
    """The framework's rooms, lowest first, as framework/meson.build lists them."""
    text = open(os.path.join(ROOT, "framework", "meson.build")).read()
    m = re.search(r"foreach room : \[([^\]]*)\]", text)
    if not m:
        sys.exit("architecture: framework/meson.build has no 'foreach room : [...]' list")
    return re.findall(r"'([a-z_]+)'", m.group(1))


ROOMS = rooms_in_order()


def source_files():
    for top in CODE_DIRS:
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, name), ROOT)


FILES = list(source_files())
BY_NAME = {}
for f in FILES:
    BY_NAME.setdefault(os.path.basename(f), []).append(f)


def layer(path):
    """A file's layer as a sortable rank, and its name for messages."""
    parts = path.split("/")
    if parts[0] == "framework":
        if parts[1] == "include":
            return 0, "the SDK"
        return 1 + ROOMS.index(parts[1]), "framework/" + parts[1]
    top = {"workloads": 1 + len(ROOMS), "preload": 1 + len(ROOMS), "analysis": 2 + len(ROOMS),
           "cli": 3 + len(ROOMS), "benchmarks": 4 + len(ROOMS)}
    if parts[0] in top:
        return top[parts[0]], parts[0]
    return None, parts[0]  # plugins, templates: the SDK only


INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def resolve(including, name, quoted):
    """The project file an include names, or None (a system header)."""
    here = os.path.dirname(including)
    candidates = [os.path.normpath(os.path.join(here, name)), os.path.normpath(os.path.join("framework", name)),
                  os.path.normpath(os.path.join("framework/include", name)),
                  os.path.normpath(os.path.join("workloads", name)),
                  os.path.normpath(os.path.join("analysis", name))]
    for c in candidates:
        if c in FILES_SET:
            return c
    if quoted:
        # the build's include folders of workloads, analysis and cli
        hits = BY_NAME.get(os.path.basename(name), [])
        if "/" not in name and len(hits) == 1:
            return hits[0]
    return None


FILES_SET = set(FILES)
GENERATED = {"version.h", "workload_list.h", "python_benchmarks.h", "test_workload_list.h"}


def check_layers_and_collect_edges():
    edges = {}
    for f in FILES:
        text = open(os.path.join(ROOT, f), errors="replace").read()
        mine, my_name = layer(f)
        for m in INCLUDE.finditer(text):
            name = m.group(2)
            target = resolve(f, name, m.group(1) == '"')
            if target is None:
                if m.group(1) == '"' and os.path.basename(name) not in GENERATED and not name.endswith(".inc"):
                    problems.append(f"layers: {f} includes \"{name}\", which is no file of the project")
                continue
            theirs, their_name = layer(target)
            if f.split("/")[0] in ("plugins", "templates"):
                if theirs != 0 and os.path.dirname(target) != os.path.dirname(f) and \
                        not target.startswith(os.path.dirname(f)):
                    problems.append(f"layers: {f} (a plugin) includes {target}: a plugin knows only the SDK")
            elif theirs is None or theirs > mine:
                problems.append(f"layers: {f} ({my_name}) includes {target} ({their_name}), a layer above it")
            # A room's internal.h is its files' shared private header and
            # holds no code: including it joins no circle.
            if os.path.basename(target) != "internal.h":
                edges.setdefault(module(f), set()).add(module(target))
            if os.path.basename(target) == "internal.h" and os.path.dirname(target) != os.path.dirname(f):
                problems.append(f"owners: {f} includes {target}, the private header of another room")
    return edges


CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
# Built as shared objects of their own, never linked into the program:
# a function they define (preload's malloc) is not what the program calls.
SEPARATE = ("plugins/", "templates/", "preload/")


def collect_call_edges(edges):
    """An edge from each .c file to the file that defines a function it
    calls, where exactly one linked file defines it (a static function of
    the same name in two files is each file's own)."""
    definers, texts = {}, {}
    for f in FILES:
        if not f.endswith(".c"):
            continue
        text = open(os.path.join(ROOT, f), errors="replace").read()
        texts[f] = strip_comments_and_strings(text)
        if f.startswith(SEPARATE):
            continue
        for name, _, _ in functions(text):
            definers.setdefault(name, set()).add(f)
    for f, code in texts.items():
        if f.startswith(SEPARATE):
            continue
        for name in set(CALL.findall(code)):
            d = definers.get(name)
            if d and len(d) == 1 and f not in d:
                edges.setdefault(module(f), set()).add(module(next(iter(d))))
    return edges


def module(path):
    return os.path.splitext(path)[0]


def check_circles(edges):
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w == v:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                out.append(sorted(scc))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    for scc in out:
        problems.append("circles: these include or call each other: " + ", ".join(scc))


def strip_comments_and_strings(text):
    """Comments, strings and character constants blanked, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


FUNCTION_HEAD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\([^;{}]*\)\s*(?:__attribute__\s*\(\(.*?\)\)\s*)*$", re.S)


def functions(text):
    """(name, first line, last line) of every function defined at file scope."""
    code = strip_comments_and_strings(text)
    # preprocessor lines hold no braces that matter and may hold stray ones
    code = re.sub(r"^[ \t]*#(?:[^\\\n]|\\.|\\\n)*$", lambda m: re.sub(r"[^\n]", " ", m.group(0)), code, flags=re.M)
    depth, start, out = 0, 0, []
    head_from = 0
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                head = code[head_from:i]
                m = FUNCTION_HEAD.search(head.rstrip())
                is_function = m and not head.rstrip().endswith("=")
                start = (m.group(1), code.count("\n", 0, head_from + m.start(1)) + 1) if is_function else None
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if start:
                    out.append((start[0], start[1], code.count("\n", 0, i) + 1))
                head_from = i + 1
        elif c == ";" and depth == 0:
            head_from = i + 1
    return out


HAND_DECLARED = re.compile(r"^(?!static\b)(?:extern\s+)?[A-Za-z_][\w\s\*]*?\b(alloclab_\w+)\s*\([^;{]*\)\s*;", re.M)


def check_functions_and_owners():
    for f in FILES:
        text = open(os.path.join(ROOT, f), errors="replace").read()
        if f.endswith(".c"):
            for name, first, last in functions(text):
                if last - first + 1 > MAX_FUNCTION_LINES:
                    problems.append(f"functions: {f}:{first}: {name} is {last - first + 1} lines "
                                    f"(at most {MAX_FUNCTION_LINES})")
            code = strip_comments_and_strings(text)
            defined = {name for name, _, _ in functions(text)}
            for m in HAND_DECLARED.finditer(code):
                if m.group(1) in defined:
                    continue  # a forward declaration of its own function
                problems.append(f"owners: {f} declares {m.group(1)} by hand: include its owner's header")


def check_rooms():
    for room in ROOMS:
        names = [n for n in os.listdir(os.path.join(ROOT, "framework", room)) if n.endswith((".c", ".h"))]
        if len(names) > MAX_ROOM_FILES:
            problems.append(f"rooms: framework/{room} holds {len(names)} files (at most {MAX_ROOM_FILES})")
    loose = [n for n in os.listdir(os.path.join(ROOT, "framework")) if n.endswith((".c", ".h"))]
    for n in loose:
        problems.append(f"rooms: framework/{n} is in no room")


check_circles(collect_call_edges(check_layers_and_collect_edges()))
check_functions_and_owners()
check_rooms()
for p in problems:
    print(p)
if problems:
    print(f"architecture: {len(problems)} problems")
    sys.exit(1)
print(f"architecture: ok ({len(FILES)} files, {len(ROOMS)} framework rooms)")
