#!/usr/bin/env bash
# The figures the course quotes (docs/course/), measured again with this
# build: each quoted figure beside the one measured now. A benchmark that
# prints figures, not a test. Instruction counts an operation (valgrind,
# exact for a given compiler and build: the Quick start's gcc release build
# is quoted) first; times as ratios to glibc measured side by side in the
# same processes (--paired), with their 95% intervals and the conditions
# they were measured in (the CPUs, the load average before and after each
# run), for a ratio between a page-fault-bound allocator and a user-space
# one moves with the machine's load (docs/course/README.md says why);
# memory figures and heap-map counts as they are.
#   benchmarks/course-figures.sh BUILD OUT
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "BUILD OUT" "$@"
P="$build/tests/plugins"
for p in bump freelist segregated threadcache arenas; do
	[ -f "$P/course-$p.so" ] || bench_fail "no $P/course-$p.so (a test build has them)"
done
: >"$out/conditions.txt"
run() { # name, then alloclab run's arguments
	local name=$1
	shift
	bench_say "measuring $name"
	local before
	before=$(cut -d' ' -f1 /proc/loadavg)
	bench_run "$out/$name.json" --no-check "$@"
	printf '%s %s %s %s\n' "$name" "$(nproc)" "$before" "$(cut -d' ' -f1 /proc/loadavg)" >>"$out/conditions.txt"
	bench_compare "$out/$name.time.json" "$out/$name.json" --plugins "$PLUGINS"
	bench_compare "$out/$name.rss.json" "$out/$name.json" --plugins "$PLUGINS" --metric rss
	bench_compare "$out/$name.frag.json" "$out/$name.json" --plugins "$PLUGINS" --metric fragmentation
}

PLUGINS=system,course-bump,course-freelist,course-segregated
run churn -p system -p "$P/course-bump.so" -p "$P/course-freelist.so" -p "$P/course-segregated.so" \
	-w churn:ops=100000 -t 1 -n 5 --paired
# Peak RSS is a process's: the bump allocator, the free list and glibc
# each in their own.
PLUGINS=system,course-bump,course-freelist
run churn-memory -p system -p "$P/course-bump.so" -p "$P/course-freelist.so" -w churn:ops=100000 -t 1 -n 3
PLUGINS=system,course-freelist,course-segregated
run fragment -p system -p "$P/course-freelist.so" -p "$P/course-segregated.so" -w fragment -t 1 -n 3
PLUGINS=system,course-threadcache
run threads -p system -p "$P/course-threadcache.so" -w churn -w larson -w xmalloc -t 1,2 -n 5 --paired
# Exercise 5: the arenas as CPython's allocator, in the Python benchmarks
# (one interpreter a process: the paired process design).
PLUGINS=system,course-arenas,obmalloc-radix,cpython
run python -p system -p "$P/course-arenas.so" -p obmalloc-radix -p cpython -w python:bench=quick,value_ms=20 \
	-t 1 -n 10 --paired
# The instruction counts an operation of churn every exercise quotes (a
# gcc release build's counts are the ones quoted).
bench_say "measuring instructions"
bench_run "$out/instructions.json" --no-check --measure instructions -p system -p "$P/course-bump.so" \
	-p "$P/course-freelist.so" -p "$P/course-segregated.so" -p "$P/course-threadcache.so" -p "$P/course-arenas.so" \
	-p obmalloc-radix -w churn:ops=100000 -t 1 -n 1
heapmap() { # name, plugin, workload, frames
	bench_say "heap map $1"
	rm -rf "$out/heap-$1"
	"$alloclab" heapmap -p "$2" -w "$3" -n "$4" -o "$out/heap-$1" >"$out/heap-$1.txt" 2>&1 || true
}
heapmap bump "$P/course-bump.so" churn:ops=20000 2
heapmap segregated "$P/course-segregated.so" churn 3
heapmap arenas "$P/course-arenas.so" churn 3
heapmap radix obmalloc-radix churn 3

bench_python - "$out" "$alloclab" <<'PY'
import json, re, sys
from alloclab_json import compare_rows, load

out = sys.argv[1]

def columns(name, kind):
    """{(row, plugin): column} from compare's JSON; a row is its Python
    benchmark, else "workload t=N"."""
    got = {}
    for row, cols in compare_rows(f"{out}/{name}.{kind}.json"):
        key = (row.get("params") or {}).get("bench") or "%s t=%s" % (row.get("workload"), row.get("threads"))
        for plugin, col in cols.items():
            got[(key, plugin)] = col
    return got

def medians(name, kind):
    """{(row, plugin): median}."""
    return {k: col.get("median") for k, col in columns(name, kind).items()}

def ratio(d, key, plugin):
    a, b = d.get((key, plugin)), d.get((key, "system"))
    return a / b if a and b else None

def paired(name):
    """{(row, plugin): (ratio, low, high)} of a paired run: each ratio to
    glibc with its 95% interval."""
    return {k: (col["ratio"], *col.get("interval", (None, None)))
            for k, col in columns(name, "time").items() if "ratio" in col}

def heap(name):
    """Each frame's regions (outer, inner) and blocks split over two lines,
    from the frames file."""
    frames = []
    try:
        for line in open(f"{out}/heap-{name}/frames.jsonl"):
            d = json.loads(line)
            regions = d.get("regions", [])
            inner = sum(1 for r in regions if r.get("inner"))
            frames.append((len(regions) - inner, inner, d.get("tracked", {}).get("split_lines")))
    except (OSError, ValueError):
        return None
    return frames

def table_peak(name, plugin):
    """The run table's peak RSS (MiB) of a plugin's row, as show prints it."""
    import subprocess
    text = subprocess.run([sys.argv[2], "show", f"{out}/{name}.json"], capture_output=True, text=True).stdout
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+\S+\s+\d+\s+.*?\s([0-9.]+) MiB", line)
        if m and m.group(1) == plugin:
            return float(m.group(2))
    return None

rows = []
t = paired("churn")
for plugin, quoted, exercise in (("course-bump", 28.4, "1"), ("course-freelist", 3.84, "2"),
                                 ("course-segregated", 0.28, "3")):
    got = t.get(("churn t=1", plugin))
    rows.append((exercise, f"{plugin} churn, time over glibc's", quoted, got[0] if got else None,
                 "[%.3f, %.3f]" % got[1:] if got and got[1] else ""))
rows.append(("1", "course-bump churn:ops=100000 peak RSS (MiB, show's)", 108, table_peak("churn-memory", "course-bump")))
rows.append(("1", "glibc churn:ops=100000 peak RSS (MiB, show's)", 3.9, table_peak("churn-memory", "system")))
rows.append(("2", "course-freelist churn:ops=100000 peak RSS (MiB, show's)", 4.3,
             table_peak("churn-memory", "course-freelist")))
t = medians("fragment", "time")
f = medians("fragment", "frag")
rows.append(("2", "course-freelist fragment, time over glibc's (medians)", 17.3,
             ratio(t, "fragment t=1", "course-freelist")))
rows.append(("3", "course-segregated fragment, time over glibc's (medians)", 7.2,
             ratio(t, "fragment t=1", "course-segregated")))
for plugin, quoted, exercise in (("course-freelist", 1.30, "2"), ("course-segregated", 3.43, "3"), ("system", 1.25, "3")):
    rows.append((exercise, f"{plugin} fragment, fragmentation at the peak", quoted, f.get(("fragment t=1", plugin))))
t = paired("threads")
for key, quoted in (("churn t=1", 0.54), ("churn t=2", 0.52), ("larson t=1", 0.44), ("larson t=2", 0.54),
                    ("xmalloc t=2", 2.24)):
    got = t.get((key, "course-threadcache"))
    rows.append(("4", f"course-threadcache {key}, time over glibc's", quoted, got[0] if got else None,
                 "[%.3f, %.3f]" % got[1:] if got and got[1] else ""))
try:
    ins = {c["plugin"]: c["runs"][0]["values"][0]["instructions_per_op"]
           for c in load(f"{out}/instructions.json")["cells"] if c.get("runs")}
except (OSError, ValueError, KeyError, IndexError):
    ins = {}
for plugin, quoted, exercise in (("system", 189.9, "1"), ("course-bump", 55.0, "1"),
                                 ("course-freelist", 267.3, "2"), ("course-segregated", 72.0, "3"),
                                 ("course-threadcache", 153.5, "4"), ("course-arenas", 249.3, "5"),
                                 ("obmalloc-radix", 242.1, "5")):
    rows.insert(0, (exercise, f"{plugin} churn, instructions an op", quoted, ins.get(plugin)))
py = paired("python")
for plugin, quoted in (("course-arenas", (0.98, 1.05, 0.93)), ("obmalloc-radix", (0.96, 0.98, 0.89)),
                       ("cpython", (0.96, 0.92, 0.74))):
    for bench, q in zip(("nbody", "richards", "json_dumps"), quoted):
        got = py.get((bench, plugin))
        rows.append(("5", f"{plugin} python {bench}, time over glibc's", q, got[0] if got else None,
                     "[%.3f, %.3f]" % got[1:] if got and got[1] else ""))
for name, exercise, quoted in (("bump", "1", None), ("segregated", "3", (0, 372, 67)), ("arenas", "5", (2, 101, 275)),
                               ("radix", "5", (2, 96, None))):
    h = heap(name)
    first = h[0] if h else None
    label = {"bump": "course-bump heap map: regions after 2 values", "segregated": "course-segregated heap map",
             "arenas": "course-arenas heap map", "radix": "obmalloc-radix heap map"}[name]
    if name == "bump":
        rows.append((exercise, label, 13, (h[-1][0] + h[-1][1]) if h else None))
        continue
    rows.append((exercise, label + ": outer regions", quoted[0], first[0] if first else None))
    rows.append((exercise, label + ": inner regions", quoted[1], first[1] if first else None))
    if quoted[2] is not None:
        rows.append((exercise, label + ": blocks split over two lines", quoted[2], first[2] if first else None))

rows.sort(key=lambda r: (r[0], "instructions" not in r[1]))
for line in open(f"{out}/conditions.txt"):
    name, cpus, before, after = line.split()
    print(f"conditions of {name}: {cpus} CPUs, load average {before} before, {after} after")
print("%-3s %-58s %10s %10s  %s" % ("ex", "figure", "quoted", "measured", "95% interval (paired)"))
for exercise, what, quoted, measured, *interval in rows:
    fmt = lambda v: "-" if v is None else ("%.3g" % v if isinstance(v, float) else str(v))
    said = interval[0] if interval else ""
    # A time quoted from an earlier run agrees when this run's interval
    # holds it.
    if said and quoted is not None:
        lo, hi = (float(x) for x in said.strip("[]").split(","))
        said += "  quoted inside" if lo <= quoted <= hi else "  QUOTED OUTSIDE"
    print("%-3s %-58s %10s %10s  %s" % (exercise, what, fmt(quoted), fmt(measured), said))
PY
