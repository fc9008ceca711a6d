#!/usr/bin/env bash
# What sharing a process costs a plugin (docs/measurements/paired.md): in
# one run, glibc and mimalloc paired (--pair system,mimalloc; in whole
# values, then in a second run in slices of 2,000 operations) and the same
# two plugins measured alone, each cell in processes of its own (as
# system-alone and mimalloc-alone), on churn and unicode at 1 and 2
# threads, processes interleaved as every run's are. For each plugin: its
# time per operation in the pair against alone (the ratio of the cells'
# levels, the means of their process means, with a Welch 95% interval on
# the logarithms), and the pair's ratio against the ratio of the two
# alone cells.
#   benchmarks/pair-interference.sh [alloclab] [output folder] [processes]
set -euo pipefail
alloclab=${1:-build/cli/alloclab}
out=${2:-alloclab-results/pair-interference}
processes=${3:-20}
mkdir -p "$out"
for design in values slices; do
slice=(); [ "$design" = slices ] && slice=(--slice-ops 2000)
"$alloclab" run -q --pair system,mimalloc "${slice[@]}" -p system -p mimalloc -p system:as=system-alone \
	-p mimalloc:as=mimalloc-alone -w churn -w unicode -t 1,2 -n "$processes" -o "$out/$design.json" >/dev/null
echo "== paired in $design"
/usr/bin/python3.11 - "$out/$design.json" <<'PY'
import json, math, statistics, sys

def t95(df):
    T = [0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086]
    return T[df] if df < len(T) else 2.0

doc = json.load(open(sys.argv[1]))
cells = {(c["plugin"], c["workload"], c["threads"]): c for c in doc["cells"] if c["status"] == "ok"}

def logs(c):
    return [math.log(statistics.mean(v["ns_per_op"] for v in r["values"])) for r in c["runs"]]

def welch(a, b):
    m = statistics.mean(b) - statistics.mean(a)
    h = t95(min(len(a), len(b)) - 1) * math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    return math.exp(m), math.exp(m - h), math.exp(m + h)

print(f"{'workload':9} {'t':>2}  {'plugin':9} {'in the pair / alone':>28}   {'mimalloc/system: paired':>26} {'alone':>24}")
for wl in ("churn", "unicode"):
    for t in (1, 2):
        key = lambda p: (p, wl, t)
        if not all(key(p) in cells for p in ("system", "mimalloc", "system-alone", "mimalloc-alone")):
            continue
        pr = [math.log(r["pair_ratio"]) for r in cells[key("mimalloc")]["runs"]]
        pm, ph = statistics.mean(pr), t95(len(pr) - 1) * statistics.stdev(pr) / math.sqrt(len(pr))
        alone = welch(logs(cells[key("system-alone")]), logs(cells[key("mimalloc-alone")]))
        for p in ("system", "mimalloc"):
            r, lo, hi = welch(logs(cells[key(p + "-alone")]), logs(cells[key(p)]))
            tail = (f"{math.exp(pm):8.4f} [{math.exp(pm - ph):.4f} .. {math.exp(pm + ph):.4f}] "
                    f"{alone[0]:8.4f} [{alone[1]:.4f} .. {alone[2]:.4f}]") if p == "system" else ""
            print(f"{wl:9} {t:2}  {p:9} {r:8.4f} [{lo:.4f} .. {hi:.4f}]   {tail}")
PY
done
