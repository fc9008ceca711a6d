#!/usr/bin/env bash
# The default suite paired and unpaired (docs/measurements/paired.md): the
# suite as `alloclab run` runs it (every allocator against glibc, side by
# side in each worker) and as `alloclab run --unpaired` does (each cell in
# processes of its own), one after the other, with their wall times. For
# each row (plugin, workload, threads) against glibc: the 95% interval of
# the ratio, paired (the processes' ratios) and unpaired (the two cells'
# process means, Welch on their logarithms); per workload, the median
# half-width of each and how many rows each resolved.
#   benchmarks/suite-paired.sh [alloclab] [output folder]
set -euo pipefail
alloclab=${1:-build/cli/alloclab}
out=${2:-alloclab-results/suite-paired}
mkdir -p "$out"

start=$(date +%s)
"$alloclab" run -q -o "$out/paired.json" >/dev/null
mid=$(date +%s)
"$alloclab" run -q --unpaired -o "$out/unpaired.json" >/dev/null
end=$(date +%s)
echo "default suite: paired $((mid - start)) s, unpaired $((end - mid)) s"

/usr/bin/python3.11 - "$out/paired.json" "$out/unpaired.json" <<'PY'
import json, math, statistics, sys
from collections import defaultdict

T95 = [0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]
def t95(df):
    return T95[df] if df < len(T95) else 2.0

def cells(path):
    doc = json.load(open(path))
    return {(c["plugin"], c["workload"], c["threads"]): c for c in doc["cells"] if c["status"] == "ok"}

def log_mean(run):
    return math.log(statistics.mean(v["ns_per_op"] for v in run["values"]))

paired, unpaired = cells(sys.argv[1]), cells(sys.argv[2])
rows = defaultdict(lambda: {"paired": [], "unpaired": [], "pres": 0, "ures": 0})
for (plugin, wl, t), c in sorted(paired.items()):
    if plugin == "system" or (plugin, wl, t) not in unpaired or ("system", wl, t) not in unpaired:
        continue
    logs = [math.log(r["pair_ratio"]) for r in c["runs"]]
    n = len(logs)
    ph = t95(n - 1) * statistics.stdev(logs) / math.sqrt(n)
    a = [log_mean(r) for r in unpaired[("system", wl, t)]["runs"]]
    b = [log_mean(r) for r in unpaired[(plugin, wl, t)]["runs"]]
    uh = t95(min(len(a), len(b)) - 1) * math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    um = statistics.mean(b) - statistics.mean(a)
    pm = statistics.mean(logs)
    row = rows[(wl, c["runs"][0].get("pair_ratio") and c.get("pair_design"))]
    row["paired"].append(100 * (math.exp(ph) - 1))
    row["unpaired"].append(100 * (math.exp(uh) - 1))
    row["pres"] += abs(pm) > ph
    row["ures"] += abs(um) > uh
print(f"{'workload':10} {'design':10} {'rows':>4}  {'paired: median +-':>18} {'resolved':>8}  {'unpaired: median +-':>20} {'resolved':>8}")
for (wl, design), r in sorted(rows.items()):
    print(f"{wl:10} {design:10} {len(r['paired']):4}  {statistics.median(r['paired']):17.2f}% {r['pres']:8}  "
          f"{statistics.median(r['unpaired']):19.2f}% {r['ures']:8}")
PY
