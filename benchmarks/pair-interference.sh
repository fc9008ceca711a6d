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
#   benchmarks/pair-interference.sh [BUILD] [OUT] [processes]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "[BUILD] [OUT] [processes]" "$@"
processes=${3:-20}
for design in values slices; do
slice=(); [ "$design" = slices ] && slice=(--slice-ops 2000)
bench_run "$out/$design.json" --pair system,mimalloc "${slice[@]}" -p system -p mimalloc -p system:as=system-alone \
	-p mimalloc:as=mimalloc-alone -w churn -w unicode -t 1,2 -n "$processes"
echo "== paired in $design"
bench_python - "$out/$design.json" <<'PY'
import math, sys
from alloclab_json import load, ok_cells, pair_logs, process_means
from intervals import mean_half, ratio_interval, welch_half

cells = ok_cells(load(sys.argv[1]), lambda c: (c["plugin"], c["workload"], c["threads"]))

def logs(c):
    return [math.log(m) for m in process_means(c)]

def welch(a, b):
    return ratio_interval(*welch_half(a, b))

print(f"{'workload':9} {'t':>2}  {'plugin':9} {'in the pair / alone':>28}   {'mimalloc/system: paired':>26} {'alone':>24}")
for wl in ("churn", "unicode"):
    for t in (1, 2):
        key = lambda p: (p, wl, t)
        if not all(key(p) in cells for p in ("system", "mimalloc", "system-alone", "mimalloc-alone")):
            continue
        pm, ph = mean_half(pair_logs(cells[key("mimalloc")]))
        alone = welch(logs(cells[key("system-alone")]), logs(cells[key("mimalloc-alone")]))
        for p in ("system", "mimalloc"):
            r, lo, hi = welch(logs(cells[key(p + "-alone")]), logs(cells[key(p)]))
            tail = (f"{math.exp(pm):8.4f} [{math.exp(pm - ph):.4f} .. {math.exp(pm + ph):.4f}] "
                    f"{alone[0]:8.4f} [{alone[1]:.4f} .. {alone[2]:.4f}]") if p == "system" else ""
            print(f"{wl:9} {t:2}  {p:9} {r:8.4f} [{lo:.4f} .. {hi:.4f}]   {tail}")
PY
done
