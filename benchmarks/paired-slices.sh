#!/usr/bin/env bash
# How long a paired slice should be (docs/measurements/paired.md): an A/A
# pair (glibc against a second instance of itself) and a real one
# (mimalloc against glibc) measured side by side in slices of different
# lengths, and in whole values, at 1 and 2 threads; for each, the ratio
# with its 95% interval and the spread of the processes' ratios (the
# standard deviation of their logarithms, in percent). Shorter slices
# share the machine's moments more closely (a smaller spread), but every
# switch costs the caches a little: a cost both plugins pay alike pulls
# the real pair's ratio toward 1, which whole values (the plugins' caches
# their own for a whole value) do not.
#   benchmarks/paired-slices.sh [BUILD] [OUT] [processes]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args "[BUILD] [OUT] [processes]" "$@"
processes=${3:-10}
printf '%-12s %-3s %-20s %8s %-19s %8s\n' "slice ops" "t" "pair" "ratio" "95% interval" "spread"
for slice in 1000 2000 5000 20000 100000 0; do
	bench_run "$out/slice-$slice.json" --paired -p system -p system:as=system-B -p mimalloc -w churn -t 1,2 \
		-n "$processes" --slice-ops "$slice"
	bench_python - "$out/slice-$slice.json" "$slice" <<'PY'
import math, statistics, sys
from alloclab_json import load, pair_logs
from intervals import mean_half, percent
doc = load(sys.argv[1])
label = "whole values" if sys.argv[2] == "0" else sys.argv[2]
for c in sorted(doc["cells"], key=lambda c: (c["threads"], c["plugin"])):
    if c["plugin"] == "system":
        continue
    logs = pair_logs(c)
    m, h = mean_half(logs)
    print(f"{label:<12} {c['threads']:<3} {c['plugin'] + ' / system':<20} {math.exp(m):8.4f} "
          f"{math.exp(m - h):8.4f} .. {math.exp(m + h):7.4f} {percent(statistics.stdev(logs)):7.2f}%")
PY
done
