#!/usr/bin/python3.11
"""The benchmarks folder and its index as a test: the scripts that reproduce
the measured figures stay findable, and stay sharing their helpers.

  index     every script, module and data file of benchmarks/ and every
            benchmark() entry of benchmarks/meson.build is listed in
            benchmarks/README.md, and everything the index lists exists
  pages     every page of docs/measurements/ (but its README) names what
            reproduces it: a benchmarks/ script that exists, or a
            `--benchmark` entry that benchmarks/meson.build declares
  scripts   every script parses (bash -n), sources lib.sh, and says how it
            is called (a "#   benchmarks/NAME.sh" line); every module
            compiles
  shared    what the helpers own is not written again in a script: the t
            table (intervals.py), the plugin-label lookup and the first-
            value reader (alloclab_json.py), the import path
            (lib.sh's bench_python)

Prints one line per breach and exits 1, or "benchmark index: ok" and 0.
  tests/benchmark_index.py [SOURCE_ROOT]
"""
import os
import re
import subprocess
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")
PAGES = os.path.join(ROOT, "docs", "measurements")
problems = []


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


if not os.path.isdir(BENCH):
    sys.exit("benchmark index: no benchmarks/ folder")
if not os.path.isfile(os.path.join(BENCH, "README.md")):
    problems.append("index: benchmarks/ has no README.md")
readme = read(os.path.join(BENCH, "README.md")) if not problems else ""
meson = read(os.path.join(BENCH, "meson.build"))
# the entries: keys of the tables the foreach loops declare benchmarks from
entries = re.findall(r"^\s*'([\w-]+)':\s*\{", meson, re.M)
files = sorted(f for f in os.listdir(BENCH) if f.endswith((".sh", ".py", ".tsv")))
scripts = [f for f in files if f.endswith(".sh") and f != "lib.sh"]

# index
listed = set(re.findall(r"`([\w.-]+\.(?:sh|py|tsv))`", readme))
for f in files:
    if f not in listed:
        problems.append(f"index: benchmarks/{f} is not listed in benchmarks/README.md")
for f in sorted(listed - set(files)):
    problems.append(f"index: benchmarks/README.md lists {f}, which is not in benchmarks/")
for e in entries:
    if f"`{e}`" not in readme:
        problems.append(f"index: the benchmark entry '{e}' (benchmarks/meson.build) is not in benchmarks/README.md")
for e in sorted(set(re.findall(r"benchmark `([\w-]+)`", readme)) - set(entries)):
    problems.append(f"index: benchmarks/README.md names the entry '{e}', which benchmarks/meson.build does not declare")

# pages
for page in sorted(os.listdir(PAGES)):
    if not page.endswith(".md") or page == "README.md":
        continue
    text = read(os.path.join(PAGES, page))
    named = [s for s in re.findall(r"benchmarks/([\w.-]+\.sh)\b", text) if s in scripts]
    runs = [e for e in re.findall(r"--benchmark(?:\s+-v)?\s+([\w-]+)", text) if e in entries]
    if not named and not runs:
        problems.append(f"pages: docs/measurements/{page} names no benchmarks/ script nor benchmark entry "
                        "that reproduces it")
    for s in re.findall(r"(?<![\w/])(?:analysis|benchmarks)/([\w.-]+\.sh)\b", text):
        if s not in scripts:
            problems.append(f"pages: docs/measurements/{page} names {s}, which is no script of benchmarks/")

# scripts
for s in scripts:
    text = read(os.path.join(BENCH, s))
    parsed = subprocess.run(["bash", "-n", os.path.join(BENCH, s)], capture_output=True, text=True)
    if parsed.returncode != 0:
        problems.append(f"scripts: benchmarks/{s} does not parse: {parsed.stderr.strip().splitlines()[0]}")
    if not re.search(r'^\. "\$\(dirname "\$0"\)/lib\.sh"$', text, re.M):
        problems.append(f"scripts: benchmarks/{s} does not source lib.sh")
    if not re.search(rf"^#\s+(?:\w+=\S*\s+)?benchmarks/{re.escape(s)}\b", text, re.M):
        problems.append(f"scripts: benchmarks/{s} has no usage line (#   benchmarks/{s} ARGS)")
    if not text.startswith("#!/usr/bin/env bash\n"):
        problems.append(f"scripts: benchmarks/{s} does not start with #!/usr/bin/env bash")
for f in files:
    if f.endswith(".py"):
        try:
            compile(read(os.path.join(BENCH, f)), f, "exec")
        except SyntaxError as e:
            problems.append(f"scripts: benchmarks/{f}:{e.lineno}: {e.msg}")

# shared: each helper's knowledge in one place
OWNED = [
    (r"12\.706", "intervals.py", "a table of t quantiles"),
    (r'\["plugins"\]\[\w+\]\["label"\]', "alloclab_json.py", "the plugin-label lookup"),
    (r'\["cells"\]\[0\]\["runs"\]\[0\]\["values"\]\[0\]', "alloclab_json.py", "the first-value reader"),
    (r"sys\.path\.insert", "lib.sh (bench_python)", "an import path"),
]
for f in files:
    text = read(os.path.join(BENCH, f))
    for pattern, owner, what in OWNED:
        if owner.split()[0] != f and re.search(pattern, text):
            problems.append(f"shared: benchmarks/{f} writes {what} of its own: use {owner}")

for p in problems:
    print(p)
if problems:
    print(f"benchmark index: {len(problems)} problems")
    sys.exit(1)
print(f"benchmark index: ok ({len(scripts)} scripts, {len(entries)} benchmark entries, "
      f"{len([p for p in os.listdir(PAGES) if p.endswith('.md')]) - 1} pages)")
