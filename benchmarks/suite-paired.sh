#!/usr/bin/env bash
# The default suite paired and unpaired (docs/measurements/paired.md): the
# suite as `alloclab run` runs it (every allocator against glibc, side by
# side in each worker) and as `alloclab run --unpaired` does (each cell in
# processes of its own), one after the other, with their wall times. For
# each row (plugin, workload, threads) against glibc: the 95% interval of
# the ratio, paired (the processes' ratios) and unpaired (the two cells'
# process means, Welch on their logarithms); per workload, the median
# half-width of each and how many rows each resolved.
#   benchmarks/suite-paired.sh [BUILD] [OUT]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "[BUILD] [OUT]" "$@"

start=$(date +%s)
bench_run "$out/paired.json"
mid=$(date +%s)
bench_run "$out/unpaired.json" --unpaired
end=$(date +%s)
echo "default suite: paired $((mid - start)) s, unpaired $((end - mid)) s"

bench_python - "$out/paired.json" "$out/unpaired.json" <<'PY'
import math, statistics, sys
from collections import defaultdict
from alloclab_json import load, ok_cells, pair_logs, process_means
from intervals import mean_half, percent, welch_half

def cells(path):
    return ok_cells(load(path), lambda c: (c["plugin"], c["workload"], c["threads"]))

def log_means(c):
    return [math.log(m) for m in process_means(c)]

paired, unpaired = cells(sys.argv[1]), cells(sys.argv[2])
rows = defaultdict(lambda: {"paired": [], "unpaired": [], "pres": 0, "ures": 0})
for (plugin, wl, t), c in sorted(paired.items()):
    if plugin == "system" or (plugin, wl, t) not in unpaired or ("system", wl, t) not in unpaired:
        continue
    pm, ph = mean_half(pair_logs(c))
    um, uh = welch_half(log_means(unpaired[("system", wl, t)]), log_means(unpaired[(plugin, wl, t)]))
    row = rows[(wl, c["runs"][0].get("pair_ratio") and c.get("pair_design"))]
    row["paired"].append(percent(ph))
    row["unpaired"].append(percent(uh))
    row["pres"] += abs(pm) > ph
    row["ures"] += abs(um) > uh
print(f"{'workload':10} {'design':10} {'rows':>4}  {'paired: median +-':>18} {'resolved':>8}  {'unpaired: median +-':>20} {'resolved':>8}")
for (wl, design), r in sorted(rows.items()):
    print(f"{wl:10} {design:10} {len(r['paired']):4}  {statistics.median(r['paired']):17.2f}% {r['pres']:8}  "
          f"{statistics.median(r['unpaired']):19.2f}% {r['ures']:8}")
PY
