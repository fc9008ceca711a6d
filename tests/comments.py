#!/usr/bin/python3.11
"""Comments and docs that name what exists: a check the test suite runs.

A comment that cites a file or a function is a promise that a reader can
go and find it. Code moves and the comment stays, so the promise is
checked rather than remembered:

  files      a comment (C's /* */ and //, '#' lines of Python, shell and
             meson files) or a doc (every .md) that names a file of the
             project (a path under one of its folders, or a bare .c or .h
             name) names one that exists
  functions  a comment or a doc that names one of the project's functions
             (alloclab_*, obm_*, or any name written as name()) names one
             that some file's code (not a comment) has
  readme     README.md holds at most 400 lines, and its Layout table has a
             row for every top-level folder of the project

Names of things outside the project (CPython's files, libc's headers, a
program a benchmark runs) are listed below with why; placeholders in capitals
(NAME.c, DIR/merged.json) and files written at run time are not files of
the project. Prints one line per breach and exits 1, or "comments: ok".
  tests/comments.py [SOURCE_ROOT]
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CODE_DIRS = ["framework", "workloads", "analysis", "cli", "plugins", "preload", "templates", "tests", "benchmarks",
             ".ci"]
TOP_DIRS = set(CODE_DIRS) | {"docs", "traces"}

# Files and functions comments name that are not the project's, and why.
EXTERNAL_FILES = {
    "Python.h": "CPython's C API header",
    "objimpl.h": "CPython's header declaring PyObject_Malloc",
    "obmalloc.c": "CPython's allocator, which the obmalloc plugins model",
    "malloc.c": "glibc's allocator",
    "stddef.h": "a C standard header",
    "stdint.h": "a C standard header",
    "callgrind.h": "valgrind's client requests",
    "my.c": "an example name for a user's plugin",
    "run_benchmark.py": "pyperformance's file name for a benchmark",
    "timer.py": "a script python-embed-cost.sh writes",
    "shards.sh": "the script alloclab slurm writes",
    "merge.sh": "the script alloclab slurm writes",
    "b.py": "an example of a benchmark file's name",
    "config.h": "the header the history tests write into their repository's commits",
    "evidence.h": "the header the grading tests write for their hostile submissions",
    "mine.c": "the file `alloclab new plugin mine` writes for a student",
}
EXTERNAL_FUNCTIONS = {
    "_debugmallocstats": "CPython's sys._debugmallocstats()",
}

problems = []


def walk(tops):
    for top in tops:
        for dirpath, dirnames, names in os.walk(os.path.join(ROOT, top)):
            # Build trees (build, build-clang) are left out at the top, by
            # the caller: a folder below may be called build (a room is).
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in sorted(names):
                yield os.path.relpath(os.path.join(dirpath, name), ROOT)


ALL_FILES = set(walk([d for d in os.listdir(ROOT) if d != ".git" and not d.startswith("build")
                      and os.path.isdir(os.path.join(ROOT, d))]))
ALL_FILES |= {f for f in os.listdir(ROOT) if os.path.isfile(os.path.join(ROOT, f))}
ALL_DIRS = set()
for f in ALL_FILES:
    d = os.path.dirname(f)
    while d:
        ALL_DIRS.add(d)
        d = os.path.dirname(d)
# What the build makes (meson's configure_file and custom_target outputs)
# is the project's too.
GENERATED = set()
for f in ALL_FILES:
    if os.path.basename(f) == "meson.build":
        GENERATED |= set(re.findall(r"output:\s*'([^']+)'", open(os.path.join(ROOT, f), errors="replace").read()))
BASENAMES = {os.path.basename(f) for f in ALL_FILES} | GENERATED
STEMS = {os.path.splitext(b)[0] for b in BASENAMES}
ROOMS = {d.split("/")[1] for d in ALL_DIRS if d.startswith("framework/") and d.count("/") >= 1}

C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
C_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def split_code(path, text):
    """(comments, code) of a source file: the text a reader takes as prose,
    and the rest, whose names are what the project defines."""
    if path.endswith((".c", ".h", ".cpp", ".inc")):
        code = C_STRING.sub('""', text)
        comments = C_COMMENT.findall(code)
        return comments, C_COMMENT.sub(" ", code)
    lines = text.split("\n")
    comments = [l for l in lines if l.lstrip().startswith("#") and not l.startswith("#!")]
    return comments, "\n".join(l for l in lines if not l.lstrip().startswith("#"))


def line_of(text, fragment):
    at = text.find(fragment)
    return text.count("\n", 0, at) + 1 if at >= 0 else 0


PATH_REF = re.compile(r"(?<![\w./$-])((?:\.\./)*(?:[\w.-]+/)+[\w.-]+)")
BARE_REF = re.compile(r"(?<![\w./$-])([\w-]+\.[ch])\b(?![\w/])")
NAME_REF = re.compile(r"(?<![\w.>])(alloclab_\w+|obm_\w+)\b|(?<![\w.>])([A-Za-z_]\w*)\(\)")


def placeholder(ref):
    """NAME.c, DIR/merged.json, shard-K.json: a name standing for others."""
    return any(re.search(r"(^|[^a-z])[A-Z]{1,}[A-Z0-9_]*($|[^a-z])", part) and not re.search(r"[a-z]", part.split(".")[0])
               for part in ref.split("/")) or "NAME" in ref


def resolves(src, ref):
    here = os.path.dirname(src)
    for cand in (os.path.join(here, ref), ref, os.path.join("framework", ref), os.path.join("tests", ref),
                 os.path.join("docs", ref)):
        cand = os.path.normpath(cand)
        if cand in ALL_FILES or cand in ALL_DIRS:
            return True
        stem, ext = os.path.splitext(cand)
        if ext == ".so" and (stem + ".c") in ALL_FILES:  # a test plugin, built from its .c
            return True
    return False


def check_files(src, text, prose, examples):
    for chunk in prose:
        for m in PATH_REF.finditer(chunk):
            ref = m.group(1).rstrip(".")
            first = ref.lstrip("./").split("/")[0]
            is_source = ref.endswith((".c", ".h"))
            if first not in TOP_DIRS and not (first in ROOMS and is_source):
                continue
            if placeholder(ref) or resolves(src, ref):
                continue
            problems.append(f"{src}:{line_of(text, ref)}: names {ref}, which is no file of the project")
        for m in BARE_REF.finditer(chunk):
            ref = m.group(1)
            if ref in BASENAMES or ref in EXTERNAL_FILES or placeholder(ref) or ref in examples:
                continue
            problems.append(f"{src}:{line_of(text, ref)}: names {ref}, which is no file of the project")


def check_names(src, text, prose, defined):
    for chunk in prose:
        for m in NAME_REF.finditer(chunk):
            name = m.group(1) or m.group(2)
            if name in defined or name in STEMS or name in EXTERNAL_FUNCTIONS or name.endswith("_") or \
                    placeholder(name):
                continue
            problems.append(f"{src}:{line_of(text, name)}: names {name}, which no file of the project defines")


def main():
    sources = [f for f in walk(CODE_DIRS) if f.endswith((".c", ".h", ".cpp", ".py", ".sh", "meson.build", "run"))
               and "/fuzz/corpus" not in f and "/fuzz/crashes" not in f]
    texts, prose, defined, examples = {}, {}, set(), {}
    for f in sources:
        texts[f] = open(os.path.join(ROOT, f), errors="replace").read()
        prose[f], code = split_code(f, texts[f])
        defined |= set(re.findall(r"\b[A-Za-z_]\w*\b", code))
    for f in sorted(ALL_FILES):
        if f.endswith(".md"):
            texts[f] = open(os.path.join(ROOT, f), errors="replace").read()
            prose[f] = [texts[f]]
            # A doc's examples (its fenced blocks) name users' files freely:
            # only paths under the project's folders are checked there.
            examples[f] = "\n".join(re.findall(r"^```.*?^```", texts[f], re.S | re.M))
    for f in sorted(prose):
        check_files(f, texts[f], prose[f], examples.get(f, ""))
        # Names written in a doc are checked where they look like the
        # project's own (alloclab_*, obm_*); a doc's "malloc()" is C's.
        check_names(f, texts[f], prose[f] if not f.endswith(".md") else
                    [" ".join(re.findall(r"\b(?:alloclab|obm)_\w+\b", texts[f]))], defined)
    check_readme()
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f"comments: ok ({len(prose)} files)")


README_MAX_LINES = 400


def check_readme():
    path = os.path.join(ROOT, "README.md")
    text = open(path, errors="replace").read()
    lines = text.count("\n")
    if lines > README_MAX_LINES:
        problems.append(f"README.md: {lines} lines (at most {README_MAX_LINES}: the rest belongs in docs/)")
    m = re.search(r"^## Layout\n(.*?)(?=^## )", text, re.S | re.M)
    if not m:
        problems.append("README.md: no '## Layout' section")
        return
    rows = set(re.findall(r"^\| `([^`/]+)/", m.group(1), re.M))
    # What the project ignores (its build folders, a run's results) is
    # no folder of the project.
    ignored = {".git"}
    if os.path.isfile(os.path.join(ROOT, ".gitignore")):
        for line in open(os.path.join(ROOT, ".gitignore")):
            line = line.strip()
            if line.startswith("/") and line.endswith("/") and "*" not in line:
                ignored.add(line.strip("/"))
    for name in sorted(os.listdir(ROOT)):
        full = os.path.join(ROOT, name)
        if not os.path.isdir(full) or name in ignored or name.startswith("build-"):
            continue
        if name not in rows and any(os.scandir(full)):
            problems.append(f"README.md: the Layout table has no row for {name}/")


main()
